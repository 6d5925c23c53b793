"""Every request and error of the per-tab protocol, through the real CLI and
raw sockets, against the real `laura` running in tmux."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.laura.tmux import WAIT_S, LauraSession, send_frame, wait_until

pytestmark = pytest.mark.tmux

Make = Callable[..., LauraSession]


def write_lines(path: Path, count: int) -> Path:
    path.write_text("".join(f"line {n}\n" for n in range(1, count + 1)))
    return path


def layout(session: LauraSession, tab: str | None = None) -> dict:
    result = session.cli("layout", tab=tab)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_open_inside_the_tab_prints_the_id_and_shows_the_file(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    write_lines(tmp_path / "notes.txt", 3)
    session.type(f"cd {tmp_path} && laura open notes.txt; echo rc=$?")
    session.send_keys("Enter")
    screen = session.wait_for("rc=0")
    assert "#1 " in screen and "notes.txt" in screen
    assert "1   line 1" in screen
    # focus moved into the new pane: the footer shows the file keys
    assert "Esc leave pane" in session.footer()
    report = layout(session)
    assert [pane["id"] for pane in report["panes"]] == [0, 1]
    assert report["panes"][1]["path"] == str(tmp_path / "notes.txt")


def test_layout_report_shape(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    opened = session.cli("open", str(write_lines(tmp_path / "long.txt", 100)), "--no-focus")
    assert opened.stdout.strip() == "1"
    assert "overflows: 64 row(s) below the fold" in opened.stderr
    assert "run `laura ready`" in opened.stderr
    report = layout(session)
    assert report["area"] == {"x": 0, "y": 1, "width": 120, "height": 38}
    shell, file_pane = report["panes"]
    assert shell == {
        "id": 0, "kind": "pty", "path": None, "rect": {"x": 0, "y": 1, "width": 60, "height": 38},
        "content_rows": None, "visible_rows": 36, "overflow_rows": 0, "clipped": False,
    }
    assert file_pane == {
        "id": 1, "kind": "panel", "path": str(tmp_path / "long.txt"),
        "rect": {"x": 60, "y": 1, "width": 60, "height": 38},
        "content_rows": 100, "visible_rows": 36, "overflow_rows": 64, "clipped": True,
    }
    assert "Ctrl+P panes" in session.footer()  # --no-focus kept the shell focused


def test_dry_run_reports_and_changes_nothing(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    path = str(write_lines(tmp_path / "a.txt", 2))
    dry = session.cli("open", path, "--dry-run")
    assert dry.returncode == 0
    report = json.loads(dry.stdout)
    assert [pane["id"] for pane in report["panes"]] == [0, 1]
    assert [pane["id"] for pane in layout(session)["panes"]] == [0]
    assert session.cli("open", path).stdout.strip() == "1"


def test_dry_run_with_panel_reports_the_replacement_and_changes_nothing(
    laura_session: Make, tmp_path: Path
) -> None:
    session = laura_session()
    first = str(write_lines(tmp_path / "first.txt", 2))
    other = str(write_lines(tmp_path / "other.txt", 7))
    assert session.cli("open", first).stdout.strip() == "1"
    session.wait_for("line 2")
    before = layout(session)

    dry = session.cli("open", "--panel", "1", "--dry-run", other)
    assert dry.returncode == 0, dry.stderr
    would_be = json.loads(dry.stdout)
    assert [(p["id"], p["path"], p["content_rows"]) for p in would_be["panes"]] == [
        (0, None, None), (1, other, 7),
    ]
    assert [p["rect"] for p in would_be["panes"]] == [p["rect"] for p in before["panes"]]

    raw = json.loads(session.request(
        json.dumps({"type": "open", "path": other, "panel": 1, "dry_run": True}).encode() + b"\n"
    ))
    assert raw["type"] == "report" and raw["panes"][1]["path"] == other

    assert layout(session) == before  # pane 1 still holds first.txt
    assert "first.txt" in session.text()
    # A dry run still answers the errors a real replace would.
    missing = session.cli("open", "--panel", "5", "--dry-run", other)
    assert (missing.returncode, missing.stderr.strip()) == (1, "Error: no pane #5 to replace")
    # The real replace still works afterwards.
    assert session.cli("open", "--panel", "1", other).stdout.strip() == "1"
    assert layout(session)["panes"][1]["path"] == other


def test_a_relative_path_resolves_against_the_clients_cwd(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    deeper = tmp_path / "project" / "src"
    deeper.mkdir(parents=True)
    write_lines(deeper / "here.txt", 1)
    (tmp_path / "project" / "up.txt").write_text("one level up\n")
    # The host runs in another directory, so only the client's cwd finds these.
    opened = session.cli("open", "here.txt", "--no-focus", cwd=deeper)
    assert opened.stdout.strip() == "1", opened.stderr
    assert session.cli("open", "../up.txt", "--no-focus", cwd=deeper).stdout.strip() == "2"
    paths = [pane["path"] for pane in layout(session)["panes"]]
    assert paths == [None, str(deeper / "here.txt"), str(tmp_path / "project" / "up.txt")]
    session.wait_for("one level up")


def test_a_pane_with_all_or_a_line_with_off_is_refused_and_changes_nothing(
    laura_session: Make, tmp_path: Path
) -> None:
    session = laura_session()
    path = str(write_lines(tmp_path / "a.txt", 2))
    for _ in range(2):
        session.cli("open", path, "--no-focus")
    lit = session.cli("highlight", "2", "--off", "--pane", "1")
    assert lit.returncode == 2
    assert "highlight takes START [END] or --off, not both" in lit.stderr
    both = session.cli("close", "1", "--all")
    assert both.returncode == 2
    assert "close takes a pane ID or --all, not both" in both.stderr
    raw = json.loads(session.request(b'{"type":"close","pane":1,"all":true}\n'))
    assert raw == {"type": "error", "message": "close takes a pane id or `all`, not both"}
    assert [pane["id"] for pane in layout(session)["panes"]] == [0, 1, 2]


def test_open_help_shows_highlight_as_start_and_optional_end(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    shown = session.cli("open", "--help")
    assert shown.returncode == 0
    assert "--highlight START [END]" in shown.stdout and "[END ...]" not in shown.stdout
    path = str(write_lines(tmp_path / "a.txt", 5))
    three = session.cli("open", path, "--highlight", "1", "2", "3")
    assert three.returncode == 2 and "--highlight takes START [END]" in three.stderr
    assert [pane["id"] for pane in layout(session)["panes"]] == [0]
    assert session.cli("open", path, "--highlight", "2", "3").stdout.strip() == "1"


def test_ids_are_monotonic_and_dwindle_spirals(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    path = str(write_lines(tmp_path / "a.txt", 2))
    ids = [session.cli("open", path, "--no-focus").stdout.strip() for _ in range(4)]
    assert ids == ["1", "2", "3", "4"]
    rects = {pane["id"]: pane["rect"] for pane in layout(session)["panes"]}
    assert rects[0] == {"x": 0, "y": 1, "width": 60, "height": 38}
    assert len({r["x"] for r in rects.values()}) >= 3 and len({r["y"] for r in rects.values()}) >= 3
    for pane in (1, 2, 3):
        assert session.cli("close", str(pane)).returncode == 0
    assert [pane["id"] for pane in layout(session)["panes"]] == [0, 4]
    assert session.cli("open", path).stdout.strip() == "5"


def test_every_error_is_answered_and_changes_nothing(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    path = str(write_lines(tmp_path / "a.txt", 2))

    def error(*args: str) -> str:
        result = session.cli(*args)
        assert result.returncode == 1, (args, result)
        assert result.stdout == ""
        return result.stderr.strip()

    assert error("close") == "Error: no pane focused to close"
    assert error("close", "0") == "Error: the shell pane can't be closed"
    assert error("close", "7") == "Error: no pane #7"
    assert error("focus", "7") == "Error: no pane #7"
    assert error("highlight", "3") == "Error: no pane focused to highlight"
    assert error("highlight", "3", "--pane", "0") == "Error: no pane #0"
    assert error("diff") == "Error: no pane focused for diff view"
    assert error("comment", "1", "hi") == "Error: no pane focused to comment on"
    assert error("open", path, "--split", "9") == "Error: no pane #9"
    assert error("open", path, "--panel", "3") == "Error: no pane #3 to replace"
    before = layout(session)
    assert session.cli("open", path, "--ratio", "99", "--dir", "v").returncode == 1
    for _ in range(2):
        session.cli("open", path, "--split", "0", "--dir", "v", "--ratio", "50", "--no-focus")
    refused = error("open", path, "--split", "0", "--dir", "v", "--ratio", "97")
    assert refused == "Error: split would shrink a pane below 3×3 — too small to render; close a pane or lower --ratio"
    assert len(layout(session)["panes"]) == 3
    assert before["panes"][0]["id"] == 0
    edit = session.request(b'{"type":"open","path":"x","edit":true}\n')
    assert json.loads(edit)["message"].startswith("editor panes are experimental")


def test_focus_highlight_comment_diff_ready_update(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    path = str(write_lines(tmp_path / "a.txt", 50))
    assert session.cli("open", path, "--highlight", "40", "42").returncode == 0
    screen = session.wait_for("40   line 40")
    assert "1   line 1" not in screen  # scrolled to the highlight
    assert session.cli("focus", "0").returncode == 0
    session.wait_footer("Ctrl+P panes")
    assert session.cli("highlight", "1", "--pane", "1").returncode == 0
    session.wait_for(" 1   line 1")
    assert session.cli("highlight", "--off", "--pane", "1").returncode == 0
    assert session.cli("focus", "1").returncode == 0
    assert session.cli("comment", "2", "tighten this").returncode == 0
    assert session.cli("comment", "2", "   ").stderr.strip() == "Error: comment needs a body"
    assert session.cli("comment", "99", "x").stderr.strip() == "Error: line 99 is past the file's 50 lines"
    assert session.cli("diff", "--off").returncode == 0
    assert session.cli("diff").returncode == 1
    ready = session.cli("ready", "--session", "s1", "--agent", "claude")
    assert ready.returncode == 0, ready.stderr
    body = json.loads(ready.stdout)
    assert body["journal"] == str(session.root / "state" / "laura" / "sessions" / "s1.ndjson")
    assert [pane["id"] for pane in body["layout"]["panes"]] == [0, 1]
    journal = Path(body["journal"]).read_text().splitlines()
    assert json.loads(journal[-1])["type"] == "ready"
    opened = session.cli("open", path, "--no-focus")
    assert "laura ready" not in opened.stderr
    assert "already open in pane #1" in opened.stderr
    assert json.loads(session.request(b'{"type":"update","path":"a.txt"}\n')) == {"type": "ok"}
    assert json.loads(session.request(b'{"type":"update"}\n')) == {
        "type": "error",
        "message": "malformed request: `update` needs field `path`",
    }
    replaced = session.cli("open", str(write_lines(tmp_path / "b.txt", 2)), "--panel", "2")
    assert replaced.stdout.strip() == "2"
    assert [p["path"] for p in layout(session)["panes"]][2].endswith("b.txt")
    # Pane 1 holds the agent's unsubmitted comment: `close --all` closes nothing
    # until the person discards it (Ctrl+R on the focused pane 1).
    refused = session.cli("close", "--all")
    assert refused.stderr.startswith("Error: pane #1 has an unsubmitted inline review")
    assert [pane["id"] for pane in layout(session)["panes"]] == [0, 1, 2]
    session.send_keys("C-r")
    wait_until(lambda: session.cli("close", "--all").returncode == 0)
    assert [pane["id"] for pane in layout(session)["panes"]] == [0]


def test_malformed_frames_are_answered_with_what_was_wrong(laura_session: Make) -> None:
    session = laura_session()
    cases = {
        b"hello\n": "not JSON",
        b'{"type":"nope"}\n': 'unknown type "nope"',
        b'{"type":"focus"}\n': "`focus` needs field `pane`",
        b'{"type":"focus","pane":"one"}\n': "`focus` field `pane` must be a pane id",
        b"\n": "empty line",
        b'{"type":"layout"': "not JSON",  # a half line, then the client hangs up
    }
    for frame, message in cases.items():
        reply = json.loads(session.request(frame))
        assert reply["type"] == "error" and message in reply["message"], (frame, reply)
    huge = b'{"type":"open","path":"' + b"x" * (3 << 20) + b'"}\n'
    reply = json.loads(session.request(huge))
    assert reply["type"] == "error" and "longer than" in reply["message"]
    assert json.loads(session.request(b'{"type":"layout"}\n'))["type"] == "report"


def test_a_silent_client_does_not_wedge_the_tab_and_fifty_clients_are_answered(laura_session: Make) -> None:
    session = laura_session()
    tab = session.tab
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect("\0" + tab)
    half = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    half.connect("\0" + tab)
    half.sendall(b'{"type":"lay')
    try:
        replies: list[bytes] = []
        barrier = threading.Barrier(50)

        def client() -> None:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(WAIT_S)
                sock.connect("\0" + tab)
                barrier.wait(WAIT_S)  # bounded: one failed client must not strand the rest
                sock.sendall(b'{"type":"layout"}\n')
                replies.append(sock.makefile("rb").readline())

        threads = [threading.Thread(target=client) for _ in range(50)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(2 * WAIT_S)
        assert len(replies) == 50
        assert all(json.loads(reply)["type"] == "report" for reply in replies)
        # keys still work while the silent clients hang on
        session.type("echo still-typing")
        session.send_keys("Enter")
        session.wait_for("│still-typing")
    finally:
        silent.close()
        half.close()


def test_tabs_have_distinct_sockets_that_never_reach_each_other(laura_session: Make, tmp_path: Path) -> None:
    session = laura_session()
    first = session.tab
    session.send_keys("C-t")
    session.wait_footer("n new tab")
    session.send_keys("n")
    second = wait_until(lambda: len(session.tabs()) == 2 and session.tabs()[1])
    assert first != second
    assert first.startswith(f"laura-{session.laura_pid}-") and second.startswith(f"laura-{session.laura_pid}-")
    nonce_first, nonce_second = first.split("-")[2], second.split("-")[2]
    assert nonce_first == nonce_second and len(nonce_first) >= 16
    session.type("echo tab=$LAURA_TAB")
    session.send_keys("Enter")
    session.wait_for(f"tab={second}")
    path = str(write_lines(tmp_path / "x.txt", 2))
    assert session.cli("open", path, tab=second).stdout.strip() == "1"
    assert [pane["id"] for pane in layout(session, tab=first)["panes"]] == [0]
    assert [pane["id"] for pane in layout(session, tab=second)["panes"]] == [0, 1]
    assert session.cli("open", path, "--no-focus", tab=first).stdout.strip() == "1"
    # Ctrl+T ←: back to tab 1, whose shell has the first socket; r renames it
    session.send_keys("C-t")
    session.wait_footer("n new tab")
    session.send_keys("Left", "r")
    session.wait_footer("rename tab")
    session.type("work")
    session.send_keys("Enter")
    session.wait_for(lambda text: session.screen()[0].startswith(" 1:work   2"))
    session.type("clear; echo tab=$LAURA_TAB")
    session.send_keys("Enter")
    session.wait_for(f"tab={first}")


def test_client_errors_for_unset_and_stale_tabs(laura_session: Make) -> None:
    session = laura_session()
    env = session.client_env(None)
    import subprocess

    from tests.laura.tmux import LAURA

    del env["LAURA_TAB"]
    unset = subprocess.run([LAURA, "layout"], env=env, capture_output=True, text=True, timeout=30)
    assert unset.returncode == 1
    assert "not inside a Laura tab (LAURA_TAB unset)" in unset.stderr
    stale_name = f"laura-{session.laura_pid}-deadbeef-0"
    stale = session.cli("layout", tab=stale_name)
    assert stale.returncode == 1 and "cannot reach the Laura tab" in stale.stderr
    with pytest.raises(ConnectionRefusedError):
        send_frame(stale_name, b'{"type":"layout"}\n')
    usage = session.cli("open")
    assert usage.returncode == 2
    version = session.cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("laura ")
    assert "open" in session.cli("--help").stdout
