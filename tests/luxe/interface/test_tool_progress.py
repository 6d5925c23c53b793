"""A running tool's progress bar (a line redrawn with carriage returns, as
curl, pip and git print them) shows its latest state, as a terminal would;
Ctrl+O still prints every state (nothing a return wrote over is hidden)."""

from __future__ import annotations

from tests.luxe.interface.conftest import StartUi


def test_a_carriage_return_progress_bar_shows_its_latest_state(ui: StartUi) -> None:
    command = ("printf 'fetching\\n'; for p in 10 20 30 40 50 60 70 80 90 99; do "
               "printf '\\rprogress %s%% [%s]' $p $(printf '%*s' $((p / 5)) '' | tr ' ' '#'); done; sleep 60")
    session = ui([{"tool_calls": [{"name": "bash", "args": {"command": command}}]}, {"text": "stopped"}], "--yolo")
    session.type("download it")
    session.send_keys("Enter")
    screen = session.wait_for("│ fetching")
    screen = session.wait_for("│ progress 99% [###################]")
    assert "progress 10%" not in screen and "�" not in screen, screen
    session.send_keys("Escape")
    session.wait_for("cancelled")
    session.send_keys("C-o")
    session.wait_for("  �progress 10% [##]�progress 20%")
