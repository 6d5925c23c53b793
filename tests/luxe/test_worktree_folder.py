"""`--worktree` never makes the checkout through a folder that is not
plainly the person's: the real `luxe --rpc`.

The worktree goes to `<repo>.worktrees/<name>`, beside the repository. That
folder can be planted: by an unpacked archive holding the repository and a
link beside it (to a folder of the person's, or dangling), or by another
user when the repository sits in a shared folder such as /tmp. Before, Luxe
made the checkout through the link (into the folder it named), stopped with
a traceback at a dangling one, and used another user's folder (or the
person's own, open to all) where others could swap the checkout the agent
then works in. Now each is refused before anything is made, exit 2, with
the reason.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.luxe.conftest import SpawnLuxe

NOBODY = 65534


def _link_to_a_folder(beside: Path, elsewhere: Path) -> str:
    elsewhere.mkdir()
    beside.symlink_to(elsewhere)
    return "is a symbolic link"


def _dangling_link(beside: Path, elsewhere: Path) -> str:
    beside.symlink_to(elsewhere)
    return "is a symbolic link"


def _another_users_folder(beside: Path, elsewhere: Path) -> str:
    beside.mkdir()
    os.chmod(beside, 0o777)
    os.chown(beside, NOBODY, NOBODY)
    return f"belongs to uid {NOBODY}"


def _own_folder_open_to_all(beside: Path, elsewhere: Path) -> str:
    beside.mkdir()
    os.chmod(beside, 0o777)
    return "can be written by other users (mode 0777)"


PLANTED: dict[str, Callable[[Path, Path], str]] = {
    "a link to a folder": _link_to_a_folder,
    "a dangling link": _dangling_link,
    "another user's folder open to all": _another_users_folder,
    "the person's folder open to all": _own_folder_open_to_all,
}


@pytest.mark.parametrize("planted", list(PLANTED))
def test_a_planted_worktrees_folder_is_refused(
    spawn: SpawnLuxe, repo: Path, tmp_path: Path, planted: str
) -> None:
    beside = repo.parent / f"{repo.name}.worktrees"
    elsewhere = tmp_path / "elsewhere"
    reason = PLANTED[planted](beside, elsewhere)
    luxe = spawn([], "--worktree", "topic")
    assert luxe.process.wait(timeout=60) == 2
    assert luxe.read_to_eof() == []  # not even ready
    said = luxe.stderr_text()
    assert f"--worktree: {beside} {reason}" in said, said
    assert "Traceback" not in said
    assert not (elsewhere / "topic").exists()
    if not beside.is_symlink():
        assert list(beside.iterdir()) == []
    assert not (repo / ".git" / "worktrees").exists()  # git was never asked
