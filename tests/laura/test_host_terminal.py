"""The shell pane as a real terminal, and the host's keys, seen through tmux:
key encoding and pastes received by a recorder child, DSR, mouse, resize,
scrollback, focus and the panes popup, child exit, signals, floods."""

from __future__ import annotations

import json
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.laura.tmux import RECORDER, LauraSession, alive, command_name, descendants_of, wait_until

pytestmark = pytest.mark.tmux

Make = Callable[..., LauraSession]


def recorder(laura_session: Make, tmp_path: Path, *flags: str) -> tuple[LauraSession, Path]:
    out = tmp_path / "recorded.bin"
    out.touch()
    session = laura_session(command=[sys.executable, RECORDER, str(out), *flags])
    session.wait_for("READY")
    return session, out


def recorded(out: Path, expect: bytes) -> bytes:
    return bytes(wait_until(lambda: expect in out.read_bytes() and out.read_bytes()))


def test_keys_reach_the_child_encoded_as_xterm_does(laura_session: Make, tmp_path: Path) -> None:
    session, out = recorder(laura_session, tmp_path, "--alt")
    session.send_keys("Up", "C-Left", "BTab", "C-a", "M-x", "DC", "PPage", "NPage", "Home", "End")
    session.type("é")
    session.send_keys("S-Up", "M-Right", "F5", "Escape")
    expected = (
        b"\x1b[A\x1b[1;5D\x1b[Z\x01\x1bx\x1b[3~\x1b[5~\x1b[6~\x1b[H\x1b[F"
        + "é".encode()
        + b"\x1b[1;2A\x1b[1;3C\x1b[15~\x1b"
    )
    assert recorded(out, expected) == expected
    session.send_keys("C-d", "C-d")
    assert session.wait_exit() == 0


def test_paste_is_forwarded_bracketed_and_f12_locks_every_key_to_the_shell(laura_session: Make, tmp_path: Path) -> None:
    session, out = recorder(laura_session, tmp_path, "--paste")
    session.paste("hello\nworld")
    recorded(out, b"\x1b[200~hello\rworld\x1b[201~")
    session.send_keys("F12")
    session.wait_footer("locked")
    session.send_keys("C-p", "C-q", "C-t")
    recorded(out, b"\x10\x11\x14")
    assert "Panes" not in session.text()
    session.send_keys("F12")
    session.wait_footer("Ctrl+P panes")


def test_dsr_is_answered_with_the_cursor_position(laura_session: Make, tmp_path: Path) -> None:
    _session, out = recorder(laura_session, tmp_path, "--dsr")
    data = wait_until(lambda: re.search(rb"\x1b\[(\d+);(\d+)R", out.read_bytes()))
    assert (int(data.group(1)), int(data.group(2))) == (3, 1)


def test_mouse_is_forwarded_in_sgr_form_relative_to_the_pane(laura_session: Make, tmp_path: Path) -> None:
    session, out = recorder(laura_session, tmp_path, "--mouse")
    # press and release at screen cell (10, 5), 1-based: the pane's inner rect starts at (2, 3)
    session.send_bytes(b"\x1b[<0;10;5M\x1b[<0;10;5m")
    recorded(out, b"\x1b[<0;9;3M\x1b[<0;9;3m")


def test_resize_reaches_the_child(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    session.type("stty size")
    session.send_keys("Enter")
    session.wait_for("│36 118")
    (tmp_path / "a.txt").write_text("a\n")
    assert session.cli("open", str(tmp_path / "a.txt"), "--no-focus").returncode == 0
    session.type("clear; stty size")
    session.send_keys("Enter")
    session.wait_for("│36 58")
    session.tmux("resize-window", "-x", "100", "-y", "30")
    session.wait_for(lambda text: len(session.screen()) == 30 or "Ctrl+P" in session.screen()[29])
    session.type("clear; stty size")
    session.send_keys("Enter")
    session.wait_for("│26 48")
    assert json.loads(session.cli("layout").stdout)["area"] == {"x": 0, "y": 1, "width": 100, "height": 28}


def test_scrollback_pages_and_snaps_back_on_a_key(laura_session: Make) -> None:
    session = laura_session()
    session.type("seq 1 300")
    session.send_keys("Enter")
    session.wait_for("│300")
    session.send_keys("PPage")
    screen = session.wait_for("scrollback 36/")
    assert "│300" not in screen and "│250" in screen
    session.send_keys("PPage", "PPage", "PPage", "PPage", "PPage", "PPage", "PPage", "PPage", "PPage")
    screen = session.wait_for("│1 ")
    session.send_keys("NPage")
    session.wait_for(lambda text: "│1 " not in text)
    session.type("x")
    screen = session.wait_for(lambda text: "│300" in text and "scrollback" not in text)
    # the wheel scrolls too
    session.send_bytes(b"\x1b[<64;10;10M")
    session.wait_for("scrollback 3/")


def test_focus_keys_and_the_panes_popup(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("".join(f"{name} {n}\n" for n in range(1, 100)))
        assert session.cli("open", str(tmp_path / name), "--no-focus").returncode == 0
    session.send_keys("C-p")
    screen = session.wait_for("Panes")
    assert "0  shell" in screen and "1  a.txt" in screen and "2  b.txt" in screen
    assert "type a pane id" in session.footer()
    session.type("2")
    session.wait_for(lambda text: "Esc leave pane" in session.footer() and "Panes" not in text)
    session.send_keys("PPage")  # already at the top: nothing moves, nothing breaks
    session.send_keys("NPage")
    screen = session.wait_for("b.txt 34")
    assert "b.txt 17" not in screen
    session.send_keys("x")
    session.wait_for(lambda text: "#2" not in text)
    assert [pane["id"] for pane in json.loads(session.cli("layout").stdout)["panes"]] == [0, 1]
    assert "Ctrl+P panes" in session.wait_footer("Ctrl+P panes")
    session.send_keys("C-p")
    session.wait_for("Panes")
    session.type("1")
    session.wait_footer("Esc leave pane")
    session.send_keys("Escape")
    session.wait_footer("Ctrl+P panes")
    session.send_keys("C-h")
    session.wait_for("Help")
    session.send_keys("q")
    session.wait_for(lambda text: "Help" not in text)


def test_a_command_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    session = LauraSession(tmp_path)
    try:
        session.tmux(
            "new-session", "-d", "-x", "80", "-y", "20", "sh", "-c",
            "laura -- /nonexistent/cmd; echo status=$?; exec sleep 600",
        )
        session.started = True
        screen = session.wait_for("status=1")
        assert "Error: cannot start /nonexistent/cmd: No such file or directory" in screen
    finally:
        session.close()


def test_closing_a_tab_from_the_menu_ends_its_shell(laura_session: Make) -> None:
    session = laura_session()
    first_shells = descendants_of(session.laura_pid)
    session.send_keys("C-t")
    session.wait_footer("n new tab")
    session.send_keys("n")
    wait_until(lambda: len(session.tabs()) == 2)
    second_shells = wait_until(lambda: [p for p in descendants_of(session.laura_pid) if p not in first_shells])
    session.send_keys("C-t")
    session.wait_footer("n new tab")
    session.send_keys("x")
    wait_until(lambda: len(session.tabs()) == 1)
    wait_until(lambda: not [pid for pid in second_shells if alive(pid)])
    assert all(alive(pid) for pid in first_shells)


def test_child_exit_closes_its_tab_then_laura_and_restores_the_terminal(laura_session: Make) -> None:
    session = laura_session()
    session.send_keys("C-t")
    session.wait_footer("n new tab")
    session.send_keys("n")
    wait_until(lambda: len(session.tabs()) == 2)
    session.wait_for(lambda text: session.screen()[0].rstrip() == " 1   2")
    session.type("exit")
    session.send_keys("Enter")
    wait_until(lambda: len(session.tabs()) == 1)
    session.wait_for(lambda text: session.screen()[0].rstrip() == " 1")
    shells = descendants_of(session.laura_pid)
    session.type("exit")
    session.send_keys("Enter")
    assert session.wait_exit() == 0
    after = session.after_exit()
    assert "alt=0 mouse=0 sgr=0" in after
    assert re.search(r"(?<!-)icanon", after) and re.search(r"(?<![-\w])echo ", after)
    assert not [pid for pid in shells if alive(pid)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_quit_cleanly_and_leave_no_process(laura_session: Make, signum: int) -> None:
    session = laura_session()
    session.type("sleep 1000")
    session.send_keys("Enter")
    sleeper = wait_until(
        lambda: [pid for pid in descendants_of(session.laura_pid) if command_name(pid) == "sleep"]
    )
    import os

    os.kill(session.laura_pid, signum)
    assert session.wait_exit() == 128 + signum
    assert "alt=0 mouse=0 sgr=0" in session.after_exit()
    wait_until(lambda: not alive(sleeper[0]))


def test_a_flood_never_blocks_keys_or_requests(laura_session: Make) -> None:
    session = laura_session(command=["sh", "-c", "yes 'flood flood flood flood flood flood flood flood'"])
    session.wait_for("flood flood")
    for _ in range(3):
        result = session.cli("layout")
        assert result.returncode == 0 and json.loads(result.stdout)["panes"][0]["id"] == 0
    session.send_keys("C-p")
    session.wait_for("Panes")
    session.send_keys("Escape")
    session.wait_for(lambda text: "Panes" not in text)
    session.send_keys("C-q")
    session.wait_footer("quit?")
    flooder = descendants_of(session.laura_pid)
    session.send_keys("y")
    assert session.wait_exit() == 0
    wait_until(lambda: not [pid for pid in flooder if alive(pid)])


# Loaded by the host's interpreter through PYTHONPATH (site imports
# `sitecustomize` at start-up): once the file named by LAURA_TEST_FAULT_FILE
# exists, the host's next frame raises. The fault lives in the test, not in
# Laura, and reaches the same code a real bug in drawing would.
FAULT_SITECUSTOMIZE = """
import os, sys

if sys.argv[1:2] == ["--"]:  # the host, not a client verb
    import laura.app

    _draw = laura.app.Host.draw

    def draw(self):
        if os.path.exists(os.environ["LAURA_TEST_FAULT_FILE"]):
            raise RuntimeError("injected fault in draw")
        return _draw(self)

    laura.app.Host.draw = draw
"""


def test_an_exception_inside_the_host_still_restores_the_terminal_and_kills_the_child(
    laura_session: Make, tmp_path: Path
) -> None:
    site = tmp_path / "fault-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(FAULT_SITECUSTOMIZE)
    fault = tmp_path / "fault-now"
    # The child ignores the hangup the closing PTY sends it: only Laura's own
    # TERM/KILL of its process group can end it.
    session = laura_session(
        command=["sh", "-c", "trap '' HUP; sleep 600; echo never"],
        env={"PYTHONPATH": str(site), "LAURA_TEST_FAULT_FILE": str(fault)},
    )
    sleeper = wait_until(lambda: len(descendants_of(session.laura_pid)) == 2 and descendants_of(session.laura_pid))
    assert "alt=1" in session.tmux("display", "-p", "alt=#{alternate_on}")
    fault.touch()
    session.send_keys("C-p")  # any key makes the host draw a frame
    assert session.wait_exit() == 1
    after = session.after_exit()
    assert "alt=0 mouse=0 sgr=0" in after
    assert re.search(r"(?<!-)icanon", after) and re.search(r"(?<![-\w])echo ", after)
    wait_until(lambda: not [pid for pid in sleeper if alive(pid)])
    assert not alive(session.laura_pid)
    # The traceback reaches the user's terminal, after the alternate screen.
    session.wait_for("RuntimeError: injected fault in draw")
    # Bracketed paste is off: a paste now echoes without the 200~/201~ markers.
    session.paste("pasted-after-exit")
    screen = session.wait_for("pasted-after-exit")
    assert "200~" not in screen and "201~" not in screen
