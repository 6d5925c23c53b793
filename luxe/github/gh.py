"""Run the user's gh (and git) for the GitHub layer: one child per call, in
its own process group, with a timeout and a cap on what of gh's answer is
read (JSON_CAP), and say in one word why GitHub is not reachable when it is
not.

`run` owns the process it starts (through `luxe.child_process.run`): a
timeout or a cancel ends the whole group with the shared `terminate_group`
before the caller sees `GhUnavailable` or Cancelled. The caller's task lives
in the session's nursery, so closing the session kills every gh still
running. It is the one way Luxe runs gh: the workspace, the pull-request
actions, Guided Review's reads (luxe.review.diff) and, before the session
starts, `--issue`/`--from-pr`/`--worktree` (luxe.github.start, in a trio run
of its own) all say gh missing or silent in its words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from luxe import child_process

# A read may take this long before the workspace says gh is slow; writes
# (push, create, merge) get longer.
READ_TIMEOUT_S = 30.0
WRITE_TIMEOUT_S = 120.0
# The most of gh's answer read. gh prints what GitHub holds, and anyone who
# can open a pull request or comment writes that: read whole, a huge title,
# body or thread could exhaust Luxe's memory. GitHub itself keeps a body to
# 65,536 characters, so only an attack comes near this. (A diff has Guided
# Review's cap: luxe.review.diff.DIFF_CAP.)
JSON_CAP = 16 << 20


def too_large(what: str, cap: int = JSON_CAP) -> str:
    """Why an answer past `cap` was not read, for a person."""
    return f"{what}: GitHub's answer is over {cap >> 20} MB, too large to read"


class GhUnavailable(Exception):
    """gh cannot answer at all. `status` is what `workspace_updated.github`
    says: gh_missing, not_authenticated, no_github_remote, offline, or
    `error: <message>`."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


_NOT_AUTHENTICATED = ("gh auth login", "bad credentials", "http 401", "not logged in",
                      "authentication required", "gh_token")
_NO_REMOTE = ("none of the git remotes", "no git remotes", "not a git repository",
              "correspond to the gh_host",
              "unable to determine", "could not determine base repo")
_OFFLINE = ("dial tcp", "connection refused", "no such host", "i/o timeout", "proxyconnect",
            "could not resolve", "network is unreachable", "connection reset", ": eof",
            "tls handshake", "timeout awaiting", "http 502", "http 503", "http 504")


def classify(message: str) -> str:
    """workspace_updated.github for a gh failure message."""
    low = message.lower()
    # First: "none of the git remotes … point to a known GitHub host … use
    # `gh auth login`" is about the remote, though it names the login.
    if any(mark in low for mark in _NO_REMOTE):
        return "no_github_remote"
    if any(mark in low for mark in _NOT_AUTHENTICATED):
        return "not_authenticated"
    if any(mark in low for mark in _OFFLINE):
        return "offline"
    return f"error: {message}"


async def run(
    argv: tuple[str, ...],
    *,
    cwd: Path,
    timeout_s: float,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    stdout_cap: int | None = None,
) -> child_process.Completed:
    """Run `argv` (gh or git) with a timeout (and at most `stdout_cap` bytes
    of output: see luxe.child_process). Raises GhUnavailable when the
    program is missing or cannot start, or the timeout passes (the group is
    killed first)."""
    result: child_process.Completed | None = None
    with trio.move_on_after(timeout_s):
        try:
            result = await child_process.run(argv, cwd=cwd, stdin=stdin, env=env, stdout_cap=stdout_cap)
        except FileNotFoundError:
            raise _missing(argv[0]) from None
        except OSError as exc:  # there, but not a program this system runs
            raise _cannot_start(argv[0], exc) from None
    if result is None:
        raise GhUnavailable("offline", _did_not_answer(argv, timeout_s))
    return result


def _missing(program: str) -> GhUnavailable:
    """`program` (gh or git) is not installed: the status and the words for
    a person (gh named as the GitHub CLI: not everyone knows it by its
    command)."""
    if program == "gh":
        return GhUnavailable("gh_missing", "gh (the GitHub CLI) is not installed or not on PATH")
    return GhUnavailable(f"error: {program} is not installed",
                         f"{program} is not installed or not on PATH")


def _cannot_start(program: str, exc: OSError) -> GhUnavailable:
    """`program` is on PATH but would not start (not executable, not a
    program for this machine): the status and the words for a person."""
    said = f"{program} could not start: {exc.strerror or exc}"
    return GhUnavailable(f"error: {said}", said)


def _did_not_answer(argv: tuple[str, ...], timeout_s: float) -> str:
    """Why `argv` was ended at its timeout, for a person: the command as far
    as its first option (`gh pr view 42`, `git push`), and for gh the likely
    cause."""
    words = [argv[0]]
    for word in argv[1:4]:
        if word.startswith("-"):
            break
        words.append(word)
    said = f"{' '.join(words)} did not answer in {timeout_s:g} s"
    return said + " (GitHub may be unreachable)" if argv[0] == "gh" else said


async def gh(*args: str, cwd: Path, timeout_s: float = READ_TIMEOUT_S,
             stdin: bytes | None = None, stdout_cap: int = JSON_CAP) -> child_process.Completed:
    """gh's answer, at most `stdout_cap` bytes of it (`truncated` past that)."""
    return await run(("gh", *args), cwd=cwd, timeout_s=timeout_s, stdin=stdin,
                     stdout_cap=stdout_cap)


async def git(
    *args: str, cwd: Path, timeout_s: float = READ_TIMEOUT_S, stdout_cap: int | None = None
) -> child_process.Completed:
    return await run(("git", *args), cwd=cwd, timeout_s=timeout_s, stdout_cap=stdout_cap)


async def gh_json(*args: str, cwd: Path, timeout_s: float = READ_TIMEOUT_S) -> Any:
    """gh's JSON answer; raises GhFailed with gh's message when it fails, or
    when the answer is past JSON_CAP (gh is stopped there)."""
    text = answer(("gh", *args), await gh(*args, cwd=cwd, timeout_s=timeout_s))
    try:
        return json.loads(text)
    except ValueError:
        raise GhFailed(f"gh {args[0]} {args[1]}: unexpected answer") from None


class GhFailed(Exception):
    """gh ran and refused; `message` is its complaint in one line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def checked(*args: str, cwd: Path, timeout_s: float = WRITE_TIMEOUT_S,
                  stdin: bytes | None = None) -> str:
    """Run gh; its stdout, or GhFailed with its complaint (or when its
    answer is past JSON_CAP)."""
    return answer(("gh", *args), await gh(*args, cwd=cwd, timeout_s=timeout_s, stdin=stdin))


def answer(argv: Sequence[str], done: child_process.Completed) -> str:
    """What `argv` (gh or git, run to `done`) printed; GhFailed with its
    complaint when it failed, or when its answer passed the cap it was read
    to (it was stopped there)."""
    if done.truncated:
        raise GhFailed(too_large(f"{argv[0]} {argv[1]}"))
    if done.returncode != 0:
        raise GhFailed(done.error_line)
    return done.text


def number_from_url(url: str) -> int | None:
    found = re.search(r"/pull/(\d+)", url)
    return int(found.group(1)) if found else None


_REPOSITORY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9._-]+")


def checked_repository(repository: str) -> tuple[str, str]:
    """(owner, name) of `owner/name`; GhFailed for anything else (it goes
    into gh's arguments and API paths)."""
    if not _REPOSITORY.fullmatch(repository) or ".." in repository:
        raise GhFailed(f"repository {repository!r} is not owner/name")
    owner, name = repository.split("/", 1)
    return owner, name


def repo_args(repository: str | None) -> tuple[str, ...]:
    if not repository:
        return ()
    checked_repository(repository)
    return ("--repo", repository)
