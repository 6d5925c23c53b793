"""File panes end to end: the real `laura` in a private tmux server, driven
by the real client verbs, the screen read back with capture-pane."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from laura.panes.file_draw import CURSOR_BG
from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.git_helpers import committed
from tests.laura.tmux import LAURA, LauraSession, wait_until

pytestmark = pytest.mark.tmux

Make = Callable[..., LauraSession]

REFLOWED = (
    "# Doc\n\none two three\nfour five six\nseven eight\nnine ten\neleven twelve\nthirteen\n\n"
    "```python\nx = 1\ny = 2\n```\n\nAfter the code.\n"
)





def open_file(session: LauraSession, path: Path, *flags: str) -> int:
    done = session.cli("open", str(path), "--dir", "h", *flags)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def styled_screen(session: LauraSession) -> list[str]:
    """The screen with SGR escapes, one string per row."""
    return session.tmux("capture-pane", "-p", "-e").split("\n")[: session.height]


_SGR = re.compile(r"\x1b\[[0-9;]*m")


def pane_row(screen: list[str], marker: str) -> str:
    """The row (escapes kept) whose visible text holds `marker`."""
    return next(row for row in screen if marker in _SGR.sub("", row))


def attributes(row: str) -> set[int]:
    """SGR attributes switched on anywhere in a styled row (colour
    parameters skipped): 1 bold, 2 faint, 7 reverse..."""
    found: set[int] = set()
    for match in _SGR.finditer(row):
        params = [int(p) if p else 0 for p in match.group()[2:-1].split(";")]
        index = 0
        while index < len(params):
            value = params[index]
            if value in (38, 48):
                index += 5 if params[index + 1 : index + 2] == [2] else 3
                continue
            found.add(value)
            index += 1
    return found


def faint(row: str) -> bool:
    return 2 in attributes(row)


def reversed_(row: str) -> bool:
    return 7 in attributes(row)


def reversed_at(row: str, marker: str) -> bool:
    """Whether reverse video is on where `marker` starts in the row's
    visible text (SGR 7 sets it; 0 and 27 clear it)."""
    target = _SGR.sub("", row).index(marker)
    on, seen, position = False, 0, 0
    while seen <= target and position < len(row):
        match = _SGR.match(row, position)
        if match is None:
            seen += 1
            position += 1
            continue
        params = [int(p) if p else 0 for p in match.group()[2:-1].split(";")]
        index = 0
        while index < len(params):
            value = params[index]
            if value in (38, 48):
                index += 5 if params[index + 1 : index + 2] == [2] else 3
                continue
            on = True if value == 7 else False if value in (0, 27) else on
            index += 1
        position = match.end()
    return on


def test_highlight_dims_the_rest_and_lands_on_the_code_lines(laura_session: Make) -> None:
    session = laura_session()
    path = session.root / "doc.md"
    path.write_text(REFLOWED)
    open_file(session, path, "--no-focus")
    session.wait_for("After the code.")
    done = session.cli("highlight", "11", "12")
    assert done.returncode == 1 and "no pane focused" in done.stderr  # focus stayed on the shell
    assert session.cli("highlight", "11", "12", "--pane", "1").returncode == 0

    def lit_and_dimmed() -> bool:
        rows = styled_screen(session)
        x_row = pane_row(rows, "x = 1")
        after = pane_row(rows, "After the code.")
        # a lit row is reverse video across (its text too); other rows are faint
        return reversed_at(x_row, "x = 1") and faint(after) and not faint(x_row)

    wait_until(lit_and_dimmed, 10)
    plain = session.screen()
    assert re.search(r"11\s+│ x = 1", pane_row(plain, "x = 1"))
    assert re.search(r"12\s+│ y = 2", pane_row(plain, "y = 2"))
    assert not reversed_(pane_row(styled_screen(session), "After the code."))

    assert session.cli("highlight", "--off", "--pane", "1").returncode == 0
    wait_until(lambda: not faint(pane_row(styled_screen(session), "After the code.")), 10)


def test_highlight_scrolls_a_long_file_and_survives_cursor_moves(laura_session: Make) -> None:
    session = laura_session()
    path = session.root / "long.py"
    path.write_text("".join(f"value_{n} = {n}\n" for n in range(1, 401)))
    open_file(session, path)
    session.wait_for("value_1 = 1")
    assert session.cli("highlight", "300", "301").returncode == 0
    text = session.wait_for("value_300 = 300")
    rows = text.split("\n")
    at = next(i for i, row in enumerate(rows) if "value_300 = 300" in row)
    assert abs(at - session.height // 2) <= 2  # centred in the pane
    assert "value_1 = 1" not in text
    session.send_keys("Down", "Down", "Down")
    wait_until(lambda: reversed_(pane_row(styled_screen(session), "value_300 = 300")), 10)
    assert faint(pane_row(styled_screen(session), "value_299 = 299"))
    session.send_keys("h")  # clears the highlight
    wait_until(lambda: not faint(pane_row(styled_screen(session), "value_299 = 299")), 10)


def test_a_changed_file_reloads_and_a_request_right_after_sees_it(laura_session: Make) -> None:
    session = laura_session()
    path = session.root / "notes.txt"
    path.write_text("first version\n")
    open_file(session, path, "--no-focus")
    session.wait_for("first version")
    path.write_text("second version\nwith two lines\n")
    session.wait_for("with two lines")
    path.write_text("SECOND VERSION\nWITH TWO LINES\n")  # the same size
    layout = session.cli("layout")
    assert layout.returncode == 0
    session.wait_for("WITH TWO LINES")
    path.write_text("".join(f"row {n}\n" for n in range(1, 61)))
    assert '"content_rows": 60' in session.cli("layout").stdout


def test_follow_keeps_the_end_of_a_growing_log_in_view(laura_session: Make) -> None:
    session = laura_session()
    path = session.root / "build.log"
    path.write_text("".join(f"step {n}\n" for n in range(1, 101)))
    open_file(session, path, "--no-focus", "--follow")
    session.wait_for("step 100")
    with path.open("a") as log:
        log.write("".join(f"step {n}\n" for n in range(101, 131)))
    text = session.wait_for("step 130")
    assert "step 1\n" not in text


def test_git_markers_and_stats_appear_after_an_edit(laura_session: Make) -> None:
    session = laura_session(width=240)  # room for the long temp path and the stats
    path = committed(session.root, "ten.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    open_file(session, path, "--no-focus")
    session.wait_for("line 10")
    assert "▌" not in session.text()
    lines = [f"line {n}" for n in range(1, 11)]
    lines[1] = "line 2 changed"
    del lines[4]
    lines.append("line 11")
    path.write_text("\n".join(lines) + "\n")
    text = session.wait_for("+2 -2")
    assert re.search(r"2 ▌ line 2 changed", text)
    assert re.search(r"── 1 line removed ─", text)
    assert re.search(r"10 ▌ line 11", text)


def test_diff_view_and_both_refusals(laura_session: Make) -> None:
    session = laura_session(width=240)
    path = committed(session.root, "six.txt", "".join(f"line {n}\n" for n in range(1, 7)))
    pane = open_file(session, path, "--no-focus")
    session.wait_for("line 6")
    refused = session.cli("diff", "--pane", str(pane))
    assert refused.returncode == 1
    assert refused.stderr.strip() == "Error: no changes vs HEAD — nothing to diff"

    path.write_text("line 1\nline 2 CHANGED\nline 3\nline 5\nline 6\n")
    assert session.cli("diff", "--pane", str(pane)).returncode == 0
    text = session.wait_for("+line 2 CHANGED")
    assert "-line 2" in text and "-line 4" in text
    assert "[diff]" in text
    assert session.cli("highlight", "2", "--pane", str(pane)).returncode == 0
    wait_until(lambda: reversed_(pane_row(styled_screen(session), "+line 2 CHANGED")), 10)
    assert session.cli("diff", "--pane", str(pane), "--off").returncode == 0
    session.wait_for(lambda screen: "-line 4" not in screen)

    untracked = path.parent / "new.txt"
    untracked.write_text("fresh\n")
    opened = session.cli("open", str(untracked), "--diff", "--no-focus")
    assert opened.returncode == 0
    assert "no changes vs HEAD — nothing to diff" in opened.stderr
    session.wait_for("fresh")


def test_the_d_key_toggles_the_diff_view_and_toasts_a_refusal(laura_session: Make) -> None:
    session = laura_session(width=240)
    path = committed(session.root, "a.txt", "alpha\nbeta\n")
    open_file(session, path)  # focused
    session.wait_for("beta")
    session.send_keys("d")
    session.wait_for("no changes vs HEAD — nothing to diff")
    path.write_text("alpha\nbeta two\n")
    session.wait_for("+1 -1")
    session.send_keys("d")
    session.wait_for("+beta two")
    session.send_keys("d")
    session.wait_for(lambda screen: "+beta two" not in screen)


def test_missing_git_warns_once_on_open(laura_session: Make, tmp_path: Path) -> None:
    tools = tmp_path / "tools-without-git"  # what the session needs, and no git
    tools.mkdir()
    for name in ("tmux", "sh", "stty", "sleep", "cat", "env"):
        found = shutil.which(name)
        assert found is not None, name
        (tools / name).symlink_to(found)
    bare = laura_session(env={"PATH": f"{Path(LAURA).parent}:{tools}"})
    first = bare.root / "one.txt"
    first.write_text("one\n")
    second = bare.root / "two.txt"
    second.write_text("two\n")
    env = bare.client_env(None)
    run = subprocess.run(
        [LAURA, "open", str(first), "--diff"], env=env, capture_output=True, text=True, timeout=30
    )
    assert "diff markers unavailable — install `git` to see changes in the gutter" in run.stderr
    assert "diff view unavailable — install `git`" in run.stderr
    run = subprocess.run(
        [LAURA, "open", str(second)], env=env, capture_output=True, text=True, timeout=30
    )
    assert "install `git`" not in run.stderr


def test_tail_spools_stdin_into_a_pane_and_the_spool_goes_with_it(laura_session: Make) -> None:
    session = laura_session()
    runtime = Path(session.env["LAURA_RUNTIME"])
    tail = subprocess.Popen(
        [LAURA, "tail", "--title", "build log", "--follow"],
        env=session.client_env(None),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert tail.stdin is not None and tail.stdout is not None
        tail.stdin.write(b"".join(b"compiling unit %d\n" % n for n in range(1, 41)))
        tail.stdin.flush()
        pane = int(tail.stdout.readline())
        session.wait_for("compiling unit 40")
        spool = runtime / f"build-log-{tail.pid}.txt"
        assert spool.exists()
        assert "Ctrl+P panes" in session.footer()  # the shell kept focus
        tail.stdin.write(b"linking\n")
        tail.stdin.close()
        assert tail.wait(timeout=10) == 0
        session.wait_for("linking")
    finally:
        if tail.poll() is None:
            tail.kill()
            tail.wait()
    assert session.cli("close", str(pane)).returncode == 0
    wait_until(lambda: not spool.exists(), 10)


def test_tail_typed_in_the_shell_opens_without_focus(laura_session: Make) -> None:
    session = laura_session()
    session.type("seq 1 30 | laura tail --dir v\n")
    session.wait_for(lambda screen: re.search(r"│\s*5\s+5\s", screen) is not None)
    runtime = Path(session.env["LAURA_RUNTIME"])
    spools = list(runtime.glob("tail-*.txt"))
    assert len(spools) == 1
    assert session.cli("close", "--all").returncode == 0
    wait_until(lambda: not spools[0].exists(), 10)


def test_left_and_right_scroll_long_code_lines(laura_session: Make) -> None:
    session = laura_session()
    path = session.root / "wide.py"
    path.write_text("x = '" + "".join(f"<{n:03d}>" for n in range(60)) + "'\n")
    open_file(session, path)
    text = session.wait_for("<000>")
    assert "›" in text and "<059>" not in text
    for _ in range(60):
        session.send_keys("Right")
    text = session.wait_for("<059>'")
    assert "‹" in text and "<000>" not in text
    for _ in range(60):
        session.send_keys("Left")
    session.wait_for("x = '<000>")


def test_spools_go_when_laura_quits_and_other_files_stay(laura_session: Make) -> None:
    session = laura_session()
    runtime = Path(session.env["LAURA_RUNTIME"])
    kept = session.root / "kept.txt"
    kept.write_text("mine\n")
    open_file(session, kept, "--no-focus")
    session.type("printf 'one\\ntwo\\n' | laura tail --title quit-test\n")
    spools = wait_until(lambda: list(runtime.glob("quit-test-*.txt")), 10)
    assert len(spools) == 1
    session.wait_for(lambda screen: re.search(r"│\s*2\s+two", screen) is not None)
    session.send_keys("C-q")
    session.send_keys("y")
    assert session.wait_exit() == 0
    assert not spools[0].exists()
    assert kept.exists()


def test_open_with_highlight_lands_on_the_range_in_the_first_frame(laura_session: Make) -> None:
    session = laura_session()
    path = session.root / "long.txt"
    path.write_text("".join(f"entry {n}\n" for n in range(1, 501)))
    open_file(session, path, "--highlight", "420", "421")
    session.wait_for("entry 420")
    wait_until(lambda: reversed_(pane_row(styled_screen(session), "entry 421")), 10)
    assert "entry 1\n" not in session.text()


CURSOR_BAND = "48;2;{};{};{}".format(*CURSOR_BG)


def cursor_on(session: LauraSession, marker: str) -> bool:
    """Whether the row showing `marker` is on screen with the cursor's band on it."""
    screen = styled_screen(session)
    return any(marker in _SGR.sub("", row) and CURSOR_BAND in row for row in screen)


@pytest.mark.parametrize(("to_end", "to_top"), [("End", "Home"), ("G", "g")])
def test_home_and_end_put_the_cursor_on_the_first_and_the_last_line(
    laura_session: Make, to_end: str, to_top: str
) -> None:
    session = laura_session()
    path = session.root / "long.py"
    path.write_text("".join(f"value_{n} = {n}\n" for n in range(1, 2001)))
    open_file(session, path)
    session.wait_for("value_1 = 1")
    session.send_keys(to_end)
    wait_until(lambda: cursor_on(session, "value_2000 = 2000"), 10, "the cursor on the last line")
    assert "value_1 = 1" not in session.text()
    session.send_keys("Up")
    wait_until(lambda: cursor_on(session, "value_1999 = 1999"), 10, "the cursor a line up")
    session.send_keys(to_top)
    wait_until(lambda: cursor_on(session, "value_1 = 1"), 10, "the cursor on the first line")
    assert "value_2000 = 2000" not in session.text()


@pytest.mark.timing
def test_end_in_a_long_markdown_file_reaches_its_last_line_without_freezing(laura_session: Make) -> None:
    """Its rows are laid out in the background first (seconds), keys keep
    echoing in the shell meanwhile, and the pane shows its end once they
    are. Pinning to the end once the rows were counted laid every row out
    on the spot: 2 s without an echo for 20,000 sections."""
    session = laura_session(command=["cat"])
    path = session.root / "long.md"
    path.write_text(
        "".join(f"Paragraph {n} with some words in it.\n\n```python\nx = {n}\n```\n\n" for n in range(1, 15_001))
    )
    pane = open_file(session, path, "--no-focus")
    session.wait_for("Paragraph 1 with")
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        assert session.cli("focus", str(pane)).returncode == 0
        session.send_keys("End")
        session.wait_for("[reaching the end… ")  # and how far, in per cent
        assert session.cli("focus", "0").returncode == 0  # back to the shell, where keys are timed
        busy = []
        while "x = 15000" not in session.text():
            busy.append(probe.key("Z"))
            assert len(busy) < 2_000, "the end never showed"
    finally:
        probe.close()
    assert len(busy) > 10, "the end showed at once: nothing was waited for"
    assert_keys_echoed(idle, busy, "while the rows to the end were laid out")
    assert "reaching the end" not in session.text()


def test_the_arrows_scroll_the_view_when_the_cursor_leaves_it(laura_session: Make) -> None:
    """↓ on the last row shown scrolls down a row, ↑ on the first scrolls
    up (they stopped at the view's edges: only PageUp/PageDown scrolled)."""
    session = laura_session()
    path = session.root / "long.py"
    path.write_text("".join(f"value_{n} = {n}\n" for n in range(1, 401)))
    open_file(session, path)
    session.wait_for("value_1 = 1")
    session.send_keys(*["Down"] * 60)
    wait_until(lambda: cursor_on(session, "value_61 = 61"), 10, "the cursor 60 lines down")
    assert "value_1 = 1" not in session.text()
    session.send_keys(*["Up"] * 60)
    wait_until(lambda: cursor_on(session, "value_1 = 1"), 10, "the cursor back on the first line")
    assert "value_61 = 61" not in session.text()
