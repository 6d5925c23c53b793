"""Read a review target's diff with real git (or the user's gh) and parse it.

Every git call pins the settings that would change what git writes: no
pager, no external diff driver, no textconv, no colour, a/ b/ prefixes,
three lines of context, rename detection. A target that cannot be read
raises ReviewLoadError with a reason for a person; nothing is changed in
the repository (untracked files are listed through a temporary index).

Cancelling a read kills the git or gh process it is waiting on (see
`child_process.run`); gh is run by the GitHub layer's runner
(`luxe.github.gh.run`), with its deadline and its words for a gh that is
missing or does not answer.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import trio

from luxe import child_process
from luxe.env_seconds import seconds_from
from luxe.github import gh
from luxe.record import record
from luxe.review.diffparse import DiffParseError, ParsedDiff, parse_diff, short_hash
from luxe.review.model import (
    BranchTarget,
    CommitTarget,
    PullRequestTarget,
    RangeTarget,
    StagedTarget,
    Target,
    WorkingTreeTarget,
    to_wire,
)

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
REVIEWS_DIR = Path(".luxe") / "reviews"

GIT_CONFIG = (
    "-c", "core.pager=cat",
    "-c", "diff.external=",
    "-c", "core.quotepath=on",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "diff.relative=false",
    "-c", "color.ui=never",
)  # fmt: skip
DIFF_OPTIONS = (
    "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--unified=3",
    "--src-prefix=a/", "--dst-prefix=b/", "--no-relative",
)  # fmt: skip
# No `--binary`: a binary file's change is one "Binary files ... differ" line
# whatever its size, so a 20 MB asset no longer pushes a diff past DIFF_CAP
# (committing it stages its blob instead: luxe.review.commit).
# The review store lives in the repository; it is never part of a review.
EXCLUDE_STORE = (f":(exclude){REVIEWS_DIR.as_posix()}",)


class ReviewLoadError(Exception):
    """A target that cannot be read; `reason` is written for a person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# The most of a diff a review reads. A repository can make git print
# gigabytes from a pack of a few (a huge file of one repeated line), and a
# parsed diff takes some fifteen times its text in memory; this is some
# 300,000 changed lines.
DIFF_CAP = 16 << 20


def _too_large(what: str) -> ReviewLoadError:
    return ReviewLoadError(
        f"{what} is over {DIFF_CAP >> 20} MB, too large to review; review a smaller range"
    )


@record
class DiffRead:
    """A target's diff as read, before parsing."""

    root: Path  # the repository (or, for a pull request outside one, the directory)
    target: Target
    base: str | None
    head: str | None
    text: str


def review_id_for(root: Path, target: Target) -> str:
    """Stable for the same target in the same repository."""
    canonical = json.dumps(to_wire(target), sort_keys=True)
    return "review:" + short_hash("review", str(root.resolve()), canonical)


async def git(
    root: Path,
    *args: str,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    stdout_cap: int | None = None,
) -> child_process.Completed:
    return await child_process.run(
        ("git", *GIT_CONFIG, *args), cwd=root, stdin=stdin, env=env, stdout_cap=stdout_cap
    )


async def _git_ok(root: Path, *args: str, what: str) -> str:
    result = await git(root, *args)
    if result.returncode != 0:
        raise ReviewLoadError(f"{what}: {result.error_line}")
    return result.text


async def repo_root(cwd: Path) -> Path:
    if not await trio.Path(cwd).is_dir():
        raise ReviewLoadError(f"{cwd} is not a directory")
    try:
        result = await git(cwd, "rev-parse", "--show-toplevel")
    except FileNotFoundError:
        raise ReviewLoadError("git is not installed or not on PATH") from None
    if result.returncode != 0:
        raise ReviewLoadError(f"{cwd} is not a git repository")
    return Path(result.text.strip())


async def resolve_commit(root: Path, rev: str, *, what: str = "commit") -> str:
    if not rev or rev.startswith("-"):
        raise ReviewLoadError(f"{what} {rev!r} is not a revision")
    result = await git(root, "rev-parse", "-q", "--verify", "--end-of-options", rev + "^{commit}")
    if result.returncode != 0:
        raise ReviewLoadError(f"unknown {what} {rev!r}")
    return result.text.strip()


async def _head(root: Path) -> str | None:
    result = await git(root, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    return result.text.strip() if result.returncode == 0 else None


async def _diff(root: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    result = await git(
        root, "diff", *DIFF_OPTIONS, *args, "--", *EXCLUDE_STORE, env=env, stdout_cap=DIFF_CAP
    )
    if result.truncated:
        raise _too_large("the diff")
    if result.returncode != 0:
        raise ReviewLoadError(f"git diff: {result.error_line}")
    return result.text


async def read_diff(cwd: Path, target: Target) -> DiffRead:
    """Read `target`'s diff (see the module doc). Raises ReviewLoadError."""
    if isinstance(target, PullRequestTarget):
        return await _read_pull_request(cwd, target)
    root = await repo_root(cwd)
    if isinstance(target, WorkingTreeTarget):
        base = await _head(root)
        text = await _read_working_tree(root, base)
        return DiffRead(root, target, base, None, text)
    if isinstance(target, StagedTarget):
        base = await _head(root)
        text = await _diff(root, "--cached", base or EMPTY_TREE)
        return DiffRead(root, target, base, None, text)
    if isinstance(target, CommitTarget):
        head = await resolve_commit(root, target.sha)
        parent = await git(root, "rev-parse", "-q", "--verify", head + "^1")
        base = parent.text.strip() if parent.returncode == 0 else None  # a root commit
        return DiffRead(root, target, base, head, await _diff(root, base or EMPTY_TREE, head))
    if isinstance(target, RangeTarget):
        base = await resolve_commit(root, target.base, what="base")
        head = await resolve_commit(root, target.head, what="head")
        return DiffRead(root, target, base, head, await _diff(root, base, head))
    if isinstance(target, BranchTarget):
        tip = await _head(root)
        if tip is None:
            raise ReviewLoadError("the branch has no commits yet")
        head = tip
        default = target.base or await default_branch(root)
        base_tip = await resolve_commit(root, default, what="base branch")
        merge_base = (await _git_ok(root, "merge-base", base_tip, head, what="merge-base")).strip()
        return DiffRead(root, target, merge_base, head, await _diff(root, merge_base, head))
    raise ReviewLoadError(f"unknown target {target!r}")


async def _read_working_tree(root: Path, base: str | None) -> str:
    """HEAD (or the empty tree) against the working tree, untracked files
    included. Untracked files are added as intent-to-add entries to a copy of
    the index, so the user's index is never written."""
    listed = await _git_ok(
        root, "ls-files", "-z", "--others", "--exclude-standard", "--", *EXCLUDE_STORE,
        what="git ls-files",
    )  # fmt: skip
    untracked = [name for name in listed.split("\0") if name]
    if not untracked:
        return await _diff(root, base or EMPTY_TREE)
    index_path = Path(
        root, (await _git_ok(root, "rev-parse", "--git-path", "index", what="git")).strip()
    )
    with tempfile.TemporaryDirectory(prefix="luxe-review-") as scratch:
        temp_index = Path(scratch, "index")
        await trio.to_thread.run_sync(_copy_if_exists, index_path, temp_index)
        env = {"GIT_INDEX_FILE": str(temp_index)}
        stdin = "\0".join(untracked).encode("utf-8", "surrogateescape")
        added = await git(
            root, "add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul",
            env=env, stdin=stdin,
        )  # fmt: skip
        if added.returncode != 0:
            raise ReviewLoadError(f"git add --intent-to-add: {added.error_line}")
        return await _diff(root, base or EMPTY_TREE, env=env)


def _copy_if_exists(source: Path, destination: Path) -> None:
    """The index, with its mtime: git tells a racily clean entry (a file
    changed in the same clock tick as the index was written, same size) by
    comparing it with the index's own mtime, which a plain copy would make
    later than every entry, hiding the change from the diff."""
    try:
        shutil.copy2(source, destination)
    except FileNotFoundError:
        pass  # no index yet: an empty temporary index is right


async def default_branch(root: Path) -> str:
    """origin's HEAD if known, else a local main or master."""
    remote_head = await git(root, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD")
    if remote_head.returncode == 0 and remote_head.text.strip():
        return remote_head.text.strip()
    for name in ("main", "master", "trunk"):
        found = await git(root, "rev-parse", "-q", "--verify", f"refs/heads/{name}")
        if found.returncode == 0:
            return name
    raise ReviewLoadError(
        "cannot tell the default branch (no origin/HEAD, main or master); give a base"
    )


# gh waits on GitHub as long as GitHub makes it, and a load holds the
# review's owner task (luxe.review.service): without a deadline, a GitHub
# that never answers held every review action after it until close. As
# long as the GitHub layer's reads (READ_TIMEOUT_S); tests set a shorter
# one through the environment.
GH_TIMEOUT_ENV = "LUXE_REVIEW_GH_TIMEOUT_S"
# A commit id answered by gh (`headRefOid`, `.base.sha`) is 40 or 64 hex
# digits; more than this is no commit id, and is not read further.
OID_ANSWER_CAP = 4096


async def _gh(root: Path, *args: str, cap: int) -> child_process.Completed:
    """gh's answer (at most `cap` bytes), run by the GitHub layer
    (luxe.github.gh.run: the deadline, the process group ended on a timeout
    or a cancel); gh missing or past the deadline is a ReviewLoadError in
    the GitHub layer's words."""
    timeout_s = seconds_from(os.environ, GH_TIMEOUT_ENV, gh.READ_TIMEOUT_S)
    try:
        return await gh.gh(*args, cwd=root, timeout_s=timeout_s, stdout_cap=cap)
    except gh.GhUnavailable as unavailable:
        raise ReviewLoadError(unavailable.message) from None


async def _gh_commit_id(root: Path, *args: str, what: str) -> str:
    """gh's short answer to `args` (a commit id, or JSON holding one);
    ReviewLoadError naming `what` when gh refuses or says too much."""
    done = await _gh(root, *args, cap=OID_ANSWER_CAP)
    if done.truncated:
        raise ReviewLoadError(f"{what}: unexpected answer (over {OID_ANSWER_CAP} bytes)")
    if done.returncode != 0:
        raise ReviewLoadError(f"{what}: {done.error_line}")
    return done.text


async def _read_pull_request(cwd: Path, target: PullRequestTarget) -> DiffRead:
    try:
        root = await repo_root(cwd)
    except ReviewLoadError:
        if target.repository is None:
            raise ReviewLoadError(
                f"{cwd} is not a git repository; name the pull request's repository"
            ) from None
        root = cwd
    if target.number <= 0:
        raise ReviewLoadError(f"{target.number} is not a pull request number")
    if target.repository is not None:
        try:
            gh.checked_repository(target.repository)
        except gh.GhFailed as refused:
            raise ReviewLoadError(refused.message) from None
    repo_args = ("--repo", target.repository) if target.repository else ()
    number = str(target.number)
    base, head = await _pull_request_commits(root, target, repo_args)
    diff = await _gh(root, "pr", "diff", number, "--color", "never", *repo_args, cap=DIFF_CAP)
    if diff.truncated:
        raise _too_large(f"pull request {number}'s diff")
    if diff.returncode != 0:
        raise ReviewLoadError(f"gh pr diff {number}: {diff.error_line}")
    return DiffRead(root, target, base, head, diff.text)


async def _pull_request_commits(
    root: Path, target: PullRequestTarget, repo_args: tuple[str, ...]
) -> tuple[str, str]:
    """The pull request's (base, head) commit ids. `baseRefOid` is not a
    `gh pr view` field before gh 2.4x (Debian ships 2.23): the head comes
    from `gh pr view`, the base from the REST API."""
    number = str(target.number)
    view = await _gh_commit_id(
        root, "pr", "view", number, "--json", "headRefOid", *repo_args, what=f"gh pr view {number}"
    )
    try:
        head = str(json.loads(view)["headRefOid"])
    except (ValueError, KeyError, TypeError):
        raise ReviewLoadError(f"gh pr view {number}: unexpected answer") from None
    pull_path = f"repos/{target.repository or '{owner}/{repo}'}/pulls/{number}"
    base = await _gh_commit_id(root, "api", pull_path, "--jq", ".base.sha", what=f"gh api {pull_path}")
    if not base.strip():
        raise ReviewLoadError(f"gh api {pull_path}: no base commit")
    return base.strip(), head


def parse_read(read: DiffRead) -> ParsedDiff:
    """Parse a read diff; git's output that does not parse is a load error."""
    try:
        return parse_diff(read.text)
    except DiffParseError as error:
        raise ReviewLoadError(f"cannot read the diff: {error}") from None


def reviews_dir(root: Path) -> Path:
    return root / REVIEWS_DIR
