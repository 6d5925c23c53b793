"""The grep tool where ripgrep is installed, through the real `luxe --rpc`:
ripgrep opens the files itself, so a repository swapping a name for a
secret file while it reads must not get that file's lines to the model."""

from __future__ import annotations

import re
import shutil
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
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.policy.hostile import grep_while_swapping, ripgrep_dir
from tests.luxe.rpc_driver import call, tool_results


def test_grep_shows_the_lines_ripgrep_found_as_the_file_holds_them(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    # Each line is shown once Luxe's own read of its file finds it there:
    # a CRLF file's, a last line with no newline, a name with a colon and a
    # space, a match 200,000 lines (and many reads) in, and a long line.
    (repo / "crlf.txt").write_bytes(b"the needle 1\r\nplain\r\nthe needle 3\r\n")
    (repo / "last.txt").write_bytes(b"plain\nthe needle at the end")
    (repo / "odd name").mkdir()
    (repo / "odd name" / "a:b.txt").write_text("the needle: 1:2:\n")
    (repo / "deep.txt").write_text("plain\n" * 200_000 + "the needle deep\n")
    (repo / "long.txt").write_text("y" * 100_000 + " the needle\n")
    lines = sorted(_grep_with_ripgrep(spawn, env).split("\n"))
    assert lines == [
        "crlf.txt:1:the needle 1",
        "crlf.txt:3:the needle 3",
        "deep.txt:200001:the needle deep",
        "last.txt:2:the needle at the end",
        "long.txt:1:" + "y" * 289,  # (the line is cut for the model)
        "odd name/a:b.txt:1:the needle: 1:2:",
    ]


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


def _grep_with_ripgrep(
    spawn: SpawnLuxe, env: dict[str, str], glob: str | None = None, path_first: str | None = None
) -> str:
    """What the grep tool answered for `needle` (in files matching `glob`)
    with rg on PATH (`path_first` before it)."""
    rg = ripgrep_dir()
    if rg is None:
        pytest.skip("ripgrep is not installed (.ci/run installs it)")
    args = {"pattern": "needle", **({"glob": glob} if glob else {})}
    path = ":".join(filter(None, (path_first, rg, env.get("PATH", ""))))
    luxe = spawn(
        [{"tool_calls": [call("grep", **args)]}, {"text": "done"}],
        env_extra={"PATH": path},
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "find it"})
    luxe.collect_until("turn_ended")
    assert luxe.close() == 0
    [result] = tool_results(env, ready["session_id"])
    return str(result["content"])


@pytest.mark.parametrize("separator", ["\n", "\r", "\n\n"])
def test_a_secret_files_name_with_a_line_break_still_keeps_ripgrep_out(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str], separator: str
) -> None:
    # Luxe names every secret file in an ignore file, one a line, so that
    # ripgrep never opens one. A name with a line break in it was two
    # patterns: ripgrep read the secret file, and passed over the ordinary
    # file named by the part after the break.
    (repo / f".env.{separator}notes.txt").write_text("API_KEY=needle-value-4Kq9Zt\n")
    (repo / "notes.txt").write_text("the needle in plain notes\n")
    shown = _grep_with_ripgrep(spawn, env)
    assert "notes.txt:1:the needle in plain notes" in shown
    assert "needle-value" not in shown and "API_KEY" not in shown
    assert "[1 secret file skipped]" in shown


GLOBS = ["*", "{*.txt,.env}", "[.]env", "*.js"]


@pytest.mark.parametrize("glob", GLOBS)
def test_the_models_glob_never_widens_what_ripgrep_opens(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str], tmp_path: Path, glob: str
) -> None:
    # ripgrep lets a glob given on its command line override every ignore
    # file, Luxe's own list of the secret files included, and a later glob
    # override an earlier one: the model's glob (`*`, `.env*`) had ripgrep
    # open `.env`, and search the folders Luxe skips (node_modules). An
    # `rg` first on PATH runs the real one under strace, to see what it opened.
    strace = shutil.which("strace")
    if strace is None or ripgrep_dir() is None:
        pytest.skip("needs strace and ripgrep")
    log = tmp_path / "opened"
    spy = tmp_path / "spy"
    spy.mkdir()
    real = str(Path(str(ripgrep_dir())) / "rg")
    (spy / "rg").write_text(
        f'#!/bin/sh\nexec {strace} -f -qq -e trace=openat -o "{log}.$$" {real} "$@"\n'
    )
    (spy / "rg").chmod(0o755)
    (repo / ".env").write_text("API_KEY=needle-value-8Hq2Lw\n")
    (repo / "notes.txt").write_text("the needle in notes\n")
    (repo / "node_modules").mkdir()
    (repo / "node_modules" / "dep.js").write_text("the needle in a dependency\n")
    (repo / "app.js").write_text("the needle in the app\n")
    shown = _grep_with_ripgrep(spawn, env, glob=glob, path_first=str(spy))
    assert "node_modules" not in shown
    assert "needle-value" not in shown
    opened = "".join(p.read_text() for p in tmp_path.glob("opened.*"))
    assert opened, "the spy never ran"
    assert not re.search(r'"(\./)?\.env"', opened)
    assert "node_modules/dep.js" not in opened
