"""Issue 17: Guided Review never shows a secret, to the client or the model.
Secret files (by name or as a hard link) get a placeholder hunk; every other
hunk, the chapters request and a finding's turn pass the redactor. Through
the real `luxe --rpc` and the loopback model server, in every permission mode."""

from __future__ import annotations

import os

import pytest

from tests.helpers.gitrepo import Repo
from tests.luxe.policy.hostile import MODES, hostile_luxe
from tests.luxe.review.rpc_helpers import line_anchor, load, saved

UNTRACKED = "untracked-Jd7Kq2Wm5"
OLD = "rotated-old-Xc4Vb9Np"
NEW = "rotated-new-Lz3Mq8Rt"
VALUES = (UNTRACKED, OLD, NEW)
PLACEHOLDER = "[secret file changed: its contents are not shown]"


@pytest.mark.parametrize("mode", MODES)
def test_a_review_shows_no_secret_to_the_client_or_the_model(
    mode: str, repo: Repo, env: dict[str, str]
) -> None:
    repo.write("config.py", 'TOKEN = "none"\n')
    repo.write("svc/.env.production", f"KEY={OLD}\n")
    repo.commit("init")
    repo.write(".env", f"API_KEY={UNTRACKED}\n")  # untracked: a working-tree review shows it
    repo.write("svc/.env.production", f"KEY={NEW}\n")  # a rotated key
    repo.write("config.py", f'TOKEN = "{UNTRACKED}"\n')  # a value pasted into code
    os.link(repo.path / ".env", repo.path / "notes.txt")  # a hard link under another name
    steps = [{"text": "no chapters"}, {"text": "It is read from the environment."}]
    with hostile_luxe(steps, mode, cwd=repo.path, env=env) as (luxe, server):
        review, _ = load(luxe, "r1", {"kind": "working_tree"})
        paths = {f["id"]: f["path"] for f in review["files"]}
        secret_hunks = [h for h in review["hunks"] if paths[h["file_id"]] != "config.py"]
        assert {paths[h["file_id"]] for h in secret_hunks} == {
            ".env", "notes.txt", "svc/.env.production"
        }
        for hunk in secret_hunks:
            assert [line["text"] for line in hunk["lines"]] == [PLACEHOLDER]
        anchor = line_anchor(review, 'TOKEN = "[REDACTED:API_KEY]"')
        luxe.send("edit_review", {"request_id": "q1", "review_id": review["id"],
                                  "edit": "comment", "anchor": anchor, "body": "Why here?",
                                  "severity": "question", "send": True})  # fmt: skip
        saved(luxe, "q1")
        saved(luxe, None)  # the agent's answer
        assert len(server.bodies) == 2  # the chapters request and the question's turn
        for value in VALUES:
            assert value not in str(server.bodies), value
            assert value not in str(luxe.frames), value
        assert luxe.close() == 0
