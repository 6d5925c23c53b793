"""Read-only writes nothing, the review store in the repository
(`.luxe/reviews/`) included: in read-only mode a review's comments are kept
in this Luxe only (a reload shows them), no session file or `.gitignore` is
written, and a session file that cannot be read is left where it is, not
renamed aside. Through the real `luxe --rpc`, read-only from the start
(the flag, or a permissions file over `--yolo`) or chosen later."""

from __future__ import annotations

import pytest

from luxe.review.diff import review_id_for
from luxe.review.model import WorkingTreeTarget
from tests.helpers.gitrepo import Repo
from tests.luxe.policy.e2e import global_config, write_json
from tests.luxe.policy.hostile import hostile_luxe
from tests.luxe.review.rpc_helpers import load, saved

GARBAGE = b'{"version": 1, "session": '  # a session file cut short: unreadable


def _snapshot(repo: Repo) -> dict[str, bytes]:
    store = repo.path / ".luxe"
    return {str(p.relative_to(repo.path)): p.read_bytes() for p in store.rglob("*") if p.is_file()}


@pytest.mark.parametrize("how", ["--read-only", "set_permission_mode", "permissions file"])
def test_read_only_never_writes_the_review_store(repo: Repo, env: dict[str, str], how: str) -> None:
    repo.write("a.py", "A = 1\n")
    repo.commit("init")
    repo.write("a.py", "A = 2\n")
    review_id = review_id_for(repo.path, WorkingTreeTarget())
    stored = repo.path / ".luxe" / "reviews" / f"{review_id.removeprefix('review:')}.json"
    stored.parent.mkdir(parents=True)
    stored.write_bytes(GARBAGE)
    before = _snapshot(repo)
    mode = {"--read-only": "read-only", "set_permission_mode": "ask"}.get(how, "yolo")
    if how == "permissions file":  # wins over every flag, `--yolo` included
        write_json(global_config(env) / "permissions.json", {"mode": "read-only"})
    with hostile_luxe([{"text": "no chapters"}], mode, cwd=repo.path, env=env) as (luxe, _):
        if how == "set_permission_mode":
            luxe.send("set_permission_mode", {"mode": "read-only"})
            assert luxe.expect("state_changed")["permission_mode"] == "read-only"
        elif how == "permissions file":
            luxe.send("set_permission_mode", {"mode": "yolo"})  # refused: the file wins
            assert "is read-only" in luxe.expect("action_rejected")["reason"]
        review, session = load(luxe, "r1", {"kind": "working_tree"})
        assert review["id"] == review_id and session["findings"] == []
        luxe.send("edit_review", {"request_id": "e1", "review_id": review_id, "edit": "comment",
                                  "anchor": {"kind": "review"}, "body": "a note"})
        assert [f["thread"][0]["body"] for f in saved(luxe, "e1")["findings"]] == ["a note"]
        _, again = load(luxe, "r2", {"kind": "working_tree"})  # kept in this Luxe
        assert [f["thread"][0]["body"] for f in again["findings"]] == ["a note"]
        assert luxe.close() == 0
    assert _snapshot(repo) == before
