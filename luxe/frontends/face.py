"""The seam between the composition root and a front end.

A front end is handed the handshake before the event loop runs, then runs
two tasks: `serve` consumes every event until the session's channel closes
(it owns the output), and `read` turns input into actions for `dispatch`
(RpcActions.dispatch) until the input ends or the person leaves. `--rpc`
(RpcFrontEnd) and the interface (luxe.frontends.tui.frontend.Interface) are
the two; both dispatch the same actions and are given the same events.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from luxe.frontends.stdout import StdoutOwner
from luxe.protocol import events as ev

if TYPE_CHECKING:
    import trio

    from luxe.protocol import Action, Rejection

Dispatch = Callable[["Action | Rejection"], Awaitable[bool]]


class FrontEnd(Protocol):
    def write_now(self, events: Iterable[ev.Event]) -> None: ...

    async def serve(
        self, events: trio.MemoryReceiveChannel[ev.Event], on_broken: Callable[[], None]
    ) -> None: ...

    async def read(self, dispatch: Dispatch) -> None: ...


class RpcFrontEnd(StdoutOwner):
    """`luxe --rpc`: frames on stdout (StdoutOwner), actions from stdin lines."""

    async def read(self, dispatch: Dispatch) -> None:
        from luxe.frontends import rpc

        await rpc.serve_reader(dispatch)
