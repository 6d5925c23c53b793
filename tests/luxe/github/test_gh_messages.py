"""gh's complaints, as gh 2.23 words them, become workspace_updated.github."""

from __future__ import annotations

import pytest

from luxe.github.gh import classify


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
