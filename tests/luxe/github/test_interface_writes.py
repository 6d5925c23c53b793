"""GitHub writes from the real interface (tmux) through the real gh against
the fake GitHub: a pull request opened through its preview, the title
edited, then `y`; a declined preview writes nothing; a comment, a reply and
a resolve on a numbered thread; edit, draft and ready; a merge asked for and
confirmed; a restack planned then pushed; a Guided Review posted as one
GitHub review; every write refused, in one line, without --github-writes,
in read-only or without gh; a failing gh and a cut connection, each one
line, and a failed open confirmed again; and --plain's confirmation."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.fakes.github.api import Failure
from tests.fakes.github.model import Comment, PullRequest, Thread
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi, ui  # noqa: F401 -- the fixture
from tests.luxe.interface.tmux import LuxeTmux

pytestmark = needs_gh

DRAFT = {"text": "Retry a failed call twice\n\nA flaky network gets one more try."}


def _run(session: LuxeTmux, command: str) -> None:
    session.type(command)
    session.send_keys("Enter")


def _creates(github: FakeGitHub) -> list[Any]:
    return github.api.calls_named("PullRequestCreate")


def _writes(github: FakeGitHub) -> list[str]:
    """Every call that publishes (REST writes and GraphQL mutations)."""
    return [name for name, _ in github.api.calls
            if name.startswith(("POST", "PATCH", "PUT", "DELETE"))
            or name.endswith(("Create", "Merge", "Update", "Comment", "Reply", "Resolve", "Review"))]


def _count(session: LuxeTmux, line: str) -> int:
    return sum(line in row for row in session.history())


def _pull_with_a_thread(github: FakeGitHub, checkout: Checkout) -> tuple[PullRequest, Thread]:
    """fix-retry's pull request (#1) with one open review thread on src/retry.py:2."""
    pull = open_fix_retry(github, checkout)
    thread = Thread("src/retry.py", 2, [Comment("Why 2?")])
    pull.threads.append(thread)
    return pull, thread


def test_open_a_pull_request_through_its_preview_with_an_edited_title(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    checkout.fix_retry(push=False)
    session = ui([DRAFT], "--github-writes")
    session.type("/pr op")
    session.wait_for("/pr open  [draft] [base BRANCH]: preview a pull request")
    session.send_keys("Enter")  # completes to `/pr open` and runs it
    screen = session.wait_for("e edit the title")
    assert "◆ open pull request: Retry a failed call twice  main ← fix-retry" in screen
    shown = "\n".join(session.history())
    for expected in ("Pull request preview (drafted by the model)", "title  Retry a failed call twice",
                     "base   main ← fix-retry", "A flaky network gets one more try.",
                     "commits (1)", "retry twice"):
        assert expected in shown, expected
    assert github.world.repos["o/r"].pulls == {} and _creates(github) == []
    assert checkout.remote_sha("fix-retry") is None  # nothing pushed yet

    session.send_keys("e")
    session.wait_editor("› Retry a failed call twice")
    session.send_keys("C-u")
    session.type("Retry twice, not forever")
    session.send_keys("Enter")
    session.wait_for("◆ open pull request: Retry twice, not forever")
    assert _creates(github) == []
    session.send_keys("y")
    session.wait_for("opened #1 fix-retry  https://ghe.test/o/r/pull/1")
    (created,) = _creates(github)
    assert created["input"]["title"] == "Retry twice, not forever"
    pull = github.world.repos["o/r"].pulls[1]
    assert (pull.title, pull.body, pull.baseRefName, pull.headRefName) == (
        "Retry twice, not forever", "A flaky network gets one more try.", "main", "fix-retry")
    assert checkout.remote_sha("fix-retry") == checkout.git("rev-parse", "fix-retry")
    # The dock follows the new pull request.
    wait_until(lambda: "PR #1 open" in session.status_line())
    assert "e edit the title" not in session.text()


def test_a_declined_preview_writes_nothing(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    checkout.fix_retry(push=False)
    session = ui([DRAFT], "--github-writes")
    _run(session, "/pr open")
    session.wait_for("e edit the title")
    session.send_keys("n")
    session.wait_for("not opened: nothing was pushed or published")
    wait_until(lambda: "e edit the title" not in session.text())
    # The prompt is gone: keys go to the editor again.
    session.type("yes")
    session.wait_editor("› yes")
    assert github.world.repos["o/r"].pulls == {} and _creates(github) == [] and _writes(github) == []
    assert checkout.remote_sha("fix-retry") is None


def test_comment_reply_and_resolve(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    pull, thread = _pull_with_a_thread(github, checkout)
    session = ui([], "--github-writes")
    _run(session, "/pr comment Thanks,  merging soon.")
    session.wait_for(f"commented https://ghe.test/o/r/pull/{pull.number}#issuecomment-")
    assert [c.body for c in pull.issue_comments] == ["Thanks,  merging soon."]

    _run(session, "/pr reply 1 too early")
    session.wait_for("no thread 1: /pr lists the pull request's threads")
    _run(session, "/pr")
    session.wait_for("thread 1 src/retry.py:2 (open)")
    _run(session, "/pr reply 1 Two is what the API allows.")
    session.wait_for("thread 1 replied")
    assert thread.comments[-1].body == "Two is what the API allows."
    _run(session, "/pr resolve 1")
    session.wait_for("thread 1 resolved")
    assert thread.isResolved


def test_a_merge_names_the_method_and_number_and_waits_for_y(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    pull = open_fix_retry(github, checkout)
    session = ui([], "--github-writes")
    _run(session, "/pr merge")
    screen = session.wait_for("y merge #1 (merge)")
    assert "◆ merge #1 Retry twice  main ← fix-retry" in screen and "with merge" in screen
    session.send_keys("Escape")
    session.wait_for("not merged: #1 is unchanged")
    assert pull.state == "OPEN"

    _run(session, "/pr merge #1 squash")
    session.wait_for("y merge #1 (squash)")
    assert pull.state == "OPEN" and github.api.calls_named("PullRequestMerge") == []
    session.send_keys("y")
    session.wait_for("merged #1 (squash)")
    assert pull.state == "MERGED" and pull.merge_method == "SQUASH"
    assert len(github.api.calls_named("PullRequestMerge")) == 1

    _run(session, "/pr merge #1")
    session.wait_for("#1 is merged: nothing to merge")


def test_every_write_is_refused_in_one_line_without_the_flag(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    pull, thread = _pull_with_a_thread(github, checkout)
    session = ui([DRAFT])
    _run(session, "/pr")
    session.wait_for("thread 1 src/retry.py:2 (open)")  # reading needs no flag
    for command, kind in [
        ("/pr open", "preview_pull_request"),
        ("/pr comment hello", "post_comment"),
        ("/pr reply 1 hello", "reply_review_thread"),
        ("/pr resolve 1", "resolve_review_thread"),
        ("/pr edit #1 title New", "update_pull_request"),
        ("/pr ready #1", "update_pull_request"),
        ("/pr merge #1 squash", "merge_pull_request"),
        ("/pr restack", "plan_restack"),
    ]:
        line = f"⚠ {kind}: publishing to GitHub needs --github-writes"
        before = _count(session, line)
        _run(session, command)
        wait_until(lambda line=line, before=before: _count(session, line) == before + 1,
                   what=f"{command} refused")
    assert "◆" not in session.text()  # nothing asked
    assert _writes(github) == [] and pull.state == "OPEN" and pull.issue_comments == []
    assert (pull.title, pull.isDraft, len(thread.comments), thread.isResolved) == (
        "Retry twice", False, 1, False)
    assert list(github.world.repos["o/r"].pulls) == [pull.number]


def test_read_only_wins_over_the_flag(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    pull = open_fix_retry(github, checkout)
    session = ui([], "--github-writes", "--read-only")
    _run(session, "/pr merge")
    session.wait_for("⚠ merge_pull_request: refused in read-only mode (read-only wins over")
    _run(session, "/pr comment hello")
    session.wait_for("⚠ post_comment: refused in read-only mode")
    assert "◆" not in session.text() and _writes(github) == [] and pull.issue_comments == []


def test_plain_mode_confirms_with_lines(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    checkout.fix_retry(push=False)
    session = ui([DRAFT], "--github-writes", "--plain", wait="luxe: ready in")
    _run(session, "/pr open")
    session.wait_for("Type y to open, e and a new title to change the title, n to cancel")
    shown = "\n".join(session.history())
    assert "Confirm: open pull request: Retry a failed call twice  main ← fix-retry" in shown
    assert "title  Retry a failed call twice" in shown and "\x1b" not in shown
    _run(session, "e Retry twice")
    session.wait_for("Confirm: open pull request: Retry twice  main ← fix-retry")
    assert _creates(github) == []
    _run(session, "y")
    session.wait_for("opened #1 fix-retry  https://ghe.test/o/r/pull/1")
    assert len(_creates(github)) == 1 and github.world.repos["o/r"].pulls[1].title == "Retry twice"


def test_restack_shows_the_plan_then_pushes_it_on_y(
    ui: StartUi, github: FakeGitHub, checkout: Checkout, stack: dict[str, str]  # noqa: F811
) -> None:
    repo = github.world.repos["o/r"]
    session = ui([], "--github-writes")
    _run(session, "/pr restack")
    screen = session.wait_for("y restack   n cancel")
    assert "◆ restack 2 branches: part-2, part-3" in screen
    shown = "\n".join(session.history())
    assert "rebase part-2 from part-1 onto main" in shown and "retarget #2 part-1 → main" in shown
    assert repo.sha("part-2") == stack["part-2"] and repo.pulls[2].baseRefName == "part-1"
    session.send_keys("y")
    session.wait_for("restacked: the branches are pushed")
    assert repo.pulls[2].baseRefName == "main"
    assert checkout.git("--git-dir", str(repo.path), "log", "--format=%s", "main..part-2") == "add 2"
    assert checkout.git("rev-parse", "HEAD") == repo.sha("part-3")


def test_review_post_previews_the_verdict_and_comments_then_posts_one_review(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    pull = open_fix_retry(github, checkout)
    session = ui([{"error": "no chapters from the model"}], "--github-writes")
    _run(session, "/review branch main")
    session.wait_for("/review next · ask TEXT")
    _run(session, "/review comment Say why it is two.")
    session.wait_for("#1 reviewer: Say why it is two.")
    _run(session, "/review changes Please explain the retry count.")
    session.wait_for("verdict: request_changes Please explain the retry count.")  # saved
    _run(session, "/review post")
    screen = session.wait_for("y post   n cancel")
    assert f"◆ post a review on #{pull.number}: request_changes, 0 comments, 1 folded into the body" in screen
    assert "verdict  request_changes" in "\n".join(session.history())
    assert pull.reviews == []
    session.send_keys("y")
    session.wait_for(f"posted the review https://ghe.test/o/r/pull/{pull.number}#pullrequestreview-")
    (one,) = pull.reviews
    assert one.event == "REQUEST_CHANGES" and "Say why it is two." in one.body


def test_a_failing_gh_is_one_line_and_an_open_can_be_confirmed_again(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    checkout.fix_retry(push=False)
    github.api.failures.append(Failure("PullRequestCreate", 422, "Validation Failed"))
    session = ui([{"error": "no model"}], "--github-writes")
    _run(session, "/pr open")
    session.wait_for("Pull request preview (from the commit messages)")
    session.send_keys("y")
    session.wait_for("GitHub: opening the pull request for fix-retry:")
    screen = session.wait_for("y tries again from where it stopped")
    assert "Validation Failed" in screen and github.world.repos["o/r"].pulls == {}
    session.send_keys("y")
    session.wait_for("opened #1 fix-retry")
    assert len(github.world.repos["o/r"].pulls) == 1

    # The network gone mid-merge: one line, and the pull request stays open.
    github.api.failures.append(Failure("PullRequestMerge", 0))
    _run(session, "/pr merge")
    session.wait_for("y merge #1 (merge)")
    session.send_keys("y")
    session.wait_for(lambda text: "GitHub: " in text.split("opened #1", 1)[-1])
    assert github.world.repos["o/r"].pulls[1].state == "OPEN"
    assert "◆" not in session.text()


def test_without_gh_a_write_says_so_in_one_line(
    ui: StartUi, github: FakeGitHub, checkout: Checkout, tmp_path: Path  # noqa: F811
) -> None:
    checkout.fix_retry(push=False)
    bin_dir = tmp_path / "bin-without-gh"
    bin_dir.mkdir()
    for tool in ("git", "sh", "stty", "sleep", "tmux"):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    session = ui([DRAFT], "--github-writes", env_extra={"PATH": str(bin_dir)})
    _run(session, "/pr comment hello")
    said = "GitHub: gh (the GitHub CLI) is not installed or not on PATH"
    session.wait_for(said)
    _run(session, "/pr open")
    wait_until(lambda: _count(session, said) == 2)
    assert "◆" not in session.text() and _writes(github) == []
    assert checkout.remote_sha("fix-retry") is None


def test_edit_ready_and_draft_change_the_branchs_pull_request(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    session = ui([], "--github-writes")
    _run(session, "/pr draft")
    session.wait_for("no pull request for this branch: name one, /pr draft #N")
    pull = open_fix_retry(github, checkout)
    checkout.git("push", "-q", "origin", "main:release")
    _run(session, "/github")  # the dock learns the branch's pull request
    wait_until(lambda: "PR #1 open" in session.status_line())
    _run(session, "/pr edit title Retry 2x, not forever")
    session.wait_for("updated #1")
    _run(session, "/pr edit base release")
    wait_until(lambda: _count(session, "updated #1") == 2)
    _run(session, "/pr draft")
    wait_until(lambda: _count(session, "updated #1") == 3)
    assert (pull.title, pull.baseRefName, pull.isDraft) == ("Retry 2x, not forever", "release", True)
    _run(session, "/pr ready #1")
    wait_until(lambda: _count(session, "updated #1") == 4)
    assert pull.isDraft is False
    _run(session, "/pr edit colour blue")
    session.wait_for("usage: /pr edit [#N] title|body|base TEXT")
    _run(session, "/pr edit base nowhere")
    session.wait_for("GitHub: ")
    assert pull.baseRefName == "release"


def test_a_stack_previews_each_pull_request_and_opens_them_bottom_up(
    ui: StartUi, github: FakeGitHub, checkout: Checkout  # noqa: F811
) -> None:
    checkout.branch("part-1", {"one.txt": "1\n"}, "add one", push=False)
    checkout.branch("part-2", {"two.txt": "2\n"}, "add two", push=False)
    session = ui([{"error": "model unavailable"}] * 2, "--github-writes")
    _run(session, "/pr open")
    screen = session.wait_for("pushes each branch and opens these 2 pull requests, bottom-up")
    assert "◆ open pull request: add two  part-1 ← part-2" in screen
    assert "opens first: main ← part-1: add one" in "\n".join(session.history())
    assert _creates(github) == []
    session.send_keys("y")
    session.wait_for("opened #2 part-2  https://ghe.test/o/r/pull/2")
    assert "opened #1 part-1  https://ghe.test/o/r/pull/1" in session.text()
    pulls = github.world.repos["o/r"].pulls
    assert [(p.headRefName, p.baseRefName) for p in pulls.values()] == [("part-1", "main"), ("part-2", "part-1")]
