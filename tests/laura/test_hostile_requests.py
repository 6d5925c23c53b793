"""Requests a hostile or careless client can send that the schema alone let
through: file names that are not UTF-8, text no UTF-8 can hold, paths no
file can have and symlink chains (the real `laura` in tmux)."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.tmux import RECORDER, LauraSession, wait_until

pytestmark = pytest.mark.tmux

Make = Callable[..., LauraSession]


def ask(session: LauraSession, frame: bytes) -> dict:
    return json.loads(session.request(frame + b"\n"))


def keys_while(probe: EchoProbe, work: Callable[[], object]) -> list[float]:
    """Key -> echo latencies while `work` runs in a thread (at least 40 keys)."""
    worker = threading.Thread(target=work)
    worker.start()
    busy = [probe.key("Z") for _ in range(40)]
    while worker.is_alive():
        busy.append(probe.key("Z"))
    worker.join()
    return busy


def test_a_file_name_that_is_not_utf8_opens_is_reported_and_reviewed(laura_session: Make, tmp_path: Path) -> None:
    """A Latin-1 name (`café.txt` as one byte é) reaches Python as a lone
    surrogate: the CLI crashed encoding it, a raw open applied but answered
    `internal error`, every later `layout` answered `internal error` while
    the pane stayed, and the review of it could not be submitted."""
    received = tmp_path / "received.bin"
    session = laura_session(command=[sys.executable, RECORDER, str(received), "--paste"])
    name = os.fsdecode(b"caf\xe9.txt")
    (session.root / name).write_text("first line\nsecond line\n")
    (session.root / os.fsdecode(b"\xff.md")).write_text("# heading\n")
    opened = session.cli("open", name)
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.strip() == "1"
    raw = json.dumps({"type": "open", "path": str(session.root / os.fsdecode(b"\xff.md"))}).encode()
    assert ask(session, raw)["type"] == "opened"
    report = ask(session, b'{"type":"layout"}')
    assert report["type"] == "report", report
    paths = [pane["path"] for pane in report["panes"]]
    assert paths[1:] == [str(session.root / name), str(session.root / os.fsdecode(b"\xff.md"))]
    session.wait_for("first line")
    # The review of it reaches the agent (a recorder here), the name's
    # stray byte shown as U+FFFD.
    assert ask(session, b'{"type":"ready"}')["type"] == "ready"
    commented = session.cli("comment", "1", "look here", "--pane", "1")
    assert commented.returncode == 0, commented.stderr
    session.send_keys("C-p", "1")
    session.wait_for("look here")
    session.send_keys("S")
    session.wait_footer("Enter submit")
    session.send_keys("Enter")
    wait_until(lambda: received.exists() and b"look here" in received.read_bytes())
    assert "caf\ufffd.txt]\n\nL1  first line".encode() in received.read_bytes()
    assert "internal error" not in session.text()


def test_text_no_utf8_can_hold_is_refused_naming_the_field(laura_session: Make) -> None:
    """JSON's `\\ud800` decodes to a lone surrogate: a `ready` with such an
    agent applied, answered `internal error`, and from then on every `open`
    and `comment` answered `internal error` while it applied."""
    session = laura_session()
    (session.root / "ok.txt").write_text("one\ntwo\n")
    for frame, field in (
        (b'{"type":"ready","agent":"a\\ud800"}', "`ready` field `agent`"),
        (b'{"type":"ready","session":"\\udcff"}', "`ready` field `session`"),
        (b'{"type":"comment","line":1,"body":"\\ud800"}', "`comment` field `body`"),
        (b'{"type":"comment","line":1,"body":"x","author":"\\udfff"}', "`comment` field `author`"),
    ):
        reply = ask(session, frame)
        assert reply["type"] == "error" and field in reply["message"], reply
        assert "lone surrogate" in reply["message"], reply
    opened = session.cli("open", "ok.txt")
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.strip() == "1"
    ready = session.cli("ready")
    assert ready.returncode == 0 and json.loads(ready.stdout)["layout"]["panes"][1]["id"] == 1


@pytest.mark.timing
def test_paths_no_file_can_have_are_refused_while_keys_echo(laura_session: Make) -> None:
    """A path of a megabyte froze Laura for 18 s (it was resolved a
    component at a time, each time from the start); a NUL or a surrogate no
    file name holds answered `internal error`; JSON nested too deep was an
    `internal error: RecursionError`."""
    session = laura_session()
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        replies: list[dict] = []
        frames = [
            b'{"type":"open","path":"' + b"a/" * 500_000 + b'x"}',
            b'{"type":"open","path":"/' + b"d" * 600_000 + b'"}',
            b'{"type":"update","path":"' + b"../" * 300_000 + b'"}',
        ]

        def send() -> None:
            for frame in frames:
                try:
                    replies.append(ask(session, frame))
                except OSError as exc:
                    replies.append({"type": "no answer", "message": repr(exc)})

        busy = keys_while(probe, send)
    finally:
        probe.close()
    assert_keys_echoed(idle, busy, "while paths of a megabyte were opened")
    for reply in replies:
        assert reply["type"] == "error" and "must be a file path of at most 4096 bytes" in reply["message"], reply
    for frame, says in (
        (b'{"type":"open","path":"/tmp/a\\u0000b"}', "`open` field `path` must be a file path, got one with a NUL"),
        (b'{"type":"open","path":"/tmp/\\ud800.txt","dry_run":true}', "`open` field `path` must be a file path"),
        (b'{"type":"update","path":"a\\u0000"}', "`update` field `path` must be a file path"),
        (b"[" * 100_000 + b"]" * 100_000, "malformed request: nested too deeply"),
        (b'{"type":"open","path":' + b"[" * 50_000 + b"]" * 50_000 + b"}", "malformed request: nested too deeply"),
    ):
        reply = ask(session, frame)
        assert reply == {"type": "error", "message": reply["message"]} and says in reply["message"], reply
    assert [pane["id"] for pane in json.loads(session.cli("layout").stdout)["panes"]] == [0]


def _symlink_chain(directory: Path, links: int, hops: int) -> Path:
    """`links` symlinks, each to the next through `hops` of `x/..`, the last to a file."""
    (directory / "x").mkdir(parents=True)
    (directory / "end.txt").write_text("the end\n")
    detour = "x/../" * hops
    for number in range(links):
        target = f"L{number + 1}" if number + 1 < links else "end.txt"
        os.symlink(detour + target, directory / f"L{number}")
    return directory / "L0"


@pytest.mark.timing
def test_symlink_chains_neither_freeze_laura_nor_break_open(laura_session: Make, tmp_path: Path) -> None:
    """Python's realpath walked a chain of 400 links of 1,600 components in
    a second, on the UI loop, for the new path and every open pane's (two
    opens held keys for 3 s, four for over 30); a
    chain of 1,000 links raised RecursionError (`internal error`). The
    kernel refuses both (more than 40 links)."""
    session = laura_session()
    long_chain = _symlink_chain(tmp_path / "long", 400, 800)
    deep_chain = _symlink_chain(tmp_path / "deep", 1000, 1)
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        results: list = []
        busy = keys_while(probe, lambda: results.extend(session.cli("open", "--no-focus", str(long_chain)) for _ in range(2)))
    finally:
        probe.close()
    assert len(results) == 2
    for result in results:
        assert result.returncode == 0, result.stderr
    assert_keys_echoed(idle, busy, "while a chain of 400 symlinks was opened in two panes")
    deep = session.cli("open", str(deep_chain))
    assert deep.returncode == 0, deep.stderr
    assert "Too many levels of symbolic links" in deep.stderr


def test_a_file_names_escape_codes_reach_no_terminal_through_the_cli(laura_session: Make) -> None:
    """`laura open` printed its warnings as the tab wrote them, so a file
    name's escape codes (a window title, a cleared screen) were obeyed by
    the terminal the client printed to."""
    session = laura_session()
    evil = "x\x1b]2;PWNED\x07\x1b[2J\x9b31m"
    os.mkfifo(session.root / f"fifo{evil}")
    (session.root / f"dir{evil}").mkdir()
    (session.root / f"--link{evil}").symlink_to(session.root / f"fifo{evil}")  # option-looking
    spellings = (
        (f"missing{evil}.txt", "No such file"),
        (f"fifo{evil}", "is a FIFO"),
        (f"dir{evil}", "is a directory"),
        (f"./--link{evil}", "is a FIFO"),
    )
    for name, reason in spellings:
        result = session.cli("open", "--no-focus", name)
        assert result.returncode == 0, result.stderr
        assert reason in result.stderr
        assert "\x1b" not in result.stderr and "\x07" not in result.stderr and "\x9b" not in result.stderr
        assert "x\u241b]2;PWNED\u2407\u241b[2J\ufffd31m" in result.stderr
