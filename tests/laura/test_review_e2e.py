"""The inline review end to end: the real `laura` in tmux hosting a recorder
child (it appends every byte it reads to a file), driven by keys and by the
real CLI as an agent would."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from laura.review.prompt import NOT_READY, OPEN_WARNING
from tests.laura.tmux import LAURA, RECORDER, LauraSession, wait_until

pytestmark = pytest.mark.tmux

Make = Callable[..., LauraSession]
PASTE_OPEN = b"\x1b[200~"
PASTE_END = b"\x1b[201~\r"


def recorded(tmp_path: Path, laura_session: Make) -> tuple[LauraSession, Path]:
    """A laura hosting the recorder; returns the session and the byte log."""
    out = tmp_path / "received.bin"
    session = laura_session(command=[sys.executable, RECORDER, str(out)])
    session.wait_for("READY")
    wait_until(out.exists)
    return session, out


def write_file(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def escape(session: LauraSession) -> None:
    """Esc out of a prompt, and wait for it: an Esc followed at once by a key
    would read as Alt+key."""
    session.send_keys("Escape")
    session.wait_for(lambda text: "comment L" not in session.footer())


def received_review(out: Path) -> bytes:
    return bytes(wait_until(lambda: (data := out.read_bytes()).endswith(PASTE_END) and data))


def test_nothing_is_written_before_ready_then_one_review_arrives_byte_for_byte(
    tmp_path: Path, laura_session: Make
) -> None:
    session, out = recorded(tmp_path, laura_session)
    path = write_file(session.root / "f.txt", ["alpha", "beta", "gamma"])

    opened = session.cli("open", str(path))
    assert opened.returncode == 0
    assert OPEN_WARNING in opened.stderr
    session.wait_for("f.txt ┐")
    assert session.footer().endswith(NOT_READY)

    # Not ready: `c` and `S` only say why (in a toast above the footer).
    for key in ("c", "S"):
        session.send_keys(key)
        session.wait_for(lambda text: NOT_READY in session.screen()[-2])
        assert "comment L" not in session.footer()
        assert "review body" not in session.footer()
    assert out.read_bytes() == b""

    # Ready, an agent comment, then the person's reply and the submission.
    ready = session.cli("ready", "--agent", "claude")
    assert ready.returncode == 0, ready.stderr
    assert session.cli("comment", "2", "why beta?").returncode == 0
    session.wait_for("│ claude · why beta? │")
    session.wait_for(lambda text: "[review: 1 ↑0 ↓0]" in text)

    session.send_keys("Down", "c")
    session.wait_for(lambda text: "comment L2" in session.footer())
    session.wait_for(" comment ")
    session.type("fix this\\")
    session.send_keys("Enter")
    session.type("second line")
    session.send_keys("Enter")
    session.wait_for("└─ You · fix this")
    assert out.read_bytes() == b""

    session.send_keys("S")
    session.wait_for(lambda text: "review body" in session.footer())
    session.type("looks ok")
    session.send_keys("Enter")

    assert received_review(out) == (
        PASTE_OPEN
        + (
            f"[laura review · {path}]\n"
            "\n"
            "looks ok\n"
            "\n"
            "L2  beta\n"
            "      > [claude] why beta?\n"
            "      > fix this\n"
            "second line\n"
        ).encode()
        + PASTE_END
    )
    # Threads cleared, focus back on the shell.
    session.wait_for(lambda text: "[review:" not in text and "Ctrl+P panes" in session.footer())
    assert "why beta?" not in session.text()


def test_editing_collapsing_and_jumping_between_threads(
    tmp_path: Path, laura_session: Make
) -> None:
    session, out = recorded(tmp_path, laura_session)
    path = write_file(session.root / "g.txt", [f"line {n}" for n in range(1, 21)])
    session.cli("ready")
    session.cli("open", str(path))
    session.wait_for("g.txt ┐")
    for line in (4, 15):
        assert session.cli("comment", str(line), f"note {line}").returncode == 0
    session.wait_for("│ Agent · note 15 │")

    # n jumps to the next thread: `c` there names its line.
    session.send_keys("n", "c")
    session.wait_for(lambda text: "comment L4" in session.footer())
    escape(session)
    session.send_keys("n", "c")
    session.wait_for(lambda text: "comment L15" in session.footer())
    escape(session)
    session.send_keys("N", "N", "c")  # back past the first: wraps to the last
    session.wait_for(lambda text: "comment L15" in session.footer())
    session.type("mine")
    session.send_keys("Enter")
    session.wait_for("└─ You · mine")

    # `c` on your own newest comment edits it; an empty edit deletes it.
    session.send_keys("c")
    session.wait_for(lambda text: "Enter save (empty deletes)" in session.footer())
    session.wait_for("│mine")
    session.type(" too")
    session.send_keys("Enter")
    session.wait_for("└─ You · mine too")
    session.send_keys("c", *["BSpace"] * 8, "Enter")
    session.wait_for(lambda text: "You · mine" not in text)
    assert "│ Agent · note 15 │" in session.text()

    # r on a thread folds its card; off a thread it folds or unfolds them all.
    session.send_keys("r")
    session.wait_for("▸ 1 comment · r expands")
    assert "note 15" not in session.text()
    session.send_keys("Up", "r")
    session.wait_for(lambda text: text.count("▸ 1 comment") == 2)
    session.send_keys("r")
    session.wait_for(lambda text: "note 4" in text and "note 15" in text)
    assert out.read_bytes() == b""


def test_freeze_submit_with_banner_refresh_and_the_agents_refusals(
    tmp_path: Path, laura_session: Make
) -> None:
    session, out = recorded(tmp_path, laura_session)
    # Markdown: the three lines are one reflowed paragraph, one folded row.
    path = write_file(session.root / "h.md", ["one", "two", "three"])
    other = write_file(session.root / "other.txt", ["x"])
    session.cli("ready")
    session.cli("open", str(path))
    session.wait_for("h.md ┐")
    assert session.cli("comment", "3", "about three").returncode == 0

    # The file changes under the review: the pane keeps its snapshot.
    write_file(path, ["zero", "one", "two", "three"])
    session.wait_for(lambda text: "[review: 1 ↑0 ↓0] ⚠" in text)
    footer = session.footer()
    assert "h.md changed on disk — S submit · Ctrl+R refresh (discards the inline review)" in footer
    assert "zero" not in session.text()

    def refused(*args: str) -> str:
        result = session.cli(*args)
        assert result.returncode == 1
        return result.stderr.strip()

    assert refused("highlight", "1", "2", "--pane", "1") == (
        "Error: pane #1 is frozen — its file changed on disk while it has an unsubmitted "
        "inline review; ask the user to submit (Shift+S) or refresh (Ctrl+R)"
    )
    assert session.cli("highlight", "--off", "--pane", "1").returncode == 0
    unsubmitted = (
        "Error: pane #1 has an unsubmitted inline review — ask the user to submit (Shift+S) "
        "or refresh (Ctrl+R) first"
    )
    assert refused("close", "1") == unsubmitted
    assert refused("close", "--all") == unsubmitted
    assert refused("open", str(other), "--panel", "1") == unsubmitted
    assert "/h.md  [review: 1" in session.screen()[1]

    # Submitting from the frozen pane says the numbers are the snapshot's.
    session.send_keys("S")
    session.wait_for(lambda text: "review body" in session.footer())
    session.send_keys("Enter")
    assert received_review(out) == (
        PASTE_OPEN
        + (
            f"[laura review · {path}]\n"
            "⚠ file changed on disk since this inline review — line numbers are against the snapshot\n"
            "\n"
            "L1-3  one\n"
            "      > [agent] about three\n"
        ).encode()
        + PASTE_END
    )
    # With its threads gone the pane thaws and shows the file as it is now.
    session.wait_for("zero")
    assert "⚠" not in session.text()

    # Freeze again, then Ctrl+R discards the review and reloads.
    session.cli("focus", "1")
    assert session.cli("comment", "1", "again").returncode == 0
    write_file(path, ["brand new text"])
    session.wait_for(lambda text: "⚠" in text)
    session.send_keys("C-r")
    session.wait_for("brand new text")
    assert "again" not in session.text()
    assert session.cli("close", "1").returncode == 0
    session.wait_for(lambda text: "h.md" not in text)
    assert out.read_bytes().count(PASTE_OPEN) == 1


def test_the_persons_x_asks_before_discarding_threads(tmp_path: Path, laura_session: Make) -> None:
    session, _ = recorded(tmp_path, laura_session)
    path = write_file(session.root / "k.txt", ["a", "b"])
    session.cli("ready")
    session.cli("open", str(path))
    session.cli("comment", "1", "keep me")
    session.wait_for("keep me")
    session.send_keys("x")
    session.wait_for(lambda text: "close and discard 1 unsubmitted thread?" in session.footer())
    session.send_keys("n")
    session.wait_for(lambda text: "Ctrl+R refresh" in session.footer())
    assert "/k.txt  [review: 1" in session.screen()[1]
    session.send_keys("x")
    session.wait_for(lambda text: "close and discard" in session.footer())
    session.send_keys("y")
    session.wait_for(lambda text: "k.txt" not in text)


def test_the_journal_after_a_scripted_session(tmp_path: Path, laura_session: Make) -> None:
    session, out = recorded(tmp_path, laura_session)
    path = write_file(session.root / "j.txt", ["a", "b", "c"])
    ready = session.cli("ready", "--session", "s1", "--agent", "claude")
    journal = Path(json.loads(ready.stdout)["journal"])
    assert journal == session.root / "state" / "laura" / "sessions" / "s1.ndjson"
    session.cli("open", str(path), "--highlight", "2", "3")
    session.cli("highlight", "--off")
    session.cli("comment", "2", "hm", "--author", "reviewer")
    assert session.cli("comment", "9", "x").returncode == 1  # refused: not journaled
    session.cli("focus", "0")
    session.cli("focus", "1")
    session.cli("diff", "--off")
    session.wait_for("reviewer · hm")
    session.send_keys("S")
    session.wait_for(lambda text: "review body" in session.footer())
    session.type("done")
    session.send_keys("Enter")
    received_review(out)
    session.cli("close", "1")

    # `laura journal` runs anywhere: no LAURA_TAB in its environment.
    env = {k: v for k, v in session.env.items() if k != "LAURA_TAB"}
    result = subprocess.run(
        [LAURA, "journal", "session=s1"], env=env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in events] == [
        "ready",
        "open",
        "highlight",
        "highlight",
        "comment",
        "focus",
        "focus",
        "diff",
        "review",
        "close",
    ]
    assert all(e["session"] == "s1" and e["agent"] == "claude" for e in events)
    assert [e["ts"] for e in events] == sorted(e["ts"] for e in events)
    assert {k: events[1][k] for k in ("pane", "path")} == {"pane": 1, "path": str(path)}
    assert {k: events[2][k] for k in ("pane", "start", "end")} == {"pane": 1, "start": 2, "end": 3}
    assert events[3]["cleared"] is True
    assert {k: events[4][k] for k in ("pane", "line")} == {"pane": 1, "line": 2}
    assert [e["pane"] for e in events[5:7]] == [0, 1]
    assert events[7]["on"] is False
    assert {k: events[8][k] for k in ("path", "threads", "comments", "body")} == {
        "path": str(path),
        "threads": 1,
        "comments": 1,
        "body": "done",
    }
    assert "error" not in events[8]
    assert events[9]["pane"] == 1

    filtered = subprocess.run(
        [LAURA, "journal", "type=review", "type=close", "-n", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert [json.loads(line)["type"] for line in filtered.stdout.splitlines()] == ["close"]
    assert filtered.stderr == "showing 1 of 2 events; pass -n for more\n"
    # Every line in the file is whole JSON, flushed as it happened.
    assert len(journal.read_text().splitlines()) == len(events)


def test_a_change_on_disk_waits_while_a_comment_is_typed(
    tmp_path: Path, laura_session: Make
) -> None:
    """Draft hold: the pane is not reloaded under an open comment prompt, so
    the comment stays on the line it was typed for; when the prompt closes,
    the change reloads the pane (no threads) or freezes it (threads)."""
    session, out = recorded(tmp_path, laura_session)
    path = write_file(session.root / "f.txt", ["alpha", "beta", "gamma", "delta"])
    session.cli("ready")
    session.cli("open", str(path))
    session.wait_for("f.txt ┐")

    def content_rows() -> int:
        """The pane's rows, as a request sees them (a request polls the file
        first, so this is what the pane shows after the change was seen)."""
        [pane] = [p for p in json.loads(session.cli("layout").stdout)["panes"] if p["id"] == 1]
        return int(pane["content_rows"])

    # Esc, no threads: the held change reloads the pane once the prompt is gone.
    session.send_keys("Down", "Down", "c")
    session.wait_for(lambda text: "comment L3" in session.footer())
    session.type("never mind")
    write_file(path, ["NEW1", "NEW2", "alpha", "beta", "gamma", "delta"])
    assert content_rows() == 4
    assert "NEW1" not in session.text()
    escape(session)
    session.wait_for("NEW1")
    assert "⚠" not in session.text()

    # Gamma is L5 now: comment on it while the file changes again.
    session.send_keys("Down", "Down", "c")
    session.wait_for(lambda text: "comment L5" in session.footer())
    session.type("about gamma")
    write_file(path, ["TOP", "NEW1", "NEW2", "alpha", "beta", "gamma", "delta"])
    assert content_rows() == 6
    session.send_keys("Enter")
    # Now with a thread, the change that waited freezes the pane on its snapshot.
    session.wait_for(lambda text: "[review: 1 ↑0 ↓0] ⚠" in text)
    assert "TOP" not in session.text()
    session.send_keys("S")
    session.wait_for(lambda text: "review body" in session.footer())
    session.send_keys("Enter")
    assert received_review(out) == (
        PASTE_OPEN
        + (
            f"[laura review · {path}]\n"
            "⚠ file changed on disk since this inline review — line numbers are against the snapshot\n"
            "\n"
            "L5  gamma\n"
            "      > about gamma\n"
        ).encode()
        + PASTE_END
    )
    session.wait_for("TOP")
