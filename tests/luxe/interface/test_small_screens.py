"""A narrow or short terminal: every row of the live region fits the
terminal's width (a row that wraps moves the region under its count of rows,
and each redraw then leaves pieces behind), a picker taller than the screen
keeps its question and its chosen option in view, and a terminal shrunk
below the region's height, down to 10x5 and back, leaves one status line
and the editor in place."""

from __future__ import annotations

from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.tmux import LuxeTmux


def _question(question: str, options: list[str]) -> dict[str, object]:
    return {"tool_calls": [{"name": "question", "args": {"question": question, "options": options}}]}


def _redrawn(session: LuxeTmux) -> None:
    """Wait for the spinner to turn twice: the region was drawn again since."""
    for _ in range(2):
        spinner = session.status_line()[:1]
        wait_until(lambda spinner=spinner: session.status_line()[:1] not in ("", spinner))


def test_a_picker_in_a_narrow_terminal_fits_every_row(ui: StartUi) -> None:
    session = ui([_question("Which colour?", ["red", "green", "blue"]), {"text": "blue it is"}],
                 width=40, height=20)
    session.type("choose")
    session.send_keys("Enter")
    session.wait_for("3. blue")
    session.send_keys("Down", "Down")
    _redrawn(session)
    rows = [row.rstrip() for row in session.rows() if row.strip()]
    assert "? Which colour?" in rows, session.text()
    start = rows.index("? Which colour?")
    assert rows[start:start + 6] == [
        "? Which colour?", "  1. red", "  2. green", "  3. blue",
        "  4. Other (type an answer, Enter send…", "  ↑↓ or 1-9 choose · Enter answers · E…",
    ], session.text()
    assert session.text().count("1. red") == 1, session.text()
    session.send_keys("Enter")
    session.wait_for("blue it is")
