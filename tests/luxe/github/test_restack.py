"""Restack over `luxe --rpc` with the real gh and real pushes: after the
bottom of a stack of three is squash-merged, the branches above are rebased,
force-pushed with lease and retargeted; and every refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.github.api import Failure
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import LuxeProcess

pytestmark = needs_gh


def _plan(luxe: LuxeProcess, rid: str = "p") -> dict:  # type: ignore[type-arg]
    luxe.send("plan_restack", {"request_id": rid})
    return luxe.expect("restack_planned", where=lambda c: c["request_id"] == rid)


def test_the_happy_path(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, stack: dict[str, str]
) -> None:
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    planned = _plan(luxe)
    assert planned["refusal"] is None
    plan = planned["plan"]
    assert [(b["name"], b["old_base"], b["new_base"], b["head_sha"]) for b in plan["branches"]] == [
        ("part-2", "part-1", "main", stack["part-2"]),
        ("part-3", "part-2", "part-2", stack["part-3"]),
    ]
    assert plan["pull_requests"] == [{"number": 2, "base_before": "part-1", "base_after": "main"}]
    luxe.send("restack", {"request_id": "r", "plan_id": plan["id"]})
    assert luxe.expect("restacked") == {"request_id": "r", "retarget_failed": None}
    repo = github.world.repos["o/r"]
    git_dir = ("--git-dir", str(repo.path))
    assert checkout.git(*git_dir, "log", "--format=%s", "main..part-2") == "add 2"
    assert checkout.git(*git_dir, "log", "--format=%s", "main..part-3").splitlines() == [
        "add 3", "add 2"]
    assert repo.pulls[2].baseRefName == "main" and repo.pulls[3].baseRefName == "part-2"
    # The local branches followed; the checked-out one's tree too, still clean.
    assert checkout.git("rev-parse", "part-2") == repo.sha("part-2")
    assert checkout.git("rev-parse", "HEAD") == repo.sha("part-3")
    assert checkout.git("status", "--porcelain") == ""
    luxe.send("restack", {"request_id": "r2", "plan_id": plan["id"]})
    assert "pushed already" in luxe.expect("restack_failed")["message"]
    luxe.close()


@pytest.mark.parametrize("change", ["moved", "dirty", "elsewhere"])
def test_refused_when_a_branch_changed_after_the_plan(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, stack: dict[str, str], change: str
) -> None:
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    plan = _plan(luxe)["plan"]
    if change == "moved":
        checkout.commit("3.txt", "three\n", "more")
        words = "part-3 moved since the plan"
    elif change == "dirty":
        (checkout.path / "3.txt").write_text("uncommitted\n")
        words = "part-3 has uncommitted changes"
    else:
        checkout.git("checkout", "-q", "part-2")
        words = "part-2 is checked out in"
    before = {b: github.world.repos["o/r"].sha(b) for b in ("part-2", "part-3")}
    luxe.send("restack", {"request_id": "r", "plan_id": plan["id"]})
    assert words in luxe.expect("restack_failed")["message"]
    assert {b: github.world.repos["o/r"].sha(b) for b in ("part-2", "part-3")} == before
    luxe.close()


def test_a_newer_plan_replaces_the_older(
    spawn: SpawnLuxe, checkout: Checkout, stack: dict[str, str]
) -> None:
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    first = _plan(luxe, "a")["plan"]
    second = _plan(luxe, "b")["plan"]
    assert first["id"] != second["id"]
    luxe.send("restack", {"request_id": "r", "plan_id": first["id"]})
    assert "newer plan" in luxe.expect("restack_failed")["message"]
    luxe.close()


def test_nothing_to_restack_and_no_gh(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, tmp_path: Path
) -> None:
    checkout.branch("part-1", {"1.txt": "1\n"}, "add 1")
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    nothing = _plan(luxe)
    assert nothing["plan"] is None and nothing["refusal"].startswith("nothing to restack")
    luxe.close()
    bin_dir = tmp_path / "bin-without-gh"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to("/usr/bin/git")
    luxe = spawn([], "--github-writes", env_extra={"PATH": str(bin_dir)})
    luxe.handshake()
    no_gh = _plan(luxe)
    assert no_gh["plan"] is None and "gh" in no_gh["refusal"]
    luxe.close()


def test_a_push_cut_midway_fails_and_says_to_check_github(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, stack: dict[str, str]
) -> None:
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    plan = _plan(luxe)["plan"]
    github.cut_pushes = True
    luxe.send("restack", {"request_id": "r", "plan_id": plan["id"]})
    message = luxe.expect("restack_failed")["message"]
    assert "did not finish" in message and "check part-2, part-3" in message
    assert checkout.git("rev-parse", "part-2") == stack["part-2"]  # nothing local moved
    luxe.close()


def test_a_retarget_failure_is_restacked_with_retarget_failed(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, stack: dict[str, str]
) -> None:
    github.api.failures.append(Failure("PullRequestUpdate", 502, "Bad Gateway"))
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    plan = _plan(luxe)["plan"]
    luxe.send("restack", {"request_id": "r", "plan_id": plan["id"]})
    done = luxe.expect("restacked")
    (failure,) = done["retarget_failed"]
    assert failure.startswith("pull request #2 base main:")
    repo = github.world.repos["o/r"]
    assert repo.pulls[2].baseRefName == "part-1"
    assert checkout.git("--git-dir", str(repo.path), "log", "--format=%s", "main..part-2") == "add 2"
    luxe.close()


def test_after_a_merge_that_deleted_the_branch(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    """GitHub moves #2 onto main itself when part-1 is deleted: the branch
    still carries part-1's commits and is rebased, with nothing to retarget."""
    repo = github.world.repos["o/r"]
    base = "main"
    for index in (1, 2):
        name = f"part-{index}"
        checkout.branch(name, {f"{index}.txt": f"{index}\n"}, f"add {index}")
        github.world.open_pull(repo, title=f"Part {index}", body="", head=name, base=base)
        base = name
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    luxe.send("merge_pull_request", {"request_id": "m", "number": 1, "method": "squash",
                                     "delete_branch": True})
    luxe.expect("pull_request_merged")
    assert repo.pulls[2].baseRefName == "main"
    plan = _plan(luxe)["plan"]
    assert [(b["name"], b["new_base"]) for b in plan["branches"]] == [("part-2", "main")]
    assert plan["pull_requests"] == []
    luxe.send("restack", {"request_id": "r", "plan_id": plan["id"]})
    assert luxe.expect("restacked")["retarget_failed"] is None
    assert checkout.git("--git-dir", str(repo.path), "log", "--format=%s", "main..part-2") == "add 2"
    luxe.close()
