"""The input editor in the real interface: multi-line, readline keys,
history, pastes (and Laura's review-style paste that submits once), @file."""

from __future__ import annotations

from pathlib import Path

from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.session_files import luxe_sessions, user_texts


def test_multiline_with_ctrl_j_and_backslash_enter(ui: StartUi, env: dict[str, str]) -> None:
    session = ui([{"text": "got it"}])
    session.type("line one")
    session.send_keys("C-j")
    session.type("line two\\")
    session.send_keys("Enter")
    session.type("line three")
    screen = session.wait_for("line three")
    assert "› line one" in screen and "  line two" in screen
    session.send_keys("Enter")
    session.wait_for("got it")
    wait_until(lambda: any("line one\nline two\nline three" in t for t in user_texts(luxe_sessions(env))))


def test_readline_keys_edit_the_draft(ui: StartUi) -> None:
    session = ui([])
    session.type("hello world")
    session.send_keys("C-a")
    session.type(">> ")
    session.send_keys("C-e")
    session.type("!")
    session.wait_editor("› >> hello world!")
    session.send_keys("C-w")
    session.wait_editor("› >> hello")
    session.send_keys("M-b")
    session.type("big ")
    session.wait_editor("› >> big hello")
    session.send_keys("C-u")  # deletes back to the start of the line: "hello" stays
    session.wait_editor("› hello")
    session.send_keys("C-k")
    session.wait_editor("›")


def test_history_up_down_and_ctrl_r_persist_per_project(ui: StartUi) -> None:
    session = ui([{"text": "one"}, {"text": "two"}])
    for prompt, answer in (("first prompt", "one"), ("second prompt", "two")):
        session.type(prompt)
        session.send_keys("Enter")
        session.wait_for(answer)
        wait_until(lambda: "working" not in session.status_line())
    session.send_keys("Up")
    session.wait_editor("› second prompt")
    session.send_keys("Up")
    session.wait_editor("› first prompt")
    session.send_keys("Down")
    session.wait_editor("› second prompt")
    session.send_keys("Down")
    session.wait_editor("›")
    session.send_keys("C-c", "C-c")
    assert session.wait_exit() == 0

    again = ui([])
    again.send_keys("C-r")
    again.type("first")
    again.wait_for("(history search) first: first prompt")
    again.send_keys("Enter")  # accept: the draft holds it, not sent
    again.wait_editor("› first prompt")


def test_review_style_paste_with_trailing_cr_submits_once_byte_for_byte(ui: StartUi, env: dict[str, str]) -> None:
    review = "Please fix these:\n- src/a.py:3 `x` is unused\n- src/b.py:9 wrong → right\n  (indented line)"
    session = ui([{"text": "fixing"}, {"text": "should never be asked"}])
    session.tmux("set-buffer", "-b", "r", review)
    session.tmux("paste-buffer", "-p", "-r", "-b", "r")
    session.send_bytes(b"\r")
    session.wait_for("fixing")
    wait_until(lambda: review in user_texts(luxe_sessions(env)))
    assert sum(1 for t in user_texts(luxe_sessions(env)) if t == review) == 1
    assert "should never be asked" not in "\n".join(session.history())


def test_large_paste_is_a_chip_sent_in_full(ui: StartUi, env: dict[str, str]) -> None:
    big = "\n".join(f"row {i:04d} of the pasted log" for i in range(240))
    session = ui([{"text": "read it all"}])
    session.tmux("set-buffer", "-b", "r", big)
    session.tmux("paste-buffer", "-p", "-r", "-b", "r")
    session.wait_for("[pasted 240 lines #1]")
    session.type(" summarise")
    session.send_keys("Enter")
    session.wait_for("read it all")
    wait_until(lambda: big + " summarise" in user_texts(luxe_sessions(env)))


def test_at_file_completes_and_attaches(ui: StartUi, env: dict[str, str], repo: Path) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("the guide body 4711\n")
    session = ui([{"text": "read the guide"}])
    session.type("look at @gui")
    session.send_keys("Tab")
    session.wait_for("look at @docs/guide.md")
    session.send_keys("Enter")
    session.wait_for("read the guide")
    wait_until(lambda: any("4711" in t for t in user_texts(luxe_sessions(env))))


def test_at_file_finds_a_file_among_many_thousands(ui: StartUi, env: dict[str, str], repo: Path) -> None:
    """Every file of a big checkout can be completed (only git's first 20,000
    could), and the listing does not run on the event loop."""
    for d in range(50):
        (repo / "a" / f"pkg{d:02d}").mkdir(parents=True)
        for n in range(500):
            (repo / "a" / f"pkg{d:02d}" / f"m{n}.py").write_text("")
    (repo / "zz").mkdir()
    (repo / "zz" / "needle_target.md").write_text("the needle 5151\n")
    session = ui([{"text": "found the needle"}])
    session.type("look at @needle_t")
    session.send_keys("Tab")
    session.wait_for("look at @zz/needle_target.md")
    session.send_keys("Enter")
    session.wait_for("found the needle")
    wait_until(lambda: any("5151" in t for t in user_texts(luxe_sessions(env))))


def test_bang_runs_a_shell_command_through_the_gate(ui: StartUi, env: dict[str, str]) -> None:
    session = ui([{"text": "I can see the listing"}])
    session.type("!echo from-the-shell-42")
    session.send_keys("Enter")
    session.wait_for("y once")
    session.send_keys("y")
    session.wait_for(lambda s: "✓ bash echo from-the-shell-42" in s)
    session.type("what did it say?")
    session.send_keys("Enter")
    session.wait_for("I can see the listing")
    wait_until(lambda: any("from-the-shell-42" in t for t in user_texts(luxe_sessions(env))))


def test_a_megabyte_paste_arrives_byte_for_byte(ui: StartUi, env: dict[str, str]) -> None:
    line = "0123456789abcdef" * 4 + " ünïcödé ✓\n"
    big = (line * (1_048_576 // len(line.encode())))[:-1]
    session = ui([{"text": "got the megabyte"}])
    source = session.root / "big.txt"
    source.write_text(big)
    session.tmux("load-buffer", "-b", "m", str(source))
    session.tmux("paste-buffer", "-p", "-r", "-b", "m")
    session.wait_for(f"[pasted {big.count(chr(10)) + 1} lines #1]", timeout=60)
    session.send_keys("Enter")
    session.wait_for("got the megabyte", timeout=60)
    wait_until(lambda: big in user_texts(luxe_sessions(env)), 30)


def test_at_completion_chooses_among_candidates(ui: StartUi, env: dict[str, str], repo: Path) -> None:
    for name in ("alpha_notes.md", "alpha_plan.md"):
        (repo / name).write_text(f"body of {name} 31337\n")
    session = ui([{"text": "read the plan"}])
    session.type("see @alpha")
    session.send_keys("Tab")
    session.wait_for("@alpha_notes.md")  # the shorter name is listed first
    session.send_keys("Down", "Enter")
    session.wait_editor("› see @alpha_notes.md")
    session.send_keys("Enter")
    session.wait_for("read the plan")
    wait_until(lambda: any("body of alpha_notes.md" in t for t in user_texts(luxe_sessions(env))))


def test_file_names_and_a_branch_cannot_write_to_the_terminal(ui: StartUi, repo: Path) -> None:
    # A repository's file names go through @ completion, its branch into
    # the status line: escape codes in them are shown, never obeyed.
    from tests.helpers.gitrepo import git

    git(repo, "checkout", "-q", "-b", "topic\u009b2J")  # git refuses C0, not C1
    names = [
        "see\x1b]2;owned-bel\x07a.md",  # the terminal's title, BEL-terminated
        "see\x1b]2;owned-st\x1b\\b.md",  # the same, ST-terminated
        "see\x1b[2J\x1b[Hwiped-c.md",  # clear the screen, cursor home
        "see\rcovered-d.md",  # overwrite the row from its start
    ]
    for name in names:
        (repo / name).write_text("x\n")
    session = ui()
    title = session.tmux("display", "-p", "#{pane_title}").strip()
    session.wait_for("⎇ topic\ufffd2J")
    session.type("@see")
    session.send_keys("Tab")
    screen = session.wait_for("covered-d.md")
    for shown in ("see\ufffd]2;owned-bel\ufffda.md", "see\ufffd]2;owned-st\ufffd\\b.md",
                  "see\ufffd[2J\ufffd[Hwiped-c.md", "see\ufffdcovered-d.md"):
        assert shown in screen, screen
    assert session.tmux("display", "-p", "#{pane_title}").strip() == title
    assert "⎇ topic\ufffd2J" in session.status_line()
