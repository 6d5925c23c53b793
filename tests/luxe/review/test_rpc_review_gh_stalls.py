"""A pull request's review is read through the user's gh, and gh waits on
GitHub as long as GitHub makes it: a GitHub that never answers, or a gh that
hangs, once held the review's owner task for good, so that load and every
review action sent after it (a working-tree load, an edit) went unanswered
until the session closed. The read now has the GitHub layer's deadline
and words (gh is run by luxe.github.gh.run); tests shorten the deadline
(LUXE_REVIEW_GH_TIMEOUT_S). A gh that has printed part of its answer has not
answered: the deadline holds there too. The real `luxe --rpc`, the real gh
and the fake GitHub."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import hanging_gh, needs_gh
from tests.helpers.gitrepo import Repo
from tests.helpers.procs import command_name
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.review.rpc_helpers import (
    NO_CHAPTERS,
    next_load_is_answered,
    pull_request_load_fails,
    topic_pull_request,
)
from tests.luxe.rpc_driver import processes_with_marker

# What the half-way gh prints of `gh pr diff` before it hangs.
DIFF_START = "diff --git a/a.py b/a.py\n--- a/a.py\n"


@needs_gh
@pytest.mark.parametrize(
    ("stall", "waited_on"),
    [("github never answers", "pr view"), ("gh hangs", "pr view"), ("gh hangs half-way", "pr diff")],
)
def test_a_pull_request_review_that_gh_never_answers_fails_and_frees_the_review(
    spawn: SpawnLuxe, repo: Repo, github: FakeGitHub, env: dict[str, str], tmp_path: Path,
    stall: str, waited_on: str,
) -> None:
    pull = topic_pull_request(repo, github)
    extra = {**github.env(), "LUXE_REVIEW_GH_TIMEOUT_S": "3"}
    if stall == "gh hangs":
        extra["PATH"] = f"{hanging_gh(tmp_path / 'bin')}:{env['PATH']}"
    elif stall == "gh hangs half-way":  # the pull request is read, its diff starts, then nothing
        real = shutil.which("gh", path=env["PATH"])
        assert real
        stalling = hanging_gh(tmp_path / "bin", real, hangs_on="pr diff", prints=DIFF_START)
        extra["PATH"] = f"{stalling}:{env['PATH']}"
    luxe = spawn([NO_CHAPTERS] * 4, cwd=repo.path, env_extra=extra)
    luxe.expect("ready")
    if stall == "github never answers":
        luxe.expect("workspace_updated")  # the workspace's own gh has had its answer
        github.api.delay_s = 600.0  # the fixture's teardown ends the stall
    pull_request_load_fails(
        luxe, pull.number,
        f"gh {waited_on} {pull.number} did not answer in 3 s (GitHub may be unreachable)",
    )
    next_load_is_answered(luxe, repo)
    assert luxe.close() == 0
    left = [p for p in processes_with_marker("", scope=env) if command_name(p) in ("gh", "sleep")]
    assert left == []
