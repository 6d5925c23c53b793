"""Luxe's own git never takes the index lock: the person's git (a commit, a
checkout in another terminal) must never meet `index.lock` because luxe
looked at the repository (`git status` refreshes a stale index and writes it
back unless told not to)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.luxe.conftest import SpawnLuxe


def _stale(repo: Path) -> tuple[int, bytes]:
    """Make the index's view of README.md stale (a new mtime, same content),
    so a plain `git status` would rewrite the index; the index as it is."""
    readme = repo / "README.md"
    later = os.stat(readme).st_mtime + 5
    os.utime(readme, (later, later))
    index = repo / ".git" / "index"
    return os.stat(index).st_mtime_ns, index.read_bytes()


def test_a_session_start_and_turn_leave_the_index_alone(spawn: SpawnLuxe, repo: Path) -> None:
    before = _stale(repo)
    luxe = spawn([{"text": "looked"}])
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "what is here?"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"  # after the system prompt's git status
    assert luxe.close() == 0
    index = repo / ".git" / "index"
    assert (os.stat(index).st_mtime_ns, index.read_bytes()) == before
    assert not (repo / ".git" / "index.lock").exists()
