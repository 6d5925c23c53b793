"""Guided Review end to end: the real `luxe --rpc` on real git repositories,
with the scripted model (its answers come from a script, one step per model
request; a review's first load spends one step on the chapter proposal)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from luxe.review.load import read_review
from luxe.review.model import WorkingTreeTarget
from tests.fakes.github.model import PullRequest
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import needs_gh, publish
from tests.helpers.gitrepo import Repo
from tests.helpers.procs import command_name
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.review.rpc_helpers import NO_CHAPTERS, line_anchor, load, saved, until
from tests.luxe.rpc_driver import processes_with_marker, wait_until


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("net/retry.py", "def fetch(call):\n    return call()\n")
    repo.write("tests/test_retry.py", "def test_fetch():\n    assert True\n")
    repo.commit("init")
    repo.write("net/retry.py", "def fetch(call):\n    call()\n    return call()\n")
    repo.write("tests/test_retry.py", "def test_fetch():\n    assert fetch(lambda: 1) == 1\n")
    repo.write("net/backoff.py", "DELAY = 2\n")
    return repo


def test_model_chapters_a_question_on_the_thread_and_restore_after_restart(
    spawn: SpawnLuxe, project: Repo
) -> None:
    expected, _ = trio.run(read_review, project.path, WorkingTreeTarget())
    by_path = {f.path: f.id for f in expected.files}
    hunks_of = {
        path: [h.id for h in expected.hunks if h.file_id == fid] for path, fid in by_path.items()
    }
    proposal = {"chapters": [
        {"title": "Backoff constant", "summary": "a delay to wait", "hunk_ids": hunks_of["net/backoff.py"]},
        {"title": "Retry calls twice", "summary": "fetch warms up", "hunk_ids": hunks_of["net/retry.py"]},
        {"title": "Test the retry", "summary": "it returns", "hunk_ids": hunks_of["tests/test_retry.py"]},
    ]}  # fmt: skip
    luxe = spawn(
        [
            {"tool_calls": [{"name": "propose_chapters", "args": proposal}]},
            {"text": "The first call warms the connection pool."},
        ],
        cwd=project.path,
    )
    luxe.expect("ready")
    review, session = load(luxe, "r1", {"kind": "working_tree"})
    assert review["id"].startswith("review:") and review["revision_id"] == expected.revision_id
    assert [c["title"] for c in review["chapters"]] == [
        "Backoff constant",
        "Retry calls twice",
        "Test the retry",
    ]
    assert {f["path"]: f["status"] for f in review["files"]} == {
        "net/backoff.py": "added", "net/retry.py": "modified", "tests/test_retry.py": "modified",
    }  # fmt: skip
    assert session == {"id": review["id"], "review_id": review["id"], "revision_id": review["revision_id"],
                       "session_revision": 0, "findings": [], "verdict": None}  # fmt: skip

    anchor = line_anchor(review, "    call()")
    luxe.send("edit_review", {"request_id": "e1", "review_id": review["id"], "edit": "comment",
                              "anchor": anchor, "body": "Why call twice?", "severity": "question", "send": True})  # fmt: skip
    first = saved(luxe, "e1")
    (finding,) = first["findings"]
    assert finding["sent"] is True and finding["anchor"] == anchor
    # The question runs as an ordinary turn, streamed to the client.
    started = luxe.expect("turn_started")
    assert "Why call twice?" in started["text"]
    answered = saved(luxe, None)
    assert [(e["author"], e["body"]) for e in answered["findings"][0]["thread"]] == [
        ("reviewer", "Why call twice?"),
        ("agent", "The first call warms the connection pool."),
    ]
    assert answered["session_revision"] == first["session_revision"] + 1

    # Failures are answered under their request id and change nothing.
    luxe.send("edit_review", {"request_id": "e2", "review_id": review["id"], "edit": "reply",
                              "finding_id": "finding:nope", "body": "hi"})  # fmt: skip
    failed = luxe.expect("review_session_save_failed")
    assert failed == {"request_id": "e2", "reason": "unknown finding finding:nope"}
    luxe.send(
        "edit_review",
        {"request_id": "e3", "review_id": "review:0000", "edit": "resolve", "finding_id": "x"},
    )
    rejected = luxe.expect("action_rejected")
    assert rejected["kind"] == "edit_review" and "not the open review" in rejected["reason"]
    luxe.send("edit_review", {"request_id": "e4", "review_id": review["id"], "edit": "resolve",
                              "finding_id": finding["id"]})  # fmt: skip
    resolved = saved(luxe, "e4")
    assert resolved["findings"][0]["status"] == "resolved"
    assert luxe.close() == 0

    # A new luxe restores the same review: same ids, stored chapters, the thread.
    again = spawn([], cwd=project.path)
    again.expect("ready")
    review2, session2 = load(again, "r2", {"kind": "working_tree"})
    assert review2 == review
    assert session2 == resolved
    assert again.close() == 0


def test_a_fix_edits_a_file_and_reports_then_the_reload_remaps(
    spawn: SpawnLuxe, project: Repo
) -> None:
    edit = {
        "path": "net/retry.py",
        "old_string": "    call()\n    return call()\n",
        "new_string": "    return call()\n",
    }
    steps = [
        NO_CHAPTERS,
        {"tool_calls": [{"name": "edit", "args": edit}]},
        {"text": "Removed the extra call: fetch calls once."},
        NO_CHAPTERS,
    ]
    luxe = spawn(steps, "--permission-mode", "accept-edits", cwd=project.path)
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    assert sum(len(c["hunk_ids"]) for c in review["chapters"]) == len(
        review["hunks"]
    )  # the fallback
    assert review["chapters"][-1]["title"].endswith("tests/test_retry.py")  # tests last
    keep = line_anchor(review, "DELAY = 2")
    luxe.send("edit_review", {"request_id": "c1", "review_id": review["id"], "edit": "comment",
                              "anchor": keep, "body": "Name the unit", "severity": "nit"})  # fmt: skip
    saved(luxe, "c1")
    luxe.send("edit_review", {"request_id": "f1", "review_id": review["id"], "edit": "fix",
                              "anchor": line_anchor(review, "    call()"), "body": "Call once", "send": True})  # fmt: skip
    requested = saved(luxe, "f1")
    fix_id = requested["findings"][1]["id"]
    assert requested["findings"][1]["fix"] == {"state": "requested", "report": None}
    # Until the fix is done: a saved frame with it running, the file edited.
    frames = []
    while True:
        frame = luxe.next_frame()
        frames.append(frame)
        content = frame.get("content", {})
        if frame["kind"] == "review_session_saved" and content["request_id"] is None:
            states = [
                f["fix"]["state"] for f in content["session"]["findings"] if f["id"] == fix_id
            ]
            if states == ["done"]:
                done = content["session"]
                break
    states_seen = [
        f["fix"]["state"]
        for frame in frames
        if frame["kind"] == "review_session_saved"
        for f in frame["content"]["session"]["findings"]
        if f["id"] == fix_id
    ]
    assert states_seen == ["running", "done"]
    (changed,) = [f["content"] for f in frames if f["kind"] == "file_changed"]
    assert changed["path"].endswith("net/retry.py")
    fixed = next(f for f in done["findings"] if f["id"] == fix_id)
    assert fixed["fix"] == {"state": "done", "report": "Removed the extra call: fetch calls once."}
    assert fixed["thread"][-1]["author"] == "agent" and fixed["status"] == "open"
    assert (project.path / "net/retry.py").read_text() == "def fetch(call):\n    return call()\n"

    # Reloading shows the new revision; findings are kept and re-mapped.
    review2, session2 = load(luxe, "r2", {"kind": "working_tree"})
    assert review2["id"] == review["id"] and review2["revision_id"] != review["revision_id"]
    found = {f["id"]: f for f in session2["findings"]}
    assert len(found) == 2
    assert found[fix_id]["outdated"] is True  # its line is gone
    nit = next(f for f in session2["findings"] if f["id"] != fix_id)
    assert nit["outdated"] is False and nit["anchor"] == keep
    assert luxe.close() == 0


def test_a_cancelled_fix_leaves_a_system_entry(spawn: SpawnLuxe, project: Repo) -> None:
    luxe = spawn([NO_CHAPTERS, {"delay_s": 30, "text": "never"}], cwd=project.path)
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    luxe.send("edit_review", {"request_id": "f1", "review_id": review["id"], "edit": "fix",
                              "anchor": {"kind": "review"}, "body": "Tidy up", "send": True})  # fmt: skip
    saved(luxe, "f1")
    seen = until(luxe, {"turn_started", "review_session_saved"})
    assert seen["review_session_saved"]["session"]["findings"][0]["fix"]["state"] == "running"
    luxe.send("cancel_turn")
    assert luxe.expect("turn_ended")["reason"] == "cancelled"
    ended = saved(luxe, None)
    (finding,) = ended["findings"]
    assert finding["fix"] == {"state": "failed", "report": None}
    assert finding["status"] == "open"
    assert finding["thread"][-1]["author"] == "system"
    assert "cancelled" in finding["thread"][-1]["body"]
    assert luxe.close() == 0


def test_chapter_commits_over_rpc(spawn: SpawnLuxe, project: Repo) -> None:
    luxe = spawn([NO_CHAPTERS], cwd=project.path)
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    before = project.snapshot()
    luxe.send("commit_review_chapters", {"request_id": "k1", "review_id": review["id"]})
    committed = luxe.expect("review_chapters_committed")
    assert committed["request_id"] == "k1"
    titles = [c["title"] for c in review["chapters"]]
    assert [c["chapter_id"] for c in committed["commits"]] == [c["id"] for c in review["chapters"]]
    assert project.log() == [*reversed(titles), "init"]
    assert project.snapshot() == before
    assert project.git("status", "--porcelain") == ""
    # The working tree no longer matches the review's revision: refused.
    luxe.send("commit_review_chapters", {"request_id": "k2", "review_id": review["id"]})
    refused = luxe.expect("review_chapters_commit_failed")
    assert refused["request_id"] == "k2" and "reload the review" in refused["reason"]
    assert luxe.close() == 0


def test_commits_are_refused_in_read_only_mode(spawn: SpawnLuxe, project: Repo) -> None:
    luxe = spawn([NO_CHAPTERS], "--read-only", cwd=project.path)
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    luxe.send("commit_review_chapters", {"request_id": "k1", "review_id": review["id"]})
    refused = luxe.expect("review_chapters_commit_failed")
    assert refused == {
        "request_id": "k1",
        "reason": "read-only mode: commit_review_chapters is refused",
    }
    assert project.log() == ["init"]
    assert luxe.close() == 0


def pull_request_of_the_changes(project: Repo, github: FakeGitHub) -> PullRequest:
    """`project` published as acme/widgets, its changes committed on the
    branch `warm-up`, pushed, and the pull request of that branch onto main."""
    checkout = publish(project.path, github, github.env(), "acme/widgets")
    project.git("checkout", "-q", "-b", "warm-up")
    project.commit("second")
    checkout.git("push", "-q", "-u", "origin", "warm-up")
    return github.world.open_pull(checkout.remote, title="Warm up", body="", head="warm-up",
                                  base="main")


@needs_gh
def test_targets_and_load_failures(
    spawn: SpawnLuxe, project: Repo, github: FakeGitHub, tmp_path: Path
) -> None:
    head = project.head()
    pull = pull_request_of_the_changes(project, github)
    assert pull.baseRefOid == head and pull.headRefOid == project.head()
    luxe = spawn([NO_CHAPTERS] * 8, cwd=project.path, env_extra=github.env())
    luxe.expect("ready")
    # Before any review is open, edits and commits say so.
    luxe.send(
        "edit_review",
        {"request_id": "e0", "review_id": "review:1", "edit": "resolve", "finding_id": "f"},
    )
    assert luxe.expect("review_session_save_failed") == {
        "request_id": "e0",
        "reason": "no review is open",
    }

    pr, _ = load(luxe, "p1", {"kind": "pull_request", "number": pull.number})
    commit, _ = load(luxe, "c1", {"kind": "commit", "sha": "HEAD"})
    assert pr["revision_id"] == commit["revision_id"] and pr["id"] != commit["id"]
    assert (pr["base"], pr["head"]) == (head, project.head())
    staged, _ = load(luxe, "s1", {"kind": "staged"})
    assert staged["files"] == [] and staged["chapters"] == []  # an empty diff loads, with no files
    # ... and says so, in a flag and in words; a review with files does not.
    assert (staged["empty"], staged["note"]) == (True, "Nothing to review: nothing is staged.")
    assert (commit["empty"], commit["note"]) == (False, None)

    for request_id, target, reason in [
        ("b1", {"kind": "commit", "sha": "feedface"}, "unknown commit 'feedface'"),
        ("b2", {"kind": "galaxy"}, "unknown target kind 'galaxy'"),
        ("b3", {"kind": "pull_request", "number": 404}, "Could not resolve to a PullRequest"),
        ("b4", {"kind": "range", "base": "HEAD"}, "required field missing"),
    ]:
        luxe.send("load_guided_review", {"request_id": request_id, "target": target})
        failed = luxe.expect("guided_review_load_failed")
        assert failed["request_id"] == request_id and reason in failed["reason"], failed
    # A failed load changes nothing: the staged review is still the open one.
    luxe.send("edit_review", {"request_id": "e1", "review_id": staged["id"], "edit": "comment",
                              "anchor": {"kind": "review"}, "body": "Nothing staged"})  # fmt: skip
    assert saved(luxe, "e1")["review_id"] == staged["id"]
    luxe.send("load_guided_review", {"request_id": "x", "target": "working_tree"})
    assert luxe.expect("guided_review_load_failed") == {
        "request_id": "x", "reason": "load_guided_review: field `target` must be an object"
    }  # fmt: skip
    luxe.send("load_guided_review", {"target": {"kind": "staged"}})
    assert luxe.expect("action_rejected")["reason"] == "load_guided_review: missing field `request_id`"
    assert luxe.close() == 0


def test_not_a_repository(spawn: SpawnLuxe, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    luxe = spawn([], cwd=plain)
    luxe.expect("ready")
    luxe.send("load_guided_review", {"request_id": "r", "target": {"kind": "working_tree"}})
    assert luxe.expect("guided_review_load_failed") == {
        "request_id": "r",
        "reason": f"{plain} is not a git repository",
    }
    assert luxe.close() == 0


def gh_processes(env: dict[str, str], marker: str = "") -> list[int]:
    """This test's living gh processes (by their scope in `env`) whose
    command line holds `marker`."""
    return [pid for pid in processes_with_marker(marker, scope=env) if command_name(pid) == "gh"]


@needs_gh
def test_closing_during_a_slow_load_leaves_no_process_behind(
    spawn: SpawnLuxe, project: Repo, github: FakeGitHub, env: dict[str, str]
) -> None:
    pull = pull_request_of_the_changes(project, github)
    luxe = spawn([], cwd=project.path, env_extra=github.env())
    luxe.expect("ready")
    luxe.expect("workspace_updated")  # the workspace's own gh has had its answer
    github.api.delay_s = 600.0  # GitHub stalls; the fixture's teardown ends the stall
    luxe.send("load_guided_review",
              {"request_id": "p", "target": {"kind": "pull_request", "number": pull.number}})
    view = f"pr view {pull.number} --json headRefOid"
    wait_until(lambda: github.api.held and gh_processes(env, view), what="gh waiting on GitHub")
    assert luxe.close() == 0
    assert gh_processes(env) == []
    assert "guided_review_loaded" not in [f["kind"] for f in luxe.frames]
