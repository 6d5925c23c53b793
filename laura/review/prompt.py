"""The comment and review-body prompt, and the review's footer texts.

Pure: a small line editor the host feeds keys to, plus every string the
person reads about the review loop, written once here so the tests and the
docs quote the same words.
"""

from __future__ import annotations

import attrs

from laura.review.threads import Anchor, Intent

NOT_READY = "inline review: run `laura ready`"
# The spec's own words (laura-protocol.txt, "Response shapes").
OPEN_WARNING = "panel shown, but run `laura ready` to enable review submission"
SUBMIT_FAILED = "⚠ inline review submission failed — Enter to retry · Esc to cancel"
REVIEW_HINT = "  review body · \\+Enter newline · Enter submit · Esc cancel"
NO_THREADS = "no comments to submit: press c on a line first"
READER_GONE = (
    "⚠ the shell is in the foreground of this tab, not the agent that ran `laura ready`"
    " (it exited or was suspended): nothing was typed — S again once it is back"
)


def comment_hint(anchor: Anchor, intent: Intent) -> str:
    """The footer while a comment is typed: which line, and what Enter does."""
    start, end = anchor
    where = f"L{start}" if start == end else f"L{start}-{end}"
    enter = "Enter save (empty deletes)" if intent is Intent.EDIT else "Enter add"
    return f"  comment {where} · \\+Enter newline · {enter} · Esc cancel"


def frozen_notice(file_name: str, width: int) -> str:
    """The footer of a focused frozen pane, shortened when it cannot fit."""
    full = (
        f"⚠ {file_name} changed on disk — S submit · Ctrl+R refresh (discards the inline review) "
    )
    if len(full) + 3 <= width:
        return full
    return "⚠ S submit · Ctrl+R discards the inline review "


def frozen_refusal(pane: int) -> str:
    """Why an agent's `highlight` with a range is refused on a frozen pane."""
    return (
        f"pane #{pane} is frozen — its file changed on disk while it has an unsubmitted "
        "inline review; ask the user to submit (Shift+S) or refresh (Ctrl+R)"
    )


def unsubmitted_refusal(pane: int) -> str:
    """Why an agent's `close` or `open --panel` is refused on a pane with threads."""
    return (
        f"pane #{pane} has an unsubmitted inline review — ask the user to submit "
        "(Shift+S) or refresh (Ctrl+R) first"
    )


def drafting_refusal(pane: int) -> str:
    """Why an agent's `open --panel` is refused while the person types a
    comment on the pane."""
    return (
        f"pane #{pane} has a comment being typed by the user — "
        "try again once they have saved or cancelled it"
    )


def close_question(count: int) -> str:
    """What the person's `x` asks before discarding threads."""
    noun = "thread" if count == 1 else "threads"
    return f"close and discard {count} unsubmitted {noun}? y to close · any other key keeps it"


@attrs.define
class DraftEditor:
    """The text being typed and the cursor in it (an index into `text`).

    `\\` then Enter becomes a newline; Enter alone commits. No I/O: the host
    maps its keys to these methods and draws `text` over the shell pane."""

    text: str = ""
    cursor: int = -1

    def __attrs_post_init__(self) -> None:
        if not 0 <= self.cursor <= len(self.text):
            self.cursor = len(self.text)

    def insert(self, chars: str) -> None:
        self.text = self.text[: self.cursor] + chars + self.text[self.cursor :]
        self.cursor += len(chars)

    def backspace(self) -> None:
        if self.cursor > 0:
            self.text = self.text[: self.cursor - 1] + self.text[self.cursor :]
            self.cursor -= 1

    def delete(self) -> None:
        self.text = self.text[: self.cursor] + self.text[self.cursor + 1 :]

    def left(self) -> None:
        self.cursor = max(0, self.cursor - 1)

    def right(self) -> None:
        self.cursor = min(len(self.text), self.cursor + 1)

    def home(self) -> None:
        """To the start of the cursor's line."""
        self.cursor = self.text.rfind("\n", 0, self.cursor) + 1

    def end(self) -> None:
        """To the end of the cursor's line."""
        newline = self.text.find("\n", self.cursor)
        self.cursor = len(self.text) if newline < 0 else newline

    def enter(self) -> bool:
        """True when Enter commits; after a `\\` it becomes a newline instead."""
        if self.cursor > 0 and self.text[self.cursor - 1] == "\\":
            self.text = self.text[: self.cursor - 1] + "\n" + self.text[self.cursor :]
            return False
        return True

    def lines(self) -> list[str]:
        return self.text.split("\n")

    def cursor_position(self) -> tuple[int, int]:
        """(line, column in characters) of the cursor."""
        before = self.text[: self.cursor]
        line = before.count("\n")
        return line, len(before) - (before.rfind("\n") + 1)
