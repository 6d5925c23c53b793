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

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


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


def _region_settles(session: LuxeTmux, last: list[str], status: str) -> None:
    """Within a few seconds the screen's last rows are `last` and then one
    status line holding `status` (and a spinner: it is drawn again and
    again), and no row of the region above holds another."""
    def settled() -> bool:
        rows = [row.rstrip() for row in session.rows() if row.strip()]
        n = len(last)
        return (rows[-n - 1:-1] == last and status in rows[-1] and rows[-1][:1] in SPINNER
                and not any("work" in row for row in rows[-n - 1:-1]))

    try:
        wait_until(settled, 10)
    except AssertionError:
        raise AssertionError(f"the region never settled; screen:\n{session.text()}") from None


def test_shrinking_to_10x5_mid_stream_and_back_keeps_the_region_in_place(ui: StartUi) -> None:
    # Clearing the rows a shrunk region left went down past the screen's
    # last row (a move the terminal clamps) and came back up as many rows as
    # asked: the region then sat rows higher than it counted, a stale status
    # line above it and the cursor on the screen's top row, so every later
    # frame was drawn in the wrong place.
    paragraphs = "\n\n".join(f"para P{i:03d} ends here with a few more words." for i in range(12))
    text = paragraphs + "\n\nand a last paragraph still streaming"
    session = ui([{"text": text, "stall_s": 120}], width=80, height=24)
    session.type("go")
    session.send_keys("Enter")
    session.wait_for("and a last paragraph still streaming")
    session.resize(40, 24)
    _region_settles(session, ["and a last paragraph still streaming", "›"], "working")
    session.resize(10, 5)
    # Nine cells: never the last column.
    _region_settles(session, ["still", "streaming", "›"], "workin…")
    session.resize(80, 24)
    # (What the terminal pushed into its history when it shrank is its own:
    # only the region is ours to redraw.)
    _region_settles(session, ["and a last paragraph still streaming", "›"], "Esc cancels")
    session.send_keys("Escape")
    session.wait_for("cancelled")
    wait_until(lambda: "working" not in session.status_line())


def test_a_question_taller_than_the_screen_keeps_it_and_the_choice_in_view(ui: StartUi) -> None:
    # The region cut its oldest rows first: the question itself and the
    # first options went, and the chosen option with them.
    options = [f"option number {n}" for n in range(1, 21)]
    session = ui([_question("Which one?", options), {"text": "took it"}], width=80, height=16)
    session.type("choose")
    session.send_keys("Enter")
    session.wait_for("option number")
    screen = session.wait_for("? Which one?")
    assert "1. option number 1\n" in screen + "\n", screen
    session.send_keys(*["Down"] * 14)
    screen = session.wait_for("15. option number 15")
    assert "? Which one?" in screen, screen
    styled = session.tmux("capture-pane", "-p", "-e")
    assert "\x1b[7m15. option number 15" in styled, styled
    session.send_keys("Enter")
    session.wait_for("took it")
    assert "→ option number 15" in session.text()
