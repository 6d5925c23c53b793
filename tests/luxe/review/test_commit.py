"""Committing a review chapter by chapter, with real git."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from luxe.review.chapters import chapter_id
from luxe.review.commit import CommitRefused, commit_chapters
from luxe.review.load import read_review
from luxe.review.model import Chapter, CommitTarget, Review, StagedTarget, WorkingTreeTarget
from tests.helpers.gitrepo import Repo


def numbered(count: int, changed: dict[int, str] | None = None) -> str:
    changed = changed or {}
    return "".join(changed.get(n, f"line {n}") + "\n" for n in range(1, count + 1))


@pytest.fixture
def changed_repo(repo: Repo) -> Repo:
    repo.write("lib/core.py", numbered(60))
    repo.write("lib/old_name.py", "kept = True\n")
    repo.write("lib/doomed.py", "x = 1\n")
    repo.write("tests/test_core.py", "def test():\n    pass\n")
    repo.commit("init")
    # Two far-apart hunks in one file, a rename, a deletion, a new file,
    # an untracked binary file and a test change.
    repo.write("lib/core.py", numbered(60, {3: "line three", 55: "line fifty-five"}))
    repo.git("mv", "lib/old_name.py", "lib/new_name.py")
    (repo.path / "lib/doomed.py").unlink()
    repo.write("lib/fresh.py", "def fresh():\n    return 1\n")
    repo.write("assets/blob.bin", bytes(range(256)) * 4)
    repo.write("tests/test_core.py", "def test():\n    assert True\n")
    return repo


def regroup(review: Review, groups: list[tuple[str, list[str]]]) -> Review:
    """Chapters made by hand from hunks named '<path>#<n>' (n-th hunk of the file)."""
    by_path = {f.path: f.id for f in review.files}
    hunks = {}
    for path, file_id in by_path.items():
        for index, hunk in enumerate(h for h in review.hunks if h.file_id == file_id):
            hunks[f"{path}#{index}"] = hunk.id
    chapters = []
    for title, names in groups:
        ids = tuple(hunks[name] for name in names)
        chapters.append(Chapter(chapter_id(ids), title, f"summary of {title}", ids))
    return attrs.evolve(review, chapters=tuple(chapters))


async def test_each_chapter_is_one_commit_and_the_working_tree_is_untouched(
    changed_repo: Repo,
) -> None:
    review, _ = await read_review(changed_repo.path, WorkingTreeTarget())
    # The second hunk of core.py comes before the first: positions must follow.
    review = regroup(
        review,
        [
            ("Tail of core", ["lib/core.py#1", "lib/fresh.py#0"]),
            ("Head of core and moves", ["lib/core.py#0", "lib/new_name.py#0", "lib/doomed.py#0"]),
            ("Assets", ["assets/blob.bin#0"]),
            ("Tests", ["tests/test_core.py#0"]),
        ],
    )
    before = changed_repo.snapshot()
    start = changed_repo.head()

    commits = await commit_chapters(changed_repo.path, review)

    assert changed_repo.log() == [
        "Tests",
        "Assets",
        "Head of core and moves",
        "Tail of core",
        "init",
    ]
    assert [c.chapter_id for c in commits] == [c.id for c in review.chapters]
    assert commits[-1].sha == changed_repo.head()
    body = changed_repo.git("log", "-1", "--format=%B", commits[0].sha)
    assert body.strip() == "Tail of core\n\nsummary of Tail of core"
    assert changed_repo.snapshot() == before  # not one byte of the working tree moved
    assert changed_repo.git("status", "--porcelain") == ""  # and all of it is committed
    first = changed_repo.git("show", "--stat", "--format=", commits[0].sha)
    assert "lib/core.py" in first and "lib/fresh.py" in first and "new_name" not in first
    assert changed_repo.git("rev-list", "--count", f"{start}..HEAD").strip() == "4"
    # The first commit has the tail change only.
    core_after_first = changed_repo.git("show", f"{commits[0].sha}:lib/core.py")
    assert "line fifty-five" in core_after_first and "line three" not in core_after_first


async def test_some_chapters_leave_the_rest_uncommitted(changed_repo: Repo) -> None:
    review, _ = await read_review(changed_repo.path, WorkingTreeTarget())
    review = regroup(
        review,
        [
            ("Core head", ["lib/core.py#0"]),
            (
                "Everything else",
                [
                    "lib/core.py#1",
                    "lib/fresh.py#0",
                    "lib/new_name.py#0",
                    "lib/doomed.py#0",
                    "assets/blob.bin#0",
                    "tests/test_core.py#0",
                ],
            ),
        ],
    )
    before = changed_repo.snapshot()
    await commit_chapters(changed_repo.path, review, [review.chapters[0].id])
    assert changed_repo.log() == ["Core head", "init"]
    assert changed_repo.snapshot() == before
    rest, _ = await read_review(changed_repo.path, WorkingTreeTarget())
    core = next(f for f in rest.files if f.path == "lib/core.py")
    (left,) = [h for h in rest.hunks if h.file_id == core.id]
    assert [line.text for line in left.lines if line.kind == "add"] == ["line fifty-five"]
    assert "?? lib/fresh.py" in changed_repo.git("status", "--porcelain")


async def test_a_staged_review_keeps_what_was_not_committed_staged(repo: Repo) -> None:
    repo.write("a.txt", numbered(40))
    repo.write("b.txt", "b\n")
    repo.commit("init")
    repo.write("a.txt", numbered(40, {2: "two", 38: "thirty-eight"}))
    repo.write("b.txt", "bee\n")
    repo.git("add", "-A")
    repo.write("b.txt", "unstaged bee\n")
    review, _ = await read_review(repo.path, StagedTarget())
    review = regroup(review, [("A top", ["a.txt#0"]), ("Rest", ["a.txt#1", "b.txt#0"])])
    await commit_chapters(repo.path, review, [review.chapters[0].id])
    assert repo.log() == ["A top", "init"]
    staged = repo.git("diff", "--cached", "--name-only").split()
    assert staged == ["a.txt", "b.txt"]
    assert "+thirty-eight" in repo.git("diff", "--cached", "a.txt")
    assert "+two" not in repo.git("diff", "--cached", "a.txt")
    assert (repo.path / "b.txt").read_text() == "unstaged bee\n"


def blob_of(repo: Repo, spec: str) -> str:
    return repo.git("rev-parse", spec).strip()


async def test_binary_files_of_any_size_are_reviewed_and_committed_by_blob(repo: Repo) -> None:
    """Added (20 MB, past the diff cap when binary data was in the diff),
    modified, deleted and renamed binary files, committed in chapters."""
    repo.write("a.txt", numbered(10))
    repo.write("img/logo.png", b"\x89PNG\0" + os.urandom(4096))
    repo.write("img/old.png", b"\x89PNG\0" + os.urandom(2048))
    repo.write("img/gone.png", b"\x89PNG\0" + os.urandom(1024))
    repo.commit("init")
    repo.write("img/logo.png", b"\x89PNG\0" + os.urandom(4096))
    repo.write("assets/video.bin", os.urandom(20 << 20))
    (repo.path / "img/gone.png").unlink()
    repo.git("mv", "img/old.png", "img/renamed.png")
    repo.write("a.txt", numbered(10, {5: "five"}))
    review, _ = await read_review(repo.path, WorkingTreeTarget())
    assert {f.path: (f.status, f.binary) for f in review.files} == {
        "a.txt": ("modified", False),
        "assets/video.bin": ("added", True),
        "img/gone.png": ("deleted", True),
        "img/logo.png": ("modified", True),
        "img/renamed.png": ("renamed", False),  # the same bytes: a rename, nothing binary to show
    }
    review = regroup(review, [
        ("Pictures", ["img/logo.png#0", "img/gone.png#0", "img/renamed.png#0"]),
        ("Video", ["assets/video.bin#0"]),
        ("Text", ["a.txt#0"]),
    ])  # fmt: skip
    before = repo.snapshot()
    commits = await commit_chapters(repo.path, review)
    assert repo.log() == ["Text", "Video", "Pictures", "init"]
    assert repo.snapshot() == before and repo.git("status", "--porcelain") == ""
    pictures = repo.git("ls-tree", "-r", "--name-only", commits[0].sha).split()
    assert pictures == ["a.txt", "img/logo.png", "img/renamed.png"]
    assert blob_of(repo, f"{commits[0].sha}:img/logo.png") == repo.git(
        "hash-object", "img/logo.png"
    ).strip()
    assert blob_of(repo, f"{commits[1].sha}:assets/video.bin") == repo.git(
        "hash-object", "assets/video.bin"
    ).strip()


async def test_a_staged_binary_is_committed_as_staged(repo: Repo) -> None:
    repo.write("logo.png", b"\x89PNG\0" + os.urandom(4096))
    repo.commit("init")
    staged = b"\x89PNG\0" + os.urandom(4096)
    repo.write("logo.png", staged)
    repo.git("add", "logo.png")
    repo.write("logo.png", b"\x89PNG\0" + os.urandom(4096))  # changed again, not staged
    review, _ = await read_review(repo.path, StagedTarget())
    (commit,) = await commit_chapters(repo.path, review)
    assert blob_of(repo, f"{commit.sha}:logo.png") == repo.git(
        "hash-object", "--stdin", input=staged
    ).strip()
    assert repo.git("status", "--porcelain") == " M logo.png\n"  # the later change stays unstaged


async def test_refused_when_the_working_tree_moved_on(changed_repo: Repo) -> None:
    review, _ = await read_review(changed_repo.path, WorkingTreeTarget())
    changed_repo.write("lib/fresh.py", "def fresh():\n    return 2\n")
    head = changed_repo.head()
    with pytest.raises(CommitRefused, match="no longer the reviewed revision"):
        await commit_chapters(changed_repo.path, review)
    assert changed_repo.head() == head


async def test_refused_for_unknown_chapters_and_committed_targets(changed_repo: Repo) -> None:
    review, _ = await read_review(changed_repo.path, WorkingTreeTarget())
    with pytest.raises(CommitRefused, match="unknown chapter chapter:nope"):
        await commit_chapters(changed_repo.path, review, ["chapter:nope"])
    committed, _ = await read_review(changed_repo.path, CommitTarget("HEAD"))
    with pytest.raises(CommitRefused, match="already committed"):
        await commit_chapters(changed_repo.path, committed)
    assert changed_repo.log() == ["init"]


async def test_first_commit_in_an_empty_repository(repo: Repo, tmp_path: Path) -> None:
    repo.write("README.md", "# hello\n")
    repo.write("src/a.py", "A = 1\n")
    review, _ = await read_review(repo.path, WorkingTreeTarget())
    commits = await commit_chapters(repo.path, review)
    assert len(commits) == len(review.chapters) >= 1
    assert repo.git("status", "--porcelain") == ""
    assert repo.log() == [c.message.splitlines()[0] for c in reversed(commits)]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 79), st.sampled_from(["change", "insert", "delete"])),
        min_size=1,
        max_size=8,
        unique_by=lambda e: e[0] // 8,  # far enough apart to make several hunks
    ),
    order=st.randoms(use_true_random=False),
)
def test_any_split_of_hunks_into_chapters_commits_the_whole_change(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, str]], order: Any
) -> None:
    repo = Repo(tmp_path_factory.mktemp("split") / "repo")
    lines = [f"line {n}" for n in range(80)]
    repo.write("f.txt", "".join(f"{line}\n" for line in lines))
    repo.commit("init")
    changed = list(lines)
    for index, kind in sorted(edits, reverse=True):
        if kind == "change":
            changed[index] = f"changed {index}"
        elif kind == "insert":
            changed.insert(index, f"inserted {index}")
        else:
            del changed[index]
    repo.write("f.txt", "".join(f"{line}\n" for line in changed))

    async def run() -> None:
        review, _ = await read_review(repo.path, WorkingTreeTarget())
        names = [f"f.txt#{n}" for n in range(len(review.hunks))]
        order.shuffle(names)
        groups = [names[i : i + 2] for i in range(0, len(names), 2)]
        split = regroup(review, [(f"part {n}", group) for n, group in enumerate(groups)])
        await commit_chapters(repo.path, split)

    trio.run(run)
    assert repo.git("status", "--porcelain") == ""
    assert (repo.path / "f.txt").read_text() == "".join(f"{line}\n" for line in changed)
