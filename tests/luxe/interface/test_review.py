"""Guided Review in the interface: /review loads the working tree's changes,
shows chapters with their hunks, a question goes to the agent and its
answer comes back on the thread, a fix is asked for and reported."""

from __future__ import annotations

from pathlib import Path

from tests.luxe.interface.conftest import StartUi


def test_review_chapters_question_and_fix(ui: StartUi, repo: Path) -> None:
    (repo / "README.md").write_text("# demo\nA demo project.\nA new line to review.\n")
    session = ui([
        {"text": "not chapters"},  # the chapter request: invalid, so chapters by directory
        {"text": "Because the demo needed it."},  # the question's answer
        {"text": "Fixed: reworded the line."},  # the fix's report
    ], "--yolo", height=40)
    session.type("/review")
    session.send_keys("Enter")
    screen = session.wait_for("Guided Review: 1 file, 1 chapter")
    session.wait_for("+A new line to review.")
    assert "README.md" in screen or "README.md" in session.text()
    session.type("/review ask why this line?")
    session.send_keys("Enter")
    session.wait_for("#1 agent: Because the demo needed it.")
    session.type("/review fix #1 please reword")
    session.send_keys("Enter")
    session.wait_for("#1 fix done")
    session.type("/review threads")
    session.send_keys("Enter")
    session.wait_for("#1 agent: Fixed: reworded the line.")
