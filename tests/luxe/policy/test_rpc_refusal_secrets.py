"""A refused start (exit 2, before `ready`) says why on stderr, and for
`--issue`/`--from-pr` that is gh's complaint, which may name a remote URL
with its token (`failed to fetch https://x-access-token:ghp_…@github.com`).
It came before any gate, so nothing redacted it; now a refusal is redacted
with the credentials known without one: those the person exported and the
ones in the URLs of git's config. Through the real `luxe --rpc`."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import pytest

from tests.luxe.conftest import SpawnLuxe

from .e2e import executable

GITHUB_TOKEN = "ghp_R3fus4lT0ken9aBcDeFgHiJkLmNoPqRsT"
REMOTE_TOKEN = "ghp_R3m0teUrlT0kenZ9yX8wV7uT6sR5qP4oN"

# What gh says as it fails, per spelling.
GH_SAYS = {
    "an exported token in a URL": f"failed to fetch https://x-access-token:{GITHUB_TOKEN}@github.com/o/r",
    "an exported token in capitals": f"BAD CREDENTIALS: {GITHUB_TOKEN.upper()}",
    "an exported token in base64": f"auth header Basic {base64.b64encode(GITHUB_TOKEN.encode()).decode()}",
    "the token of the remote's URL": f"could not read https://octo:{REMOTE_TOKEN}@github.com/o/r.git",
}


@pytest.mark.parametrize("spelling", list(GH_SAYS))
def test_a_refused_start_quoting_gh_shows_no_credential(
    spelling: str, spawn: SpawnLuxe, repo: Path, tmp_path: Path
) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "origin", f"https://octo:{REMOTE_TOKEN}@github.com/o/r.git"],
        check=True,
    )
    bin_dir = tmp_path / "bin"
    executable(bin_dir / "gh", f"#!/bin/sh\necho '{GH_SAYS[spelling]}' >&2\nexit 1\n")
    (bin_dir / "git").symlink_to("/usr/bin/git")
    luxe = spawn([], "--from-pr", "7", env_extra={"PATH": str(bin_dir), "GITHUB_TOKEN": GITHUB_TOKEN})
    assert luxe.process.wait(timeout=60) == 2
    assert luxe.read_to_eof() == []  # not even ready
    said = luxe.stderr_text()
    assert "luxe: --from-pr 7: " in said and "[REDACTED:" in said, said
    forms = (GITHUB_TOKEN, GITHUB_TOKEN.upper(), base64.b64encode(GITHUB_TOKEN.encode()).decode(), REMOTE_TOKEN)
    assert not [form for form in forms if form in said], said
