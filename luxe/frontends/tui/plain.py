"""`luxe --plain`: the interface for screen readers. Labelled plain lines,
never a cursor movement, colour or redraw.

Output is one record per finished thing, labelled: `you:`, `luxe:`,
`thinking:`, `tool:`, `Permission Required:`, `Question:`, `error:`. A
record's first line starts with its label; every further line of it (the
lines of the model's answer, of a multi-line prompt or error) starts with
spaces, so text from a model, a provider or a file can never pass for a
label line (`say`, luxe.controls.record). Input
is the terminal's own line editing (canonical mode, echo on): a line is a
prompt (or a steer while the agent works, or a slash command, or `!cmd`),
the answer to a waiting permission prompt (`y`, `a`, `n` and an optional
note), to a question (a number, your own text, or an empty line to
dismiss) or to a GitHub write's confirmation (`y`, `n`, or `e` and a new
title). Ctrl+D or /exit leaves; Ctrl+C is the terminal's interrupt, which
ends the session cleanly. Same actions, same events as every front end.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from luxe.controls import record
from luxe.engine.file_change import hunk_lines
from luxe.frontends.server_notices import ServerNotices
from luxe.frontends.tui import commands
from luxe.frontends.tui.controller import Controller
from luxe.frontends.tui.history import History, history_file
from luxe.frontends.tui.markdown import BlockStream, inline, render_block
from luxe.frontends.tui.person import Dispatch, PersonFace
from luxe.frontends.tui.table import spoken_rows
from luxe.frontends.tui.text import TAB, clean, plain_text
from luxe.frontends.tui.view import ViewState, apply, is_github_event, key_arg
from luxe.protocol import actions as act
from luxe.protocol import events as ev

if TYPE_CHECKING:
    from luxe.frontends.tui.github_writes import Confirmation

WIDTH = 10_000  # the terminal wraps; a screen reader reads whole lines
# What starts every line of a record after its first (docs/interface.md,
# "Reading --plain"): a label line never starts with a space.
CONTINUATION = "  "

# The most diff lines a permission prompt says before "N more".
PLAIN_DIFF_LINES = 60


class PlainInterface(PersonFace):
    def __init__(
        self, *, cwd: Path, state_dir: Path, config_dir: Path, env: Mapping[str, str],
        trust_project: bool = False, first_prompt: str | None = None, output_fd: int = 1,
        input_fd: int = 0,
    ) -> None:
        self.cwd = cwd
        self.state = ViewState()
        self.first_prompt = first_prompt
        self.input_fd = input_fd
        self.out_fd = os.dup(output_fd)
        self._history = History.load(history_file(state_dir, cwd))
        self._command_warnings = commands.configure(cwd, config_dir, trust_project)
        self._stream = BlockStream()
        self._thinking = ""
        self._tools: dict[str, str] = {}
        self._servers = ServerNotices()  # its own: the view's has already taken the news
        self.controller: Controller | None = None

    # -- output -----------------------------------------------------------------

    def say(self, text: str, indent: str = CONTINUATION) -> None:
        """Write `text` as one record (luxe.controls.record): a line break in
        it starts a continuation line, which no label line looks like."""
        data = (record(text.replace("\t", TAB), indent) + "\n").encode("utf-8", "replace")
        while data:
            try:
                data = data[os.write(self.out_fd, data):]
            except BlockingIOError:
                continue
            except OSError:
                return

    def release(self) -> None:
        """Nothing to give back: this face never changes the terminal."""
        return None

    def handshake(self, events: list[ev.Event]) -> None:
        for event in events:
            self._show(event)

    async def serve_output(
        self, events: trio.MemoryReceiveChannel[ev.Event], on_broken: Callable[[], None]
    ) -> None:
        async with events:
            async for event in events:
                self._show(event)
                if self.controller is not None:
                    await self.controller.after_event(event)
                self._print_commits()
        os.close(self.out_fd)

    def _print_commits(self) -> None:
        for commit in self.state.take_commits():
            for line in commit(WIDTH):
                text = plain_text(line).rstrip()
                if text:
                    self.say(text)

    def _say_change(self, diff: str) -> None:
        """A permission prompt's change, line by line (a screen reader reads
        what is approved): the diff without its file header, at most
        PLAIN_DIFF_LINES lines."""
        lines = hunk_lines(diff)
        self.say(f"Change ({len(lines)} diff lines):")
        for line in lines[:PLAIN_DIFF_LINES]:
            self.say(f"  {line}")
        if len(lines) > PLAIN_DIFF_LINES:
            self.say(f"  ... {len(lines) - PLAIN_DIFF_LINES} more diff lines")

    def _flush_text(self) -> None:
        if self._thinking.strip():
            first = self._thinking.strip().split("\n", 1)[0]
            self.say(f"thinking: {first}")
            self._thinking = ""
        for block in self._stream.finish():
            self._block(block)

    def _block(self, block: str) -> None:
        # A table is read row by row, each cell named by its column: a screen
        # reader reading box drawing says nothing useful.
        spoken = spoken_rows(clean(block).split("\n"), inline)
        if spoken is not None:
            lines = spoken
        else:
            lines = [plain_text(line).rstrip() for line in render_block(block, WIDTH)]
            lines = [line for line in lines if line.strip("─")]  # a rule says nothing
        lines = [line.strip() for line in lines if line]
        if lines:
            self.say("luxe: " + "\n".join(lines), indent=" " * len("luxe: "))

    def _show(self, event: ev.Event) -> None:
        before = (self.state.status.mode, self.state.status.permission_mode, self.state.status.model)
        asking = self.state.github.confirm
        apply(self.state, event, trio.current_time() if _in_trio() else 0.0)
        if is_github_event(event):
            # GitHub's answers and previews are lines already.
            self._print_commits()
            if self.state.github.confirm is not None and self.state.github.confirm is not asking:
                self._ask(self.state.github.confirm)
            return
        self.state.take_commits()  # this face says things its own way
        s = self.state.status
        if isinstance(event, ev.Ready):
            self.say(f"luxe: ready in {event.cwd}. Type a prompt; /help lists commands.")
            for warning in self._command_warnings:
                self.say(f"luxe: {warning}")
        elif isinstance(event, ev.StateChanged):
            after = (s.mode, s.permission_mode, s.model)
            if after != before:
                mode = "plan" if s.mode == "plan" else s.permission_mode
                self.say(f"status: mode {mode}, model {s.model}")
        elif isinstance(event, ev.TurnStarted):
            self.say(f"you: {event.text}")
        elif isinstance(event, ev.ThinkingDelta):
            self._thinking += event.delta
        elif isinstance(event, ev.TokenDelta):
            for block in self._stream.feed(event.delta):
                self._block(block)
        elif isinstance(event, ev.ToolStarted):
            self._flush_text()
            self._tools[event.call_id] = key_arg(event.name, dict(event.args))
            self.say(f"tool: {event.name} {self._tools[event.call_id]}: running")
        elif isinstance(event, ev.ToolFinished):
            arg = self._tools.pop(event.call_id, "")
            result = "denied" if event.denied else "failed" if event.is_error else "done"
            self.say(f"tool: {event.name} {arg}: {result}" + (f", {event.summary}" if event.summary else ""))
        elif isinstance(event, ev.PermissionRequested):
            self._flush_text()
            scope = "this exact command" if event.tool == "bash" else "this file" if event.tool in ("write", "edit") else "this exact call"
            self.say(f"Permission Required: {event.tool} wants to run: {key_arg(event.tool, dict(event.args))}. {event.reason}")
            if event.diff:
                self._say_change(event.diff)
            self.say(f"Type y to allow once, a to always allow {scope} in this session, n to reject (n and a note tells the agent why).")
        elif isinstance(event, ev.PermissionResolved):
            self.say(f"permission: {event.reply}")
        elif isinstance(event, ev.DiagnosticsServers):
            for notice in self._servers.news(event):
                self.say(f"diagnostics: {notice}")
        elif isinstance(event, ev.QuestionAsked):
            self._flush_text()
            self.say(f"Question: {event.question}")
            for i, option in enumerate(event.options, 1):
                self.say(f"  {i}. {option}")
            self.say("Type a number, or your own answer; an empty line dismisses.")
        elif isinstance(event, ev.QuestionResolved):
            answered = "; ".join(str(a) for a in event.reply.get("answered", [])) or "dismissed"
            self.say(f"answer: {answered}")
        elif isinstance(event, ev.TurnEnded):
            self._flush_text()
            self._tools.clear()
            if event.reason == "end_turn":
                self.say("luxe: done.")
            else:
                self.say(f"turn ended: {event.reason}" + (f": {event.error}" if event.error else ""))
        elif isinstance(event, ev.Error):
            self.say(f"error: {event.message}")
        elif isinstance(event, ev.ActionRejected):
            if not (event.kind == "steer_turn" and "no turn is running" in event.reason):
                self.say(f"refused: {event.reason}")
        elif isinstance(event, ev.SessionInfo):
            what = "new session" if event.messages == 0 else f"resumed session ({event.messages} messages)"
            self.say(f"status: {what} {event.session_id}")
        elif isinstance(event, ev.SessionsListed):
            for summary in event.sessions[:30]:
                self.say(f"session: {summary.id}, {summary.messages} messages, {summary.title}")
        elif isinstance(event, ev.MessagesListed):
            for message in event.messages:
                who = "you" if message.role == "user" else "luxe"
                if message.text.strip():
                    self.say(f"earlier, {who}: " + " ".join(message.text.split()))
                for tool in message.tools:
                    self.say(f"earlier, tool: {tool}")
            self.say("status: resumed here")
        elif isinstance(event, ev.Compacted):
            self.say(f"status: compacted {event.tokens_before} to {event.tokens_after} tokens")

    def _ask(self, asked: Confirmation) -> None:
        title = ", e and a new title to change the title" if asked.title is not None else ""
        self.say(f"Confirm: {plain_text(asked.heading).lstrip('◆ ')}")
        self.say(f"Type y to {asked.yes}{title}, n to cancel (nothing is written).")

    # -- input ------------------------------------------------------------------

    async def read(self, dispatch: Dispatch) -> None:
        self.controller = controller = Controller(self.state, dispatch, self._history, self.cwd, _NoScreen())
        await controller.show_history()
        if self.first_prompt:
            await self._line(controller, self.first_prompt)
        buffer = b""
        while controller.running:
            await trio.lowlevel.wait_readable(self.input_fd)
            try:
                data = os.read(self.input_fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                return
            if not data:
                return  # Ctrl+D
            buffer += data
            while b"\n" in buffer and controller.running:
                raw, buffer = buffer.split(b"\n", 1)
                await self._line(controller, raw.decode("utf-8", "replace").rstrip("\r"))

    async def _line(self, controller: Controller, line: str) -> None:
        s = self.state
        if s.permissions:
            asked = s.permissions[0]
            choice, _, note = line.strip().partition(" ")
            reply = {"y": "once", "a": "always", "n": "reject"}.get(choice.lower())
            if reply is None:
                self.say("Type y, a or n (n and a note tells the agent why).")
                return
            await controller.dispatch(act.RespondPermission(asked.id, reply, note.strip() or None))  # type: ignore[arg-type]
            return
        if s.github.confirm is not None and not s.questions:
            from luxe.frontends.tui import github_writes

            choice, _, title = line.strip().partition(" ")
            if choice.lower() == "e" and title.strip() and s.github.confirm.title is not None:
                github_writes.retitle(s.github.confirm, title.strip())
                self._ask(s.github.confirm)
            elif choice.lower() in ("y", "n") and not title:
                await github_writes.answer(controller, choice.lower() == "y")
                self._print_commits()
            else:
                self._ask(s.github.confirm)
            return
        if s.questions:
            asked_q = s.questions[0]
            text = line.strip()
            if not text:
                await controller.dispatch(act.AnswerQuestion(asked_q.id, {"dismissed": True}))
            elif text.isdigit() and 0 < int(text) <= len(asked_q.options):
                await controller.dispatch(act.AnswerQuestion(asked_q.id, {"answered": [asked_q.options[int(text) - 1]]}))
            else:
                await controller.dispatch(act.AnswerQuestion(asked_q.id, {"answered": [text]}))
            return
        if s.busy and line.strip() and not line.startswith(("/", "!")):
            self.say(f"you (steering): {line}")
        s.editor.set(line)
        await controller.key_enter()
        self._print_commits()


class _NoScreen:
    """Plain mode has no suspend, external editor or panes of its own."""

    async def suspend(self) -> None:
        return None

    async def edit_externally(self, text: str) -> str | None:
        return None

    def redraw(self) -> None:
        return None

    def show_beside(self, path: str, lines: tuple[int, int] | None, diff: bool) -> None:
        return None


def _in_trio() -> bool:
    try:
        trio.lowlevel.current_task()
    except RuntimeError:
        return False
    return True
