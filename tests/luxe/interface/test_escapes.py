"""Untrusted text reaches the interface's terminal drawn, never obeyed: the
model's tool names and its thinking shown in full (Ctrl+T), each attack in
several spellings, show as `�`; the pane's title stays; the bytes written
hold no control but the interface's own."""

from __future__ import annotations

from pathlib import Path

from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.hostile import SPELLINGS, foreign_controls
from tests.luxe.interface.tmux import LuxeTmux


def _title(session: LuxeTmux) -> str:
    return session.tmux("display", "-p", "#{pane_title}")


def _assert_drawn_not_obeyed(session: LuxeTmux, written: Path, title: str) -> None:
    shown = "\n".join(session.history())
    missing = [seen for seen in SPELLINGS.values() if seen not in shown]
    assert missing == [], f"not shown as �: {missing}; screen:\n{shown}"
    assert _title(session) == title
    assert foreign_controls(written.read_bytes()) == []


def test_tool_names_from_the_model_are_drawn_not_obeyed(ui: StartUi, tmp_path: Path) -> None:
    written = tmp_path / "written"
    calls = [{"name": f"tool{i}-{attack}", "args": {}} for i, attack in enumerate(SPELLINGS)]
    session = ui([{"tool_calls": calls}, {"text": "answered-marker"}], width=120,
                 env_extra={"LUXE_TUI_WRITE_LOG": str(written)})
    title = _title(session)
    session.type("go")
    session.send_keys("Enter")
    session.wait_for("answered-marker")
    wait_until(lambda: "working" not in session.status_line())
    # Each call's line: `✗ NAME  0.0s · unknown tool`.
    shown = "\n".join(session.history())
    for i, seen in enumerate(SPELLINGS.values()):
        assert f"✗ tool{i}-{seen}" in shown, (seen, shown)
    _assert_drawn_not_obeyed(session, written, title)


def test_thinking_shown_in_full_is_drawn_not_obeyed(ui: StartUi, tmp_path: Path) -> None:
    written = tmp_path / "written"
    thought = "\n".join(["thinking-start", *(f"step {attack} done" for attack in SPELLINGS)])
    session = ui([{"thinking": thought, "text": "answered-marker"}], width=120,
                 env_extra={"LUXE_TUI_WRITE_LOG": str(written)})
    title = _title(session)
    session.send_keys("C-t")  # thinking in full from now on
    session.wait_for("thinking shown")
    session.type("think")
    session.send_keys("Enter")
    session.wait_for("answered-marker")
    wait_until(lambda: "working" not in session.status_line())
    _assert_drawn_not_obeyed(session, written, title)
