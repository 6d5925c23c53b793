"""A prompt that borrows the editor (a reject's note, a question's own
answer) sets the person's draft aside and gives it back when it is answered:
the draft is neither lost nor sent as the answer."""

from __future__ import annotations

from pathlib import Path

from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi


def _tool_results(env: dict[str, str]) -> str:
    sessions = Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions"
    return "\n".join(p.read_text() for p in sessions.rglob("*.jsonl"))


def test_a_reject_note_keeps_the_draft_being_typed(ui: StartUi, env: dict[str, str]) -> None:
    bash = {"delay_s": 1, "tool_calls": [{"name": "bash", "args": {"command": "echo one"}}]}
    session = ui([bash, {"text": "noted"}])
    session.type("go")
    session.send_keys("Enter")
    session.type("my careful draft")
    session.wait_for("y once")
    session.send_keys("n")
    session.wait_for("rejecting: type what the agent should do instead")
    session.wait_editor("›")  # the note starts empty
    session.type("not that")
    session.send_keys("Enter")
    session.wait_for("noted")
    wait_until(lambda: "not that" in _tool_results(env))
    assert "my careful draft" not in _tool_results(env)
    session.wait_editor("› my careful draft")


def test_a_question_answered_in_free_text_keeps_the_draft(ui: StartUi, env: dict[str, str]) -> None:
    ask = {"delay_s": 1, "tool_calls": [{"name": "question", "args": {
        "question": "Which colour?", "options": ["red", "green"]}}]}
    session = ui([ask, {"text": "answered"}])
    session.type("go")
    session.send_keys("Enter")
    session.type("second draft")
    session.wait_for("1. red")
    session.type("blue")
    session.wait_editor("› blue")
    session.send_keys("Enter")
    session.wait_for("answered")
    assert "→ blue" in session.text(), session.text()
    wait_until(lambda: "the user answered: blue" in _tool_results(env))
    assert "second draft" not in _tool_results(env)
    session.wait_editor("› second draft")
