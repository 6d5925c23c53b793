"""The workspace: the checkout's branch and its pull request, sent as
`workspace_updated`.

`Workspace.serve` is the one owner of those frames. It runs in the session
nursery (started after `ready`, so the handshake never waits for gh) and
sends one frame at once, then one per `refresh_workspace`, one after a turn
that ran git or gh or changed files (when something changed), and polls with
backoff (POLL_START_S doubling to POLL_MAX_S) while the pull request has
pending checks. Without gh or a GitHub remote it never polls. gh failing or
slow gives one frame that says so, not a stream: a frame identical to the
last one is only sent when a client asked for it.

Every git/gh call runs in `serve`'s task with a timeout; cancelling the
nursery (close) kills them (luxe.github.gh).
"""

from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from luxe.env_seconds import seconds_from
from luxe.github import gh, pulls
from luxe.protocol import events as ev
from luxe.protocol import github as gp
from luxe.record import record

log = logging.getLogger("luxe.github")

Emit = Callable[[ev.Event], Awaitable[None]]

POLL_START_S = 10.0
POLL_MAX_S = 120.0
# Tests set a shorter first poll (seconds) through the environment.
POLL_ENV = "LUXE_GITHUB_POLL_S"
_GIT_OR_GH = re.compile(r"(^|[\s;&|(`$])(git|gh)(\s|$)")


@record
class GitStatus:
    branch: str | None = None
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    dirty: bool = False
    repository: bool = False


async def git_status(cwd: Path) -> GitStatus:
    done = await gh.git("status", "--porcelain=v2", "--branch", "--untracked-files=normal",
                        cwd=cwd)
    if done.returncode != 0:
        return GitStatus()
    branch = upstream = None
    ahead = behind = 0
    dirty = False
    for line in done.text.splitlines():
        if line.startswith("# branch.head "):
            head = line[len("# branch.head "):]
            branch = None if head == "(detached)" else head
        elif line.startswith("# branch.upstream "):
            upstream = line[len("# branch.upstream "):]
        elif line.startswith("# branch.ab "):
            parts = line.split()
            ahead, behind = int(parts[2].lstrip("+")), int(parts[3].lstrip("-"))
        elif line and not line.startswith("#"):
            dirty = True
    return GitStatus(branch, upstream, ahead, behind, dirty, True)


async def pull_request_status(cwd: Path) -> tuple[gp.PullRequestInfo | None, str]:
    """The branch's pull request (None when it has none) and the github word."""
    try:
        return await pulls.view(cwd), "ok"
    except (KeyError, TypeError, ValueError):
        return None, "error: gh pr view: unexpected answer"
    except gh.GhUnavailable as exc:
        return None, exc.status
    except gh.GhFailed as exc:
        if "no pull requests found" in exc.message.lower():
            return None, "ok"
        return None, gh.classify(exc.message)


async def has_remote(cwd: Path) -> bool:
    done = await gh.git("remote", cwd=cwd)
    return done.returncode == 0 and bool(done.text.strip())


async def snapshot(cwd: Path) -> gp.WorkspaceUpdated:
    """git and gh at once: one refresh costs about one gh call. A checkout
    with no remote at all never starts gh."""
    results: dict[str, object] = {}

    async def read_git() -> None:
        results["git"] = await git_status(cwd)

    async def read_pull() -> None:
        if not await has_remote(cwd):
            results["pull"] = (None, "no_github_remote")
            return
        results["pull"] = await pull_request_status(cwd)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_git)
        nursery.start_soon(read_pull)
    status = results["git"]
    assert isinstance(status, GitStatus)
    pull, github = results["pull"]  # type: ignore[misc]
    if not status.repository:
        pull, github = None, "no_github_remote"
    elif status.branch is None and github == "ok":
        pull = None  # a detached HEAD has no branch pull request
    return gp.WorkspaceUpdated(
        branch=status.branch,
        upstream=status.upstream,
        ahead=status.ahead,
        behind=status.behind,
        dirty=status.dirty,
        pull_request=pull,
        github=github,
    )


class Workspace:
    def __init__(self, *, cwd: Path, emit: Emit, poll_start_s: float | None = None) -> None:
        self.cwd = cwd
        self.emit = emit
        if poll_start_s is None:
            poll_start_s = seconds_from(os.environ, POLL_ENV, POLL_START_S)
        self.poll_start_s = poll_start_s
        self._wake = trio.Event()
        self._asked = True  # the first frame after ready is always sent
        self._last: gp.WorkspaceUpdated | None = None
        self._turn_touched = False

    def refresh(self, *, asked: bool = True) -> None:
        """Ask for a frame: `asked` (a client's refresh) sends one even when
        nothing changed. Returns at once; `serve` does the work."""
        self._asked = self._asked or asked
        self._wake.set()

    def observe(self, event: ev.Event) -> None:
        """Watch the session's frames for turns that may have changed the
        workspace (a bash call running git or gh, a changed file)."""
        if isinstance(event, ev.FileChanged):
            self._turn_touched = True
        elif isinstance(event, ev.ToolStarted) and event.name == "bash":
            command = event.args.get("command")
            if isinstance(command, str) and _GIT_OR_GH.search(command):
                self._turn_touched = True
        elif isinstance(event, ev.TurnEnded) and self._turn_touched:
            self._turn_touched = False
            self.refresh(asked=False)

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        delay: float | None = None
        while True:
            self._wake = trio.Event()
            asked, self._asked = self._asked, False
            try:
                update = await snapshot(self.cwd)
            except Exception:  # never let a surprise from git or gh end the session
                log.exception("reading the workspace failed")
                update = gp.WorkspaceUpdated(None, None, 0, 0, False, None,
                                             "error: reading the workspace failed (see the log)")
            if asked or update != self._last:
                await self.emit(update)
            self._last = update
            if pulls.checks_pending(update.pull_request):
                delay = self.poll_start_s if delay is None else min(delay * 2, POLL_MAX_S)
            else:
                delay = None
            with trio.move_on_after(delay if delay is not None else math.inf):
                await self._wake.wait()
