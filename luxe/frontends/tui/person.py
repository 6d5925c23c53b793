"""What the person's two faces answer the session alike: the interface
(luxe.frontends.tui.frontend) and its `--plain` form (.plain).

Both read keys until the person leaves, then stop the session; a stop
signal or a closing session finds nothing to release early (the terminal
is given back when the output task ends); the process exits 0.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from luxe.frontends.face import say_refused

if TYPE_CHECKING:
    import trio

    from luxe.frontends.rpc_actions import RpcActions
    from luxe.protocol import Action, Rejection

Dispatch = Callable[["Action | Rejection"], Awaitable[bool]]


class PersonFace(ABC):
    @abstractmethod
    async def read(self, dispatch: Dispatch) -> None:
        """Keys until the person leaves (Ctrl+C twice, Ctrl+D, /exit)."""

    async def serve_input(self, actions: RpcActions, stop: trio.Event) -> None:
        """Keys until the person leaves; then the session stops."""
        await self.read(actions.dispatch)
        stop.set()

    def show_prompt(self) -> None:
        """Before the engine loads: draw the prompt, if this face has one
        (the plain face says nothing until the session is known)."""
        return None

    @abstractmethod
    def release(self) -> None:
        """Give the terminal back as it was (idempotent)."""

    def refused(self, reason: str) -> None:
        self.release()
        say_refused(reason)

    def signalled(self, signum: int) -> None:
        return None

    def closing(self) -> None:
        """Nothing to release early: the terminal is given back when the
        output task ends, after the session's last event."""
        return None

    def exit_status(self) -> int:
        return 0
