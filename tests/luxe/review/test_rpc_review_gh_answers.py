"""A pull request's review reads two commit ids from gh before its diff:
the head (`gh pr view --json headRefOid`) and the base (`gh api …
--jq .base.sha`). A commit id is 40 or 64 hex digits; an answer far longer
is no commit id, and reading it whole let GitHub (or whatever answers as
it) fill Luxe's memory. The load fails naming the answer, and the session
goes on. The real `luxe --rpc`, the real gh and the fake GitHub."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import needs_gh
from tests.helpers.gitrepo import Repo
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.review.rpc_helpers import (
    NO_CHAPTERS,
    next_load_is_answered,
    pull_request_load_fails,
    topic_pull_request,
)

HUGE = 8 << 20


def endless_gh(folder: Path, real: str, asked: str) -> str:
    """A folder whose `gh` answers the command `asked` (a shell pattern of
    its first two words) with hex digits that never end, and passes
    everything else to the `real` gh."""
    folder.mkdir()
    script = folder / "gh"
    script.write_text(
        f'#!/bin/sh\ncase "$1 $2" in\n  {asked}) exec yes {"f" * 40} ;;\nesac\n'
        f'exec "{real}" "$@"\n'
    )
    script.chmod(0o755)
    return str(folder)


@needs_gh
@pytest.mark.parametrize(
    "answer", ["a head id of megabytes", "a head id that never ends", "a base id that never ends"]
)
def test_a_commit_id_answer_too_long_fails_the_load_and_the_session_goes_on(
    spawn: SpawnLuxe, repo: Repo, github: FakeGitHub, env: dict[str, str], tmp_path: Path,
    answer: str,
) -> None:
    pull = topic_pull_request(repo, github)
    extra = dict(github.env())
    if answer == "a head id of megabytes":
        pull.merged_head = "f" * HUGE  # what GitHub answers as the head commit
    else:
        real = shutil.which("gh", path=env["PATH"])
        assert real
        asked = '"pr view"' if "head" in answer else '"api "*'
        extra["PATH"] = f"{endless_gh(tmp_path / 'bin', real, asked)}:{env['PATH']}"
    luxe = spawn([NO_CHAPTERS] * 4, cwd=repo.path, env_extra=extra)
    luxe.expect("ready")
    pull_request_load_fails(luxe, pull.number, "unexpected answer (over 4096 bytes)")
    next_load_is_answered(luxe, repo)
    assert luxe.close() == 0
