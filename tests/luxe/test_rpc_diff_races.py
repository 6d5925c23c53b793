"""The diff of a write or edit (file_changed) and the permission prompt's
preview of one never show a line of a secret file swapped in under the
call's name. Both read the file's current text by its path after the
gate's check: a name swapped for a hard link to `.env`, a symlink to it or
a symlink to a sibling project's `.env` in between put that file's lines
(its comments, its variable names; known values are redacted) into the
frames, the session file and the requests to the model. Now the file
opened for a diff is judged by its descriptor before a byte of it is read.
Through the real `luxe --rpc`, with a thread swapping the name
(tests/helpers/swap.py), in ask mode (the prompt's preview) and in yolo
(file_changed's diff)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.swap import (
    ENV,
    hard_link_to_env,
    link_to_a_siblings_env,
    link_to_env,
    swapping_names,
)
from tests.luxe.policy.hostile import everything_written, hostile_luxe
from tests.luxe.rpc_driver import LuxeProcess, call

TURN_S = 120.0
CALLS = 150
WRITES = [call("write", path="swap/racy.md", content="TEXT\n")] * CALLS
EDITS = [call("edit", path="swap/racy.md", old_string="TEXT\n", new_string="TEXT\n\n", replace_all=True)] * CALLS
# What of ENV may never show: its comment, its variable's name, its value.
LINES = ("ENV FILE MARKER", "API_KEY", "sk-live-Zr81Qw7Tn3")
PLANTERS = [hard_link_to_env, link_to_env, link_to_a_siblings_env]


def _turn(luxe: LuxeProcess) -> list[dict[str, Any]]:
    """The turn to its end, each permission prompt answered `once`."""
    luxe.send("submit_user_message", {"text": "go"})
    frames: list[dict[str, Any]] = []
    while True:
        frame = luxe.next_frame(timeout=TURN_S)
        frames.append(frame)
        if frame["kind"] == "permission_requested":
            luxe.send("respond_permission", {"id": frame["content"]["id"], "reply": "once"})
        if frame["kind"] == "turn_ended":
            return frames


@pytest.mark.parametrize("mode", ["ask", "yolo"])
@pytest.mark.parametrize("plant", PLANTERS, ids=lambda f: f.__name__)
def test_no_diff_or_preview_shows_a_secret_file_swapped_in(
    plant: Callable[[Path], None], mode: str, repo: Path, env: dict[str, str]
) -> None:
    (repo / ".env").write_text(ENV)
    steps = [{"tool_calls": WRITES}, {"tool_calls": EDITS}, {"text": "done"}]
    with swapping_names(repo, plant), hostile_luxe(steps, mode, cwd=repo, env=env) as (luxe, server):
        frames = _turn(luxe)
        assert frames[-1]["content"]["text"] == "done", frames[-1]
        assert luxe.close() == 0
    shown = str([f for f in luxe.frames if f["kind"] != "tool_started"])
    asked = str(server.bodies)
    written = everything_written(env)  # the session file, the log
    for line in LINES:
        assert line not in shown, re.findall(rf".{{0,200}}{line}.{{0,80}}", shown)[:3]
        assert line not in asked, line
        assert line not in written, line
    # Every call ran to its end (which file each met is the swap's luck).
    assert [f["kind"] for f in frames].count("tool_finished") == 2 * CALLS
