"""What Laura keeps is the person's alone: the real `laura` in tmux.

- Under a permissive umask (022, 002, 000) the journal's folders were 0755,
  0775 or 0777 and a `laura tail` spool 0644, 0664 or 0666: another local
  user read what the agent did and what was piped into the pane. Now every
  folder Laura makes is 0700 and every file 0600.
- With `XDG_RUNTIME_DIR` a shared directory (`/tmp`, as some set it), a
  `laura` folder there that another user made first, or another user's link
  named `laura`, was used: the spools went where that user reads them. Now
  it is passed over for `~/.laura/runtime/laura`, and host.log says why.
- A journal folder left open to all by an older version (umask 000) held
  another user's link where the next session's journal goes: Laura wrote
  through it (appending the journal to a file of the person's, creating the
  file a dangling link named). Now the folder is tightened to 0700 and the
  link refused.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.laura.tmux import LAURA, LauraSession, wait_until

NOBODY = 65534


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.tmux
@pytest.mark.parametrize("umask", ["022", "002", "000"])
def test_the_journal_and_spools_are_the_users_alone_whatever_the_umask(
    tmp_path: Path, umask: str
) -> None:
    session = LauraSession(tmp_path, umask=umask)
    try:
        session.start()
        ready = session.cli("ready", "--session", "s1")
        assert ready.returncode == 0, ready.stderr
        tail = subprocess.run(
            ["sh", "-c", f'umask {umask}; exec "$@"', "sh", LAURA, "tail", "--title", "t"],
            input=b"what the person piped\n", env=session.client_env(None),
            capture_output=True, timeout=30,
        )
        assert tail.returncode == 0, tail.stderr
        runtime = session.root / "run" / "laura"
        spools = wait_until(lambda: sorted(runtime.glob("t-*.txt")), what="the spool")
        state = session.root / "state"
        journal = state / "laura" / "sessions" / "s1.ndjson"
        wait_until(journal.exists, what="the journal")
        found = {
            "state/laura": mode(state / "laura"),
            "state/laura/sessions": mode(journal.parent),
            "the journal": mode(journal),
            "run/laura": mode(runtime),
            "the spool": mode(spools[0]),
        }
    finally:
        session.close()
    assert found == {
        "state/laura": 0o700,
        "state/laura/sessions": 0o700,
        "the journal": 0o600,
        "run/laura": 0o700,
        "the spool": 0o600,
    }


def _foreign_folder(shared: Path) -> Path:
    """`laura` made by another user, open to all: where spools would go."""
    folder = shared / "laura"
    folder.mkdir()
    os.chmod(folder, 0o777)
    os.chown(folder, NOBODY, NOBODY)
    return folder


def _foreign_closed_folder(shared: Path) -> Path:
    folder = shared / "laura"
    folder.mkdir(mode=0o755)
    os.chown(folder, NOBODY, NOBODY)
    return folder


def _foreign_link(shared: Path) -> Path:
    """Another user's link named `laura` to a folder of theirs."""
    theirs = shared / "theirs"
    theirs.mkdir()
    os.chmod(theirs, 0o777)
    os.chown(theirs, NOBODY, NOBODY)
    (shared / "laura").symlink_to(theirs)
    os.chown(shared / "laura", NOBODY, NOBODY, follow_symlinks=False)
    return theirs


PLANTED_RUNTIME = {
    "another user's folder, open to all": _foreign_folder,
    "another user's folder, closed to others": _foreign_closed_folder,
    "another user's link to their folder": _foreign_link,
}


@pytest.mark.tmux
@pytest.mark.parametrize("planted", list(PLANTED_RUNTIME))
def test_a_runtime_folder_another_user_made_first_is_passed_over(
    tmp_path: Path, planted: str
) -> None:
    shared = tmp_path / "shared"  # as /tmp: root's, sticky, open to all
    shared.mkdir()
    os.chmod(shared, 0o1777)
    theirs = PLANTED_RUNTIME[planted](shared)
    session = LauraSession(tmp_path, env={"XDG_RUNTIME_DIR": str(shared), "LAURA_RUNTIME": ""})
    try:
        session.start()
        session.type("echo secret | laura tail --title t")
        session.send_keys("Enter")
        own = session.root / "home" / ".laura" / "runtime" / "laura"

        def spools() -> list[Path]:
            return sorted(theirs.glob("t-*.txt")) + sorted(own.glob("t-*.txt"))

        spool = wait_until(spools, what="the spool")[0]
        host_log = session.root / "state" / "laura" / "host.log"
        logged = host_log.read_text() if host_log.exists() else ""
    finally:
        session.close()
    assert spool.parent == own, f"the spool went to {spool.parent}"
    assert mode(own) == 0o700
    refusals = [json.loads(line) for line in logged.splitlines()]
    assert [r["type"] for r in refusals] == ["runtime_dir_refused"], logged
    assert "not to you" in refusals[0]["reason"], refusals[0]


def _to_a_file(tmp_path: Path) -> tuple[Path, Path]:
    victim = tmp_path / "bashrc"
    victim.write_text("export PS1='$ '\n")
    return victim, victim


def _to_a_folder(tmp_path: Path) -> tuple[Path, Path]:
    victim = tmp_path / "projects"
    victim.mkdir()
    return victim, victim


def _dangling(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "made-by-laura", tmp_path


PLANTED_LINK = {"to a file": _to_a_file, "to a folder": _to_a_folder, "dangling": _dangling}


def _snapshot(root: Path) -> dict[str, bytes | None]:
    if root.is_file():
        return {root.name: root.read_bytes()}
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in root.rglob("*")}


@pytest.mark.tmux
@pytest.mark.parametrize("link", list(PLANTED_LINK))
def test_another_users_link_in_an_old_journal_folder_is_not_written_through(
    tmp_path: Path, link: str
) -> None:
    victim, watched = PLANTED_LINK[link](_person(tmp_path))
    before = _snapshot(watched)
    session = LauraSession(tmp_path)
    sessions = session.root / "state" / "laura" / "sessions"
    sessions.mkdir(parents=True)
    os.chmod(sessions, 0o777)  # what an older Laura made under umask 000
    planted = sessions / "s1.ndjson"
    planted.symlink_to(victim)
    os.chown(planted, NOBODY, NOBODY, follow_symlinks=False)
    try:
        session.start()
        for _ in range(2):  # each `ready` is journaled before it is answered
            ready = session.cli("ready", "--session", "s1")
            assert ready.returncode == 0, ready.stderr
        folder_mode = mode(sessions)
    finally:
        session.close()
    assert _snapshot(watched) == before
    assert planted.is_symlink()
    assert folder_mode == 0o700


def _person(tmp_path: Path) -> Path:
    folder = tmp_path / "person"
    folder.mkdir()
    return folder
