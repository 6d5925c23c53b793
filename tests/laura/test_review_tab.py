"""The review loop on a real Tab (no terminal): a failed write and its retry,
gating, and what the agent's requests do to threads.

The PTY write is the one seam replaced here: `ReviewUI` takes the function
that hands bytes to the shell, so a write that fails can be produced on
demand (a real PTY only refuses once its child is gone, and then the tab is
gone too).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from laura.commands import answer, apply
from laura.keys import Key
from laura.protocol import Close, Comment, Error, Ok, Open, Opened, Ready, Rect
from laura.review.prompt import NOT_READY, SUBMIT_FAILED
from laura.review_ui import ReviewUI, shell_writer
from laura.tab import Tab

from .keyhost import press


@pytest.fixture
def tab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tab:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "f.txt").write_text("alpha\nbeta\n")
    made = Tab(0, "laura-test-0", str(tmp_path), "laura-1-0")
    made.area = Rect(0, 1, 120, 38)
    assert isinstance(apply(made, Open(path="f.txt")), Opened)
    return made


class Writer:
    """Hands bytes to a list, or refuses while `working` is False."""

    def __init__(self) -> None:
        self.working = False
        self.received: list[bytes] = []

    def __call__(self, tab: Tab) -> Callable[[bytes], bool]:
        def write(data: bytes) -> bool:
            if self.working:
                self.received.append(data)
            return self.working

        return write


def type_text(ui: ReviewUI, text: str, toasts: list[str]) -> None:
    for char in text:
        ui.key(Key(char), toasts.append)


def test_a_failed_submission_keeps_everything_and_enter_retries(tab: Tab, tmp_path: Path) -> None:
    apply(tab, Ready(session="s1"))
    file_pane = tab.panes[1]
    writer = Writer()
    ui = ReviewUI(writer)
    toasts: list[str] = []

    press(ui, tab, file_pane, Key("c"), toasts.append)
    type_text(ui, "hm", toasts)
    ui.key(Key("enter"), toasts.append)
    assert file_pane.review.book.count == 1
    press(ui, tab, file_pane, Key("S"), toasts.append)
    type_text(ui, "body", toasts)
    ui.key(Key("enter"), toasts.append)

    assert toasts == [SUBMIT_FAILED]
    assert ui.hint(tab, 120) == "  " + SUBMIT_FAILED
    assert file_pane.review.book.count == 1
    assert file_pane.review.failed_body == "body"
    assert tab.focus == 1
    failed = json.loads((tmp_path / "state/laura/sessions/s1.ndjson").read_text().splitlines()[-1])
    assert failed["type"] == "review"
    assert (failed["threads"], failed["comments"]) == (1, 1)
    assert "error" in failed

    writer.working = True
    ui.key(Key("enter"), toasts.append)
    path = str(tmp_path / "f.txt")
    assert writer.received == [
        f"\x1b[200~[laura review · {path}]\n\nbody\n\nL1  alpha\n      > hm\n\x1b[201~\r".encode()
    ]
    assert ui.draft is None
    assert file_pane.review.book.is_empty
    assert tab.focus == 0
    done = json.loads((tmp_path / "state/laura/sessions/s1.ndjson").read_text().splitlines()[-1])
    assert (done["type"], done["body"], "error" in done) == ("review", "body", False)


def test_esc_after_a_failure_keeps_the_threads_and_s_offers_the_body_again(tab: Tab) -> None:
    apply(tab, Ready())
    file_pane = tab.panes[1]
    ui = ReviewUI(Writer())
    toasts: list[str] = []
    apply(tab, Comment(line=2, body="agent note", pane=1))
    press(ui, tab, file_pane, Key("S"), toasts.append)
    type_text(ui, "first try", toasts)
    ui.key(Key("enter"), toasts.append)
    ui.key(Key("escape"), toasts.append)
    assert ui.draft is None
    assert file_pane.review.book.count == 1
    press(ui, tab, file_pane, Key("S"), toasts.append)
    assert ui.draft is not None
    assert ui.draft.editor.text == "first try"


def test_before_ready_c_and_s_only_say_why(tab: Tab) -> None:
    file_pane = tab.panes[1]
    writer = Writer()
    writer.working = True
    ui = ReviewUI(writer)
    toasts: list[str] = []
    apply(tab, Comment(line=1, body="shown even before ready", pane=1))
    for key in (Key("c"), Key("S")):
        press(ui, tab, file_pane, key, toasts.append)
        assert not ui.active
    assert toasts == [NOT_READY, NOT_READY]
    assert writer.received == []
    assert str(ui.hint(tab, 120)).endswith(NOT_READY)


def test_without_a_live_shell_the_write_fails(tab: Tab) -> None:
    assert shell_writer(tab)(b"x") is False


def test_agent_comments_validate_against_the_file(tab: Tab) -> None:
    assert apply(tab, Comment(line=3, body="x", pane=1)) == Error(
        "line 3 is past the file's 2 lines"
    )
    assert apply(tab, Comment(line=2, body=" ", pane=1)) == Error("comment needs a body")
    assert apply(tab, Comment(line=2, body="ok", pane=1, author="bot")) == Ok()
    apply(tab, Ready(agent="claude"))
    assert apply(tab, Comment(line=2, body="more", pane=1)) == Ok()
    [thread] = tab.panes[1].review.book.threads()
    assert [(n.agent, n.body) for n in thread.notes] == [("bot", "ok"), ("claude", "more")]


def test_a_new_card_above_the_cursor_does_not_move_it_off_its_line(tab: Tab) -> None:
    file_pane = tab.panes[1]
    area = tab.pane_inner(file_pane)
    file_pane.move_cursor(1, area)
    assert file_pane.anchor_at(file_pane.cursor, area.width) == (2, 2)
    apply(tab, Comment(line=1, body="a card of three rows above", pane=1))
    file_pane.rows(area.width)
    assert file_pane.anchor_at(file_pane.cursor, area.width) == (2, 2)
    assert file_pane.rows(area.width)[file_pane.cursor].source == (2, 2)


def test_the_journal_records_what_the_agent_did(tab: Tab, tmp_path: Path) -> None:
    ready = apply(tab, Ready(session="j1"))
    journal = tmp_path / "state" / "laura" / "sessions" / "j1.ndjson"
    assert getattr(ready, "journal", None) == str(journal)
    apply(tab, Open(path="f.txt", focus=False))
    apply(tab, Open(path="f.txt", highlight=(2, 2), focus=False))
    assert apply(tab, Comment(line=5, body="x", pane=1)) == Error(
        "line 5 is past the file's 2 lines"
    )
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [e["type"] for e in events] == ["ready", "open", "open", "highlight"]
    assert (events[3]["pane"], events[3]["start"], events[3]["end"]) == (3, 2, 2)


def test_a_paste_lands_in_the_prompt_and_s_without_threads_says_so(tab: Tab) -> None:
    apply(tab, Ready())
    file_pane = tab.panes[1]
    ui = ReviewUI(Writer())
    toasts: list[str] = []
    press(ui, tab, file_pane, Key("S"), toasts.append)
    assert not ui.active
    assert toasts == ["no comments to submit: press c on a line first"]
    press(ui, tab, file_pane, Key("c"), toasts.append)
    ui.paste("two\r\nlines")
    ui.key(Key("enter"), toasts.append)
    [thread] = file_pane.review.book.threads()
    assert thread.notes[0].body == "two\nlines"


def test_escape_cancels_a_comment_and_changes_nothing(tab: Tab) -> None:
    apply(tab, Ready())
    file_pane = tab.panes[1]
    ui = ReviewUI(Writer())
    press(ui, tab, file_pane, Key("c"), [].append)
    type_text(ui, "never mind", [])
    ui.key(Key("escape"), [].append)
    assert not ui.active
    assert file_pane.review.book.is_empty


def test_open_before_ready_warns_in_the_specs_words(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    tab = Tab(0, "laura-test-0", str(tmp_path), "laura-1-0")
    tab.area = Rect(0, 1, 120, 38)
    opened = apply(tab, Open(path="a.txt"))
    assert isinstance(opened, Opened)
    assert opened.warnings[0] == "panel shown, but run `laura ready` to enable review submission"
    apply(tab, Ready())
    again = apply(tab, Open(path="a.txt", focus=False))
    assert isinstance(again, Opened)
    assert not any("laura ready" in warning for warning in again.warnings)


def test_a_prompt_whose_pane_was_closed_lets_go_of_the_keyboard(tab: Tab) -> None:
    apply(tab, Ready())
    file_pane = tab.panes[1]
    ui = ReviewUI(Writer())
    press(ui, tab, file_pane, Key("c"), [].append)
    assert ui.active
    assert apply(tab, Close(pane=1)) == Ok()  # no threads yet: the agent may close it
    assert not ui.active


def test_a_comment_prompt_holds_its_pane_until_it_closes(tab: Tab, tmp_path: Path) -> None:
    """Draft hold: a change on disk does not reload the pane under an open
    comment prompt (the comment would land on what is now at that line
    number); once the prompt closes the normal rules apply."""
    apply(tab, Ready())
    file_pane = tab.panes[1]
    area = tab.pane_inner(file_pane)
    ui = ReviewUI(Writer())
    toasts: list[str] = []
    f = tmp_path / "f.txt"

    # Esc with no threads: the held change reloads once the prompt is gone.
    file_pane.move_cursor(1, area)
    press(ui, tab, file_pane, Key("c"), toasts.append)
    f.write_text("new\nalpha\nbeta\n")
    assert tab.poll_files() is False
    assert b'"content_rows":2,' in answer(tab, b'{"type":"layout"}\n')  # a request polls too
    assert file_pane.source_lines() == ["alpha", "beta"]
    ui.key(Key("escape"), toasts.append)
    assert tab.poll_files() is True
    assert file_pane.source_lines() == ["new", "alpha", "beta"]
    assert not file_pane.review.frozen

    # Enter adds a thread: the change held under the prompt freezes the pane.
    file_pane.move_cursor(1, area)
    assert file_pane.anchor_at(file_pane.cursor, area.width) == (3, 3)  # on beta
    press(ui, tab, file_pane, Key("c"), toasts.append)
    type_text(ui, "on beta", toasts)
    f.write_text("beta moved\n")
    assert tab.poll_files() is False
    ui.key(Key("enter"), toasts.append)
    assert tab.poll_files() is True
    assert file_pane.review.frozen
    [thread] = file_pane.review.book.threads()
    assert (thread.line, file_pane.source_lines()[thread.line - 1]) == (3, "beta")
    assert toasts == []


def test_the_agent_cannot_replace_a_pane_under_a_comment_prompt(tab: Tab, tmp_path: Path) -> None:
    apply(tab, Ready())
    (tmp_path / "other.txt").write_text("other\n")
    file_pane = tab.panes[1]
    ui = ReviewUI(Writer())
    press(ui, tab, file_pane, Key("c"), [].append)
    assert apply(tab, Open(path="other.txt", panel=1)) == Error(
        "pane #1 has a comment being typed by the user — "
        "try again once they have saved or cancelled it"
    )
    assert tab.panes[1] is file_pane
    ui.key(Key("escape"), [].append)
    assert isinstance(apply(tab, Open(path="other.txt", panel=1)), Opened)


def test_the_journal_counts_threads_and_comments_apart(tab: Tab, tmp_path: Path) -> None:
    """Two threads holding three comments are logged as such (the original
    called the thread count `comments`)."""
    apply(tab, Ready(session="counts"))
    file_pane = tab.panes[1]
    writer = Writer()
    writer.working = True
    ui = ReviewUI(writer)
    toasts: list[str] = []
    apply(tab, Comment(line=1, body="agent on alpha", pane=1))
    apply(tab, Comment(line=2, body="agent on beta", pane=1))
    press(ui, tab, file_pane, Key("c"), toasts.append)  # the cursor is on alpha
    type_text(ui, "a reply", toasts)
    ui.key(Key("enter"), toasts.append)
    press(ui, tab, file_pane, Key("S"), toasts.append)
    ui.key(Key("enter"), toasts.append)
    assert len(writer.received) == 1
    journal = tmp_path / "state/laura/sessions/counts.ndjson"
    review = json.loads(journal.read_text().splitlines()[-1])
    assert {k: review[k] for k in ("type", "threads", "comments", "body")} == {
        "type": "review",
        "threads": 2,
        "comments": 3,
        "body": "",
    }
