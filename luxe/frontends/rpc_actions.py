"""What each RPC action does to the session, and how it is answered.

Every action is answered by what it causes (frames from the session) or by
`action_rejected` with a reason; none blocks the reader for long.

Other layers (Guided Review, GitHub) add their actions with `register`: the
action class must also be in `luxe.protocol.actions.ACTION_TYPES` so lines of
that kind decode; its handler returns a refusal reason or None.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import trio

from luxe.engine.session import ModelSource, Session
from luxe.engine.store import SessionNotFound, SessionStore
from luxe.protocol import Action, Rejection
from luxe.protocol import actions as act
from luxe.protocol import events as ev
from luxe.protocol import review as rv

# Guided Review actions go to the review's owner (luxe.review.service).
ReviewHandler = Callable[[rv.ReviewAction], Awaitable[None]]


class RpcActions:
    def __init__(
        self,
        session: Session,
        store: SessionStore,
        make_model: Callable[[str], ModelSource],
        stop: trio.Event,
        review: ReviewHandler | None = None,
    ) -> None:
        self.session = session
        self.store = store
        self.make_model = make_model
        self.stop = stop
        self.review = review
        self._handlers: dict[type, Callable[[Any], Awaitable[str | None]]] = {}
        # set_permission_mode never goes looser than the session started.
        self._start_permission_mode = session.gate.permission_mode

    def register(self, action_type: type, handler: Callable[[Any], Awaitable[str | None]]) -> None:
        """Handle `action_type` with `handler` (it returns a refusal or None)."""
        self._handlers[action_type] = handler

    async def dispatch(self, action: Action | Rejection) -> bool:
        """Apply one action; returns False when the session must end."""
        s = self.session
        refusal: str | None = None
        if isinstance(action, Rejection):
            # A malformed review action with a request_id is answered under it.
            failed = rv.failure_for(action.kind, action.request_id, action.reason)
            await s.emit(failed or ev.ActionRejected(action.kind, action.reason))
            return True
        handler = self._handlers.get(type(action))
        if handler is not None:
            refusal = await handler(action)
        elif isinstance(action, act.Close):
            self.stop.set()
            return False
        elif isinstance(action, rv.REVIEW_ACTIONS):
            if self.review is None:
                await s.emit(ev.ActionRejected(action.KIND, f"{action.KIND}: Guided Review is not available"))
            else:
                await self.review(action)
            return True
        elif isinstance(action, act.SubmitUserMessage):
            if not action.text.strip():
                refusal = "submit_user_message: field `text` is empty"
            else:
                paths = tuple(a.path for a in action.attachments or [])
                await s.start_turn(action.text, attachments=paths)
        elif isinstance(action, act.RunShell):
            if not action.command.strip():
                refusal = "run_shell: field `command` is empty"
            else:
                await s.start_shell(action.command)
        elif isinstance(action, act.SteerTurn):
            refusal = s.steer(action.text)
        elif isinstance(action, act.CancelTurn):
            refusal = s.cancel_turn()
        elif isinstance(action, act.RespondPermission):
            refusal = s.prompts.respond_permission(action.id, action.reply, action.message)
        elif isinstance(action, act.AnswerQuestion):
            refusal = s.prompts.answer_question(action.id, action.reply)
        elif isinstance(action, act.SetModel):
            try:
                s.model = self.make_model(action.model)
            except ValueError as exc:
                refusal = f"set_model: {exc}"
            else:
                await s.emit(s.state_event())
        elif isinstance(action, act.SetMode):
            s.set_mode(action.mode)
            await s.emit(s.state_event())
        elif isinstance(action, act.SetThinking):
            s.set_thinking(action.level)
            await s.emit(s.state_event())
        elif isinstance(action, act.SetPermissionAutoApprove):
            s.set_auto_approve(action.enabled)
            await s.emit(s.state_event())
        elif isinstance(action, act.SetPermissionMode):
            refusal = self._permission_mode_refusal(action.mode)
            if refusal is None:
                s.gate.permission_mode = action.mode
                await s.emit(s.state_event())
        elif isinstance(action, act.NewSession | act.ResumeSession):
            refusal = await self._switch(action)
        elif isinstance(action, act.ListSessions):
            found = await trio.to_thread.run_sync(self.store.list_sessions)
            listed = [
                ev.SessionSummary(f.id, f.title, f.cwd, f.updated_at, len(f.messages))
                for f in found
            ]
            await s.emit(ev.SessionsListed(listed))
        elif isinstance(action, act.Compact):
            refusal = s.compact()
        if refusal is not None:
            await s.emit(ev.ActionRejected(action.KIND, refusal))
        return True

    def _permission_mode_refusal(self, mode: str) -> str | None:
        start = self._start_permission_mode
        if start == "read-only":
            return "set_permission_mode: this session is read-only (a flag or a permissions file); restart to change it"
        if mode == "yolo" and start != "yolo":
            return "set_permission_mode: yolo can only be chosen on the command line"
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
        refusal = s.switch(file, resumed=isinstance(action, act.ResumeSession))
        if refusal is not None:
            file.close()
            return f"{action.KIND}: {refusal}"
        await s.emit(s.info_event())
        await s.emit(s.state_event())
        return None
