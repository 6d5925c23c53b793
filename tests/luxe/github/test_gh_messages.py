"""gh's complaints, as gh 2.23 words them, become workspace_updated.github;
a gh or git past its timeout is named for a person."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from luxe.github.gh import GhUnavailable, classify, run


@pytest.mark.parametrize(
    ("message", "status"),
    [
        ("HTTP 401: Bad credentials (https://ghe.test/api/graphql)", "not_authenticated"),
        ("To get started with GitHub CLI, please run:  gh auth login", "not_authenticated"),
        ("none of the git remotes configured for this repository point to a known GitHub host. "
         "To tell gh about a new GitHub host, please use `gh auth login`", "no_github_remote"),
        ("none of the git remotes configured for this repository correspond to the GH_HOST "
         "environment variable.", "no_github_remote"),
        ("no git remotes found", "no_github_remote"),
        ('Post "https://api.github.com/graphql": dial tcp: lookup api.github.com: no such host',
         "offline"),
        ('Post "https://ghe.test/api/graphql": proxyconnect tcp: dial tcp 127.0.0.1:1: connect: '
         "connection refused", "offline"),
        ("HTTP 502: Bad Gateway (https://ghe.test/api/graphql)", "offline"),
        ("GraphQL: Something went wrong", "error: GraphQL: Something went wrong"),
    ],
)
def test_classify(message: str, status: str) -> None:
    assert classify(message) == status


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("gh", "pr", "view", "7", "--json", "headRefOid"),
         "gh pr view 7 did not answer in 0.3 s (GitHub may be unreachable)"),
        (("gh", "api", "repos/acme/widgets/pulls/7", "--jq", ".base.sha"),
         "gh api repos/acme/widgets/pulls/7 did not answer in 0.3 s (GitHub may be unreachable)"),
        (("git", "push", "-u", "origin", "topic"), "git push did not answer in 0.3 s"),
    ],
)
async def test_a_command_past_its_timeout_is_named_as_far_as_its_first_option(
    argv: tuple[str, ...], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The words a person reads, from the GitHub layer and Guided Review
    alike (both run gh through gh.run)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("gh", "git"):
        (folder / name).write_text("#!/bin/sh\nexec sleep 600\n")
        (folder / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    with pytest.raises(GhUnavailable) as raised:
        await run(argv, cwd=tmp_path, timeout_s=0.3)
    assert (raised.value.status, raised.value.message) == ("offline", said)
