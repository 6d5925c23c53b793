"""The host: tabs, focus, key bindings, rendering and the nursery tree.

    trio.run(run_host)
    └── host nursery
        ├── input task   (console bytes -> events -> focused pane / command)
        ├── signal task  (SIGWINCH -> relayout; SIGTERM/SIGHUP -> quit)
        ├── render task  (waits for "dirty", caps at ~60 fps, writes changed cells)
        └── one task per tab, owning in its own nursery:
            ├── the PTY child (open_terminal: killed and reaped on exit)
            ├── the PTY reader (Terminal.run: bytes -> emulator -> dirty)
            └── the socket server (serve_tab: one task per connection)

All state lives in this trio thread; socket requests apply synchronously in
their connection task, so the UI never waits for a client and a client never
waits for the UI. A tab's task ends when its child exits (or it is closed);
the host ends when the last tab has gone.
"""

from __future__ import annotations

import gc
import math
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable

import trio

from laura import chrome, layout
from laura.alerts import outer_alerts
from laura.bindings import Bindings
from laura.console import Console, open_console
from laura.emulator import Emulator
from laura.layout import SHELL
from laura.panes.review import ReviewUI
from laura.panes.shell import ShellPane
from laura.protocol import Error, Rect, encode_response
from laura.render.canvas import Canvas, frame_diff
from laura.server import serve_tab
from laura.spool import runtime_dir
from laura.tab import Tab, inner
from laura.terminal import SpawnError, open_terminal
from laura.vt import VirtualTerminal

FRAME_INTERVAL = 1 / 60
TOAST_SECONDS = 4.0
# File panes poll their files this often (a stat each; no inotify in the stdlib).
FILE_POLL_INTERVAL = 0.25


def default_shell() -> list[str]:
    return [os.environ.get("SHELL") or "/bin/sh"]


class TabRuntime:
    """A Tab plus what the host runs for it."""

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.scope = trio.CancelScope()


class Host(Bindings):
    """Owns every tab and the user's terminal (see the module docstring)."""

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
        self.runtime = str(runtime_dir())
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
        self.failure: str | None = None  # why a tab could not start

    # --- lifecycle -------------------------------------------------------------

    async def run(self) -> int:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self.console.read_events, self.handle_events)
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
        env = dict(os.environ)
        env.update(LAURA_TAB=name, LAURA_RUNTIME=self.runtime, TERM="xterm-256color")
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
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
                    terminal.on_output = self.mark_dirty
                    async with trio.open_nursery() as nursery:
                        await nursery.start(serve_tab, name, self._answerer(tab))
                        self.tabs.append(runtime)
                        self.active = len(self.tabs) - 1
                        self._started_any = True
                        self.mark_dirty()
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
            tab.discard_all_spools()
            if runtime in self.tabs:
                index = self.tabs.index(runtime)
                self.tabs.remove(runtime)
                if self.active > index or self.active >= len(self.tabs):
                    self.active = max(self.active - 1, 0)
            if not self.tabs and self._started_any:
                self.quit(self.exit_code)
            self.mark_dirty()

    def _answerer(self, tab: Tab) -> Callable[[bytes], bytes]:
        def answer(line: bytes) -> bytes:
            tab.area = self.area()
            try:
                reply = tab.answer(line)
            except Exception as exc:  # a bug must cost one request, never the host
                reply = encode_response(Error(f"internal error: {type(exc).__name__}: {exc}"))
            self.relayout()
            self.mark_dirty()
            return reply

        return answer

    async def _poll_files(self) -> None:
        """Reload (or freeze) file panes whose files changed on disk; runs
        until the host's nursery is cancelled (polls hold no handles)."""
        while True:
            await trio.sleep(FILE_POLL_INTERVAL)
            if any(runtime.tab.poll_files() for runtime in list(self.tabs)):
                self.mark_dirty()

    async def _signals(self) -> None:
        signals = (signal.SIGWINCH, signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
        with trio.open_signal_receiver(*signals) as received:
            async for signum in received:
                if signum == signal.SIGWINCH:
                    self._previous = None  # repaint everything at the new size
                    self.relayout()
                    self.mark_dirty()
                else:
                    self.quit(128 + signum)

    # --- geometry and rendering -------------------------------------------------

    def area(self) -> Rect:
        width, height = self.console.size()
        return Rect(0, 1, width, max(height - 2, 1))

    def relayout(self) -> None:
        """Give every tab the current area and size each PTY to pane 0's inner rect."""
        area = self.area()
        for runtime in self.tabs:
            tab = runtime.tab
            tab.area = area
            if tab.shell is not None:
                tab.shell.fit(inner(tab.rects()[SHELL]))

    def mark_dirty(self) -> None:
        self._dirty.set()

    async def _render_loop(self) -> None:
        """Redraw when something changed, at most once per FRAME_INTERVAL."""
        last = -FRAME_INTERVAL
        cost = 0.0
        while True:
            # A toast disappears on its own: wake up when it expires.
            deadline = self.toast[1] if self.toast is not None else math.inf
            with trio.move_on_at(deadline):
                await self._dirty.wait()
            # Never spend more than about a fifth of the loop drawing: under a
            # flood the PTY reader gets the rest, and keys are never starved.
            await trio.sleep_until(last + max(FRAME_INTERVAL, 4 * cost))
            self._dirty = trio.Event()
            last = trio.current_time()
            started = time.perf_counter()
            self.relayout()
            self._report_focus()
            frame = self.draw()
            output = frame_diff(self._previous, frame) + self._take_alerts()
            self._previous = frame
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
                    panel = tab.panels[pane_id]
                    chrome.draw_border(canvas, rect, focused, panel.title(self.cwd, inner(rect)))
                    panel.draw(canvas, inner(rect), focused)
            self.review_ui.draw(canvas, tab)
        chrome.draw_footer(canvas, self.hint())
        if self.toast is not None:
            text, until = self.toast
            if trio.current_time() < until:
                chrome.draw_toast(canvas, text)
            else:
                self.toast = None
        if self.mode == "panes" and tab is not None:
            entries = [
                (pid, "shell" if pid == SHELL else os.path.basename(tab.panels[pid].path))
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
    # (measured with pyte: feeding was 2x slower). Collect less often.
    gc.set_threshold(50_000, 20, 100)
    async with open_console() as console:
        host = Host(console, command or default_shell())
        code = await host.run()
    if host.failure and code:
        print(f"Error: {host.failure}", file=sys.stderr)
    return code
