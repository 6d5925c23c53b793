"""What the screen and its scrollback hold: a long streamed answer lands in
scrollback once, in order; a resize storm leaves no duplicated or torn rows;
NO_COLOR and --plain; tool output collapses; thinking is dimmed."""

from __future__ import annotations

import re
from pathlib import Path

from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi


def _numbered(n: int) -> str:
    return "\n\n".join(f"para P{i:03d} ends here." for i in range(n))


def test_long_streamed_answer_is_in_scrollback_once_in_order(ui: StartUi) -> None:
    session = ui([{"text": _numbered(120)}], height=20)
    session.type("tell me a long story")
    session.send_keys("Enter")
    session.wait_for("para P119 ends here.")
    wait_until(lambda: "working" not in session.status_line())
    history = session.history()
    found = [m.group() for row in history for m in re.finditer(r"P\d{3}", row)]
    assert found == [f"P{i:03d}" for i in range(120)]
    assert sum("› tell me a long story" in row for row in history) == 1
    assert sum("scripted:" in row for row in history) == 1  # the status line, never left behind


def test_resize_storm_leaves_no_duplicated_or_torn_rows(ui: StartUi) -> None:
    text = _numbered(30) + "\n\nand a last paragraph still streaming"
    session = ui([{"text": text, "stall_s": 60}], width=90, height=24)
    session.type("go")
    session.send_keys("Enter")
    session.wait_for("and a last paragraph still streaming")
    for i in range(20):
        session.resize(60 + (i * 13) % 50, 18 + i % 7)
    session.resize(90, 24)
    session.wait_for("working")
    session.send_keys("Escape")
    session.wait_for("cancelled")
    wait_until(lambda: "working" not in session.status_line())
    history = session.history()
    found = [m.group() for row in history for m in re.finditer(r"P\d{3}", row)]
    assert found == [f"P{i:03d}" for i in range(30)]
    assert sum("scripted:" in row for row in history) == 1
    assert sum(row.rstrip() == "› go" for row in history) == 1
    assert sum("and a last paragraph still streaming" in row for row in history) == 1


def test_no_color_uses_attributes_only(ui: StartUi) -> None:
    session = ui([{"text": "plain **bold** and `code`"}], env_extra={"NO_COLOR": "1"})
    session.type("hi")
    session.send_keys("Enter")
    session.wait_for("plain bold and code")
    styled = session.tmux("capture-pane", "-p", "-e")
    assert "\x1b[1m" in styled  # bold stays
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m|38;5;", styled)  # no colour at all


def test_tool_output_streams_then_collapses_and_ctrl_o_shows_it(ui: StartUi) -> None:
    command = "for i in 1 2 3 4 5 6 7 8; do echo out-line-$i; done; sleep 2; echo out-last"
    session = ui([{"tool_calls": [{"name": "bash", "args": {"command": command}}]}, {"text": "ran"}], "--yolo")
    session.type("run")
    session.send_keys("Enter")
    screen = session.wait_for("│ out-line-8")
    assert "│ out-line-3" not in screen  # capped to the last lines while it runs
    session.wait_for("ran")
    screen = session.text()
    assert "out-line-8" not in screen and "Ctrl+O output" in screen  # collapsed
    session.send_keys("C-o")
    session.wait_for("out-last")
    assert "out-line-1" in session.text()


def test_thinking_is_dimmed_collapsed_and_toggled(ui: StartUi) -> None:
    thought = "first I consider the files\nthen I weigh the options\nand decide"
    session = ui([{"thinking": thought, "text": "the result"}, {"thinking": thought, "text": "again"}])
    session.type("think")
    session.send_keys("Enter")
    session.wait_for("the result")
    screen = session.text()
    assert "∴ first I consider the files" in screen and "Ctrl+T shows thinking" in screen
    assert "then I weigh the options" not in screen
    session.send_keys("C-t")
    session.type("more")
    session.send_keys("Enter")
    session.wait_for("again")
    assert "then I weigh the options" in session.text()


def test_plain_mode_is_labelled_lines_without_escapes(ui: StartUi, repo: Path) -> None:
    bash = {"tool_calls": [{"name": "bash", "args": {"command": "echo plain-run > out.txt"}}]}
    session = ui([{"text": "Hello **there**.\n\nSecond block."}, bash, {"text": "ran it"}], "--plain",
                 wait="Type a prompt")
    session.type("hi")
    session.send_keys("Enter")
    session.wait_for("luxe: done.")
    screen = session.text()
    assert "you: hi" in screen and "luxe: Hello there." in screen and "luxe: Second block." in screen
    session.type("run it")
    session.send_keys("Enter")
    session.wait_for("Permission Required: bash wants to run: echo plain-run > out.txt")
    session.type("y")
    session.send_keys("Enter")
    session.wait_for("luxe: ran it")
    assert (repo / "out.txt").exists()
    styled = session.tmux("capture-pane", "-p", "-e", "-S", "-")
    assert "\x1b" not in styled
    session.send_keys("C-d")
    assert session.wait_exit() == 0


def test_escape_codes_from_tools_and_the_model_are_shown_not_obeyed(ui: StartUi) -> None:
    command = r"printf 'before\033[2J\033]2;pwned\007after\n'; sleep 1"
    answer = "model says \x1b]2;pwned-too\x07 and \x1b[2J done"
    session = ui([{"tool_calls": [{"name": "bash", "args": {"command": command}}]}, {"text": answer}],
                 "--yolo")
    session.type("marker prompt")
    session.send_keys("Enter")
    session.wait_for("│ before")
    session.wait_for("done")
    screen = session.text()
    assert "› marker prompt" in screen  # nothing cleared the screen
    assert "pwned" not in session.tmux("display", "-p", "#{pane_title}")
    session.send_keys("C-o")
    session.wait_for("before�[2J�]2;pwned�after")
