"""The real `laura` in tmux colours code files without holding keys: a file
written to make Pygments rescan to its end keeps keys echoing while it opens
at a line; an ordinary big file is coloured in the background to its last
line, and a line far down it is coloured as soon as it is shown (long before
that); closing its pane stops that work."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from laura.render import theme
from tests.helpers.wait import wait_until
from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.other_names import SPELLINGS, reached_by
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]

pytestmark = pytest.mark.tmux

KEYWORD = "38;2;{};{};{}".format(*theme.KEYWORD.fg)  # type: ignore[misc]


def coloured_screen(session: LauraSession) -> str:
    return session.tmux("capture-pane", "-p", "-e")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ordinary_python(path: Path, functions: int) -> None:
    path.write_text(
        "".join(
            f'def step{n}(x):\n    """Step {n}."""\n    return x + {n}\n\n'
            for n in range(functions)
        )
    )


@pytest.mark.timing
@pytest.mark.parametrize(
    ("name", "unit"),
    [("bundle.js", "/*\n"), ("page.html", "<!--\n"), ("tool.rb", "=begin\n")],
)
def test_keys_keep_echoing_while_a_file_that_makes_the_lexer_rescan_opens(
    laura_session: Make, tmp_path: Path, name: str, unit: str
) -> None:
    path = tmp_path / name
    path.write_text(unit * 200_000 + "THE END\n")
    session = laura_session(command=["cat"])
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        opened = session.cli("open", str(path), "--no-focus", "--highlight", "3000")
        assert opened.returncode == 0, opened.stderr
        busy = [probe.key("Z") for _ in range(60)]
    finally:
        probe.close()
    session.wait_for(lambda text: " 3000 " in text and unit.strip() in text)
    assert_keys_echoed(idle, busy, f"while {name} opened")


@pytest.mark.timing
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_keys_keep_echoing_however_such_a_file_is_named(
    laura_session: Make, tmp_path: Path, spelling: str
) -> None:
    """The same content reached by a symlink, a hard link (named as CSS) or
    a name that looks like an option of `laura open`."""
    real = tmp_path / "real.js"
    real.write_text("/*\n" * 200_000 + "THE END\n")
    names = {"symlink": "vendor.min.js", "hard link": "page.css", "option-looking name": "--highlight=1.js"}
    path = reached_by(real, spelling, names[spelling])
    session = laura_session(command=["cat"])
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        opened = session.cli("open", "--no-focus", "--highlight", "3000", "--", str(path))
        assert opened.returncode == 0, opened.stderr
        busy = [probe.key("Z") for _ in range(60)]
    finally:
        probe.close()
    session.wait_for(lambda text: " 3000 " in text and "/*" in text)
    assert_keys_echoed(idle, busy, f"while a file opened by {spelling}")


def test_an_ordinary_big_file_is_coloured_to_its_last_line(
    laura_session: Make, tmp_path: Path
) -> None:
    path = tmp_path / "generated.py"
    ordinary_python(path, 6_000)  # 24,000 lines
    session = laura_session(command=["cat"])
    opened = session.cli("open", str(path), "--no-focus", "--highlight", "23998")
    assert opened.returncode == 0, opened.stderr
    session.wait_for("step5999")
    wait_until(
        lambda: last_def_coloured(session, "step5999"),
        what="the last function's `def` in the keyword colour",
    )


def last_def_coloured(session: LauraSession, name: str) -> bool:
    line = next((row for row in coloured_screen(session).split("\n") if name in row), "")
    return bool(re.search(re.escape(KEYWORD) + r"m\s*def", line))


def cpu_over(pid: int, seconds: float) -> float:
    before = cpu_seconds(pid)
    time.sleep(seconds)  # a measuring window, not synchronisation
    return cpu_seconds(pid) - before


@pytest.mark.parametrize("jump", ["open at the line", "highlight request"])
def test_a_line_far_down_a_big_file_is_coloured_when_it_is_shown(
    laura_session: Make, tmp_path: Path, jump: str
) -> None:
    """4 MB of Python: colouring it from the top takes many seconds; the
    lines shown at its end are coloured while that still runs."""
    path = tmp_path / "generated.py"
    ordinary_python(path, 60_000)  # 240,000 lines
    session = laura_session(command=["cat"])
    if jump == "open at the line":
        opened = session.cli("open", str(path), "--no-focus", "--highlight", "239998")
        assert opened.returncode == 0, opened.stderr
    else:
        opened = session.cli("open", str(path), "--no-focus")
        assert opened.returncode == 0, opened.stderr
        session.wait_for("step0(")
        moved = session.cli("highlight", "239998", "--pane", opened.stdout.strip())
        assert moved.returncode == 0, moved.stderr
    session.wait_for("step59999")
    wait_until(
        lambda: last_def_coloured(session, "step59999"),
        timeout=10,
        what="the last function's `def` in the keyword colour",
    )
    still = cpu_over(session.laura_pid, 0.5)
    assert still > 0.1, (
        f"the colouring from the top had ended ({still:.2f} s of CPU in half a second): "
        "the shown lines were coloured only when it reached them"
    )


def test_closing_a_code_pane_stops_its_colouring(laura_session: Make, tmp_path: Path) -> None:
    path = tmp_path / "generated.py"
    ordinary_python(path, 60_000)  # some 4 MB: seconds of colouring
    session = laura_session(command=["cat"])
    pid = session.laura_pid
    opened = session.cli("open", str(path), "--no-focus")
    assert opened.returncode == 0, opened.stderr
    session.wait_for("step0")

    colouring = cpu_over(pid, 1.0)
    closed = session.cli("close", opened.stdout.strip())
    assert closed.returncode == 0, closed.stderr
    session.wait_for(lambda text: "step0" not in text)
    after = cpu_over(pid, 1.0)
    assert colouring > 0.2, f"colouring used {colouring:.2f} s of CPU a second"
    assert after < colouring / 3, (
        f"{after:.2f} s of CPU a second after the close (was {colouring:.2f})"
    )
