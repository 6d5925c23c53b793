"""Why a Guided Review action failed quotes git's or gh's complaint, and
the complaint may hold a secret: a git hook that prints what it checked
(a `.env` line, a token) when it aborts the chapters' commit, a gh that
names a remote URL with its token when it cannot load a pull request.
`review_chapters_commit_failed.reason` and `guided_review_load_failed.reason`
showed it as it came; now a failure's reason is redacted like the rest of a
review. Through the real `luxe --rpc`."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from tests.helpers.gitrepo import Repo
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.policy.e2e import executable
from tests.luxe.review.rpc_helpers import NO_CHAPTERS, load

ENV_VALUE = "sk_live_R3v13wF41lQ7mX2kL9wB4cR6yH1"
GITHUB_TOKEN = "ghp_R3v13wF41lT0ken9aBcDeFgHiJkLmNoPq"
VALUES = (ENV_VALUE, GITHUB_TOKEN, GITHUB_TOKEN.upper(), base64.b64encode(ENV_VALUE.encode()).decode())

# What a reference-transaction hook prints as it aborts the commit, per spelling.
HOOK_SAYS = {
    "a .env line": "grep STRIPE .env",
    "an exported token in capitals": 'echo "token $GITHUB_TOKEN" | tr a-z A-Z',
    "a .env value in base64": 'printf "blob %s\\n" "$(printf %s "$(cut -d= -f2 .env)" | base64 -w0)"',
}


def project(repo: Repo) -> Repo:
    repo.write("a.py", "A = 1\n")
    repo.write(".gitignore", ".env\n")
    repo.commit("init")
    repo.write("a.py", "A = 2\n")
    (repo.path / ".env").write_text(f"STRIPE_KEY={ENV_VALUE}\n")
    return repo


@pytest.mark.parametrize("spelling", list(HOOK_SAYS))
def test_a_commit_refused_by_a_hook_quoting_a_secret_is_redacted(
    spelling: str, spawn: SpawnLuxe, repo: Repo
) -> None:
    project(repo)
    executable(
        repo.path / ".git" / "hooks" / "reference-transaction",
        f'#!/bin/sh\n[ "$1" = prepared ] || exit 0\n{HOOK_SAYS[spelling]} >&2\nexit 1\n',
    )
    luxe = spawn([NO_CHAPTERS], cwd=repo.path, env_extra={"GITHUB_TOKEN": GITHUB_TOKEN})
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    luxe.send("commit_review_chapters", {"request_id": "k1", "review_id": review["id"]})
    refused = luxe.expect("review_chapters_commit_failed")
    assert "aborted by hook" in refused["reason"] and "[REDACTED:" in refused["reason"], refused
    assert not [v for v in VALUES if v in str(luxe.frames)]
    assert luxe.close() == 0


def test_a_pull_request_gh_cannot_load_quoting_a_token_is_redacted(
    spawn: SpawnLuxe, repo: Repo, tmp_path: Path
) -> None:
    project(repo)
    executable(
        tmp_path / "bin" / "gh",
        f"#!/bin/sh\necho \"could not read https://x-access-token:{GITHUB_TOKEN}@github.com/acme/w\" >&2\nexit 1\n",
    )
    luxe = spawn(
        [NO_CHAPTERS],
        cwd=repo.path,
        env_extra={"GITHUB_TOKEN": GITHUB_TOKEN, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"},
    )
    luxe.expect("ready")
    luxe.send("load_guided_review", {"request_id": "p", "target": {"kind": "pull_request", "number": 7}})
    failed = luxe.expect("guided_review_load_failed", timeout=30)
    assert "could not read" in failed["reason"] and "[REDACTED:" in failed["reason"], failed
    assert not [v for v in VALUES if v in str(luxe.frames)]
    assert luxe.close() == 0
