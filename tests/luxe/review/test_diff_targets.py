"""Reading every target kind with real git (and, for pull requests, the real
gh against the fake GitHub)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from luxe.review.diff import ReviewLoadError
from luxe.review.load import read_review
from luxe.review.model import (
    BranchTarget,
    CommitTarget,
    PullRequestTarget,
    RangeTarget,
    Review,
    StagedTarget,
    Target,
    WorkingTreeTarget,
)
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import needs_gh, open_pull, publish
from tests.helpers.gitrepo import Repo


async def load(path: Path, target: Target) -> Review:
    review, _ = await read_review(path, target)
    return review


def paths(review: Review) -> dict[str, str]:
    return {file.path: file.status for file in review.files}


def added_text(review: Review, path: str) -> list[str]:
    file = next(f for f in review.files if f.path == path)
    return [
        line.text
        for hunk in review.hunks
        if hunk.file_id == file.id
        for line in hunk.lines
        if line.kind == "add"
    ]


@pytest.fixture
def base_repo(repo: Repo) -> Repo:
    repo.write("src/app.py", "def main():\n    return 1\n")
    repo.write("docs/old.md", "# Old\n\nsome words\n")
    repo.write("gone.txt", "bye\n")
    repo.commit("init")
    return repo


async def test_working_tree_has_staged_unstaged_and_untracked(base_repo: Repo) -> None:
    base_repo.write("src/app.py", "def main():\n    return 2\n")
    base_repo.git("add", "src/app.py")
    base_repo.write("src/app.py", "def main():\n    return 3\n")  # unstaged on top
    base_repo.git("mv", "docs/old.md", "docs/new.md")
    (base_repo.path / "gone.txt").unlink()
    base_repo.write("notes/todo.txt", "write tests\n")  # untracked
    base_repo.write("ignored.log", "noise\n")
    base_repo.write(".gitignore", "*.log\n")
    index_before = base_repo.index_hash()

    review = await load(base_repo.path, WorkingTreeTarget())

    assert paths(review) == {
        "src/app.py": "modified",
        "docs/new.md": "renamed",
        "gone.txt": "deleted",
        "notes/todo.txt": "added",
        ".gitignore": "added",
    }
    assert added_text(review, "src/app.py") == ["    return 3"]
    assert added_text(review, "notes/todo.txt") == ["write tests"]
    renamed = next(f for f in review.files if f.path == "docs/new.md")
    assert renamed.old_path == "docs/old.md"
    assert review.base == base_repo.head() and review.head is None
    # Reading never writes the user's index: untracked files stay untracked.
    assert base_repo.index_hash() == index_before
    assert "?? notes/" in base_repo.git("status", "--porcelain")


async def test_working_tree_shows_a_change_made_in_the_same_tick_as_the_commit(repo: Repo) -> None:
    # A rotated key (same length) written in the clock tick the index was
    # written in: git's stat data cannot tell it changed, only the index's own
    # mtime says "look at the content". The review's copy of the index must
    # keep that mtime. (The tick is set ten seconds back, so that nothing
    # written now shares it; git is told to ignore the ctime, which utime
    # changes and the real case leaves equal.)
    import os
    import time

    repo.git("config", "core.trustctime", "false")
    key, index = repo.path / "svc" / "key.txt", repo.path / ".git" / "index"
    tick = time.time_ns() - 10_000_000_000
    repo.write("svc/key.txt", "KEY=rotated-old-Xc4Vb9Np\n")
    os.utime(key, ns=(tick, tick))
    repo.commit("init")
    os.utime(index, ns=(tick, tick))  # the index written in the same tick
    repo.write("svc/key.txt", "KEY=rotated-new-Lz3Mq8Rt\n")
    os.utime(key, ns=(tick, tick))  # ... and the rewrite too
    repo.write("notes.txt", "untracked\n")  # the review's own copy of the index is used
    assert "key.txt" in repo.git("--no-optional-locks", "diff", "--name-only")  # git sees it
    review = await load(repo.path, WorkingTreeTarget())
    assert paths(review) == {"svc/key.txt": "modified", "notes.txt": "added"}
    assert added_text(review, "svc/key.txt") == ["KEY=rotated-new-Lz3Mq8Rt"]


async def test_working_tree_in_a_repository_with_no_commits(repo: Repo) -> None:
    repo.write("first.txt", "hello\n")
    review = await load(repo.path, WorkingTreeTarget())
    assert paths(review) == {"first.txt": "added"}
    assert review.base is None


async def test_staged_is_the_index_only(base_repo: Repo) -> None:
    base_repo.write("src/app.py", "def main():\n    return 2\n")
    base_repo.git("add", "src/app.py")
    base_repo.write("src/app.py", "def main():\n    return 3\n")
    base_repo.write("untracked.txt", "x\n")
    review = await load(base_repo.path, StagedTarget())
    assert paths(review) == {"src/app.py": "modified"}
    assert added_text(review, "src/app.py") == ["    return 2"]


async def test_commit_range_and_root_commit(base_repo: Repo) -> None:
    root = base_repo.head()
    base_repo.write("src/app.py", "def main():\n    return 2\n")
    first = base_repo.commit("two")
    base_repo.write("src/extra.py", "X = 1\n")
    second = base_repo.commit("extra")

    commit = await load(base_repo.path, CommitTarget(first[:8]))
    assert paths(commit) == {"src/app.py": "modified"}
    assert (commit.base, commit.head) == (root, first)

    root_review = await load(base_repo.path, CommitTarget(root))
    assert root_review.base is None
    assert paths(root_review) == {
        "src/app.py": "added",
        "docs/old.md": "added",
        "gone.txt": "added",
    }

    ranged = await load(base_repo.path, RangeTarget(root, "HEAD"))
    assert paths(ranged) == {"src/app.py": "modified", "src/extra.py": "added"}
    assert (ranged.base, ranged.head) == (root, second)


async def test_branch_against_the_default_branch_merge_base(base_repo: Repo) -> None:
    fork = base_repo.head()
    base_repo.git("checkout", "-q", "-b", "feature")
    base_repo.write("src/feature.py", "def feature():\n    pass\n")
    feature_tip = base_repo.commit("feature")
    base_repo.git("checkout", "-q", "main")
    base_repo.write("main-only.txt", "later on main\n")
    base_repo.commit("main moves on")
    base_repo.git("checkout", "-q", "feature")

    review = await load(base_repo.path, BranchTarget())
    # Only the branch's own change: main's later commit is not in it.
    assert paths(review) == {"src/feature.py": "added"}
    assert (review.base, review.head) == (fork, feature_tip)

    explicit = await load(base_repo.path, BranchTarget(base="main"))
    assert explicit.revision_id == review.revision_id
    assert explicit.id != review.id  # a different target, a different review


RETRY = "def retry(call):\n    return call()\n# end\n"
RETRY_TWICE = "def retry(call):\n    call()\n    return call()\n# end\n"


def pull_request(repo: Repo, github: FakeGitHub, full: str, name: str) -> tuple[str, str, int]:
    """`repo` published as `full` with lib/`name`.py on main, and a pull
    request changing it: (base, head, number)."""
    repo.write(f"lib/{name}.py", RETRY)
    repo.commit(f"add {name}")
    checkout = publish(repo.path, github, {}, full)
    pull = open_pull(github, checkout, f"{name}-twice", {f"lib/{name}.py": RETRY_TWICE},
                     f"{name} twice")
    return pull.baseRefOid, pull.headRefOid, pull.number


@needs_gh
async def test_pull_request_through_gh(
    base_repo: Repo, github: FakeGitHub, github_env: dict[str, str], tmp_path: Path
) -> None:
    base, head, number = pull_request(base_repo, github, "acme/widgets", "retry")
    # Another repository with a pull request of the same number, changing another file.
    other_base, other_head, other_number = pull_request(
        Repo(tmp_path / "other"), github, "other/repo", "again"
    )
    assert number == other_number and (base, head) != (other_base, other_head)

    review = await load(base_repo.path, PullRequestTarget(number))
    assert paths(review) == {"lib/retry.py": "modified"}
    assert added_text(review, "lib/retry.py") == ["    call()"]
    assert (review.base, review.head) == (base, head)

    # Each of gh's three reads asked the named repository: its base, head and diff.
    other = await load(base_repo.path, PullRequestTarget(number, repository="other/repo"))
    assert paths(other) == {"lib/again.py": "modified"}
    assert (other.base, other.head) == (other_base, other_head)
    assert f"GET /repos/other/repo/pulls/{number}" in [name for name, _ in github.api.calls]
    assert other.id != review.id


@needs_gh
async def test_pull_request_outside_a_repository_needs_its_repository(
    tmp_path: Path, github: FakeGitHub, github_env: dict[str, str]
) -> None:
    base, head, number = pull_request(Repo(tmp_path / "widgets"), github, "acme/widgets", "retry")
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    review = await load(elsewhere, PullRequestTarget(number, repository="acme/widgets"))
    assert paths(review) == {"lib/retry.py": "modified"}
    assert (review.base, review.head) == (base, head)
    with pytest.raises(ReviewLoadError, match="not a git repository; name the pull request"):
        await load(elsewhere, PullRequestTarget(number))


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        (CommitTarget("0123456789abcdef"), "unknown commit '0123456789abcdef'"),
        (CommitTarget("--output=/tmp/x"), "is not a revision"),
        (RangeTarget("HEAD", "nope"), "unknown head 'nope'"),
        (BranchTarget(base="no-such-branch"), "unknown base branch 'no-such-branch'"),
        (PullRequestTarget(1, repository="--repo=evil/x"), "is not owner/name"),
        (PullRequestTarget(1, repository="acme/../other"), "is not owner/name"),
        (PullRequestTarget(1, repository="ghe.test/acme/widgets"), "is not owner/name"),
        (PullRequestTarget(1, repository="äcme/widgets"), "is not owner/name"),
    ],
)
async def test_bad_targets_say_why(base_repo: Repo, target: Target, reason: str) -> None:
    with pytest.raises(ReviewLoadError, match=reason):
        await load(base_repo.path, target)


async def test_not_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(ReviewLoadError, match="is not a git repository"):
        await load(plain, WorkingTreeTarget())
    with pytest.raises(ReviewLoadError, match="is not a directory"):
        await load(tmp_path / "missing", WorkingTreeTarget())


@needs_gh
async def test_pull_request_without_gh_or_unknown(
    base_repo: Repo,
    github: FakeGitHub,
    github_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, _, number = pull_request(base_repo, github, "acme/widgets", "retry")
    assert 99 not in github.world.repos["acme/widgets"].pulls
    with pytest.raises(ReviewLoadError, match="Could not resolve to a PullRequest"):
        await load(base_repo.path, PullRequestTarget(99))
    only_git = tmp_path / "only-git"
    only_git.mkdir()
    git = shutil.which("git")
    assert git is not None
    (only_git / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(only_git))
    # The GitHub layer's words (Guided Review runs gh through luxe.github.gh.run).
    with pytest.raises(ReviewLoadError,
                       match=r"^gh \(the GitHub CLI\) is not installed or not on PATH$"):
        await load(base_repo.path, PullRequestTarget(number))


async def test_branch_without_a_default_branch(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("a.txt", "a\n")
    repo.commit("only")
    with pytest.raises(ReviewLoadError, match="cannot tell the default branch"):
        await load(repo.path, BranchTarget())


async def test_user_settings_cannot_change_what_is_read(
    base_repo: Repo, private_home: Path
) -> None:
    base_repo.write("src/app.py", "def main():\n    return 2\n")
    base_repo.git("mv", "docs/old.md", "docs/new.md")
    plain = await load(base_repo.path, WorkingTreeTarget())
    (private_home / ".gitconfig").write_text(
        "[core]\n\tpager = false\n[color]\n\tui = always\n\tdiff = always\n"
        "[diff]\n\texternal = false\n\tnoprefix = true\n\tmnemonicPrefix = true\n"
        "\trenames = false\n\tcontext = 9\n\trelative = true\n"
    )
    (base_repo.path / ".gitattributes").write_text("*.py diff=weird\n")
    base_repo.git("config", "diff.weird.textconv", "false")
    base_repo.git("add", ".gitattributes")
    hostile = await load(base_repo.path / "src", WorkingTreeTarget())
    assert [f for f in hostile.files if f.path != ".gitattributes"] == list(plain.files)
    assert [h for h in hostile.hunks if h.file_id in {f.id for f in plain.files}] == list(
        plain.hunks
    )


async def test_binary_files_are_marked(base_repo: Repo) -> None:
    base_repo.write("img/logo.png", bytes(range(256)))
    review = await load(base_repo.path, WorkingTreeTarget())
    (logo,) = review.files
    assert logo.binary and logo.status == "added"
    (hunk,) = review.hunks
    assert hunk.file_id == logo.id and hunk.lines == () and hunk.header == "Binary file added"


async def test_ids_are_stable_and_the_revision_follows_the_diff(base_repo: Repo) -> None:
    lines = [f"line {n}\n" for n in range(1, 40)]
    base_repo.write("long.txt", "".join(lines))
    base_repo.commit("long")
    changed = list(lines)
    changed[30] = "line thirty-one, changed\n"
    base_repo.write("long.txt", "".join(changed))
    first = await load(base_repo.path, WorkingTreeTarget())
    again = await load(base_repo.path, WorkingTreeTarget())
    assert again == first  # same content, same ids, same revision

    # An edit above the hunk shifts it: the hunk keeps its id, the revision moves.
    changed[2] = "line three, changed\n"
    base_repo.write("long.txt", "".join(changed))
    shifted = await load(base_repo.path, WorkingTreeTarget())
    assert shifted.id == first.id
    assert shifted.revision_id != first.revision_id
    assert first.hunks[0].id in {h.id for h in shifted.hunks}
    assert [f.id for f in shifted.files] == [f.id for f in first.files]

    # Back to the first content: back to the first revision.
    changed[2] = lines[2]
    base_repo.write("long.txt", "".join(changed))
    assert (await load(base_repo.path, WorkingTreeTarget())).revision_id == first.revision_id


async def test_an_empty_diff_loads_with_no_files(base_repo: Repo) -> None:
    review = await load(base_repo.path, WorkingTreeTarget())
    assert review.files == () and review.hunks == () and review.chapters == ()
