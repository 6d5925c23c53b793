"""What Luxe keeps is the person's alone: the real `luxe --rpc`.

- Under a permissive umask (022, 002, 000) `$XDG_STATE_HOME/luxe/luxe.log`
  was 0644, 0664 or 0666 (world-writable under 000), and the folders
  holding it and the sessions 0755, 0775 or 0777: another local user read
  the log (files, commands and reasons of the conversation) and listed the
  sessions. Now every folder Luxe makes is 0700 and every file 0600.
- An older version's loose folders and log are tightened when next used.
- A log folder left open to all (an older Luxe under umask 000) held
  another user's link named `luxe.log`: Luxe appended its log through it
  (to a file of the person's, creating the file a dangling link named).
  Now the link is refused, Luxe says so on stderr and carries on.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from tests.luxe.rpc_driver import LuxeProcess, write_script

NOBODY = 65534


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def run_once(tmp_path: Path, env: dict[str, str], repo: Path, umask: str = "022") -> LuxeProcess:
    """One turn of a real `luxe --rpc` started under `umask`; returns it exited."""
    script = write_script(tmp_path, [{"text": "hello"}])
    command = ["sh", "-c", f'umask {umask}; exec "$@"', "sh", sys.executable, "-m", "luxe"]
    with LuxeProcess.start(["--model", f"scripted:{script}"], cwd=repo, env=env,
                           command=command) as luxe:
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "my private prompt"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        assert luxe.close() == 0
        return luxe


@pytest.mark.parametrize("umask", ["022", "002", "000"])
def test_the_log_and_sessions_are_the_users_alone_whatever_the_umask(
    tmp_path: Path, env: dict[str, str], repo: Path, umask: str
) -> None:
    run_once(tmp_path, env, repo, umask)
    data, state = Path(env["XDG_DATA_HOME"]), Path(env["XDG_STATE_HOME"])
    sessions = sorted((data / "luxe" / "sessions").glob("*.jsonl"))
    assert len(sessions) == 1
    assert {
        "data/luxe": mode(data / "luxe"),
        "data/luxe/sessions": mode(data / "luxe" / "sessions"),
        "the session": mode(sessions[0]),
        "state/luxe": mode(state / "luxe"),
        "luxe.log": mode(state / "luxe" / "luxe.log"),
    } == {
        "data/luxe": 0o700,
        "data/luxe/sessions": 0o700,
        "the session": 0o600,
        "state/luxe": 0o700,
        "luxe.log": 0o600,
    }


@pytest.mark.parametrize(("folders", "log"), [(0o777, 0o666), (0o775, 0o664), (0o755, 0o644)])
def test_what_an_older_version_left_loose_is_tightened(
    tmp_path: Path, env: dict[str, str], repo: Path, folders: int, log: int
) -> None:
    data, state = Path(env["XDG_DATA_HOME"]), Path(env["XDG_STATE_HOME"])
    for folder in (data / "luxe", data / "luxe" / "sessions", state / "luxe"):
        folder.mkdir()
        os.chmod(folder, folders)
    (state / "luxe" / "luxe.log").write_text("an older run\n")
    os.chmod(state / "luxe" / "luxe.log", log)
    run_once(tmp_path, env, repo)
    assert [mode(p) for p in (data / "luxe", data / "luxe" / "sessions", state / "luxe")] == [0o700] * 3
    assert mode(state / "luxe" / "luxe.log") == 0o600
    assert (state / "luxe" / "luxe.log").read_text().startswith("an older run\n")


def _to_a_file(person: Path) -> Path:
    victim = person / "bashrc"
    victim.write_text("export PS1='$ '\n")
    return victim


def _to_a_folder(person: Path) -> Path:
    victim = person / "projects"
    victim.mkdir()
    return victim


def _dangling(person: Path) -> Path:
    return person / "made-by-luxe"


PLANTED = {"to a file": _to_a_file, "to a folder": _to_a_folder, "dangling": _dangling}


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in root.rglob("*")}


@pytest.mark.parametrize("link", list(PLANTED))
def test_another_users_link_named_luxe_log_is_not_written_through(
    tmp_path: Path, env: dict[str, str], repo: Path, link: str
) -> None:
    person = tmp_path / "person"
    person.mkdir()
    victim = PLANTED[link](person)
    before = _snapshot(person)
    folder = Path(env["XDG_STATE_HOME"]) / "luxe"
    folder.mkdir()
    os.chmod(folder, 0o777)  # what an older Luxe made under umask 000
    planted = folder / "luxe.log"
    planted.symlink_to(victim)
    os.chown(planted, NOBODY, NOBODY, follow_symlinks=False)
    luxe = run_once(tmp_path, env, repo)
    assert _snapshot(person) == before
    assert planted.is_symlink()
    assert mode(folder) == 0o700
    said = luxe.stderr_text()
    assert f"luxe: not logging to {planted}: {planted} is a symbolic link that belongs to uid {NOBODY}" in said, said
