"""The GitHub layer as the composition root sees it: handles the GitHub
actions for the RPC dispatcher (`handle`), refuses writes without `--github-writes`
or under read-only, watches the session's frames for turns that touched the
workspace, redacts every frame it sends (`emit`: GitHub's text is anyone's),
and runs everything in its own nursery (a child of the session nursery, so
close cancels every gh still running).

Cheap to import: the workspace and the actions' implementation load on
first use, after `ready` has been written.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import trio

from luxe.protocol import events as ev
from luxe.protocol import github as gp
from luxe.protocol.github import write_refusal

if TYPE_CHECKING:
    from luxe.engine.session import Session
    from luxe.github.service import GitHubService
    from luxe.github.workspace import Workspace
    from luxe.review.model import Review, ReviewSession

log = logging.getLogger("luxe.github")

Emit = Callable[[ev.Event], Awaitable[None]]


class OpenReviews(Protocol):
    """Where the GitHub layer reads the open Guided Review (to post it)."""

    def open_review(self, review_id: str) -> tuple[Review, ReviewSession] | None: ...


class GitHubFace:
    def __init__(
        self, *, cwd: Path, session: Session, github_writes: bool, reviews: OpenReviews
    ) -> None:
        self.cwd = cwd
        self.session = session
        self.github_writes = github_writes
        self.reviews = reviews
        self._send: Emit = session.emit
        self._nursery: trio.Nursery | None = None
        self._workspace: Workspace | None = None
        self._service: GitHubService | None = None

    async def emit(self, event: ev.Event) -> None:
        """Send a frame of the GitHub layer (the workspace's, an action's
        answer): every string in it passes the session's redactor first
        (luxe.github.redacted), once the secret values are known."""
        from luxe.github.redacted import redacted

        gate = self.session.gate
        await gate.settle()
        await self._send(redacted(event, gate.redact))

    def watching(self, emit: Emit) -> Emit:
        """`emit`, also showing each frame to the workspace (turns that ran
        git or gh or changed files refresh it)."""

        async def watched(event: ev.Event) -> None:
            await emit(event)
            if self._workspace is not None:
                self._workspace.observe(event)

        return watched

    async def handle(self, action: gp.GitHubAction) -> str | None:
        """Refuse at once, or start the action in the background."""
        if isinstance(action, gp.GITHUB_WRITE_ACTIONS):
            refusal = write_refusal(
                action.KIND,
                github_writes=self.github_writes,
                permission_mode=self.session.gate.permission_mode,
            )
            if refusal is not None:
                return refusal
        if isinstance(action, gp.RefreshWorkspace):
            if self._workspace is None:
                return "refresh_workspace: the workspace is not watched yet"
            self._workspace.refresh()
            return None
        assert self._nursery is not None, "the reader starts after serve"
        self._nursery.start_soon(self._run, action)
        return None

    async def _run(self, action: gp.GitHubAction) -> None:
        if self._service is None:
            from luxe.github.service import GitHubService

            self._service = GitHubService(
                cwd=self.cwd, session=self.session, emit=self.emit, reviews=self.reviews,
                refresh=self._refresh,
            )
        await self._service.handle(action)

    def _refresh(self) -> None:
        if self._workspace is not None:
            self._workspace.refresh(asked=False)

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Own the GitHub tasks until cancelled (the session's close)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            # Started after ready: importing the workspace here keeps it off
            # the handshake's path.
            from luxe.github.workspace import Workspace

            self._workspace = Workspace(cwd=self.cwd, emit=self.emit)
            nursery.start_soon(self._workspace.serve)
            task_status.started()
