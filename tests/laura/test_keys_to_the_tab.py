"""The bytes a key reaches the tab's program as: what the person's terminal
sent. Laura read \\n as Enter and sent \\r, so a hosted program never got
Ctrl+J (an agent's new line in its draft). The real laura in tmux hosting a
program that reads its terminal raw and prints what it got in hex."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from tests.laura.tmux import LauraSession

RAW_READER = (
    "import os, sys, tty\n"
    "tty.setraw(0)\n"
    "sys.stdout.write('ready\\r\\n'); sys.stdout.flush()\n"
    "got = b''\n"
    "while not got.endswith(b'.'):\n"
    "    got += os.read(0, 64)\n"
    "sys.stdout.write('got ' + got[:-1].hex() + '\\r\\n'); sys.stdout.flush()\n"
    "os.read(0, 1)\n"
)


@pytest.mark.parametrize(
    ("keys", "bytes_hex"),
    [
        (["C-j"], "0a"),  # failed before: 0d
        (["M-C-j"], "1b0a"),  # failed before: 1b0d
        (["C-j", "C-j", "Enter"], "0a0a0d"),  # failed before: 0d0d0d
        (["Enter"], "0d"),
    ],
    ids=["Ctrl+J", "Alt+Ctrl+J", "Ctrl+J twice then Enter", "Enter"],
)
def test_a_key_reaches_the_tabs_program_as_the_terminal_sent_it(
    laura_session: Callable[..., LauraSession], keys: list[str], bytes_hex: str
) -> None:
    session = laura_session(command=[sys.executable, "-c", RAW_READER])
    session.wait_for("ready")
    session.send_keys(*keys)
    session.type(".")
    screen = session.wait_for("got ")
    # The whole report, not a prefix of it: "got 0a" is also in "got 0a0d".
    [got] = [line.strip("│ ") for line in screen.splitlines() if "got " in line]
    assert got == f"got {bytes_hex}", screen
