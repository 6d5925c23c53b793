"""What keys do: the interface's input side, turning keys into editor changes
and protocol actions.

`Controller.key(event)` handles one key or paste; `after_event(event)` runs
what an event makes due (the queue's next message when a turn ends). Every
action goes through `dispatch`, the same RpcActions.dispatch `--rpc` uses;
nothing here reaches into the engine. What needs the terminal itself (Ctrl+Z,
$EDITOR) goes through the `Screen` seam the front end implements.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from luxe.frontends.tui import commands
from luxe.frontends.tui.history import Browse, History
from luxe.frontends.tui.keys import Event, Focus, Key, Paste
from luxe.frontends.tui.path_completion import ProjectFiles
from luxe.frontends.tui.view import RESUME_MESSAGES, ViewState, flush_text
from luxe.protocol import Action
from luxe.protocol import actions as act
from luxe.protocol import events as ev
from luxe.protocol import review as rv
from luxe.protocol.laura_review import is_review

Dispatch = Callable[[Action], Awaitable[bool]]

# What a Laura review pasted over a draft sets the draft aside as.
REVIEW_ASIDE = "laura-review"

# Two Ctrl+C presses within this many seconds exit.
DOUBLE_PRESS_S = 2.0
PERMISSION_MODES = ("ask", "accept-edits", "plan")


class Screen(Protocol):
    """What the controller needs from the terminal's owner."""

    async def suspend(self) -> None: ...

    async def edit_externally(self, text: str) -> str | None: ...

    def redraw(self) -> None:
        """Draw the live region again from its top (Ctrl+L)."""
        ...

    def show_beside(self, path: str, lines: tuple[int, int] | None, diff: bool) -> None:
        """Show a file in the one review pane beside the interface when it
        runs in a Laura tab (in the background; nothing otherwise)."""
        ...


class Controller:
    def __init__(
        self, state: ViewState, dispatch: Dispatch, history: History, cwd: Path, screen: Screen
    ) -> None:
        self.state = state
        self.dispatch = dispatch
        self.history = history
        self.browse = Browse(history)
        self.cwd = cwd
        self._files = ProjectFiles(cwd)
        self.screen = screen
        self.running = True
        self._last_ctrl_c = 0.0
        # Steers sent and not yet known to be refused: a steer that races the
        # turn's end is refused, and its text then goes out as a message.
        self._steers: list[str] = []
        # The draft is exactly one paste into an empty editor (Laura types a
        # person's review this way, with a CR after it): Enter then queues it
        # while a turn runs instead of steering with it.
        self._whole_paste = False

    # -- events from the session ----------------------------------------------

    async def show_history(self) -> None:
        """A resumed session: ask for its last messages (messages_listed draws them)."""
        if self.state.history_wanted:
            self.state.history_wanted = False
            await self.dispatch(act.ListMessages(RESUME_MESSAGES))

    async def after_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.SessionInfo):
            await self.show_history()
        if isinstance(event, rv.GuidedReviewLoaded):
            from luxe.frontends.tui import review

            review.show_chapter(self)
        if isinstance(event, ev.TurnStarted):
            self._steers.clear()
        if isinstance(event, ev.ActionRejected) and event.kind == "steer_turn" and self._steers:
            text = self._steers.pop(0)
            if self.state.busy:
                self.state.queue.insert(0, text)
            else:
                await self._send(text)
            return
        if isinstance(event, ev.TurnEnded) and self.state.queue and self.state.queue_cursor is None:
            if event.reason == "cancelled":
                return
            text = self.state.queue.pop(0)
            if text.startswith("!") and text[1:].strip():
                await self.dispatch(act.RunShell(text[1:].strip()))
            else:
                await self._send(text)

    # -- keys -----------------------------------------------------------------

    async def key(self, event: Event) -> None:
        s = self.state
        if isinstance(event, Focus):
            s.focused = event.focused
            return
        whole_paste, self._whole_paste = self._whole_paste, False
        if whole_paste and s.set_aside is not None and s.set_aside[0] == REVIEW_ASIDE:
            # The key after a Laura review: its Enter sends it on its own,
            # then the draft is back (any other key: the review joins it).
            review = s.editor.text
            s.give_draft_back(REVIEW_ASIDE)
            enter = isinstance(event, Key) and event.name == "KEY_ENTER"
            if enter and not (s.permissions or s.questions):
                await self._send_review(review)
                self._changed()
                return
            s.editor.paste(review)
        if isinstance(event, Paste):
            if is_review(event.text) and s.editor.text.strip() and s.set_aside is None:
                # A review is a prompt of its own: typed into a draft, it
                # would become part of it (after `!`, a shell command).
                s.set_draft_aside(REVIEW_ASIDE)
            self._whole_paste = not s.editor.text
            s.editor.paste(event.text)
            self._changed()
            return
        if whole_paste and event.name == "KEY_ENTER" and s.busy and not s.permissions:
            await self._queue_paste()
            return
        if s.permissions and not s.feedback:
            await self._permission_key(event)
            return
        if s.questions:
            await self._question_key(event)
            return
        if s.github.confirm is not None:
            from luxe.frontends.tui import github_writes

            await github_writes.confirm_key(self, event)
            return
        if s.picker:
            await self._picker_key(event)
            return
        if s.queue_cursor is not None:
            self._queue_key(event)
            return
        if s.search is not None:
            self._search_key(event)
            return
        await self._editor_key(event)

    async def editor_key(self, key: Key) -> None:
        """A key for the editor alone (a prompt that edits text borrows it)."""
        await self._editor_key(key)

    async def _editor_key(self, key: Key) -> None:
        s, e = self.state, self.state.editor
        name = key.name
        if name != "KEY_CTRL_C":
            self._last_ctrl_c = 0.0
        if name is None:
            e.insert(key.text)
            self._changed()
        elif name == "KEY_ENTER":
            if e.text[: e.cursor].endswith("\\"):
                e.backspace()
                e.newline()
            elif s.completions and s.completions[0].startswith("@"):
                self._accept_completion()  # takes the file; a second Enter sends
            elif s.completions and commands.completes_on_enter(e.text):
                self._accept_completion()
                await self._enter()
            else:
                await self._enter()
        elif name in ("KEY_NEWLINE", "KEY_SHIFT_ENTER", "KEY_ALT_ENTER"):
            e.newline()
        elif name == "KEY_TAB":
            if s.completions:
                self._accept_completion()
            elif s.busy and e.text.strip():
                self._queue_draft()
            else:
                await self._complete()
        elif name == "KEY_BTAB":
            await self._cycle_mode()
        elif name == "KEY_ESCAPE":
            if s.completions:
                s.completions = []
            elif s.permissions and s.feedback:
                await self._answer_permission("reject", None)
            elif s.busy:
                await self.dispatch(act.CancelTurn())
                self._restore_queue()
        elif name == "KEY_CTRL_C":
            await self._ctrl_c()
        elif name == "KEY_CTRL_D":
            if not e.text and not s.busy:
                self.running = False
            else:
                e.delete()
        elif name == "KEY_CTRL_Z":
            await self.screen.suspend()
        elif name == "KEY_CTRL_G":
            edited = await self.screen.edit_externally(e.expanded())
            if edited is not None:
                e.clear()
                e.set(edited.rstrip("\n"))
        elif name == "KEY_ALT_T":
            levels = ("off", "low", "medium", "high")
            current = s.status.thinking if s.status.thinking in levels else "off"
            await self.dispatch(act.SetThinking(levels[(levels.index(current) + 1) % len(levels)]))  # type: ignore[arg-type]
        elif name == "KEY_CTRL_T":
            s.show_thinking = not s.show_thinking
            s.notice = "thinking shown" if s.show_thinking else "thinking collapsed"
        elif name == "KEY_CTRL_O":
            self._show_output()
        elif name == "KEY_CTRL_R":
            s.search, s.search_hit = "", None
            self.browse.draft = e.text
        elif name == "KEY_CTRL_L":
            self.screen.redraw()
        elif name in ("KEY_UP", "KEY_DOWN") and s.completions:
            step = -1 if name == "KEY_UP" else 1
            s.completion_index = (s.completion_index + step) % min(len(s.completions), 8)
        elif name == "KEY_UP":
            if s.busy and s.queue and not e.text:
                s.queue_cursor = len(s.queue) - 1
            elif not e.up():
                older = self.browse.older(e.text)
                if older is not None:
                    e.set(older)
        elif name == "KEY_DOWN":
            if not e.down():
                newer = self.browse.newer()
                if newer is not None:
                    e.set(newer)
        else:
            self._readline(name)
            self._changed()

    def _readline(self, name: str) -> None:
        e = self.state.editor
        actions = {
            "KEY_LEFT": e.left, "KEY_RIGHT": e.right, "KEY_CTRL_B": e.left, "KEY_CTRL_F": e.right,
            "KEY_HOME": e.home, "KEY_END": e.end, "KEY_CTRL_A": e.home, "KEY_CTRL_E": e.end,
            "KEY_BACKSPACE": e.backspace, "KEY_CTRL_H": e.backspace, "KEY_DELETE": e.delete,
            "KEY_CTRL_K": e.kill_to_end, "KEY_CTRL_U": e.kill_to_start, "KEY_CTRL_W": e.kill_word,
            "KEY_ALT_BACKSPACE": e.kill_word, "KEY_CTRL_Y": e.yank,
            "KEY_ALT_B": e.word_left, "KEY_ALT_F": e.word_right,
            "KEY_CTRL_LEFT": e.word_left, "KEY_CTRL_RIGHT": e.word_right,
            "KEY_ALT_LEFT": e.word_left, "KEY_ALT_RIGHT": e.word_right,
        }
        action = actions.get(name)
        if action is not None:
            action()

    def _changed(self) -> None:
        """After an edit: refresh completions for a slash command or @path."""
        s, e = self.state, self.state.editor
        s.notice = ""
        if commands.completable(e.text):
            s.completions = commands.complete(e.text, self.cwd)
            s.completion_index = 0
        elif s.completions:
            s.completions = []

    async def _complete(self) -> None:
        s, e = self.state, self.state.editor
        start, token = e.token_at_cursor()
        if token.startswith("@"):
            found = await self._files.matching(token[1:])
            if len(found) == 1:
                e.replace_token(start, "@" + found[0] + " ")
            elif found:
                s.completions = ["@" + f for f in found[:8]]
                s.completion_index = 0
        elif commands.completable(e.text):
            s.completions = commands.complete(e.text, self.cwd)

    def _accept_completion(self) -> None:
        s, e = self.state, self.state.editor
        choice = s.completions[s.completion_index % len(s.completions)]
        s.completions = []
        if choice.startswith("@"):
            start, _ = e.token_at_cursor()
            e.replace_token(start, choice + " ")
        else:
            e.set(choice.split("  ", 1)[0] + " ")

    async def _send_review(self, review: str) -> None:
        """A Laura review, sent as it is sent from an empty editor: queued
        while the agent works, else a prompt."""
        self.history.add(review)
        if self.state.busy:
            self.state.queue.append(review)
        else:
            await self._send(review)

    async def _queue_paste(self) -> None:
        """A pasted block submitted while the agent works becomes the next
        prompt, shown in the queue (editable until it is sent), byte for byte."""
        text = self.state.editor.take()
        if text.strip():
            self.history.add(text)
            self.state.queue.append(text)
        self._changed()

    async def key_enter(self) -> None:
        """Enter on the draft (for front ends without keys: --plain)."""
        await self._enter()

    async def _enter(self) -> None:
        s, e = self.state, self.state.editor
        text = e.take()
        self.browse.reset()
        s.completions = []
        if s.permissions and s.feedback:
            await self._answer_permission("reject", text.strip() or None)
            return
        if not text.strip():
            return
        self.history.add(text)
        if text.startswith("/"):
            await commands.run(self, text)
            return
        s.confirming = None
        if text.startswith("!") and text[1:].strip():
            if s.busy:
                s.queue.append(text)
            else:
                await self.dispatch(act.RunShell(text[1:].strip()))
            return
        if s.editing_queued is not None:
            s.queue.insert(min(s.editing_queued, len(s.queue)), text)
            s.editing_queued = None
            return
        if s.busy:
            self._steers.append(text)
            s.commit_lines([[("↳ ", "prompt"), ("steer: ", "dim"), (text.replace("\n", " ⏎ ")[:200], "user")]])
            await self.dispatch(act.SteerTurn(text))
            return
        await self._send(text)

    async def _send(self, text: str) -> None:
        attachments = commands.attachments(text, self.cwd)
        await self.dispatch(
            act.SubmitUserMessage(text, [act.Attachment(p) for p in attachments] or None)
        )

    def _queue_draft(self) -> None:
        s = self.state
        text = s.editor.take()
        if s.editing_queued is not None:
            s.queue.insert(min(s.editing_queued, len(s.queue)), text)
            s.editing_queued = None
        else:
            s.queue.append(text)

    def _restore_queue(self) -> None:
        """Esc: the queued messages come back into the editor, in order."""
        s = self.state
        if not s.queue:
            return
        parts = [*s.queue, s.editor.expanded()] if s.editor.text else list(s.queue)
        s.queue.clear()
        s.editor.set("\n".join(p for p in parts if p))

    async def _ctrl_c(self) -> None:
        s, e = self.state, self.state.editor
        now = time.monotonic()
        if s.busy:
            # Cancelling and clearing never arm the exit: only an empty prompt does.
            await self.dispatch(act.CancelTurn())
            self._last_ctrl_c = 0.0
            return
        if e.text:
            e.clear()
            s.completions = []
            self._last_ctrl_c = 0.0
            return
        if now - self._last_ctrl_c < DOUBLE_PRESS_S:
            self.running = False
            return
        self._last_ctrl_c = now
        s.notice = "press Ctrl+C again to exit"

    async def _cycle_mode(self) -> None:
        s = self.state.status
        current = "plan" if s.mode == "plan" else s.permission_mode
        if current not in PERMISSION_MODES:
            self.state.notice = f"permission mode {current} is fixed for this session"
            return
        following = PERMISSION_MODES[(PERMISSION_MODES.index(current) + 1) % len(PERMISSION_MODES)]
        if following == "plan":
            await self.dispatch(act.SetMode("plan"))
        else:
            if s.mode == "plan":
                await self.dispatch(act.SetMode("build"))
            await self.dispatch(act.SetPermissionMode(following))  # type: ignore[arg-type]

    def _show_output(self) -> None:
        s = self.state
        if s.last_output is None:
            s.notice = "no tool output to show yet"
            return
        title, output = s.last_output
        from luxe.frontends.tui.draw import clean_lines

        lines = [[("── ", "dim"), (title[:80], "tool"), (" ──", "dim")]]
        lines.extend([[("  ", ""), (line, "")] for line in clean_lines(output)])
        s.commit_lines(lines)

    def _show_change(self, asked: ev.PermissionRequested) -> None:
        """The whole change a permission prompt previews, into the transcript."""
        from luxe.frontends.tui.view import change_rows, key_arg

        if asked.diff is None and asked.tool not in ("write", "edit"):
            self.state.notice = "this call changes no file"
            return
        title = f"{asked.tool} {key_arg(asked.tool, asked.args)}"[:80]
        self.state.commits.append(lambda width: [
            [("── ", "dim"), (title, "tool"), (" ──", "dim")],
            *change_rows(asked.tool, asked.args, asked.diff, width, limit=None),
        ])

    # -- prompts ----------------------------------------------------------------

    async def _permission_key(self, key: Key) -> None:
        choice = (key.text or "").lower() if key.name is None else None
        if choice == "y":
            await self._answer_permission("once", None)
        elif choice == "a":
            await self._answer_permission("always", None)
        elif choice == "n":
            self.state.feedback = True
            self.state.set_draft_aside(self.state.permissions[0].id)
        elif key.name == "KEY_ESCAPE":
            await self._answer_permission("reject", None)
        elif key.name == "KEY_CTRL_O":
            self._show_change(self.state.permissions[0])
        elif key.name == "KEY_CTRL_C":
            await self.dispatch(act.CancelTurn())

    async def _answer_permission(self, reply: str, message: str | None) -> None:
        s = self.state
        if not s.permissions:
            return
        asked = s.permissions[0]
        s.feedback = False
        await self.dispatch(act.RespondPermission(asked.id, reply, message))  # type: ignore[arg-type]

    async def _question_key(self, key: Key) -> None:
        s = self.state
        asked = s.questions[0]
        count = len(asked.options) + 1
        other = s.question_cursor == len(asked.options)
        if key.name == "KEY_UP":
            s.question_cursor = (s.question_cursor - 1) % count
        elif key.name == "KEY_DOWN":
            s.question_cursor = (s.question_cursor + 1) % count
        elif key.name == "KEY_ESCAPE":
            await self.dispatch(act.AnswerQuestion(asked.id, {"dismissed": True}))
        elif key.name == "KEY_CTRL_C":
            await self.dispatch(act.CancelTurn())
        elif key.name == "KEY_ENTER":
            if other:
                text = s.editor.take().strip()
                if text:
                    await self.dispatch(act.AnswerQuestion(asked.id, {"answered": [text]}))
                return
            chosen = sorted(s.question_marked) if asked.multiple and s.question_marked else [s.question_cursor]
            await self.dispatch(act.AnswerQuestion(asked.id, {"answered": [asked.options[i] for i in chosen]}))
        elif other:
            s.set_draft_aside(asked.id)
            await self._editor_key(key)
        elif key.name is None and key.text == " " and asked.multiple:
            s.question_marked ^= {s.question_cursor}
        elif key.name is None and key.text.isdigit() and 0 < int(key.text) <= count:
            s.question_cursor = int(key.text) - 1
        elif key.name is None:
            # Typing picks "Other" and starts the free-text answer.
            s.question_cursor = len(asked.options)
            s.set_draft_aside(asked.id)
            await self._editor_key(key)

    async def _picker_key(self, key: Key) -> None:
        s = self.state
        if key.name == "KEY_UP":
            s.picker_cursor = max(s.picker_cursor - 1, 0)
        elif key.name == "KEY_DOWN":
            s.picker_cursor = min(s.picker_cursor + 1, len(s.picker) - 1)
        elif key.name in ("KEY_ESCAPE", "KEY_CTRL_C"):
            s.picker = []
        elif key.name == "KEY_ENTER":
            chosen = s.picker[s.picker_cursor]
            s.picker = []
            await self.dispatch(act.ResumeSession(chosen.id))

    def _queue_key(self, key: Key) -> None:
        s = self.state
        assert s.queue_cursor is not None
        if key.name == "KEY_UP":
            s.queue_cursor = max(s.queue_cursor - 1, 0)
        elif key.name == "KEY_DOWN":
            s.queue_cursor += 1
            if s.queue_cursor >= len(s.queue):
                s.queue_cursor = None
        elif key.name in ("KEY_DELETE", "KEY_BACKSPACE") or (key.name is None and key.text == "d"):
            del s.queue[s.queue_cursor]
            s.queue_cursor = min(s.queue_cursor, len(s.queue) - 1) if s.queue else None
        elif key.name == "KEY_ENTER" or (key.name is None and key.text == "e"):
            s.editor.set(s.queue.pop(s.queue_cursor))
            s.editing_queued = s.queue_cursor
            s.queue_cursor = None
        elif key.name in ("KEY_ESCAPE", "KEY_CTRL_C"):
            s.queue_cursor = None

    def _search_key(self, key: Key) -> None:
        s = self.state
        assert s.search is not None
        if key.name is None:
            s.search += key.text
            s.search_hit = self.history.search(s.search)
        elif key.name == "KEY_BACKSPACE":
            s.search = s.search[:-1]
            s.search_hit = self.history.search(s.search)
        elif key.name == "KEY_CTRL_R" and s.search_hit is not None:
            s.search_hit = self.history.search(s.search, before=s.search_hit) or s.search_hit
        elif key.name in ("KEY_ESCAPE", "KEY_CTRL_C", "KEY_CTRL_G"):
            s.search = None
            s.editor.set(self.browse.draft)
            return
        else:
            s.search = None
            return
        s.editor.set(self.history.entries[s.search_hit] if s.search_hit is not None else "")

    def flush(self) -> None:
        flush_text(self.state)
