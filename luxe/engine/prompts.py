"""Prompts waiting on the client: permission asks and questions.

The task that asks owns its prompt: it sends the `*_requested`/`*_asked`
frame, waits, and always sends the matching `*_resolved` frame itself,
including when its turn is cancelled (then the reply is `cancelled`). The
front end only hands replies in; a reply to an unknown or already resolved
id is refused with a message.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import trio

from luxe.protocol import events as ev
from luxe.record import record, state

Emit = Callable[[ev.Event], Awaitable[None]]
PERMISSION_OPTIONS = ["once", "always", "reject"]


@state
class _Pending:
    kind: str  # "permission" | "question"
    done: trio.Event = attrs.Factory(trio.Event)
    reply: Any = None
    message: str | None = None


@record
class PermissionReply:
    reply: str  # once | always | reject | auto | cancelled
    message: str | None = None


class Prompts:
    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self._pending: dict[str, _Pending] = {}
        self._ids = itertools.count(1)
        self.auto_approve = False

    def set_auto_approve(self, enabled: bool) -> None:
        """Turning it on also answers the permission prompts already waiting."""
        self.auto_approve = enabled
        if enabled:
            for pending in self._pending.values():
                if pending.kind == "permission" and not pending.done.is_set():
                    pending.reply = "auto"
                    pending.done.set()

    async def ask_permission(
        self, call_id: str, tool: str, args: Mapping[str, Any], reason: str, diff: str | None = None
    ) -> PermissionReply:
        """Ask the client whether `tool` may run; returns once it is resolved.
        `diff` previews a write's or edit's change (redacted by the caller).

        On cancel the prompt resolves as `cancelled` (the frame is still sent).
        """
        prompt_id = f"perm_{next(self._ids)}"
        pending = _Pending("permission")
        if self.auto_approve:
            pending.reply = "auto"
            pending.done.set()
        self._pending[prompt_id] = pending
        try:
            await self._emit(
                ev.PermissionRequested(
                    prompt_id, call_id, tool, dict(args), reason, PERMISSION_OPTIONS, diff
                )
            )
            await pending.done.wait()
        finally:
            del self._pending[prompt_id]
            reply = pending.reply if pending.done.is_set() else "cancelled"
            with trio.CancelScope(shield=True):
                await self._emit(ev.PermissionResolved(prompt_id, reply))
        return PermissionReply(reply, pending.message)

    async def ask_question(
        self, call_id: str, question: str, options: list[str], multiple: bool
    ) -> dict[str, Any]:
        """Ask the client a question; returns `{answered: [...]}` or
        `{dismissed: true, reason?: str}`."""
        prompt_id = f"question_{next(self._ids)}"
        pending = _Pending("question")
        self._pending[prompt_id] = pending
        try:
            await self._emit(ev.QuestionAsked(prompt_id, call_id, question, options, multiple))
            await pending.done.wait()
        finally:
            del self._pending[prompt_id]
            reply = pending.reply if pending.done.is_set() else {"cancelled": True}
            with trio.CancelScope(shield=True):
                await self._emit(ev.QuestionResolved(prompt_id, reply))
        result: dict[str, Any] = pending.reply
        return result

    def respond_permission(self, prompt_id: str, reply: str, message: str | None) -> str | None:
        """Hand in a reply; returns why it is refused, or None."""
        pending = self._pending.get(prompt_id)
        if pending is None or pending.kind != "permission" or pending.done.is_set():
            return f"respond_permission: no pending permission prompt `{prompt_id}`"
        pending.reply = reply
        pending.message = message
        pending.done.set()
        return None

    def answer_question(self, prompt_id: str, reply: Mapping[str, Any]) -> str | None:
        """Hand in an answer; returns why it is refused, or None."""
        pending = self._pending.get(prompt_id)
        if pending is None or pending.kind != "question" or pending.done.is_set():
            return f"answer_question: no pending question `{prompt_id}`"
        answered = reply.get("answered")
        reason = reply.get("reason")
        if reply.get("dismissed") is True and answered is None and isinstance(reason, str | None):
            pending.reply = {"dismissed": True} if reason is None else {"dismissed": True, "reason": reason}
        elif isinstance(answered, list) and all(isinstance(a, str) for a in answered):
            pending.reply = {"answered": list(answered)}
        else:
            return (
                "answer_question: field `reply` must be {\"answered\": [strings]} "
                "or {\"dismissed\": true, \"reason\"?: string}"
            )
        pending.done.set()
        return None
