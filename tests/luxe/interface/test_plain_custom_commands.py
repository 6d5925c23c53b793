"""Custom commands in `luxe --plain`: a command file that is not a small
regular file (a FIFO, a link to /dev/zero, a sparse terabyte, a directory)
held the start for good or read until memory ran out; now each is one
`luxe:` line saying why it was skipped, and the other commands run. Through
the real `luxe --plain` on a pty and the loopback model server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.special_files import SPELLINGS, plant, said
from tests.luxe.interface.plain_pty import plain_on_fake_model


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("project", [False, True], ids=["global", "project"])
def test_a_bad_command_file_is_one_line_and_the_others_run(
    project: bool, spelling: str, repo: Path, env: dict[str, str]
) -> None:
    mine = Path(env["XDG_CONFIG_HOME"]) / "luxe" / "commands"
    folder = repo / ".luxe" / "commands" if project else mine
    plant(folder / "bad.md", spelling)
    mine.mkdir(parents=True, exist_ok=True)
    (mine / "fixit.md").write_text("# Fix an issue\nPlease fix issue $ARGUMENTS carefully.\n")
    steps = [{"text": "on it"}]
    with plain_on_fake_model(steps, "--trust-project", "/fixit 7", cwd=repo, env=env) as (luxe, server):
        luxe.wait_line("luxe: done.")
        output = luxe.finish()
        prompt = server.bodies[0]["messages"][0]["content"]
    warning = f"luxe: custom command /bad skipped: {folder}/bad.md: {said(spelling, '64 KiB')}"
    assert warning in output.splitlines(), output
    assert "Please fix issue 7 carefully." in str(prompt)
