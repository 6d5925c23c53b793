"""Sessions stored, restored and re-mapped across revisions, with real git."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs
import pytest

from luxe.review.edits import edit_from_wire
from luxe.review.findings import apply_edit
from luxe.review.load import LoadedReview, load_review
from luxe.review.model import LineAnchor, RangeAnchor, ReviewSession, WorkingTreeTarget
from luxe.review.store import ReviewStore, StoreError
from tests.helpers.gitrepo import Repo

NOW = "2026-11-29T20:00:00Z"


def numbered(count: int, changed: dict[int, str] | None = None) -> str:
    changed = changed or {}
    return "".join(changed.get(n, f"line {n}") + "\n" for n in range(1, count + 1))


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("app.py", numbered(50))
    repo.write("other.py", "a = 1\n")
    repo.commit("init")
    repo.write(
        "app.py", numbered(50, {20: "changed twenty", 21: "changed twenty-one", 40: "forty!"})
    )
    repo.write("other.py", "a = 2\n")
    return repo


def comment(
    loaded: LoadedReview, session: ReviewSession, anchor: dict[str, Any], body: str, n: int
) -> ReviewSession:
    edit = edit_from_wire({"edit": "comment", "anchor": anchor, "body": body, "severity": "issue"})
    return apply_edit(session, loaded.review, edit, now=NOW, new_id=f"finding:{n}").session


def hunk_with(loaded: LoadedReview, text: str) -> tuple[str, str, int]:
    for hunk in loaded.review.hunks:
        for line in hunk.lines:
            if line.text == text and line.new_line is not None:
                return hunk.file_id, hunk.id, line.new_line
    raise AssertionError(f"no line {text!r}")


async def test_saved_sessions_are_restored_and_invisible_to_git(project: Repo) -> None:
    loaded = await load_review(project.path, WorkingTreeTarget())
    assert not loaded.restored and loaded.session.findings == ()
    file_id, hunk_id, number = hunk_with(loaded, "forty!")
    session = comment(
        loaded,
        loaded.session,
        {"kind": "line", "file_id": file_id, "hunk_id": hunk_id, "side": "new", "line": number},
        "why?",
        1,
    )
    loaded.store.save(session, loaded.review)
    assert sorted(p.name for p in loaded.store.directory.iterdir()) == [
        ".gitignore",
        loaded.review.id.removeprefix("review:") + ".json",
    ]

    again = await load_review(project.path, WorkingTreeTarget())
    assert again.restored and again.session == session
    assert again.review == loaded.review  # the store is not part of the change
    assert ".luxe" not in project.git("status", "--porcelain")


async def test_a_newer_revision_remaps_by_content_and_marks_changed_lines_outdated(
    project: Repo,
) -> None:
    loaded = await load_review(project.path, WorkingTreeTarget())
    session = loaded.session
    f20, h20, n20 = hunk_with(loaded, "changed twenty")
    f40, h40, n40 = hunk_with(loaded, "forty!")
    fother, hother, nother = hunk_with(loaded, "a = 2")
    session = comment(
        loaded,
        session,
        {"kind": "line", "file_id": f40, "hunk_id": h40, "side": "new", "line": n40},
        "keeps",
        1,
    )
    session = comment(
        loaded,
        session,
        {
            "kind": "range",
            "file_id": f20,
            "hunk_id": h20,
            "side": "new",
            "start": n20,
            "end": n20 + 1,
        },
        "range keeps",
        2,
    )
    session = comment(
        loaded,
        session,
        {"kind": "line", "file_id": fother, "hunk_id": hother, "side": "new", "line": nother},
        "goes stale",
        3,
    )
    session = comment(loaded, session, {"kind": "file", "file_id": fother}, "file note", 4)
    session = comment(loaded, session, {"kind": "review"}, "overall", 5)
    loaded.store.save(session, loaded.review)

    # Three new lines above everything, and other.py changes again.
    content = numbered(50, {20: "changed twenty", 21: "changed twenty-one", 40: "forty!"})
    project.write("app.py", "new 1\nnew 2\nnew 3\n" + content)
    project.write("other.py", "a = 3\n")
    newer = await load_review(project.path, WorkingTreeTarget())

    assert newer.review.revision_id != loaded.review.revision_id
    assert newer.session.revision_id == newer.review.revision_id
    assert newer.session.session_revision == session.session_revision + 1
    found = {f.id: f for f in newer.session.findings}
    assert set(found) == {
        "finding:1",
        "finding:2",
        "finding:3",
        "finding:4",
        "finding:5",
    }  # none dropped
    assert (
        found["finding:1"].anchor == LineAnchor(f40, h40, "new", n40 + 3)
        and not found["finding:1"].outdated
    )
    moved = found["finding:2"].anchor
    assert isinstance(moved, RangeAnchor) and (moved.start, moved.end) == (n20 + 3, n20 + 4)
    assert not found["finding:2"].outdated
    assert found["finding:3"].outdated and found["finding:3"].anchor == session.findings[2].anchor
    assert not found["finding:4"].outdated and not found["finding:5"].outdated
    # The re-mapped session was saved: a reload restores it as it is.
    assert (await load_review(project.path, WorkingTreeTarget())).session == newer.session


async def test_a_reverted_file_leaves_its_findings_outdated(project: Repo) -> None:
    loaded = await load_review(project.path, WorkingTreeTarget())
    fother, _, _ = hunk_with(loaded, "a = 2")
    session = comment(loaded, loaded.session, {"kind": "file", "file_id": fother}, "note", 1)
    loaded.store.save(session, loaded.review)
    project.write("other.py", "a = 1\n")
    newer = await load_review(project.path, WorkingTreeTarget())
    (finding,) = newer.session.findings
    assert finding.outdated and finding.thread == session.findings[0].thread


async def test_chapters_stay_when_the_revision_is_the_same(project: Repo) -> None:
    async def fixed(review: Any) -> Any:
        from luxe.review.model import Chapter

        return (
            Chapter("chapter:all", "Everything", "all of it", tuple(h.id for h in review.hunks)),
        )

    loaded = await load_review(project.path, WorkingTreeTarget(), propose=fixed)
    assert loaded.chapters_source == "model" and loaded.review.chapters[0].title == "Everything"
    loaded.store.save(loaded.session, loaded.review)
    again = await load_review(project.path, WorkingTreeTarget())
    assert again.chapters_source == "stored" and again.review.chapters == loaded.review.chapters


async def test_invalid_model_chapters_fall_back(project: Repo) -> None:
    async def half(review: Any) -> Any:
        from luxe.review.model import Chapter

        return (Chapter("chapter:x", "Half", "", (review.hunks[0].id,)),)

    loaded = await load_review(project.path, WorkingTreeTarget(), propose=half)
    assert loaded.chapters_source == "fallback"
    assert sum(len(c.hunk_ids) for c in loaded.review.chapters) == len(loaded.review.hunks)


async def test_writes_are_atomic(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = await load_review(project.path, WorkingTreeTarget())
    store = loaded.store
    store.save(loaded.session, loaded.review)
    path = store.path_for(loaded.review.id)
    good = path.read_bytes()

    def crash(fd: int) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="disk on fire"):
        store.save(attrs.evolve(loaded.session, session_revision=99), loaded.review)
    monkeypatch.undo()
    assert path.read_bytes() == good  # the old file, whole
    assert sorted(p.name for p in store.directory.iterdir()) == [
        ".gitignore",
        path.name,
    ]  # no temp left


async def test_an_unreadable_session_is_set_aside(project: Repo) -> None:
    loaded = await load_review(project.path, WorkingTreeTarget())
    store = loaded.store
    store.save(loaded.session, loaded.review)
    path = store.path_for(loaded.review.id)
    path.write_text('{"version": 1, "session": {"half"')
    with pytest.raises(StoreError, match="is not a review session"):
        store.load(loaded.review.id)
    again = await load_review(project.path, WorkingTreeTarget())
    assert not again.restored
    assert any(p.name.startswith(path.name + ".unreadable-") for p in store.directory.iterdir())


def test_review_ids_are_checked_before_they_name_files(tmp_path: Path) -> None:
    store = ReviewStore(tmp_path)
    for bad in ["review:../../etc", "file:abc", "review:", "review:ABCDEF12"]:
        with pytest.raises(StoreError, match="is not a review id"):
            store.path_for(bad)
    assert store.load("review:0123456789abcdef") is None


async def test_a_huge_diff_is_not_sent_to_the_model(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    import luxe.review.load as load_module

    repo.write("a.txt", "".join(f"{n}\n" for n in range(100)))
    repo.commit("init")
    repo.write("a.txt", "".join(f"{n}\n" if n % 10 else f"{n}!\n" for n in range(100)))
    asked: list[int] = []

    async def count(review: Any) -> Any:
        asked.append(len(review.hunks))
        raise AssertionError("not reached")

    monkeypatch.setattr(load_module, "MAX_MODEL_HUNKS", 5)
    loaded = await load_review(repo.path, WorkingTreeTarget(), propose=count)
    assert len(loaded.review.hunks) == 10 and asked == []
    assert loaded.chapters_source == "fallback"


@pytest.mark.parametrize("plant", ["fifo", "zero", "directory", "huge"])
async def test_a_planted_session_file_is_set_aside_without_reading_it(
    project: Repo, plant: str
) -> None:
    """The store lives in the repository; its author can put anything where
    a session file will be (an id derives from the checkout's path, which is
    often guessable: /workspaces/<name>). Nothing there can hang the load
    (a FIFO), exhaust memory (a link to /dev/zero, a file of 65 MB) or stop
    the review loading: it is set aside and a new session starts."""
    from luxe.review.diff import review_id_for

    path = ReviewStore(project.path / ".luxe" / "reviews").path_for(
        review_id_for(project.path, WorkingTreeTarget())
    )
    path.parent.mkdir(parents=True)
    if plant == "fifo":
        os.mkfifo(path)
    elif plant == "zero":
        path.symlink_to("/dev/zero")
    elif plant == "directory":
        path.mkdir()
    else:
        with path.open("wb") as f:
            f.truncate(65 << 20)  # sparse: no disk, but over the cap
    loaded = await load_review(project.path, WorkingTreeTarget())
    assert not loaded.restored
    assert any(p.name.startswith(path.name + ".unreadable-") for p in path.parent.iterdir())
