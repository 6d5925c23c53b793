"""Fixtures for GitHub tests: the real gh against the fake GitHub
(tests/helpers/github.py), a checkout whose `origin` is a bare repository
served by git http-backend, and luxe started in it."""

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
