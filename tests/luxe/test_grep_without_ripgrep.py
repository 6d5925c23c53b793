"""The grep tool where ripgrep is not installed (luxe's own search, in a
worker thread), through the real `luxe --rpc`: files a repository may ship
that are not regular files are passed over, never opened."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.deep_tree import deep_tree
from tests.helpers.swap import hard_link_to_env, link_to_a_siblings_env, link_to_env
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.policy.hostile import grep_while_swapping
from tests.luxe.rpc_driver import call, tool_results


def test_grep_passes_over_fifos_devices_and_sockets(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    (repo / "notes.txt").write_text("the needle 42\n")
    os.mkfifo(repo / "queue.fifo")  # opening it for reading waits for a writer
    (repo / "zero").symlink_to("/dev/zero")  # never ends
    (repo / "random").symlink_to("/dev/urandom")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(repo / "control.sock"))
    try:
        assert _grep_without_ripgrep(spawn, env, tmp_path) == ["notes.txt:1:the needle 42"]
    finally:
        listener.close()


def test_grep_finds_a_file_1500_folders_deep_and_one_beside_a_linked_loop(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    # os.walk recursed (Python 3.11): a tree this deep "crashed" the search.
    (repo / "loop").mkdir()
    (repo / "loop" / "again").symlink_to("..")  # never entered
    (repo / "loop" / "near.txt").write_text("the needle 8\n")
    with deep_tree(repo / "deep", 1500) as bottom:
        (bottom / "bottom.txt").write_text("the needle 7\n")
        results = _grep_without_ripgrep(spawn, env, tmp_path)
    deep, near = results[0].split("\n")
    assert deep.startswith("deep/" + "d/" * 100), deep  # (the line is cut for the model)
    assert near == "loop/near.txt:1:the needle 8"


def _grep_without_ripgrep(spawn: SpawnLuxe, env: dict[str, str], tmp_path: Path) -> list[str]:
    """What the grep tool answered for `needle` with no rg on PATH (only
    git), so luxe searched by itself."""
    luxe = spawn(
        [{"tool_calls": [call("grep", pattern="needle")]}, {"text": "done"}],
        env_extra={"PATH": _bin_without_ripgrep(tmp_path)},
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "find it"})
    luxe.collect_until("turn_ended")
    assert luxe.close() == 0
    return [r["content"] for r in tool_results(env, ready["session_id"])]


@pytest.mark.parametrize(
    "plant", [hard_link_to_env, link_to_env, link_to_a_siblings_env], ids=lambda f: f.__name__
)
def test_grep_never_reads_a_secret_file_swapped_in_after_its_name_was_checked(
    plant: Callable[[Path], None], repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    # The search skipped secret files by their path, then opened the path:
    # a name swapped for a link to `.env` in between had its lines shown
    # (the value redacted, every other word of the file not).
    without_rg = {**env, "PATH": _bin_without_ripgrep(tmp_path)}
    shown = grep_while_swapping(plant, repo, without_rg)
    assert "TEXT" in shown  # the plain file was searched
    assert "MARKER" not in shown
    assert "API_KEY" not in shown


def _bin_without_ripgrep(tmp_path: Path) -> str:
    """A PATH of git alone, so luxe searches by itself."""
    bin_dir = tmp_path / "bin-without-rg"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    return str(bin_dir)
