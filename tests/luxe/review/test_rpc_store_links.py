"""Guided Review's store is inside the repository (`.luxe/reviews/`): a
symbolic link its author put at `.luxe` or `.luxe/reviews` is never read or
written through. Through the real `luxe --rpc`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.gitrepo import Repo
from tests.luxe.policy.hostile import hostile_luxe
from tests.luxe.review.rpc_helpers import load


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("README.md", "a project\n")
    repo.commit("init")
    return repo


@pytest.mark.parametrize("linked", [".luxe", ".luxe/reviews", "a chain"])
def test_a_linked_review_store_is_never_written_through(
    project: Repo, env: dict[str, str], tmp_path: Path, linked: str
) -> None:
    """The review store is inside the repository; a symbolic link its author
    put at `.luxe` or `.luxe/reviews` would send the sessions and a
    `.gitignore` of `*` wherever it points (a folder of the person's). The
    review still loads; saving a comment is refused with the reason, and the
    folder pointed at stays as it was."""
    repo = project.path
    elsewhere = tmp_path / "the-persons-folder"
    elsewhere.mkdir()
    if linked == ".luxe":
        (repo / ".luxe").symlink_to(elsewhere)
    elif linked == "a chain":  # .luxe -> docs/cache (a link itself) -> elsewhere
        (repo / "docs").mkdir()
        (repo / "docs" / "cache").symlink_to(elsewhere)
        (repo / ".luxe").symlink_to("docs/cache")
    else:
        (repo / ".luxe").mkdir()
        (repo / ".luxe" / "reviews").symlink_to(elsewhere)
    (repo / "README.md").write_text("changed\n")  # committed as "a project"
    with hostile_luxe([], "ask", cwd=repo, env=env) as (luxe, _server):
        review, _ = load(luxe, "r1", {"kind": "working_tree"})
        luxe.send("edit_review", {"request_id": "e1", "review_id": review["id"], "edit": "comment",
                                  "anchor": {"kind": "review"}, "body": "a note", "severity": "issue"})  # fmt: skip
        failed = luxe.expect("review_session_save_failed")
        assert "is a symbolic link" in failed["reason"], failed
        assert luxe.close() == 0
    assert list(elsewhere.rglob("*")) == []
