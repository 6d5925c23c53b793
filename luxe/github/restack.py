"""Restack: after a pull request low in a stack merged, rebase the branches
above it onto their new base, force-push with lease, and retarget their
pull requests (docs/github.md, "Restack")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from luxe.protocol import events as ev
from luxe.protocol import github as gp

Emit = Callable[[ev.Event], Awaitable[None]]


class Restacker:
    def __init__(self, *, cwd: Path, emit: Emit, refresh: Callable[[], None]) -> None:
        self.cwd, self.emit, self.refresh = cwd, emit, refresh

    async def plan(self, request_id: str) -> None:
        await self.emit(gp.RestackPlanned(request_id, None, "restack is not available yet"))

    async def restack(self, request_id: str, plan_id: str) -> None:
        await self.emit(gp.RestackFailed(request_id, f"no restack plan {plan_id!r}"))
