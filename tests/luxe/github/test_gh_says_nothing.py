"""A gh that posts a comment and then prints nothing (or blank lines) where
it prints the comment's URL: the comment is on GitHub, and Luxe says so,
`comment_posted` with an empty `url`. It answered `action_rejected`
"internal error: list index out of range", so a client would post again.
The real `luxe --rpc`, the real gh (wrapped) and the fake GitHub."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe

pytestmark = needs_gh

OUTPUTS = {"nothing": "", "blank lines": "printf '\\n \\n\\n'"}


@pytest.mark.parametrize("says", list(OUTPUTS))
def test_a_comment_posted_by_a_gh_that_prints_no_url_is_posted(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, env: dict[str, str],
    tmp_path: Path, says: str,
) -> None:
    pull = open_fix_retry(github, checkout)
    real = shutil.which("gh", path=env["PATH"])
    assert real
    folder = tmp_path / "bin"
    folder.mkdir()
    wrapper = folder / "gh"
    wrapper.write_text(f'#!/bin/sh\n"{real}" "$@" >/dev/null || exit $?\n{OUTPUTS[says]}\n')
    wrapper.chmod(0o755)
    luxe = spawn([], "--github-writes", env_extra={"PATH": f"{folder}:{env['PATH']}"})
    luxe.handshake()
    luxe.send("post_comment", {"request_id": "c", "pull_request": pull.number, "body": "Thanks!"})
    assert luxe.expect("comment_posted") == {"request_id": "c", "url": ""}
    assert [c.body for c in pull.issue_comments] == ["Thanks!"]
    assert luxe.close() == 0
