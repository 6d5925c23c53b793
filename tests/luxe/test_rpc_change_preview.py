"""A write's or edit's permission prompt previews the change itself (the
file's real lines, numbers and context), never a secret, and never waits on
a file that is not a regular one; file_changed names the call that made
its change. Through the real `luxe --rpc` on the scripted model."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import LuxeProcess, call

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n\n\nprint(add(1, 2))\n"


def answer_every_prompt(luxe: LuxeProcess, reply: str = "once") -> list[dict[str, Any]]:
    """Run the turn to its end, answering each permission prompt with
    `reply`; every frame of the turn."""
    frames: list[dict[str, Any]] = []
    while True:
        frame = luxe.next_frame()
        frames.append(frame)
        if frame["kind"] == "permission_requested":
            luxe.send("respond_permission", {"id": frame["content"]["id"], "reply": reply})
        if frame["kind"] == "turn_ended":
            return frames


def asked_for(frames: list[dict[str, Any]], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The permission prompt of each call, in the calls' order (they run
    concurrently, so their frames come in any order): matched by arguments."""
    asked = of_kind(frames, "permission_requested")
    return [next(a for a in asked if a["args"] == c["args"]) for c in calls]


def of_kind(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [f["content"] for f in frames if f["kind"] == kind]


def test_the_prompt_shows_the_change_with_its_real_lines_and_context(
    spawn: SpawnLuxe, repo: Path
) -> None:
    (repo / "calc.py").write_text(CALC)
    (repo / "notes.md").write_text("# Notes\n\nfirst\nsecond\n")
    calls = [
        # the second `return a - b`, made unique by its line above
        call("edit", path="calc.py", old_string="def sub(a, b):\n    return a - b",
             new_string="def sub(a, b):\n    return a - b  # checked"),
        call("write", path="notes.md", content="# Notes\n\nfirst\nthird"),
        call("write", path="docs/new.txt", content="one\ntwo\n"),
        call("edit", path="calc.py", old_string="return a * b", new_string="x"),
        call("edit", path="calc.py", old_string="return a - b", new_string="return a + b"),
    ]  # fmt: skip
    luxe = spawn([{"tool_calls": calls}, {"text": "done"}])
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "change things"})
    frames = answer_every_prompt(luxe)
    by_call = asked_for(frames, calls)
    previews = [a["diff"] for a in by_call]
    started = [a["call_id"] for a in by_call]
    assert previews[0] == (
        "--- a/calc.py\n+++ b/calc.py\n@@ -3,7 +3,7 @@\n \n \n def sub(a, b):\n"
        "-    return a - b\n+    return a - b  # checked\n \n \n print(add(1, 2))\n"
    )
    assert previews[1] == (
        "--- a/notes.md\n+++ b/notes.md\n@@ -1,4 +1,4 @@\n # Notes\n \n first\n"
        "-second\n+third\n\\ No newline at end of file\n"
    )
    assert previews[2] == "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
    # Edits that will not apply (not there; there twice) preview nothing.
    assert previews[3] is None and previews[4] is None
    finished = {f["call_id"]: f for f in of_kind(frames, "tool_finished")}
    assert [finished[c]["is_error"] for c in started] == [False, False, False, True, True]
    # Each change is told once, under the call that made it, as previewed.
    changed = {c["call_id"]: c for c in of_kind(frames, "file_changed")}
    assert sorted(changed) == sorted(started[:3])
    for call_id, preview in zip(started[:3], previews[:3], strict=True):
        assert changed[call_id]["diff"] == preview
    assert luxe.close() == 0


SECRET = "tok-Z4q8Lm2Xv7Rt9Wp3"


def test_a_preview_never_shows_a_secret(spawn: SpawnLuxe, repo: Path) -> None:
    """The secret (a value in the project's .env) in the lines around the
    change, in the removed line, and in the written content."""
    (repo / ".env").write_text(f"API_TOKEN={SECRET}\n")
    (repo / "settings.py").write_text(f'TOKEN = "{SECRET}"\nDEBUG = True\nRETRIES = 1\n')
    (repo / "client.py").write_text(f'KEY = "{SECRET}"\n')
    calls = [
        call("edit", path="settings.py", old_string="RETRIES = 1", new_string="RETRIES = 3"),
        call("edit", path="client.py", old_string=f'KEY = "{SECRET}"',
             new_string='KEY = os.environ["API_TOKEN"]'),
        call("write", path="example.env", content=f"API_TOKEN={SECRET}\n"),
    ]  # fmt: skip
    luxe = spawn([{"tool_calls": calls}, {"text": "done"}])
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "tidy"})
    frames = answer_every_prompt(luxe, reply="reject")
    previews = [a["diff"] for a in asked_for(frames, calls)]
    assert len(previews) == 3 and all(previews), previews
    for preview in previews:
        assert SECRET not in preview and SECRET[:8] not in preview, preview
    assert "+RETRIES = 3" in previews[0]
    assert '+KEY = os.environ["API_TOKEN"]' in previews[1]
    assert luxe.close() == 0


def test_a_preview_never_waits_on_what_is_not_a_regular_file(
    spawn: SpawnLuxe, repo: Path
) -> None:
    """A FIFO (opening it would wait for a writer), a link to /dev/zero
    (endless) and a file over 256 KiB: the prompt comes at once, with no
    preview."""
    os.mkfifo(repo / "pipe.txt")
    (repo / "zero.txt").symlink_to("/dev/zero")
    (repo / "big.txt").write_text("line\n" * 60_000)
    calls = [
        call("write", path="pipe.txt", content="x\n"),
        call("edit", path="zero.txt", old_string="a", new_string="b"),
        call("edit", path="big.txt", old_string="line\n" * 60_000, new_string="short\n"),
    ]
    luxe = spawn([{"tool_calls": calls}, {"text": "done"}])
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "go"})
    frames = answer_every_prompt(luxe, reply="reject")
    assert [a["diff"] for a in asked_for(frames, calls)] == [None, None, None]
    assert of_kind(frames, "turn_ended")[0]["reason"] == "end_turn"
    assert luxe.close() == 0


def test_no_preview_is_made_of_a_secret_file_by_any_name(spawn: SpawnLuxe, repo: Path) -> None:
    """A write or edit of the project's .env through a symbolic link, a hard
    link or `..` is refused before any preview is read: no frame carries
    its value."""
    (repo / ".env").write_text(f"API_TOKEN={SECRET}\n")
    (repo / "notes.txt").symlink_to(repo / ".env")
    os.link(repo / ".env", repo / "plain.txt")
    (repo / "docs").mkdir()
    calls = [
        call("edit", path="notes.txt", old_string="API_TOKEN", new_string="TOKEN"),
        call("edit", path="plain.txt", old_string="API_TOKEN", new_string="TOKEN"),
        call("write", path="docs/../.env", content="API_TOKEN=other\n"),
    ]
    luxe = spawn([{"tool_calls": calls}, {"text": "done"}])
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "rename the token"})
    frames = answer_every_prompt(luxe, reply="once")
    assert of_kind(frames, "permission_requested") == []
    finished = of_kind(frames, "tool_finished")
    assert len(finished) == 3 and all(f["denied"] for f in finished), finished
    assert SECRET not in json.dumps(frames)
    assert (repo / ".env").read_text() == f"API_TOKEN={SECRET}\n"
    assert luxe.close() == 0
