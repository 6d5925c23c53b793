"""The grep tool where ripgrep is installed, through the real `luxe --rpc`:
ripgrep opens the files itself, so a repository swapping a name for a
secret file while it reads must not get that file's lines to the model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.swap import (
    folder_holding_a_link_to_env,
    hard_link_to_env,
    link_to_a_folder_holding_a_link_to_env,
    link_to_a_siblings_env,
    link_to_env,
)
from tests.luxe.grep_swap import grep_while_swapping
from tests.luxe.policy.hostile import ripgrep_dir


@pytest.mark.parametrize(
    ("plant", "path", "searches"),
    [
        # ripgrep's walk opens what it listed as a file; given a path, it
        # follows a symlink there (its walk follows none). Each spelling
        # makes enough searches for its swap to land in ripgrep's window
        # (its look at the name, then its open) without the fix, every run.
        (hard_link_to_env, ".", 300),
        (folder_holding_a_link_to_env, ".", 300),
        (link_to_env, "swap/racy.md", 1000),
        (link_to_a_siblings_env, "swap/racy.md", 300),
        (link_to_a_folder_holding_a_link_to_env, "swap/racy.md", 300),
    ],
    ids=lambda p: p.__name__ if callable(p) else str(p),
)
def test_grep_never_shows_a_line_ripgrep_read_while_the_name_was_a_secret(
    plant: Callable[[Path], None], path: str, searches: int, repo: Path, env: dict[str, str]
) -> None:
    # Luxe judged each name before ripgrep's search and after it: a name
    # that was a plain file at both looks and a link to `.env` while
    # ripgrep read it had that file's lines shown (the value redacted,
    # every other word of the file not).
    rg = ripgrep_dir()
    if rg is None:
        pytest.skip("ripgrep is not installed (.ci/run installs it)")
    with_rg = {**env, "PATH": f"{rg}:{env.get('PATH', '')}"}
    shown = grep_while_swapping(plant, repo, with_rg, path=path, searches=searches)
    assert "TEXT" in shown  # the plain file was searched
    assert "MARKER" not in shown
    assert "API_KEY" not in shown
