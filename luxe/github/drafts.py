"""What a new pull request would be: the branch's stack (bottom-up, down to
the default branch or a branch that already has an open pull request), the
commits of each branch, and a title and body drafted by the model from the
commits and the diff, or from the commit messages when the model fails.
The model gets the diff as Guided Review shows it: secret files (by name)
left out, and every other line and the commit messages redacted, as the
preview is: a branch can commit a `.env`, paste a key or quote it.

Everything here reads (git, gh); callers own cancellation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import trio

from luxe.engine.model import (
    ModelRequest,
    Provider,
    ProviderError,
    StreamEvent,
    TextBlock,
    UserMessage,
)
from luxe.engine.session import ModelSource
from luxe.github import gh
from luxe.policy.secret_sources import SECRET_PATHSPECS
from luxe.protocol import github as gp
from luxe.record import record

log = logging.getLogger("luxe.github")

DRAFT_TIMEOUT_S = 90.0
DIFF_LIMIT = 20_000
# Every secret file name, left out of the diff the model drafts from.
NO_SECRET_FILES = tuple(f":(exclude,{spec[2:]}" for spec in SECRET_PATHSPECS)
SYSTEM = (
    "You write GitHub pull request titles and descriptions. Answer with the title on the "
    "first line (at most 72 characters, no prefix), a blank line, then the description in "
    "Markdown. Describe what changes and why, from the commits and the diff given."
)


class DraftError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@record
class StackLink:
    head: str
    base: str


async def _git_text(cwd: Path, *args: str, cap: int | None = None) -> str:
    """git's output; with `cap`, its first `cap` bytes (git is stopped there)."""
    done = await gh.git(*args, cwd=cwd, stdout_cap=cap)
    if done.returncode != 0 and not done.truncated:
        raise DraftError(f"git {args[0]}: {done.error_line}")
    return done.text


async def current_branch(cwd: Path) -> str:
    done = await gh.git("symbolic-ref", "-q", "--short", "HEAD", cwd=cwd)
    if done.returncode != 0 or not done.text.strip():
        raise DraftError("HEAD is detached: check out a branch to open a pull request")
    return done.text.strip()


async def check_branch_name(cwd: Path, name: str) -> None:
    """DraftError unless `name` is a branch name (never an option for git)."""
    done = await gh.git("check-ref-format", "--branch", name, cwd=cwd)
    if name.startswith("-") or done.returncode != 0:
        raise DraftError(f"{name!r} is not a branch name")


async def default_branch(cwd: Path) -> str:
    done = await gh.gh("repo", "view", "--json", "defaultBranchRef", "-q",
                       ".defaultBranchRef.name", cwd=cwd)
    if done.returncode == 0 and done.text.strip():
        return done.text.strip()
    raise DraftError(f"cannot read the default branch: {done.error_line}")


async def open_pulls(cwd: Path) -> dict[str, int]:
    """Open pull requests by head branch."""
    try:
        listed = await gh.gh_json("pr", "list", "--state", "open", "--limit", "200", "--json",
                                  "number,headRefName", cwd=cwd)
    except gh.GhFailed as exc:
        raise DraftError(f"cannot list the open pull requests: {exc.message}") from None
    return {str(p["headRefName"]): int(p["number"]) for p in listed}


async def base_ref(cwd: Path, branch: str) -> str:
    """The ref to compare against: the remote's copy of `branch` if fetched."""
    remote = f"refs/remotes/origin/{branch}"
    done = await gh.git("rev-parse", "-q", "--verify", remote, cwd=cwd)
    return f"origin/{branch}" if done.returncode == 0 else branch


async def local_branches(cwd: Path) -> dict[str, str]:
    text = await _git_text(cwd, "for-each-ref", "--format=%(refname:short) %(objectname)",
                           "refs/heads")
    return dict(line.split(" ", 1) for line in text.splitlines() if " " in line)


async def _is_ancestor(cwd: Path, older: str, newer: str) -> bool:
    done = await gh.git("merge-base", "--is-ancestor", older, newer, cwd=cwd)
    return done.returncode == 0


async def parent_branch(cwd: Path, branch: str, default: str, branches: dict[str, str]) -> str:
    """The local branch `branch` is stacked on (its nearest ancestor branch
    with commits of its own), or `default`."""
    default_ref = await base_ref(cwd, default)
    best, best_count = default, -1
    for name, tip in branches.items():
        if name in (branch, default) or tip == branches.get(branch):
            continue
        if not await _is_ancestor(cwd, name, branch):
            continue
        if await _is_ancestor(cwd, name, default_ref):
            continue  # nothing of its own: merged or never committed on
        count = int((await _git_text(cwd, "rev-list", "--count", f"{default_ref}..{name}")).strip())
        if count > best_count:
            best, best_count = name, count
    return best


async def stack(cwd: Path, branch: str, default: str, opened: dict[str, int]) -> list[StackLink]:
    """The branches to open, bottom-up: `branch`, then each parent without
    an open pull request, down to the default branch."""
    branches = await local_branches(cwd)
    links: list[StackLink] = []
    head = branch
    while True:
        parent = await parent_branch(cwd, head, default, branches)
        links.insert(0, StackLink(head, parent))
        if parent == default or parent in opened or len(links) > 20:
            return links
        head = parent


async def commits(cwd: Path, base: str, head: str) -> list[tuple[str, str, str]]:
    """(sha, subject, body) of each commit of base..head, oldest first."""
    text = await _git_text(cwd, "log", "--reverse", "--format=%H%x1f%s%x1f%b%x1e",
                           f"{base}..{head}")
    out = []
    for entry in text.split("\x1e"):
        parts = entry.strip("\n").split("\x1f")
        if len(parts) == 3:
            out.append((parts[0], parts[1], parts[2].strip()))
    return out


def from_commits(head: str, found: list[tuple[str, str, str]]) -> tuple[str, str]:
    """The fallback title and body: the commit messages."""
    if len(found) == 1:
        _, subject, body = found[0]
        return subject, body
    title = head.rsplit("/", 1)[-1].replace("-", " ").replace("_", " ").strip().capitalize()
    return title or head, "\n".join(f"- {subject}" for _, subject, _ in found)


async def from_model(provider: Provider, model: str, head: str, base: str,
                     found: list[tuple[str, str, str]], diff: str) -> tuple[str, str] | None:
    log_text = "\n\n".join(f"{subject}\n{body}".strip() for _, subject, body in found)
    prompt = (
        f"Branch {head} onto {base}.\n\nCommits:\n{log_text}\n\nDiff:\n{diff[:DIFF_LIMIT]}"
    )
    request = ModelRequest(
        model=model,
        system=SYSTEM,
        messages=(UserMessage((TextBlock(prompt),)),),
        max_tokens=2048,
    )

    async def ignore(_: StreamEvent) -> None:
        return None

    answer = None
    with trio.move_on_after(DRAFT_TIMEOUT_S):
        answer = await provider.complete(request, ignore)
    if answer is None:
        return None
    text = "".join(b.text for b in answer.content if isinstance(b, TextBlock)).strip()
    if not text:
        return None
    title, _, body = text.partition("\n")
    title = title.strip().lstrip("#").strip().removeprefix("Title:").strip()
    return (title, body.strip()) if title else None


async def draft(cwd: Path, link: StackLink, model: ModelSource | None,
                redact: Callable[[str], str]) -> tuple[gp.PullRequestDraft, bool]:
    """One pull request's draft and whether the model wrote it; `redact`
    takes the known secret values out of the commits and the diff."""
    base = await base_ref(cwd, link.base)
    found = [(sha, redact(subject), redact(body))
             for sha, subject, body in await commits(cwd, base, link.head)]
    if not found:
        raise DraftError(f"{link.head} has no commits that {link.base} lacks")
    info = [gp.CommitInfo(sha, subject) for sha, subject, _ in found]
    drafted: tuple[str, str] | None = None
    if model is not None:
        try:
            # The model sees DIFF_LIMIT characters: a branch's diff may be
            # gigabytes (a huge file in a pack of a few), so no more is read.
            diff = redact(await _git_text(cwd, "diff", f"{base}...{link.head}", "--",
                                          *NO_SECRET_FILES, cap=4 * DIFF_LIMIT))
            drafted = await from_model(await model.provider(), model.name, link.head,
                                       link.base, found, diff)
        except (ProviderError, DraftError) as exc:
            log.info("drafting %s with the model failed: %s", link.head, exc)
            drafted = None
    by_model = drafted is not None
    title, body = drafted if drafted is not None else from_commits(link.head, found)
    return gp.PullRequestDraft(link.head, link.base, title, body, info), by_model
