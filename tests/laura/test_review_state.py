"""A pane's review state: freezing, submission, discarding and refusals."""

from __future__ import annotations

from laura.review.state import PaneReview


def with_comment(line: int = 1, text: str = "x") -> PaneReview:
    review = PaneReview()
    review.book.commit_comment(review.book.begin_comment((line, line)), text)
    return review


def test_a_pane_without_threads_reloads_when_its_file_changes() -> None:
    review = PaneReview()
    assert review.file_changed() is True
    assert review.frozen is False


def test_a_pane_with_threads_freezes_instead_of_reloading() -> None:
    review = with_comment()
    assert review.file_changed() is False
    assert review.frozen is True
    assert review.thaw_due() is False
    assert review.border_label(1, 10) == "[review: 1 ↑0 ↓0] ⚠"


def test_a_frozen_submission_carries_the_banner_then_the_pane_thaws() -> None:
    review = with_comment(2, "look")
    review.file_changed()
    data = review.submission("/r/a.py", "", ["one", "two"])
    assert (
        data
        == (
            "\x1b[200~[laura review · /r/a.py]\n"
            "⚠ file changed on disk since this inline review — line numbers are against the snapshot\n"
            "\nL2  two\n      > look\n\x1b[201~\r"
        ).encode()
    )
    assert review.submitted() == 1
    assert review.thaw_due() is True
    review.thawed()
    assert (review.frozen, review.has_threads, review.border_label(1, 9)) == (False, False, "")


def test_deleting_the_last_comment_of_a_frozen_pane_thaws_it() -> None:
    review = with_comment(3, "x")
    review.file_changed()
    review.book.commit_comment(review.book.begin_comment((3, 3)), "")
    assert review.thaw_due() is True


def test_a_failed_submission_keeps_threads_and_body() -> None:
    review = with_comment()
    review.submission_failed("overall")
    assert review.failed_body == "overall"
    assert review.has_threads
    assert review.submitted() == 1
    assert review.failed_body is None


def test_discard_drops_threads_and_the_freeze() -> None:
    review = with_comment()
    review.file_changed()
    review.submission_failed("b")
    review.discard()
    assert (review.has_threads, review.frozen, review.failed_body) == (False, False, None)


def test_agent_refusals() -> None:
    review = PaneReview()
    assert review.replace_refusal(2) is None
    assert review.highlight_refusal(2, has_range=True) is None
    review = with_comment()
    assert review.replace_refusal(2) == (
        "pane #2 has an unsubmitted inline review — ask the user to submit (Shift+S) "
        "or refresh (Ctrl+R) first"
    )
    assert review.highlight_refusal(2, has_range=True) is None  # not frozen yet
    review.file_changed()
    assert review.highlight_refusal(2, has_range=True) == (
        "pane #2 is frozen — its file changed on disk while it has an unsubmitted inline "
        "review; ask the user to submit (Shift+S) or refresh (Ctrl+R)"
    )
    assert review.highlight_refusal(2, has_range=False) is None  # clearing still works
