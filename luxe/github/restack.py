"""Restack: after a pull request low in a stack merged, rebase each branch
above it onto its new base, force-push them with lease, and retarget the
pull requests' bases (the spec's paragraph, docs/github.md "Restack").

`Restacker` keeps the latest plan only: a newer `plan_restack` replaces the
older one, and a plan is pushed once. Before pushing it checks that every
moving branch is where the plan saw it, checked out where it was, and clean
(`restack_failed` otherwise, nothing changed). The rebases run in scratch
worktrees, so nothing local moves until the push (one atomic
`git push --force-with-lease`) has succeeded; a push that did not finish is
`restack_failed` and says to check the branches on GitHub. Then the local
branches and the pull requests' bases follow; what cannot is reported in
`restacked.retarget_failed`.

Ownership: called from the GitHub service's task; git/gh run through
luxe.github.gh (killed on cancel). Scratch worktrees are removed in
`finally`.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import attrs
import trio

from luxe.github import gh
from luxe.protocol import events as ev
from luxe.protocol import github as gp
from luxe.record import record

Emit = Callable[[ev.Event], Awaitable[None]]

NO_PLAN_REFUSAL = "nothing to restack: no open pull request sits on a merged one"


class RestackError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@record
class _Move:
    """One branch to move: replay `cut..head_sha` onto `onto` (a branch
    name whose new tip is known by then, or a remote ref)."""

    name: str
    old_base: str
    new_base: str
    head_sha: str
    cut: str  # commits after this one are the branch's own
    remote_sha: str | None  # origin's copy at plan time (the lease)
    checked_out_in: str | None  # the worktree that has it checked out


@attrs.define(eq=False)
class _Plan:
    wire: gp.RestackPlan
    moves: list[_Move]
    pushed: bool = False


async def _git(cwd: Path, *args: str, timeout_s: float = gh.READ_TIMEOUT_S) -> str:
    done = await gh.git(*args, cwd=cwd, timeout_s=timeout_s)
    if done.returncode != 0:
        raise RestackError(f"git {args[0]}: {done.error_line}")
    return done.text.strip()


async def _sha(cwd: Path, ref: str) -> str | None:
    done = await gh.git("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", cwd=cwd)
    return done.text.strip() if done.returncode == 0 else None


async def _is_ancestor(cwd: Path, older: str, newer: str) -> bool:
    return (await gh.git("merge-base", "--is-ancestor", older, newer, cwd=cwd)).returncode == 0


async def checked_out(cwd: Path) -> dict[str, str]:
    """Branch name -> the worktree that has it checked out."""
    text = await _git(cwd, "worktree", "list", "--porcelain")
    found: dict[str, str] = {}
    path = ""
    for line in text.splitlines():
        if line.startswith("worktree "):
            path = line[len("worktree "):]
        elif line.startswith("branch refs/heads/"):
            found[line[len("branch refs/heads/"):]] = path
    return found


class Restacker:
    def __init__(self, *, cwd: Path, emit: Emit, refresh: Callable[[], None]) -> None:
        self.cwd, self.emit, self.refresh = cwd, emit, refresh
        self._latest: _Plan | None = None
        self._ids = itertools.count(1)

    # -- planning ------------------------------------------------------------------

    async def plan(self, request_id: str) -> None:
        try:
            plan = await self._make_plan()
        except (gh.GhUnavailable, gh.GhFailed) as exc:
            self._latest = None
            await self.emit(gp.RestackPlanned(request_id, None, f"no gh: {exc.message}"
                                              if isinstance(exc, gh.GhUnavailable) else exc.message))
            return
        except RestackError as exc:
            self._latest = None
            await self.emit(gp.RestackPlanned(request_id, None, exc.message))
            return
        self._latest = plan
        if plan is None:
            await self.emit(gp.RestackPlanned(request_id, None, NO_PLAN_REFUSAL))
            return
        await self.emit(gp.RestackPlanned(request_id, plan.wire, None))

    async def _make_plan(self) -> _Plan | None:
        listed = await gh.gh_json("pr", "list", "--state", "all", "--limit", "200", "--json",
                                  "number,headRefName,baseRefName,state,headRefOid", cwd=self.cwd)
        await _git(self.cwd, "fetch", "-q", "--prune", "origin", timeout_s=gh.WRITE_TIMEOUT_S)
        merged = {str(p["headRefName"]): p for p in listed if p["state"] == "MERGED"}
        open_pulls = [p for p in listed if p["state"] == "OPEN"]
        where = await checked_out(self.cwd)

        def resolve(base: str) -> str:
            seen = set()
            while base in merged and base not in seen:
                seen.add(base)
                base = str(merged[base]["baseRefName"])
            return base

        moves: list[_Move] = []
        retargets: list[gp.RestackRetarget] = []
        moved: dict[str, str] = {}  # branch -> its sha before the move
        for pull in sorted(open_pulls, key=lambda p: int(p["number"])):
            head, base = str(pull["headRefName"]), str(pull["baseRefName"])
            sha = await _sha(self.cwd, f"refs/heads/{head}")
            if sha is None:
                continue  # no local branch to move
            for merged_head, done in merged.items():
                if base not in (merged_head, str(done["baseRefName"])) or merged_head == head:
                    continue
                cut = str(done["headRefOid"])
                new_base = resolve(base)
                if not await _sha(self.cwd, cut) or not await _is_ancestor(self.cwd, cut, sha):
                    continue
                target = await _sha(self.cwd, f"refs/remotes/origin/{new_base}")
                if target and await _is_ancestor(self.cwd, cut, target):
                    continue  # merged with its commits: nothing to replay
                moves.append(_Move(head, base, new_base, sha, cut,
                                   await _sha(self.cwd, f"refs/remotes/origin/{head}"),
                                   where.get(head)))
                moved[head] = sha
                if new_base != base:
                    retargets.append(gp.RestackRetarget(int(pull["number"]), base, new_base))
                break
        # Branches stacked on a moving branch move with it (same base name).
        changed = True
        while changed:
            changed = False
            for pull in sorted(open_pulls, key=lambda p: int(p["number"])):
                head, base = str(pull["headRefName"]), str(pull["baseRefName"])
                if head in moved or base not in moved:
                    continue
                sha = await _sha(self.cwd, f"refs/heads/{head}")
                if sha is None or not await _is_ancestor(self.cwd, moved[base], sha):
                    continue
                moves.append(_Move(head, base, base, sha, moved[base],
                                   await _sha(self.cwd, f"refs/remotes/origin/{head}"),
                                   where.get(head)))
                moved[head] = sha
                changed = True
        if not moves:
            return None
        wire = gp.RestackPlan(
            id=f"restack:{next(self._ids)}",
            branches=[gp.RestackBranch(m.name, m.old_base, m.new_base, m.head_sha) for m in moves],
            pull_requests=retargets,
        )
        return _Plan(wire, moves)

    # -- pushing -------------------------------------------------------------------

    async def restack(self, request_id: str, plan_id: str) -> None:
        plan = self._latest
        if plan is None or plan.wire.id != plan_id:
            latest = f"; the latest is {plan.wire.id}" if plan is not None else ""
            await self.emit(gp.RestackFailed(
                request_id, f"no restack plan {plan_id!r} (a newer plan replaces an older one"
                f"{latest}); plan again"))
            return
        if plan.pushed:
            await self.emit(gp.RestackFailed(request_id, f"plan {plan_id} was pushed already"))
            return
        try:
            await self._check(plan)
            new_tips = await self._rebase_all(plan)
        except RestackError as exc:
            await self.emit(gp.RestackFailed(request_id, exc.message))
            return
        try:
            await self._push(plan, new_tips)
        except (RestackError, gh.GhUnavailable) as exc:
            names = ", ".join(m.name for m in plan.moves)
            await self.emit(gp.RestackFailed(
                request_id, f"the push did not finish ({exc.message}); some branches may have "
                f"moved on GitHub: check {names} there before planning again"))
            self.refresh()
            return
        plan.pushed = True
        failed = await self._follow(plan, new_tips)
        await self.emit(gp.Restacked(request_id, failed or None))
        self.refresh()

    async def _check(self, plan: _Plan) -> None:
        where = await checked_out(self.cwd)
        for move in plan.moves:
            now = await _sha(self.cwd, f"refs/heads/{move.name}")
            if now != move.head_sha:
                at = now[:7] if now else "gone"
                raise RestackError(f"{move.name} moved since the plan (it was at "
                                   f"{move.head_sha[:7]}, it is at {at}): plan again")
            if where.get(move.name) != move.checked_out_in:
                place = where.get(move.name) or "nowhere"
                raise RestackError(f"{move.name} is checked out in {place}, not where the plan "
                                   f"saw it ({move.checked_out_in or 'nowhere'}): plan again")
            if move.checked_out_in is not None:
                status = await _git(Path(move.checked_out_in), "status", "--porcelain")
                if status:
                    raise RestackError(f"{move.name} has uncommitted changes in "
                                       f"{move.checked_out_in}: commit or stash them first")

    async def _rebase_all(self, plan: _Plan) -> dict[str, str]:
        """Each branch's new tip, rebased in a scratch worktree (nothing
        local moves here)."""
        tips: dict[str, str] = {}
        with tempfile.TemporaryDirectory(prefix="luxe-restack-") as scratch:
            for index, move in enumerate(plan.moves):
                onto = tips.get(move.new_base) or await _sha(
                    self.cwd, f"refs/remotes/origin/{move.new_base}")
                if onto is None:
                    raise RestackError(f"{move.new_base} is not on origin: nothing pushed")
                work = Path(scratch) / str(index)
                await _git(self.cwd, "worktree", "add", "-q", "--detach", str(work), move.head_sha)
                try:
                    done = await gh.git("rebase", "-q", "--onto", onto, move.cut, cwd=work,
                                        timeout_s=gh.WRITE_TIMEOUT_S)
                    if done.returncode != 0:
                        await gh.git("rebase", "--abort", cwd=work)
                        raise RestackError(f"rebasing {move.name} onto {move.new_base} stops on a "
                                           "conflict: nothing pushed; rebase it by hand")
                    tips[move.name] = await _git(work, "rev-parse", "HEAD")
                finally:
                    # Shielded: a cancel must not leave the scratch worktree registered.
                    with trio.CancelScope(shield=True):
                        await gh.git("worktree", "remove", "--force", str(work), cwd=self.cwd)
        return tips

    async def _push(self, plan: _Plan, tips: dict[str, str]) -> None:
        args = ["push", "--atomic", "--porcelain", "origin"]
        for move in plan.moves:
            args.insert(1, f"--force-with-lease=refs/heads/{move.name}:{move.remote_sha or ''}")
            args.append(f"{tips[move.name]}:refs/heads/{move.name}")
        done = await gh.git(*args, cwd=self.cwd, timeout_s=gh.WRITE_TIMEOUT_S)
        if done.returncode != 0:
            raise RestackError(done.error_line)

    async def _follow(self, plan: _Plan, tips: dict[str, str]) -> list[str]:
        """Move the local branches and retarget the pull requests; returns
        what could not follow."""
        failed: list[str] = []
        for move in plan.moves:
            new = tips[move.name]
            if move.checked_out_in is not None:
                done = await gh.git("reset", "-q", "--keep", new, cwd=Path(move.checked_out_in))
            else:
                done = await gh.git("update-ref", f"refs/heads/{move.name}", new, move.head_sha,
                                    cwd=self.cwd)
            if done.returncode != 0:
                failed.append(f"local branch {move.name}: {done.error_line}")
            else:
                await gh.git("branch", "-q", f"--set-upstream-to=origin/{move.name}", move.name,
                             cwd=self.cwd)
        for retarget in plan.wire.pull_requests:
            try:
                await gh.checked("pr", "edit", str(retarget.number), f"--base={retarget.base_after}",
                                 cwd=self.cwd)
            except (gh.GhFailed, gh.GhUnavailable) as exc:
                failed.append(f"pull request #{retarget.number} base {retarget.base_after}: "
                              f"{exc.message}")
        return failed
