"""Fixtures for GitHub tests: the real gh against the fake GitHub
(tests/helpers/github.py), a checkout whose `origin` is a bare repository
served by git http-backend, luxe started in it, and a stack of pull
requests to restack."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import IDENTITY, Checkout, new_checkout
from tests.helpers.github import github as github
from tests.luxe.rpc_driver import make_env


@pytest.fixture
def env(tmp_path: Path, github: FakeGitHub) -> dict[str, str]:
    return make_env(tmp_path, **github.env(), **IDENTITY)


@pytest.fixture
def checkout(tmp_path: Path, github: FakeGitHub, env: dict[str, str]) -> Checkout:
    return new_checkout(tmp_path / "repo", github, env)


@pytest.fixture
def repo(checkout: Checkout) -> Path:
    return checkout.path


@pytest.fixture
def stack(github: FakeGitHub, checkout: Checkout) -> dict[str, str]:
    """part-1 <- part-2 <- part-3, each with a pull request; #1 squash-merged
    (its branch left in place). part-3 is checked out."""
    shas = {}
    repo = github.world.repos["o/r"]
    base = "main"
    for index in (1, 2, 3):
        name = f"part-{index}"
        shas[name] = checkout.branch(name, {f"{index}.txt": f"{index}\n"}, f"add {index}")
        github.world.open_pull(repo, title=f"Part {index}", body="", head=name, base=base)
        base = name
    github.world.merge(repo.pulls[1], "SQUASH")
    return shas
