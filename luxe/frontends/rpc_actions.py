"""What each RPC action does to the session, and how it is answered.

Every action is answered by what it causes (frames from the session, which
announces its own `state_changed`) or by `action_rejected` with a reason;
none blocks the reader for long. `RpcActions` is one table from action
class to handler; a handler returns a refusal reason or None.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import trio

from luxe.engine.ports import ModelSource
from luxe.engine.session import Session
from luxe.engine.store import SessionNotFound, SessionStore
from luxe.protocol import actions as act
from luxe.protocol import events as ev
from luxe.protocol import review as rv
from luxe.protocol.actions import Action
from luxe.protocol.rejection import Rejection

if TYPE_CHECKING:
    from luxe.protocol.github import GitHubAction

# Guided Review actions go to the review's owner (luxe.review.service).
ReviewHandler = Callable[[rv.ReviewAction], Awaitable[None]]
Handler = Callable[[Any], Awaitable[str | None]]


class RpcActions:
    def __init__(
        self,
        session: Session,
        store: SessionStore,
        make_model: Callable[[str], ModelSource],
        stop: trio.Event,
        review: ReviewHandler | None = None,
        github: Handler | None = None,
    ) -> None:
        self.session = session
        self.store = store
        self.make_model = make_model
        self.stop = stop
        self.review = review
        # GitHub actions go to luxe.github.face (it refuses writes without
        # --github-writes and runs the rest in the background).
        self.github = github
        self._table: dict[type, Handler] = {
            act.Close: self._close,
            act.SubmitUserMessage: self._submit,
            act.SteerTurn: self._steer,
            act.RunShell: self._run_shell,
            act.CancelTurn: self._cancel,
            act.RespondPermission: self._respond_permission,
            act.AnswerQuestion: self._answer_question,
            act.SetModel: self._set_model,
            act.SetMode: self._set_mode,
            act.SetThinking: self._set_thinking,
            act.SetPermissionAutoApprove: self._set_auto_approve,
            act.SetPermissionMode: self._set_permission_mode,
            act.NewSession: self._switch,
            act.ResumeSession: self._switch,
            act.ListSessions: self._list_sessions,
            act.ListMessages: self._list_messages,
            act.Compact: self._compact,
            **{kind: self._review for kind in rv.REVIEW_ACTIONS},
        }
        # set_permission_mode never turns on yolo, nor leaves read-only.
        self._start_permission_mode = session.gate.permission_mode
        if github is not None:
            # GitHub's frames load only when there is a GitHub handler (not for `-p`).
            from luxe.protocol.github import GITHUB_ACTIONS

            self._table.update({kind: self._github for kind in GITHUB_ACTIONS})

    async def dispatch(self, action: Action | Rejection) -> bool:
        """Apply one action; returns False when the session must end."""
        if isinstance(action, Rejection):
            # A malformed review action with a request_id is answered under it.
            failed = rv.failure_for(action.kind, action.request_id, action.reason)
            await self.session.emit(failed or ev.ActionRejected(action.kind, action.reason))
            return True
        handler = self._table.get(type(action), self._unavailable)
        refusal = await handler(action)
        if refusal is not None:
            await self.session.emit(ev.ActionRejected(action.KIND, refusal))
        return not self.stop.is_set()

    async def _close(self, action: act.Close) -> str | None:
        self.stop.set()
        return None

    async def _unavailable(self, action: Action) -> str | None:
        return f"{action.KIND}: not available here"

    async def _github(self, action: GitHubAction) -> str | None:
        if self.github is None:
            return f"{action.KIND}: GitHub is not available"
        return await self.github(action)

    async def _review(self, action: rv.ReviewAction) -> str | None:
        if self.review is None:
            return f"{action.KIND}: Guided Review is not available"
        await self.review(action)
        return None

    async def _submit(self, action: act.SubmitUserMessage) -> str | None:
        if not action.text.strip():
            return "submit_user_message: field `text` is empty"
        paths = tuple(a.path for a in action.attachments or [])
        await self.session.start_turn(action.text, context=action.context, attachments=paths)
        return None

    async def _run_shell(self, action: act.RunShell) -> str | None:
        if not action.command.strip():
            return "run_shell: field `command` is empty"
        await self.session.start_shell(action.command)
        return None

    async def _steer(self, action: act.SteerTurn) -> str | None:
        return self.session.steer(action.text)

    async def _cancel(self, action: act.CancelTurn) -> str | None:
        return self.session.cancel_turn()

    async def _respond_permission(self, action: act.RespondPermission) -> str | None:
        return self.session.prompts.respond_permission(action.id, action.reply, action.message)

    async def _answer_question(self, action: act.AnswerQuestion) -> str | None:
        return self.session.prompts.answer_question(action.id, action.reply)

    async def _set_model(self, action: act.SetModel) -> str | None:
        try:
            model = self.make_model(action.model)
        except ValueError as exc:
            return f"set_model: {exc}"
        await self.session.set_model(model)
        return None

    async def _set_mode(self, action: act.SetMode) -> str | None:
        await self.session.set_mode(action.mode)
        return None

    async def _set_thinking(self, action: act.SetThinking) -> str | None:
        await self.session.set_thinking(action.level)
        return None

    async def _set_auto_approve(self, action: act.SetPermissionAutoApprove) -> str | None:
        await self.session.set_auto_approve(action.enabled)
        return None

    async def _list_sessions(self, action: act.ListSessions) -> str | None:
        found = await trio.to_thread.run_sync(self.store.list_sessions)
        listed = [
            ev.SessionSummary(f.id, f.title, f.cwd, f.updated_at, len(f.messages)) for f in found
        ]
        await self.session.emit(ev.SessionsListed(listed))
        return None

    async def _compact(self, action: act.Compact) -> str | None:
        return self.session.compact()

    async def _set_permission_mode(self, action: act.SetPermissionMode) -> str | None:
        start = self._start_permission_mode
        if start == "read-only":
            return "set_permission_mode: this session is read-only (a flag or a permissions file); restart to change it"
        if action.mode == "yolo" and start != "yolo":
            return "set_permission_mode: yolo can only be chosen on the command line"
        await self.session.set_permission_mode(action.mode)
        return None

    async def _switch(self, action: act.NewSession | act.ResumeSession) -> str | None:
        s = self.session
        if s.busy:
            return f"{action.KIND}: a turn is running; cancel it or wait until it ends"
        try:
            if isinstance(action, act.ResumeSession):
                file = await trio.to_thread.run_sync(self.store.open, action.session_id)
            else:
                file = await trio.to_thread.run_sync(self.store.create, str(s.cwd))
        except SessionNotFound as exc:
            return f"resume_session: {exc}"
        refusal = await s.switch(file, resumed=isinstance(action, act.ResumeSession))
        if refusal is not None:
            file.close()
            return f"{action.KIND}: {refusal}"
        await s.emit(ev.SessionInfo(file.id, file.title, len(s.history.messages), file.created_at, file.updated_at))
        await s.emit(s.state_event())
        return None

    async def _list_messages(self, action: act.ListMessages) -> str | None:
        if action.limit is not None and action.limit < 1:
            return "list_messages: `limit` must be at least 1"
        from luxe.engine.model import AssistantMessage, TextBlock, ToolUseBlock

        messages = self.session.history.messages
        shown = messages[-action.limit:] if action.limit else messages
        summaries = []
        for message in shown:
            text = "\n\n".join(b.text for b in message.content if isinstance(b, TextBlock))
            tools = [
                f"{b.name} {_key_arg(b.input)}".rstrip()
                for b in message.content
                if isinstance(message, AssistantMessage) and isinstance(b, ToolUseBlock)
            ]
            if text or tools:
                summaries.append(ev.MessageSummary(message.role, text, tools))
        await self.session.emit(ev.MessagesListed(self.session.file.id, len(messages), summaries))
        return None


def _key_arg(args: dict[str, Any]) -> str:
    """The argument that names what a tool call is about (path, command...)."""
    for key in ("path", "command", "pattern", "question"):
        value = args.get(key)
        if isinstance(value, str):
            return value.split("\n", 1)[0][:120]
    return ""
