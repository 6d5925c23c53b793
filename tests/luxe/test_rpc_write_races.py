"""`write` and `edit` against a name the repository swaps under them. The
tools looked at the path (not a FIFO, not a secret: the gate's check) and
then opened it for writing: a FIFO swapped in between made that open wait
for a reader for good, on the event loop, and froze the whole session; a
hard link or a symlink to `.env` swapped in was overwritten. Now the file
is opened without waiting and judged by its descriptor before a byte of it
changes. Through the real `luxe --rpc`, with a thread swapping the name
(tests/helpers/swap.py)."""

from __future__ import annotations

import os
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
from tests.luxe.policy.hostile import hostile_luxe
from tests.luxe.rpc_driver import call

# The calls are instant; this bounds the freeze they once were.
TURN_S = 60.0

WRITES = [call("write", path="swap/racy.md", content="TEXT\n")] * 300
EDITS = [call("edit", path="swap/racy.md", old_string="TEXT\n", new_string="TEXT\n\n", replace_all=True)] * 300


def _link_to_fifo(at: Path) -> None:
    os.mkfifo(at.parent.parent / ".pipe")
    at.symlink_to("../.pipe")


FREEZES: list[tuple[str, Callable[[Path], None], list[dict[str, Any]]]] = [
    ("write_to_a_fifo", os.mkfifo, WRITES),
    ("write_to_a_link_to_a_fifo", _link_to_fifo, WRITES),
    ("edit_of_a_fifo", os.mkfifo, EDITS),
]


@pytest.mark.parametrize(("plant", "calls"), [f[1:] for f in FREEZES], ids=[f[0] for f in FREEZES])
def test_a_fifo_swapped_in_under_a_write_never_freezes_the_session(
    plant: Callable[[Path], None], calls: list[dict[str, Any]], repo: Path, env: dict[str, str]
) -> None:
    steps = [{"tool_calls": calls}, {"text": "done"}, {"text": "again"}]
    with swapping_names(repo, plant), hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, _):
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended", timeout=TURN_S)
        assert frames[-1]["content"]["text"] == "done", frames[-1]
        summaries = {f["content"]["summary"] for f in frames if f["kind"] == "tool_finished"}
        allowed = re.compile(
            r"(overwrote|created|edited) swap/racy\.md.*|swap/racy\.md is not a regular file .*"
            r"|cannot write swap/racy\.md: No such device or address|old_string was not found .*"
        )
        assert all(allowed.fullmatch(s) for s in summaries), summaries
        luxe.send("submit_user_message", {"text": "again"})
        assert luxe.expect("turn_ended", timeout=TURN_S)["text"] == "again"
        assert luxe.close() == 0


@pytest.mark.parametrize(
    "plant", [hard_link_to_env, link_to_env, link_to_a_siblings_env], ids=lambda f: f.__name__
)
def test_a_secret_file_swapped_in_under_a_write_is_never_written(
    plant: Callable[[Path], None], repo: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    (repo / ".env").write_text(ENV)
    steps = [{"tool_calls": WRITES}, {"tool_calls": EDITS}, {"text": "done"}]
    with swapping_names(repo, plant), hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, _):
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended", timeout=TURN_S)
        assert frames[-1]["content"]["text"] == "done", frames[-1]
        assert luxe.close() == 0
    assert (repo / ".env").read_text() == ENV
    if (tmp_path / "sibling").exists():
        assert (tmp_path / "sibling" / ".env").read_text() == ENV


OTHER = "OTHER FILE\n"
# Each edit of the plain file adds a line; on the other file it finds no TEXT.
GROWS = [call("edit", path="swap/racy.md", old_string="TEXT\n", new_string="TEXT\nEDITED\n")] * 1000


def _another_plain_file(at: Path) -> None:
    at.write_text(OTHER)


def _hard_link_to_another_file(at: Path) -> None:
    (at.parent.parent / "other.txt").write_text(OTHER)
    os.link(at.parent.parent / "other.txt", at)


def _link_to_another_file(at: Path) -> None:
    (at.parent.parent / "other.txt").write_text(OTHER)
    at.symlink_to("../other.txt")


@pytest.mark.parametrize(
    "plant",
    [_another_plain_file, _hard_link_to_another_file, _link_to_another_file],
    ids=lambda f: f.__name__[1:],
)
def test_an_edit_never_writes_what_it_read_from_one_file_into_another(
    plant: Callable[[Path], None], repo: Path, env: dict[str, str]
) -> None:
    # Edit read the file, then opened the name again to write: a swap in
    # between wrote the text computed from the plain file into the other.
    steps = [{"tool_calls": GROWS}, {"text": "done"}]
    with swapping_names(repo, plant), hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, _):
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended", timeout=TURN_S)
        assert frames[-1]["content"]["text"] == "done", frames[-1]
        assert luxe.close() == 0
    summaries = [f["content"]["summary"] for f in frames if f["kind"] == "tool_finished"]
    edits = summaries.count("edited swap/racy.md")
    allowed = re.compile(r"edited swap/racy\.md|old_string was not found in swap/racy\.md.*")
    assert all(allowed.fullmatch(s) for s in summaries), set(summaries)
    # The plain file holds every edit made (each one its own), the other none
    # (for a link, the file it leads to: other.txt).
    texts = {(repo / d / "racy.md").read_text() for d in ("swap", ".other")}
    seen = sorted((t.count("TEXT"), t.count("EDITED"), t.count("OTHER")) for t in texts)
    assert texts == {"TEXT\n" + "EDITED\n" * edits, OTHER}, (seen, edits)
