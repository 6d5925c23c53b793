"""A clone that plants bare repositories in its folders (tests/helpers/planted.py):
neither Luxe's own git nor any git its tools run opens one, so no payload in
a planted config runs, in any permission mode (read-only included, where
`git status` is a reader and runs without asking). Through the real
`luxe --rpc` on the loopback model server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.planted import live_payloads, planted_clone

from .e2e import call, finished_frames, tool_results
from .hostile import MODES, hostile_luxe, run_turn

# Each plant reached by a reader, in several spellings of the path.
READERS = [
    "git -C evil status",
    "cd docs/deep/x.git/sub && git status --short",
    "git -C tools/vendor diff",
    "git -C linked status",  # a symlink to a plant
    "cd evil && git diff --stat",
]


def test_the_plants_are_live_without_a_guard(tmp_path: Path) -> None:
    assert live_payloads(tmp_path) == ["docs_deep_x.git", "evil", "tools_vendor"]


def _turn_in_a_planted_clone(
    tmp_path: Path, env: dict[str, str], commands: list[str], mode: str
) -> tuple[list[dict[str, Any]], list[str], Path]:
    """One turn running `commands` with bash in a fresh planted clone, every
    ask approved (plan: set after a yolo start); the tool_finished contents,
    the results the model got back, and the markers folder."""
    markers = tmp_path / "markers"
    clone = planted_clone(tmp_path, markers)
    calls = [call("bash", command=c) for c in commands]
    start_mode = "yolo" if mode == "plan" else mode
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], start_mode, "--auto-approve", cwd=clone, env=env
    ) as (luxe, server):
        if mode == "plan":
            luxe.send("set_mode", {"mode": "plan"})
            luxe.expect("state_changed", where=lambda c: c.get("mode") == "plan")
        done = finished_frames(run_turn(luxe))
        results = tool_results(server.bodies[-1])
        assert luxe.close() == 0
    return done, results, markers


@pytest.mark.parametrize("mode", MODES)
def test_git_run_by_a_tool_never_opens_a_planted_repository(
    mode: str, tmp_path: Path, env: dict[str, str]
) -> None:
    done, results, markers = _turn_in_a_planted_clone(tmp_path, env, READERS, mode)
    # They ran (read-only lets git status through as a reader)...
    assert [d["denied"] for d in done] == [False] * len(READERS), done
    # ...and git refused each planted repository, in words the model sees.
    assert len(results) == len(READERS)
    refusals = ("cannot use bare repository", "Not a git repository")  # `git diff`'s
    assert all(any(words in r for words in refusals) for r in results), results
    assert list(markers.iterdir()) == []


@pytest.mark.parametrize("plant", ["evil", "docs/deep/x.git/sub", "tools/vendor"])
def test_luxe_started_inside_a_plant_runs_none_of_its_payload(
    plant: str, tmp_path: Path, env: dict[str, str]
) -> None:
    """Luxe's own git: the system prompt's `git status` of the directory it
    starts in, and the secret search over the checkout."""
    markers = tmp_path / "markers"
    clone = planted_clone(tmp_path, markers)
    with hostile_luxe([{"text": "hello"}], "ask", cwd=clone / plant, env=env) as (luxe, server):
        frames = run_turn(luxe)
        assert frames[-1]["content"]["reason"] == "end_turn"
        assert "not a git checkout" in str(server.bodies[0])
        assert luxe.close() == 0
    assert list(markers.iterdir()) == []


# A plant named outright: git opens a named repository whatever the guard,
# so read-only and plan mode never take these for readers.
NAMING = [
    "git --git-dir=evil --work-tree=evil status",
    "git --git-dir evil/ -C . status",
    "git -C evil --bare status",
    "git --bare --work-tree=. -C tools/vendor diff",
]


@pytest.mark.parametrize("mode", ["read-only", "plan"])
def test_read_only_refuses_git_that_names_a_repository(
    mode: str, tmp_path: Path, env: dict[str, str]
) -> None:
    done, _results, markers = _turn_in_a_planted_clone(tmp_path, env, NAMING, mode)
    assert [d["denied"] for d in done] == [True] * len(NAMING), done
    assert list(markers.iterdir()) == []
