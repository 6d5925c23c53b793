"""The interface's front end: terminal in, events in, frames out.

`Interface` is a FrontEnd (luxe.frontends.face), as --rpc's and -p's are:

    show_prompt()               the prompt, before the engine is imported
    handshake(events)           the first events (before the loop runs)
    refused(reason)             a refused start: the terminal given back first
    serve_output(events, ...)   the event consumer and renderer; owns the
                                terminal and restores it when it returns,
                                raises or is cancelled
    serve_input(actions, stop)  the key reader; sets stop when the person leaves

The prompt is drawn by show_prompt before the engine, trio and blessed are
imported, and the status line by the handshake, as soon as the session is
known (as `ready` is for --rpc). Only light modules load here.

Ownership: `serve` runs in the root nursery and ends when the event channel
closes (after the session closed), so the last events are drawn before the
terminal is restored. `read` runs in the session nursery; its return sets the
session's stop. Frames are coalesced to at most 30 a second (a keystroke is
drawn at once); nothing runs on a timer unless something animates.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import private_files
from luxe.frontends.tui.draw import live_rows
from luxe.frontends.tui.live import LiveRegion
from luxe.frontends.tui.person import Dispatch, PersonFace
from luxe.frontends.tui.terminal import MODES_OFF, Tty
from luxe.frontends.tui.text import Palette, palette_for, with_cursor
from luxe.frontends.tui.view import ViewState, apply
from luxe.protocol import events as ev
from luxe.record import state

if TYPE_CHECKING:
    import trio

    from luxe.frontends.tui.controller import Controller
    from luxe.hosting.panes import LauraPanes

log = logging.getLogger("luxe.tui")

FRAME_S = 1 / 30
SPINNER_S = 0.1
ESC_WAIT_S = 0.05
BRANCH_TIMEOUT_S = 2.0  # for the status line's branch
BRANCH_CAP = 4096
NO_SUSPEND = (
    "Ctrl+Z: no shell started luxe here to resume it (`fg`), so it does not stop;"
    " Ctrl+D leaves"
)


class Interface(PersonFace):
    def __init__(
        self,
        *,
        cwd: Path,
        state_dir: Path,
        config_dir: Path,
        env: Mapping[str, str],
        trust_project: bool = False,
        first_prompt: str | None = None,
        pick_session: bool = False,
        input_fd: int = 0,
        output_fd: int = 1,
    ) -> None:
        self.cwd = cwd
        self.env = dict(env)
        self.tty = Tty(input_fd, output_fd, self.env.get("LUXE_TUI_WRITE_LOG") or None)
        self.palette: Palette = palette_for(self.env, False, _colours(self.env))
        self.state = ViewState()
        self.live = LiveRegion()
        self.first_prompt = first_prompt
        self.pick_session = pick_session
        self.config_dir, self.trust_project = config_dir, trust_project
        # Read with the first key, not before the first frame.
        self.state_dir = state_dir
        self._stdio = _StdioToLog(state_dir / "luxe.log")
        self._urgent = False
        self._suspended = False
        self._entered = False
        self._sync: _Sync | None = None
        self.controller: Controller | None = None
        # Inside a Laura tab: its socket, for `ready` and panes beside us.
        self.laura: LauraPanes | None = None
        self._panes_nursery: trio.Nursery | None = None

    # -- the handshake ----------------------------------------------------------

    def _loop_state(self) -> _Sync:
        """The loop's synchronisation objects, made once by whichever of
        serve_output and serve_input runs first (trio is not loaded before)."""
        if self._sync is None:
            import trio

            self._sync = _Sync(trio.Event(), trio.Event(), trio.Event(), trio.Lock())
        return self._sync

    def show_prompt(self) -> None:
        """Take the terminal and draw the prompt now, before the engine is
        even imported (luxe.frontends.tui.entry): keys typed meanwhile wait
        in the terminal. The status line stays empty until the handshake
        says what the session is; a refused start gives the terminal back
        (`refused`) before it says why."""
        self._draw_now()

    def handshake(self, events: list[ev.Event]) -> None:
        """The handshake: the session's first events, drawn now (blocking,
        before the event loop exists)."""
        for event in events:
            apply(self.state, event, 0.0)
        self._draw_now()

    def _draw_now(self) -> None:
        self._stdio.enter()
        try:
            if not self._entered:
                self.tty.write_blocking(self.tty.enter())
                self._entered = True
            self.tty.write_blocking(self._frame(time.monotonic()))
        except OSError as exc:
            log.info("terminal not usable (%s)", exc)

    # -- events and drawing -----------------------------------------------------

    async def serve_output(
        self, events: trio.MemoryReceiveChannel[ev.Event], on_broken: Callable[[], None]
    ) -> None:
        """Consume events and draw until the channel closes; the terminal is
        in our modes only inside this call."""
        import trio

        self._loop_state()
        try:
            self.tty.open_stream()
            if not self._entered:
                await self.tty.write(self.tty.enter())
                self._entered = True
            self._loop_state().ready.set()
            async with trio.open_nursery() as nursery:
                self._host_in_laura(nursery)
                nursery.start_soon(self._find_branch)
                nursery.start_soon(self._render_loop)
                nursery.start_soon(self._watch_resize)
                async with events:
                    async for first in events:
                        now = trio.current_time()
                        for event in [first, *_drain(events)]:
                            apply(self.state, event, now)
                            await self._after(event)
                        self._mark()
                # The session has closed: draw what it said last, then stop.
                await self._draw()
                nursery.cancel_scope.cancel()
        except (OSError, trio.BrokenResourceError) as exc:
            log.info("terminal gone (%s)", exc)
            on_broken()
        finally:
            self.release()
            with trio.CancelScope(shield=True):
                await self.tty.aclose()

    def release(self) -> None:
        """Give the terminal back: erase the live region, modes off, stdio
        back. Idempotent; luxe.frontends.tui.entry calls it after the run
        too, for a run that failed before serve_output started."""
        if self._entered:
            self._entered = False
            self._restore()
        self._stdio.leave()

    async def _after(self, event: ev.Event) -> None:
        if self.controller is not None:
            await self.controller.after_event(event)

    def _mark(self, urgent: bool = False) -> None:
        """Ask for a frame; `urgent` (a keystroke) cuts the frame interval short."""
        self._urgent = self._urgent or urgent
        self._loop_state().dirty.set()
        if urgent:
            self._loop_state().wake_now.set()

    async def _render_loop(self) -> None:
        import trio

        sync = self._loop_state()
        last = -1.0
        while True:
            animating = bool(self.state.status.streaming or self.state.tools)
            if animating:
                with trio.move_on_after(SPINNER_S):
                    await sync.dirty.wait()
            else:
                await sync.dirty.wait()
            sync.dirty = trio.Event()
            wait = last + FRAME_S - trio.current_time()
            if wait > 0 and not self._urgent:
                # Coalesce event-driven frames; a keystroke meanwhile draws at once.
                with trio.move_on_after(wait):
                    await sync.wake_now.wait()
            self._urgent = False
            sync.wake_now = trio.Event()
            await self._draw()
            last = trio.current_time()

    async def _draw(self) -> None:
        if self._suspended:
            return
        import trio

        async with self._loop_state().lock:
            await self.tty.write(self._frame(trio.current_time()))

    def _frame(self, now: float) -> str:
        """This frame's bytes: the commits taken from the state, then the
        live region as the state projects it."""
        width, height = self.tty.size()
        commits: list[str] = []
        for commit in self.state.take_commits():
            commits.extend(self.palette.render(line) for line in commit(max(width - 1, 10)))
        rows, (row, col) = live_rows(self.state, width, height, now)
        if 0 <= row < len(rows):
            rows[row] = with_cursor(rows[row], col)
        rendered = [self.palette.render(r) for r in rows]
        data = self.live.frame(rendered, (max(len(rendered) - 1, 0), 0), commits)
        if self.state.notify:
            self.state.notify = False
            data += "\x1b]9;luxe: the turn ended\x07" if _osc9(self.env) else "\x07"
        return data

    def _host_in_laura(self, nursery: trio.Nursery) -> None:
        """Inside a Laura tab: tell it an agent reads this input (so the
        person's review can be submitted here), in the background; a Laura
        that does not answer costs one log line."""
        if not self.env.get("LAURA_TAB"):
            return
        from luxe.hosting.panes import hosted_panes

        self.laura = hosted_panes(self.env, self.cwd, show_edits=False)
        self._panes_nursery = nursery
        if self.laura is not None:
            nursery.start_soon(self.laura.announce_ready)

    def show_beside(self, path: str, lines: tuple[int, int] | None, diff: bool) -> None:
        if self.laura is not None and self._panes_nursery is not None:
            self._panes_nursery.start_soon(self.laura.follow, "review", path, lines, diff)

    async def _find_branch(self) -> None:
        from luxe.git_read import git_read

        try:
            done = await git_read(
                "symbolic-ref", "--short", "-q", "HEAD",
                cwd=self.cwd, timeout_s=BRANCH_TIMEOUT_S, stdout_cap=BRANCH_CAP,
            )  # fmt: skip
        except OSError:
            return
        if done is None or done.returncode != 0:
            return
        self.state.status.branch = done.stdout.decode("utf-8", "replace").strip()
        self._mark()

    async def _watch_resize(self) -> None:
        import trio

        with trio.open_signal_receiver(signal.SIGWINCH) as signals:
            async for _ in signals:
                async with self._loop_state().lock:
                    width, _ = self.tty.size()
                    self.live.reflowed(width)
                self._mark(urgent=True)

    def _restore(self) -> None:
        """Erase the live region and put the terminal back (blocking writes:
        this runs on every exit path, even when the loop is being torn down)."""
        self.tty.write_blocking(self.live.erase() + MODES_OFF)
        self.tty.leave_modes()

    # -- keys -----------------------------------------------------------------------

    async def read(self, dispatch: Dispatch) -> None:
        """Read keys until the person leaves (Ctrl+C twice, Ctrl+D, /exit)."""
        import blessed
        import trio

        from luxe.frontends.tui import commands
        from luxe.frontends.tui.controller import Controller
        from luxe.frontends.tui.keys import Key, KeyDecoder
        from luxe.protocol import actions as act

        self._loop_state()
        await self._loop_state().ready.wait()
        for warning in commands.configure(self.cwd, self.config_dir, self.trust_project):
            self.state.commit_text(warning, "warn")
        from luxe.frontends.tui.history import History, history_file

        history = History.load(history_file(self.state_dir, self.cwd))
        self.controller = controller = Controller(self.state, dispatch, history, self.cwd, self)
        await controller.show_history()
        if self.pick_session:
            self.state.sessions_wanted = "resume"
            await dispatch(act.ListSessions())
        if self.first_prompt:
            self.state.editor.set(self.first_prompt)
            await controller.key(Key("KEY_ENTER"))
        self._mark(urgent=True)
        term = blessed.Terminal(
            kind=self.env.get("TERM") or "xterm-256color", stream=io.StringIO(), force_styling=True
        )
        decoder = KeyDecoder(term)
        fd = self.tty.input_fd
        while controller.running:
            if decoder.pending:
                with trio.move_on_after(ESC_WAIT_S) as scope:
                    await trio.lowlevel.wait_readable(fd)
                if scope.cancelled_caught:
                    for event in decoder.flush():
                        await controller.key(event)
                    self._mark(urgent=True)
                    continue
            else:
                await trio.lowlevel.wait_readable(fd)
            try:
                data = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            except OSError:
                return
            if not data:
                return
            for event in decoder.feed(data):
                await controller.key(event)
                if not controller.running:
                    break
            self._mark(urgent=True)

    # -- the Screen seam --------------------------------------------------------------

    async def suspend(self) -> None:
        """Ctrl+Z: give the terminal back, stop, and take it again on `fg`;
        where no shell could `fg` luxe, say so and carry on instead."""
        import trio  # noqa: F401 -- already loaded: the loop runs

        from luxe.frontends.tui.job_control import resumable, stop_job

        if not resumable():
            self.state.commit_text(NO_SUSPEND, "warn")
            self._mark(urgent=True)
            return
        async with self._loop_state().lock:
            self._suspended = True
            self._restore()
            # Its wrappers in the job too (`sh -c 'luxe; …'`): stopped alone,
            # luxe left the wrapper waiting and the shell with it, frozen.
            stop_job()
            await self.tty.write(self.tty.enter())
            self.live.forget()
            self._suspended = False
        self._mark(urgent=True)

    def redraw(self) -> None:
        """Ctrl+L: the next frame goes to the region's top and draws it whole."""
        self.live.reflowed(self.tty.size()[0])
        self._mark(urgent=True)

    async def edit_externally(self, text: str) -> str | None:
        """Ctrl+G: the draft in $VISUAL/$EDITOR; None if it failed."""
        import shlex
        import tempfile

        import trio

        from luxe import children

        editor = self.env.get("VISUAL") or self.env.get("EDITOR") or "vi"
        async with self._loop_state().lock:
            self._suspended = True
            self._restore()
            try:
                with tempfile.NamedTemporaryFile("w+", suffix=".md", delete=False, encoding="utf-8") as f:
                    f.write(text)
                    path = f.name
                try:
                    await trio.to_thread.run_sync(
                        lambda: children.run([*shlex.split(editor), path], capture=False)
                    )
                    return await trio.Path(path).read_text(encoding="utf-8")
                finally:
                    with contextlib.suppress(OSError):
                        os.unlink(path)
            except (OSError, ValueError) as exc:
                self.state.notice = f"$EDITOR failed: {exc}"
                return None
            finally:
                await self.tty.write(self.tty.enter())
                self.live.forget()
                self._suspended = False


@state
class _Sync:
    """The render loop's wake-ups and the lock that orders writes to the terminal."""

    ready: trio.Event  # the terminal is ours: keys may be read
    dirty: trio.Event  # something changed: draw a frame
    wake_now: trio.Event  # a keystroke: draw without waiting for the frame interval
    lock: trio.Lock


class _StdioToLog:
    """While the interface draws, Python's stdout and stderr (a stray print,
    a warning) go to the log file instead of between the frames."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._saved: tuple[TextIO, TextIO] | None = None
        self._file: TextIO | None = None

    def enter(self) -> None:
        """Idempotent: a second call while entered changes nothing."""
        if self._saved is not None:
            return
        try:
            # luxe.log, as app._setup_logging opens it ($XDG_STATE_HOME/luxe/).
            self._file = private_files.open_append(self.path, self.path.parents[1])
        except OSError:
            return
        self._saved = (sys.stdout, sys.stderr)
        sys.stdout = sys.stderr = self._file

    def leave(self) -> None:
        if self._saved is not None and self._file is not None:
            sys.stdout, sys.stderr = self._saved
            self._file.close()
            self._saved = self._file = None


def _drain(events: trio.MemoryReceiveChannel[ev.Event]) -> list[ev.Event]:
    """Events already waiting (applied together, drawn once)."""
    import trio

    out: list[ev.Event] = []
    for _ in range(512):
        try:
            out.append(events.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            break
    return out


def _osc9(env: Mapping[str, str]) -> bool:
    program = env.get("TERM_PROGRAM", "")
    return program in ("iTerm.app", "WezTerm") or "kitty" in env.get("TERM", "")


def _colours(env: Mapping[str, str]) -> int:
    """Colours the terminal has, from the environment (no terminfo load at
    startup): 256 for *-256color and truecolor terminals, else 16, 0 for dumb."""
    term = env.get("TERM", "")
    if env.get("COLORTERM", "") in ("truecolor", "24bit") or "256" in term:
        return 256
    return 0 if term in ("", "dumb") else 16
