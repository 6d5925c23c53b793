"""What a hosted program sees: the real `laura`, inside tmux and with the
outer terminals' identity variables in its own environment, hands its child
none of them, and names itself as the terminal (issue 19)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from laura import __version__
from laura.hosted_env import OUTER_IDENTITY, hosted_environment
from tests.laura.tmux import LauraSession, descendants_of, wait_until

Make = Callable[..., LauraSession]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "laura.md"

# One value per entry of OUTER_IDENTITY (a prefix entry gets two names), as an
# outer terminal or an outer Laura would have set them.
OUTER = {
    "STY": "1234.pts-0.host",
    "WINDOW": "0",
    "KITTY_WINDOW_ID": "1",
    "KITTY_PID": "4242",
    "WEZTERM_PANE": "3",
    "ITERM_SESSION_ID": "w0t0p0:ABC",
    "LC_TERMINAL": "iTerm2",
    "LC_TERMINAL_VERSION": "3.5.0",
    "ZELLIJ": "0",
    "ZELLIJ_SESSION_NAME": "outer",
    "TERM_SESSION_ID": "w0t0p0",
    "VTE_VERSION": "7600",
    "LAURA_TAB": "laura-1-0000000000000000-0",
    "LAURA_SOMETHING_ELSE": "outer",
    "COLUMNS": "80",
    "LINES": "24",
    "TERM_PROGRAM": "tmux",
    "TERM_PROGRAM_VERSION": "3.3a",
}


def environ_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (entry.split(b"=", 1) for entry in raw.split(b"\0") if b"=" in entry)
    return {name.decode(): value.decode() for name, value in pairs}


@pytest.mark.tmux
def test_a_program_hosted_in_laura_inside_tmux_sees_laura_not_the_outer_terminals(
    laura_session: Make,
) -> None:
    session = laura_session(command=["sleep", "600"], env=OUTER)
    # The premise: Laura itself runs with all of it (tmux adds TMUX, TMUX_PANE).
    outer = environ_of(session.laura_pid)
    assert {"TMUX", "TMUX_PANE", *OUTER} <= outer.keys()

    (child,) = wait_until(lambda: descendants_of(session.laura_pid))
    seen = wait_until(lambda: environ_of(child))
    leaked = sorted(name for name in seen if name in {"TMUX", "TMUX_PANE", *OUTER})
    assert leaked == ["LAURA_TAB", "TERM_PROGRAM", "TERM_PROGRAM_VERSION"]
    assert seen["LAURA_TAB"] == session.tab
    assert seen["TERM_PROGRAM"] == "laura"
    assert seen["TERM_PROGRAM_VERSION"] == __version__
    assert seen["COLORTERM"] == "truecolor"
    assert seen["TERM"] == "xterm-256color"
    assert seen["LAURA_RUNTIME"] == outer["LAURA_RUNTIME"]
    assert seen["HOME"] == outer["HOME"]  # everything else passes unchanged


def test_every_entry_of_the_list_is_covered_here_and_documented() -> None:
    names = set(OUTER) | {"TMUX", "TMUX_PANE"}
    for entry in OUTER_IDENTITY:
        if entry.endswith("*"):
            assert any(name.startswith(entry[:-1]) for name in names), entry
        else:
            assert entry in names, entry
    section = DOCS.read_text().split("### What a hosted program sees", 1)[1].split("\n#", 1)[0]
    documented = set(re.findall(r"`([A-Z_]+\*?)`", section))
    assert set(OUTER_IDENTITY) <= documented


def test_the_environment_keeps_what_is_not_an_outer_identity() -> None:
    parent = {"PATH": "/bin", "ZELLIJ_PANE_ID": "2", "LAURA_TAB": "old", "TERMINFO": "/t", "WINDOWS": "x"}
    env = hosted_environment(parent, "laura-9-abc-0", "/run/laura")
    assert env["PATH"] == "/bin" and env["TERMINFO"] == "/t" and env["WINDOWS"] == "x"
    assert "ZELLIJ_PANE_ID" not in env
    assert env["LAURA_TAB"] == "laura-9-abc-0" and env["LAURA_RUNTIME"] == "/run/laura"
