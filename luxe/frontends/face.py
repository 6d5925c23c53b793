"""The seam between the composition root and a front end, and `--rpc`'s own.

A front end is one face of the session: it decides what reaches stdout (the
handshake before the event loop, then every event the session emits) and
where actions come from. `luxe --rpc` reads them from stdin; `luxe -p`
(luxe.frontends.print_mode) makes them itself. Both dispatch through the
same RpcActions and render the same events, so neither has an engine path
of its own. Nothing here imports trio: the handshake goes out before it loads.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from luxe.frontends.stdout import StdoutOwner
from luxe.protocol import events as ev

if TYPE_CHECKING:
    import trio

    from luxe.frontends.rpc_actions import RpcActions


def say_refused(reason: str) -> None:
    """The one line a refused start prints (before any terminal is taken, or
    after it is given back). A reason may quote gh or a project's file:
    its control characters are shown, not obeyed."""
    from luxe.frontends.print_render import plain

    print(f"luxe: {plain(reason)}", file=sys.stderr)


class FrontEnd(Protocol):
    def handshake(self, frames: list[ev.Event]) -> None:
        """The first frames (`ready`, `state_changed`, `session_info`), before
        trio runs; written at once or kept, as the front end needs."""
        ...

    async def serve_output(
        self, events: trio.MemoryReceiveChannel[ev.Event], on_broken: Callable[[], None]
    ) -> None:
        """The writer task: owns stdout until `events` closes (it drains the
        channel even after stdout broke, and calls `on_broken` once then)."""
        ...

    async def serve_input(self, actions: RpcActions, stop: trio.Event) -> None:
        """The action source: dispatches actions until the session should
        end, then sets `stop`. Cancelled when the session closes."""
        ...

    def refused(self, reason: str) -> None:
        """Startup was refused (luxe exits 2): say why on stderr, after giving
        back whatever was already taken (the interface's terminal)."""
        ...

    def signalled(self, signum: int) -> None:
        """A stop signal arrived (the session is closing because of it)."""
        ...

    def closing(self) -> None:
        """The session is closing (close, EOF, a signal): a reader that no
        longer reads must not hold the exit (see StdoutOwner.begin_shutdown)."""
        ...

    def exit_status(self) -> int:
        """The process's exit status, once the event loop has ended."""
        ...


class RpcFrontEnd:
    """`luxe --rpc`: frames on stdout, actions from stdin; exits 0."""

    def __init__(self) -> None:
        self.stdout = StdoutOwner()

    def handshake(self, frames: list[ev.Event]) -> None:
        self.stdout.write_now(frames)

    async def serve_output(
        self, events: trio.MemoryReceiveChannel[ev.Event], on_broken: Callable[[], None]
    ) -> None:
        await self.stdout.serve(events, on_broken)

    async def serve_input(self, actions: RpcActions, stop: trio.Event) -> None:
        from luxe.frontends import rpc

        await rpc.serve_reader(actions.dispatch)
        stop.set()  # EOF on stdin is the same as close

    def refused(self, reason: str) -> None:
        say_refused(reason)

    def signalled(self, signum: int) -> None:
        return None

    def closing(self) -> None:
        self.stdout.begin_shutdown()

    def exit_status(self) -> int:
        return 0
