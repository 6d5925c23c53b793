"""The interface end to end: start, type a prompt, read the streamed answer,
leave; the terminal is restored and nothing of ours is left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.laura.tmux import alive, wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.rpc_driver import (
    SCOPE_VAR,
    processes_with_env_marker,
    processes_with_marker,
    unique_duration,
)


def test_prompt_streams_answer_and_exit_restores_terminal(ui: StartUi, env: dict[str, str]) -> None:
    session = ui([{"text": "The answer is **forty-two**, said the script.\n\nA second paragraph."}])
    assert "ask" in session.status_line()
    session.type("what is the answer?")
    session.send_keys("Enter")
    session.wait_for("A second paragraph.")
    screen = session.text()
    assert "› what is the answer?" in screen
    assert "The answer is forty-two, said the script." in screen  # markdown rendered
    pid = session.luxe_pid
    session.send_keys("C-c")
    session.wait_for("press Ctrl+C again")
    session.send_keys("C-c")
    assert session.wait_exit() == 0
    assert {"icanon", "echo", "isig", "icrnl", "ixon"} <= set(session.after_exit().split())
    wait_until(lambda: not alive(pid), 10)
    assert session.leftovers(processes_with_env_marker(env[SCOPE_VAR])) == set()
    # The answer stays in scrollback after exit, once.
    history = session.history()
    assert sum("A second paragraph." in row for row in history) == 1


def test_not_a_terminal_says_use_print_or_rpc(tmp_path: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "luxe"], stdin=subprocess.DEVNULL, capture_output=True,
        env=env, cwd=tmp_path, timeout=60,
    )
    assert done.returncode == 2
    assert b"--rpc" in done.stderr and b"-p" in done.stderr
    assert done.stdout == b""


def test_sigterm_restores_terminal(ui: StartUi, env: dict[str, str]) -> None:
    session = ui([{"text": "slow", "delay_s": 30}])
    session.type("go")
    session.send_keys("Enter")
    session.wait_for("working")
    os.kill(session.luxe_pid, signal.SIGTERM)
    assert session.wait_exit() == 0
    assert {"icanon", "echo", "isig", "icrnl"} <= set(session.after_exit().split())
    wait_until(lambda: session.leftovers(processes_with_env_marker(env[SCOPE_VAR])) == set(), 10)


def test_first_prompt_argument_and_resume_picker(ui: StartUi) -> None:
    first = ui([{"text": "answered the argument"}], "what is this repo?")
    first.wait_for("answered the argument")
    assert "› what is this repo?" in first.text()
    first.send_keys("C-c", "C-c")
    assert first.wait_exit() == 0
    picker = ui([], "--resume", wait="resume which session?")
    picker.send_keys("Enter")
    picker.wait_for("resumed session")




def test_ctrl_z_gives_the_terminal_back_and_fg_takes_it_again(ui: StartUi) -> None:
    session = ui([{"text": "after the resume"}], job_control=True)  # a shell that can `fg` it
    pid = session.luxe_pid
    tty = os.readlink(f"/proc/{pid}/fd/0")
    session.type("draft kept")
    session.send_keys("C-z")
    wait_until(lambda: Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T", 10)
    modes = subprocess.run(["stty", "-F", tty, "-a"], capture_output=True, text=True, check=True).stdout
    assert {"icanon", "echo", "isig"} <= set(modes.split())
    assert "draft kept" not in session.text()  # the live region was taken down
    session.send_keys("Enter")  # the shell's turn: it `fg`s luxe (SIGCONT)
    session.wait_for("› draft kept")
    session.send_keys("Enter")
    session.wait_for("after the resume")


def test_closing_the_terminal_mid_tool_leaves_no_process(ui: StartUi, env: dict[str, str]) -> None:
    duration = unique_duration()
    session = ui([{"tool_calls": [{"name": "bash", "args": {"command": f"sleep {duration}"}}]}], "--yolo")
    session.type("run the long one")
    session.send_keys("Enter")
    wait_until(lambda: processes_with_marker(duration, scope=env), 30)
    pid = session.luxe_pid
    session.tmux("kill-server")  # the terminal goes away: SIGHUP
    wait_until(lambda: not alive(pid), 30)
    wait_until(lambda: processes_with_marker(duration, scope=env) == [], 30)


def test_ctrl_l_redraws_the_live_region_in_place(ui: StartUi) -> None:
    session = ui([])
    session.type("a draft")
    session.send_keys("C-l", "C-l")
    session.wait_editor("› a draft")
    assert sum("scripted:" in row for row in session.history()) == 1
