"""private_files by itself: what the end-to-end tests (tests/luxe/
test_private_files.py, tests/laura/test_private_files_tmux.py) do not
spell: the person's own links still work, a planted FIFO does not hold the
caller, another user's file is not filled."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import private_files

NOBODY = 65534


def test_the_persons_own_link_to_their_folder_is_followed(tmp_path: Path) -> None:
    # A dotfiles setup: ~/.local/state/luxe -> /data/luxe-state, both theirs.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    base = tmp_path / "state"
    base.mkdir()
    (base / "luxe").symlink_to(elsewhere)
    fd = private_files.open_file(base / "luxe" / "luxe.log", os.O_WRONLY | os.O_APPEND, base)
    os.close(fd)
    assert (elsewhere / "luxe.log").is_file()
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o700


@pytest.mark.timeout(10)
def test_a_fifo_where_the_file_goes_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "luxe.log")
    with pytest.raises(OSError):
        private_files.open_file(tmp_path / "luxe.log", os.O_WRONLY | os.O_APPEND, tmp_path)


@pytest.mark.parametrize(
    "flags",
    [os.O_WRONLY | os.O_APPEND, os.O_RDWR | os.O_APPEND, os.O_WRONLY | os.O_TRUNC],
    ids=["append", "read and append", "rewrite"],
)
def test_a_file_another_user_made_first_is_not_filled(tmp_path: Path, flags: int) -> None:
    theirs = tmp_path / "s1.ndjson"
    theirs.write_text("theirs\n")
    os.chmod(theirs, 0o666)
    os.chown(theirs, NOBODY, NOBODY)
    with pytest.raises(private_files.NotPrivate, match=f"belongs to uid {NOBODY}"):
        private_files.open_file(theirs, flags, tmp_path)
    assert theirs.read_text() == "theirs\n"


def test_an_exclusive_create_refuses_even_the_persons_own_link(tmp_path: Path) -> None:
    (tmp_path / "t-1.txt").symlink_to(tmp_path / "target")
    with pytest.raises(FileExistsError):
        private_files.open_file(tmp_path / "t-1.txt", os.O_WRONLY | os.O_EXCL, tmp_path)
    assert not (tmp_path / "target").exists()


@pytest.mark.parametrize("home", ["rel", "./rel", "rel/sub"])
def test_a_relative_home_never_puts_the_files_in_the_folder_started_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: str
) -> None:
    # Before: sessions, luxe.log, the journal and the runtime directory went
    # to ./rel/.local/..., in whatever folder (a repository) the program ran.
    from laura.journal import state_home
    from laura.spool import runtime_dir
    from luxe.config import paths_from_env

    class Entry:
        pw_dir = str(tmp_path / "passwd-home")

    monkeypatch.setattr(private_files.pwd, "getpwuid", lambda uid: Entry)
    monkeypatch.chdir(tmp_path)
    env = {"HOME": home}
    expected = tmp_path / "passwd-home"
    assert paths_from_env(env).state_dir == expected / ".local" / "state" / "luxe"
    assert paths_from_env(env).sessions_dir == expected / ".local" / "share" / "luxe" / "sessions"
    assert state_home(env) == expected / ".local" / "state"
    assert runtime_dir(env) == expected / ".laura" / "runtime" / "laura"
    assert not (tmp_path / "rel").exists()
