"""While the agent works: Enter steers, Tab queues (editable, removable),
Esc cancels and gives queued text back, Ctrl+C once and twice."""

from __future__ import annotations

from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.session_files import luxe_sessions, user_texts

SLOW = {"text": "working on it", "stall_s": 30}


def test_enter_steers_the_running_turn(ui: StartUi, env: dict[str, str]) -> None:
    session = ui([{"tool_calls": [{"name": "bash", "args": {"command": "sleep 1"}}]}, {"text": "steered answer"}],
                 "--yolo")
    session.type("start")
    session.send_keys("Enter")
    session.wait_for("working")
    session.type("also check the tests")
    session.send_keys("Enter")
    session.wait_for("↳ steer: also check the tests")
    session.wait_for("steered answer")
    wait_until(lambda: any("also check the tests" in t for t in user_texts(luxe_sessions(env))))


def test_tab_queues_and_a_queued_item_can_be_edited_and_removed(ui: StartUi, env: dict[str, str]) -> None:
    session = ui([{"text": "first", "delay_s": 3}, {"text": "second answer"}])
    session.type("one")
    session.send_keys("Enter")
    session.wait_for("working")
    for text in ("queued alpha", "queued beta", "queued gamma"):
        session.type(text)
        session.send_keys("Tab")
    session.wait_for("queued 3: queued gamma")
    session.send_keys("Up")  # empty draft while working: into the queue (last item)
    session.wait_for("Enter edits")
    session.send_keys("Up", "DC")  # remove "queued beta"
    session.wait_for(lambda s: "queued beta" not in s and "queued 2: queued gamma" in s)
    session.send_keys("Up", "Enter")  # edit "queued alpha"
    session.wait_editor("› queued alpha")
    session.type(" edited")
    session.send_keys("Tab")  # back into its place
    session.wait_for("queued 1: queued alpha edited")
    session.wait_for("second answer", timeout=60)
    wait_until(lambda: "queued alpha edited" in user_texts(luxe_sessions(env)))
    session.wait_for(lambda s: "queued gamma" not in s.split("› queued alpha edited")[0])


def test_esc_cancels_and_puts_queued_text_back(ui: StartUi) -> None:
    session = ui([SLOW])
    session.type("go")
    session.send_keys("Enter")
    session.wait_for("working on it")
    session.type("later please")
    session.send_keys("Tab")
    session.wait_for("queued 1: later please")
    session.send_keys("Escape")
    session.wait_for("cancelled")
    session.wait_editor("› later please")
    assert "working" not in session.status_line()


def test_ctrl_c_cancels_then_clears_then_exits(ui: StartUi) -> None:
    session = ui([SLOW])
    session.type("go")
    session.send_keys("Enter")
    session.wait_for("working on it")
    session.send_keys("C-c")
    session.wait_for("cancelled")
    wait_until(lambda: "working" not in session.status_line())
    session.type("a draft")
    session.send_keys("C-c")
    session.wait_editor("›")
    session.send_keys("C-c")
    session.wait_for("press Ctrl+C again to exit")
    session.send_keys("C-c")
    assert session.wait_exit() == 0
