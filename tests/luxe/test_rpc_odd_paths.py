"""A path no file can be reached by, given to `write`, `edit` and `read`: a
symlink loop the repository planted (two links, one link to itself, a loop
in a middle component), a chain of 1,200 links, a NUL, a path or a name
longer than the system allows. Each call is answered with a clear tool
error, nothing on disk changes, and the session goes on. (The engine's
diff of a write or edit resolved the path with `Path.resolve`, which raised
on a loop or a NUL, and the gate's `os.path.realpath` raised
RecursionError on the chain: the turn ended with an internal error.)
Through the real `luxe --rpc` and the loopback model server, in `ask` mode
answered by --auto-approve, so both the prompt's preview of the change and
the diff after it are made."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.link_chains import LONG_CHAIN, link_chain, long_chain, two_links
from tests.luxe.policy.hostile import hostile_luxe
from tests.luxe.rpc_driver import call

TURN_S = 60.0
LOOP = "Too many levels of symbolic links"


def _itself(repo: Path) -> str:
    (repo / "x.md").symlink_to("x.md")
    return "x.md"


def _loop_in_the_middle(repo: Path) -> str:
    (repo / "d").mkdir()
    (repo / "d" / "loop").symlink_to("loop")
    return "d/loop/file.md"


def _nul(repo: Path) -> str:
    return "notes\0.md"


def _long_path(repo: Path) -> str:
    return "/".join(["y" * 200] * 30)


def _long_name(repo: Path) -> str:
    return "z" * 300 + ".md"


# What each tool says, as a pattern: the system's reason, or why no file
# can have that name.
CASES: list[tuple[Callable[[Path], str], str]] = [
    (two_links, LOOP),
    (_itself, LOOP),
    (_loop_in_the_middle, LOOP),
    (long_chain, LOOP),
    (_nul, "the path holds a NUL byte, which no file name can hold"),
    (_long_path, r"the path is 6\d\d\d bytes long; a path has at most 4095"),
    (_long_name, "a name in the path is 303 bytes long; a name has at most 255"),
]


def _tree(repo: Path) -> list[tuple[str, str]]:
    """Every entry under `repo` but .git (links not followed), with what a
    link points at."""
    out = []
    for folder, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in sorted(dirs + files):
            path = os.path.join(folder, name)
            out.append((path, os.readlink(path) if os.path.islink(path) else ""))
    return sorted(out)


@pytest.mark.parametrize(("plant", "says"), CASES, ids=[plant.__name__.lstrip("_") for plant, _ in CASES])
def test_a_path_no_file_has_is_a_tool_error_and_the_session_goes_on(
    plant: Callable[[Path], str], says: str, repo: Path, env: dict[str, str]
) -> None:
    path = plant(repo)
    before = _tree(repo)
    calls = [
        call("write", path=path, content="new text\n"),
        call("edit", path=path, old_string="a", new_string="b"),
        call("read", path=path),
    ]
    steps = [{"tool_calls": calls}, {"text": "first done"}, {"text": "second done"}]
    with hostile_luxe(steps, "ask", "--auto-approve", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended", timeout=TURN_S)
        ended = frames[-1]["content"]
        assert (ended["reason"], ended["error"], ended["text"]) == ("end_turn", None, "first done")
        finished = {f["content"]["name"]: f["content"] for f in frames if f["kind"] == "tool_finished"}
        assert sorted(finished) == ["edit", "read", "write"]
        for name, done in finished.items():
            assert done["is_error"] and not done["denied"], done
            assert re.search(says, done["summary"]), (name, done["summary"])
        # The model read the same answers.
        results = [b for b in server.bodies[1]["messages"][-1]["content"] if b["type"] == "tool_result"]
        assert len(results) == 3
        assert all(re.search(says, str(r["content"])) for r in results), results
        assert not [f for f in frames if f["kind"] == "file_changed"]

        luxe.send("submit_user_message", {"text": "again"})
        assert luxe.expect("turn_ended", timeout=TURN_S)["text"] == "second done"
        assert luxe.close() == 0
    assert _tree(repo) == before


@pytest.mark.parametrize("command", ["cat chain/l0", "wc -c chain/l*", 'head -1 "$PWD/chain/l0"'])
def test_a_bash_word_naming_a_long_chain_of_links_is_judged_and_runs(
    command: str, repo: Path, env: dict[str, str]
) -> None:
    """The gate resolves each word of a bash line that is a file: its
    `os.path.realpath` raised RecursionError on the chain (the turn ended
    with an internal error before the command could run)."""
    (repo / "notes.md").write_text("a note\n")
    link_chain(repo / "chain", "l", LONG_CHAIN, "../notes.md")
    steps = [{"tool_calls": [call("bash", command=command)]}, {"text": "ran"}, {"text": "again"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, _server):
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended", timeout=TURN_S)
        assert frames[-1]["content"]["text"] == "ran", frames[-1]
        done = next(f["content"] for f in frames if f["kind"] == "tool_finished")
        assert not done["denied"], done
        output = "".join(f["content"]["delta"] for f in frames if f["kind"] == "tool_output_delta")
        assert LOOP in output, output[:500]
        luxe.send("submit_user_message", {"text": "again"})
        assert luxe.expect("turn_ended", timeout=TURN_S)["text"] == "again"
        assert luxe.close() == 0
