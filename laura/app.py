"""The host: tabs, focus, rendering and the nursery tree.

    trio.run(run_host)
    └── host nursery
        ├── input task   (console bytes -> events -> bindings -> a command,
        │                 a prompt, or the focused pane's child)
        ├── signal task  (SIGWINCH -> relayout; SIGTERM/SIGHUP/SIGINT -> quit)
        ├── file poller  (every FILE_POLL_INTERVAL: reload panes whose file changed)
        ├── render task  (waits for "dirty", caps at ~60 fps, writes changed cells)
        └── one task per tab, owning in its own nursery:
            ├── the PTY child (open_terminal: killed and reaped on exit)
            ├── the PTY reader (Terminal.run: bytes -> emulator -> dirty)
            └── the socket server (serve_tab: one task per connection)

All state lives in this trio thread. It changes only in the input, signal,
poller and connection tasks (each ends with `changed()`: relayout, then ask
for a frame) and in the PTY reader (the emulator; `mark_dirty()` when its tab
is on view or its child rang). The render task only reads: `draw()` is a
projection of the state. Socket requests apply synchronously in their
connection task, so the UI never waits for a client and a client never waits
for the UI. A tab's task ends when its child exits (or it is closed); the
host ends when the last tab has gone.
"""

from __future__ import annotations

import gc
import math
import os
import secrets
import signal
import sys
import time
from collections.abc import Awaitable, Callable

import trio

import hidden_environ
from laura import chrome, commands, layout, memory
from laura.alerts import outer_alerts
from laura.bindings import Bindings
from laura.console import Console, open_console
from laura.emulator import Emulator
from laura.hosted_env import hosted_environment
from laura.keys import Event
from laura.layout import SHELL
from laura.panes.read_budget import ReadBudget
from laura.panes.shell import ShellPane
from laura.panes.watch import digest_ahead
from laura.prefetch import prefetch
from laura.protocol import Error, Rect, encode_response
from laura.render.canvas import Canvas, frame_diff
from laura.review_ui import ReviewUI
from laura.server import serve_tab
from laura.settings import load_settings
from laura.spool import runtime_dir
from laura.tab import Tab, TabRuntime, inner
from laura.terminal import SpawnError, open_terminal
from laura.vt import VirtualTerminal

FRAME_INTERVAL = 1 / 60
TOAST_SECONDS = 4.0
# File panes poll their files this often (a stat each; no inotify in the stdlib).
FILE_POLL_INTERVAL = 0.25
# The interpreter's switch interval (see `run_host`).
SWITCH_INTERVAL = 0.001


def default_shell() -> list[str]:
    return [os.environ.get("SHELL") or "/bin/sh"]



def _runtime_refused(reason: str) -> None:
    """The host owns the terminal: a runtime directory it passed over (another
    user's `laura`, another user's link) is told in host.log."""
    from laura.hostlog import log_event

    log_event("runtime_dir_refused", reason=reason)

class Host:
    """Owns every tab and the user's terminal (see the module docstring);
    the `Workspace` that commands and bindings act on."""

    def __init__(
        self,
        console: Console,
        first_command: list[str],
        emulator_factory: Callable[[int, int, Callable[[bytes], None]], Emulator] = VirtualTerminal,
    ) -> None:
        self.console = console
        self.first_command = first_command
        self.emulator_factory = emulator_factory
        self.cwd = os.getcwd()
        self.nonce = secrets.token_hex(8)
        self.runtime = str(runtime_dir(refused=_runtime_refused))
        self.tabs: list[TabRuntime] = []
        self.active = 0
        self.tab_counter = 0
        self.mode: str | None = None  # "panes" | "tabs" | "quit" | "help" | "rename"
        self.locked = False
        self.outer_focused = True  # until the user's terminal says otherwise
        self.typed = ""
        self.toast: tuple[str, float] | None = None
        self.exit_code = 0
        self._dirty = trio.Event()
        self._previous: Canvas | None = None
        self._nursery: trio.Nursery | None = None
        self._started_any = False
        self.review_ui = ReviewUI()
        self.bindings = Bindings(self, self.review_ui)
        self.failure: str | None = None  # why a tab could not start
        self.settings = load_settings()
        # What the file panes of every tab read together.
        self.read_budget = ReadBudget(self.settings.read_budget)

    # --- lifecycle -------------------------------------------------------------

    async def run(self) -> int:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self.console.read_events, self._on_input)
            nursery.start_soon(self._signals)
            nursery.start_soon(self._render_loop)
            nursery.start_soon(self._poll_files)
            await nursery.start(self._run_tab, self.first_command)
        return self.exit_code

    def quit(self, code: int = 0) -> None:
        self.exit_code = code
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()

    def new_tab(self) -> None:
        if self._nursery is not None:
            self._nursery.start_soon(self._run_tab, default_shell())

    def close_tab(self) -> None:
        """End the active tab's task (its child is hung up and reaped)."""
        if self.tabs:
            self.tabs[self.active].scope.cancel()

    def switch_tab(self, step: int) -> None:
        if self.tabs:
            self.active = (self.active + step) % len(self.tabs)

    def _on_input(self, events: list[Event]) -> None:
        self.bindings.handle_events(events)
        self.changed()

    async def _run_tab(
        self, argv: list[str], task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Run one tab until its child exits or it is closed; then remove it
        (and quit when it was the last). Owns the child, reader and socket."""
        number = self.tab_counter
        self.tab_counter += 1
        name = f"laura-{os.getpid()}-{self.nonce}-{number}"
        tab = Tab(number, name, self.cwd, session=f"laura-{os.getpid()}-{number}")
        tab.area = self.area()
        tab.runtime = self.runtime
        runtime = TabRuntime(tab)
        env = hosted_environment(os.environ, name, self.runtime)
        shell_inner = inner(tab.rects()[SHELL])
        started = False
        try:
            with runtime.scope:
                async with open_terminal(
                    argv,
                    env,
                    shell_inner.height,
                    shell_inner.width,
                    self.emulator_factory,
                    self.cwd,
                ) as terminal:
                    tab.shell = ShellPane(terminal)
                    terminal.on_output = lambda: self._tab_output(runtime)
                    async with trio.open_nursery() as nursery:
                        tab.loader.cap = self.settings.max_file_bytes
                        tab.loader.budget = self.read_budget
                        tab.loader.attach(nursery, self.changed)
                        await nursery.start(serve_tab, name, self._answerer(tab))
                        self.tabs.append(runtime)
                        self.active = len(self.tabs) - 1
                        self._started_any = True
                        self.changed()
                        task_status.started()
                        started = True
                        await terminal.run()
                        nursery.cancel_scope.cancel()
        except SpawnError as exc:
            # A tab that cannot start is a message, not a crash.
            self.failure = str(exc)
            self.show_toast(self.failure)
            if not started:
                task_status.started()
            if not self.tabs:
                self.exit_code = 1
                self._started_any = True
        finally:
            tab.loader.detach()
            tab.close_all()
            memory.give_back()  # the tab's jobs have ended: what its panes held is freed
            if runtime in self.tabs:
                index = self.tabs.index(runtime)
                self.tabs.remove(runtime)
                if self.active > index or self.active >= len(self.tabs):
                    self.active = max(self.active - 1, 0)
            if not self.tabs and self._started_any:
                self.quit(self.exit_code)
            self.changed()

    def _answerer(self, tab: Tab) -> Callable[[bytes], Awaitable[bytes]]:
        async def answer(line: bytes) -> bytes:
            tab.area = self.area()
            try:
                await prefetch(tab, line)
                tab.area = self.area()
                reply = commands.answer(tab, line)
            except Exception as exc:  # a bug must cost one request, never the host
                reply = encode_response(Error(f"internal error: {type(exc).__name__}: {exc}"))
            finally:
                tab.loader.forget_offers()
            self.changed()
            return reply

        return answer

    async def _poll_files(self) -> None:
        """Reload (or freeze) file panes whose files changed on disk; runs
        until the host's nursery is cancelled (polls hold no handles)."""
        while True:
            await trio.sleep(FILE_POLL_INTERVAL)
            # A file just written is hashed in steps first; the tabs are
            # read again after it (one may have closed meanwhile).
            await digest_ahead([pane.watch for runtime in self.tabs for pane in runtime.tab.panes.values()])
            if any(runtime.tab.poll_files() for runtime in list(self.tabs)):
                self.changed()

    async def _signals(self) -> None:
        signals = (signal.SIGWINCH, signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
        with trio.open_signal_receiver(*signals) as received:
            async for signum in received:
                if signum == signal.SIGWINCH:
                    self._previous = None  # repaint everything at the new size
                    self.changed()
                else:
                    self.quit(128 + signum)

    # --- geometry and rendering -------------------------------------------------

    def area(self) -> Rect:
        width, height = self.console.size()
        return Rect(0, 1, width, max(height - 2, 1))

    def relayout(self) -> None:
        """Give every tab the current area, size each PTY to pane 0's inner
        rect and settle every file pane's view in its rect."""
        area = self.area()
        for runtime in self.tabs:
            tab = runtime.tab
            tab.area = area
            if tab.shell is not None:
                tab.shell.fit(inner(tab.rects()[SHELL]))
            tab.fit_panes()

    def mark_dirty(self) -> None:
        """Ask for a frame (the child's output changed its screen)."""
        self._dirty.set()

    def _tab_output(self, runtime: TabRuntime) -> None:
        """A tab's child wrote: ask for a frame if the tab is on view, or if
        its child rang or notified (alerts go out with a frame). Only the
        current tab is drawn, so a flood in another tab costs no drawing."""
        shell = runtime.tab.shell
        if (runtime in self.tabs and self.tabs[self.active] is not runtime
                and (shell is None or not shell.emulator.alerts)):
            return
        self.mark_dirty()

    def changed(self) -> None:
        """The state changed (a key, a request, a reload, a tab came or went,
        the terminal was resized): lay every tab out again, then ask for a
        frame. Drawing only reads what this leaves."""
        self.relayout()
        self.mark_dirty()

    async def _render_loop(self) -> None:
        """Redraw when something changed, at most once per FRAME_INTERVAL."""
        last = -FRAME_INTERVAL
        cost = 0.0
        while True:
            # A toast disappears on its own: wake up when it expires.
            deadline = self.toast[1] if self.toast is not None else math.inf
            if deadline <= trio.current_time():
                deadline = math.inf
            with trio.move_on_at(deadline):
                await self._dirty.wait()
            # Never spend more than about a fifth of the loop drawing: under a
            # flood the PTY reader gets the rest, and keys are never starved.
            await trio.sleep_until(last + max(FRAME_INTERVAL, 4 * cost))
            self._dirty = trio.Event()
            started = time.perf_counter()
            self._report_focus()
            tab = self.current()
            if tab is not None and tab.shell is not None:
                tab.shell.take_view()  # the emulator's screen, read once per frame
            frame = self.draw()
            alerts = self._take_alerts()
            previous, self._previous = self._previous, frame
            if previous is not None and not alerts and frame.same_as(previous):
                # Nothing to show (a key went to the child, whose echo is
                # still on its way): this frame spends none of the frame
                # budget, so the echo is drawn the moment it arrives.
                continue
            last = trio.current_time()
            output = frame_diff(previous, frame) + alerts
            cost = time.perf_counter() - started
            await self.console.write(output)

    def _report_focus(self) -> None:
        """Each tab's child learns (if it asked) whether the person is on it:
        the user's terminal focused, its tab current, and its pane focused."""
        for index, runtime in enumerate(self.tabs):
            tab = runtime.tab
            if tab.shell is not None:
                tab.shell.report_focus(
                    self.outer_focused and index == self.active and tab.focus == SHELL
                )

    def _take_alerts(self) -> str:
        """Bells and notifications of every tab's child, for the user's
        terminal (where the person is)."""
        alerts = [
            alert
            for runtime in self.tabs
            if runtime.tab.shell is not None
            for alert in runtime.tab.shell.emulator.take_alerts()
        ]
        return outer_alerts(alerts)

    def current(self) -> Tab | None:
        return self.tabs[self.active].tab if self.tabs else None

    def draw(self) -> Canvas:
        width, height = self.console.size()
        canvas = Canvas(width, height)
        labels = [
            f"{i + 1}:{r.tab.label}" if r.tab.label else str(i + 1) for i, r in enumerate(self.tabs)
        ]
        chrome.draw_tab_bar(canvas, labels, self.active, self.locked)
        tab = self.current()
        if tab is not None:
            for pane_id, rect in tab.rects().items():
                focused = pane_id == tab.focus
                if pane_id == SHELL:
                    title = tab.shell.emulator.title if tab.shell is not None else ""
                    chrome.draw_border(canvas, rect, focused, title)
                    if tab.shell is not None:
                        tab.shell.draw(canvas, inner(rect), focused and self.mode is None)
                else:
                    pane = tab.panes[pane_id]
                    chrome.draw_border(canvas, rect, focused, pane.title(self.cwd, inner(rect)))
                    pane.draw(canvas, inner(rect), focused, self.cwd)
            self.review_ui.draw(canvas, tab)
        chrome.draw_footer(canvas, self.hint())
        if self.toast is not None:
            text, until = self.toast
            if trio.current_time() < until:  # an expired toast is just not drawn
                chrome.draw_toast(canvas, text)
        if self.mode == "panes" and tab is not None:
            entries = [
                (pid, "shell" if pid == SHELL else os.path.basename(tab.panes[pid].path))
                for pid in layout.order(tab.tree)
            ]
            chrome.draw_panes_popup(canvas, entries, self.typed)
            canvas.cursor = None
        elif self.mode == "help":
            chrome.draw_help(canvas)
            canvas.cursor = None
        elif self.mode == "rename":
            chrome.draw_box(canvas, "rename tab", [(self.typed, chrome.POPUP)], 40)
        return canvas

    def hint(self) -> str:
        if self.locked:
            return chrome.HINT_LOCKED
        hints = {
            "quit": chrome.HINT_QUIT,
            "panes": chrome.HINT_PANES,
            "tabs": chrome.HINT_TABS,
            "rename": chrome.HINT_RENAME,
            "help": chrome.HINT_HELP,
        }
        if self.mode in hints:
            return hints[self.mode]
        tab = self.current()
        if tab is not None:
            review_hint = self.review_ui.hint(tab, self.console.size()[0])
            if review_hint is not None:
                return review_hint
        if tab is not None and tab.focus != SHELL:
            return chrome.HINT_FILE
        return chrome.HINT_SHELL

    def show_toast(self, text: str) -> None:
        self.toast = (text, trio.current_time() + TOAST_SECONDS)


async def run_host(command: list[str] | None) -> int:
    """Run the full-screen host; returns its exit status."""
    # The scrollback keeps ~10k lines of objects alive, and a flood allocates
    # fast; with the default thresholds the collector rescans them constantly
    # (measured with pyte: feeding was 2x slower), so full passes are rare
    # (one per 100M allocations). Each young or middle pass holds the loop,
    # so neither generation may grow big: at (50,000, 20, 100), laying out
    # 7 MB of markdown made a 229 ms middle pass; at (20,000, 5, 1,000) the
    # longest passes were 11 ms (young) and 17 ms (middle). Young passes
    # much smaller than that (5,000) traverse a big list still young, such
    # as a million-line file's lines, too often: keys waited 100-130 ms
    # while such a file loaded (under 45 ms at 20,000). So nothing big may
    # wait for a full pass to be freed: a closed pane lets go of its file,
    # and a document, its colouring and its views refer to nothing that
    # refers back to them (tests/laura/test_pane_memory.py).
    gc.set_threshold(20_000, 5, 1_000)
    # A worker thread running Python (a markdown file's first parse) keeps
    # the interpreter until the loop has waited a switch interval for it,
    # after every read, write or hash that let it go: each costs up to 5 ms
    # by default (a profile of the file poll: open, read and hash, 5 ms
    # each). At 1 ms, keys while 400 KB of markdown list items opened and
    # laid out: p99 29-35 ms, against 43-56 at 5 ms (docs/performance.md).
    sys.setswitchinterval(SWITCH_INTERVAL)
    # Before any tab's program runs: no process of the user reads Laura's
    # environment or memory (/proc/<laura>/environ, mem; ptrace). A hosted
    # agent's tool call would find the provider's key there, and the files
    # and review comments of every pane. Tabs still get the key. In this
    # order: a non-dumpable process may no longer write its own memory
    # through /proc, which blanking the key's original value does.
    hidden_environ.hide(hidden_environ.credential_variables(os.environ))
    hidden_environ.not_dumpable()
    async with open_console() as console:
        host = Host(console, command or default_shell())
        code = await host.run()
    if host.failure and code:
        print(f"Error: {host.failure}", file=sys.stderr)
    return code
