"""Laura as the host of an agent's interface, end to end in tmux: focus
events reach a child that asks for them, its bells and notifications reach
the terminal Laura runs in, its hyperlinks survive, and `laura --agent`
starts luxe in tab 1."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.laura.tmux import LAURA, RECORDER, LauraSession, wait_until

pytestmark = pytest.mark.tmux

Make = Callable[..., LauraSession]


def recorded(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def focus_reports(path: Path) -> list[str]:
    """The focus events the child read, in order ("I" in, "O" out)."""
    data = recorded(path)
    out = []
    for index in range(len(data) - 2):
        if data[index : index + 2] == b"\x1b[" and data[index + 2 : index + 3] in (b"I", b"O"):
            out.append(data[index + 2 : index + 3].decode())
    return out


def test_a_child_that_asks_learns_when_its_pane_and_the_terminal_gain_and_lose_focus(
    laura_session: Make, tmp_path: Path
) -> None:
    out = tmp_path / "child.bin"
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    session = laura_session(command=[sys.executable, RECORDER, str(out), "--focus"])
    session.wait_for("READY")
    # Asked while its pane has focus: told so at once.
    wait_until(lambda: focus_reports(out) == ["I"])
    # A file pane takes focus: the child's pane lost it.
    result = session.cli("open", str(tmp_path / "notes.txt"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    wait_until(lambda: focus_reports(out) == ["I", "O"])
    session.send_keys("Escape")  # back to the shell pane
    wait_until(lambda: focus_reports(out) == ["I", "O", "I"])
    # The person's terminal loses and regains focus (it reports CSI O / CSI I
    # once laura turned focus reporting on).
    session.send_bytes(b"\x1b[O")
    wait_until(lambda: focus_reports(out) == ["I", "O", "I", "O"])
    session.send_bytes(b"\x1b[I")
    wait_until(lambda: focus_reports(out) == ["I", "O", "I", "O", "I"])
    # The focus reports were consumed by laura, not typed into the child.
    assert recorded(out).count(b"\x1b[") == 5


def test_a_child_without_focus_reporting_is_never_sent_focus_events(
    laura_session: Make, tmp_path: Path
) -> None:
    out = tmp_path / "child.bin"
    (tmp_path / "notes.txt").write_text("one\n")
    session = laura_session(command=[sys.executable, RECORDER, str(out)])
    session.wait_for("READY")
    session.cli("open", str(tmp_path / "notes.txt"), cwd=tmp_path)
    session.send_keys("Escape")
    session.send_bytes(b"\x1b[O\x1b[I")
    session.type("z")  # a marker after everything above
    wait_until(lambda: b"z" in recorded(out))
    assert b"\x1b[" not in recorded(out)


SIGNALS = r"""#!/bin/sh
read go
printf 'ring\a\n'
printf '\033]9;build done\033\\'
printf 'see \033]8;;https://example.com/doc\033\\the docs\033]8;;\033\\ now\n'
printf 'EMITTED\n'
exec sleep 600
"""


def test_bells_notifications_and_links_reach_the_terminal_laura_runs_in(
    laura_session: Make, tmp_path: Path
) -> None:
    script = tmp_path / "signals.sh"
    script.write_text(SIGNALS)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    raw = tmp_path / "outer.bin"
    session = laura_session(command=[str(script)])
    # Everything laura writes to its terminal, byte for byte.
    session.tmux("pipe-pane", "-o", f"cat >> {raw}")
    assert session.tmux("display", "-p", "#{window_bell_flag}").strip() == "0"
    session.type("go")
    session.send_keys("Enter")
    session.wait_for("EMITTED")
    screen = session.text()
    assert "see the docs now" in screen
    assert "\x07" not in screen and "]9;" not in screen  # nothing drawn raw
    # The person's terminal (tmux here) heard the bell...
    wait_until(lambda: session.tmux("display", "-p", "#{window_bell_flag}").strip() == "1")
    data = wait_until(lambda: (d := recorded(raw)) and b"\x1b]9;" in d and b"\x1b]8;;" in d and d)
    # ...got the notification as OSC 9, and the link around the linked cells.
    assert b"\x07" in data
    assert b"\x1b]9;build done\x1b\\" in data
    opened = data.index(b"\x1b]8;;https://example.com/doc\x1b\\")
    text = data.index(b"the docs", opened)
    closed = data.index(b"\x1b]8;;\x1b\\", opened)
    assert opened < text < closed
    assert b"now" not in data[opened:closed]


def test_a_bell_in_a_tab_not_on_view_still_reaches_the_terminal(
    laura_session: Make, tmp_path: Path
) -> None:
    # Only the current tab is drawn, so another tab's output asks for no
    # frame, except when its child rang: the bell goes out with a frame.
    go = tmp_path / "go"
    script = tmp_path / "ring.sh"
    script.write_text(
        f"#!/bin/sh\nwhile [ ! -e {go} ]; do sleep 0.1; done\nprintf 'rang\\a'\nexec sleep 600\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    session = laura_session(command=[str(script)])
    session.send_keys("C-t", "n")
    wait_until(lambda: len(session.tabs()) == 2)
    assert session.tmux("display", "-p", "#{window_bell_flag}").strip() == "0"
    go.touch()
    wait_until(lambda: session.tmux("display", "-p", "#{window_bell_flag}").strip() == "1")
    assert "rang" not in session.text()  # tab 1 is still not on view


def fake_luxe(bin_dir: Path, out: Path) -> None:
    """A stand-in `luxe` on PATH that records how laura started it."""
    bin_dir.mkdir()
    luxe = bin_dir / "luxe"
    luxe.write_text(
        f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {out}\necho LUXE-STARTED \"$LAURA_TAB\"\nexec sleep 600\n"
    )
    luxe.chmod(0o755)


def test_laura_agent_hosts_luxe_in_tab_one_with_its_arguments(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    argv_file = tmp_path / "argv.txt"
    fake_luxe(bin_dir, argv_file)
    session = LauraSession(tmp_path, env={"PATH": f"{bin_dir}:{Path(LAURA).parent}:/usr/bin:/bin"})
    session.command = None
    try:
        # Start `laura --agent --model x/y` as the tmux session's command.
        session.tmux(
            "new-session", "-d", "-x", "100", "-y", "30", LAURA, "--agent", "--model", "x/y"
        )
        session.started = True
        screen = session.wait_for("LUXE-STARTED laura-")
        assert "LUXE-STARTED" in screen
        wait_until(lambda: argv_file.exists() and argv_file.read_text() == "--model\nx/y\n")
    finally:
        session.close()


def test_laura_agent_without_luxe_says_so_and_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    code = (
        "import sys; sys.argv[0] = '/nonexistent/laura'; "
        "from laura.cli import main; sys.exit(main(['--agent']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert "luxe" in result.stderr and "not on PATH" in result.stderr
    assert result.stdout == ""
