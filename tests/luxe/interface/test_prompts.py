"""Permission prompts (y / a / n with a note), the question picker and the
Shift+Tab mode cycle, in the real interface."""

from __future__ import annotations

from pathlib import Path

from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.session_files import luxe_sessions


def _tool_results(env: dict[str, str]) -> str:
    return "\n".join(p.read_text() for p in luxe_sessions(env).rglob("*.jsonl"))


def _bash(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "bash", "args": {"command": command}}]}


def test_y_runs_once_and_a_allows_for_the_session(ui: StartUi, repo: Path) -> None:
    session = ui([_bash("echo one > one.txt"), {"text": "did one"},
                  _bash("echo two > two.txt"), {"text": "did two"},
                  _bash("echo two > two.txt"), {"text": "again, unasked"}])
    session.type("first")
    session.send_keys("Enter")
    screen = session.wait_for("y once")
    assert "a always (this exact command, this session)" in screen and "n reject" in screen
    session.send_keys("y")
    session.wait_for("did one")
    assert (repo / "one.txt").read_text() == "one\n"
    session.type("second")
    session.send_keys("Enter")
    session.wait_for("y once")
    session.send_keys("a")
    session.wait_for("did two")
    session.type("third")
    session.send_keys("Enter")
    session.wait_for("again, unasked")
    assert session.text().count("allowed for this session") == 1


def test_prompts_waiting_behind_the_first_are_counted_at_80_columns(ui: StartUi, repo: Path) -> None:
    three = {"tool_calls": [{"name": "bash", "args": {"command": f"echo {n} > {n}.txt"}} for n in ("a", "b", "c")]}
    session = ui([three, {"text": "all three ran"}], width=80)
    session.type("go")
    session.send_keys("Enter")
    session.wait_for("bash wants to run  (+2 waiting)")
    session.send_keys("y")
    session.wait_for("bash wants to run  (+1 waiting)")
    session.send_keys("y")
    session.wait_for(lambda text: "waiting)" not in text and "y once" in text)
    session.send_keys("y")
    session.wait_for("all three ran")
    assert sorted(p.name for p in repo.glob("?.txt")) == ["a.txt", "b.txt", "c.txt"]


def test_n_rejects_with_a_note_to_the_model(ui: StartUi, env: dict[str, str], repo: Path) -> None:
    session = ui([_bash("rm -rf build"), {"text": "understood"}])
    session.type("clean up")
    session.send_keys("Enter")
    session.wait_for("y once")
    session.send_keys("n")
    session.wait_for("rejecting: type what the agent should do instead")
    session.type("use make clean instead")
    session.send_keys("Enter")
    session.wait_for("understood")
    assert "rejected" in session.text()
    wait_until(lambda: "use make clean instead" in _tool_results(env))


def test_question_picker_arrow_choice_and_free_text(ui: StartUi, env: dict[str, str]) -> None:
    ask = {"tool_calls": [{"name": "question", "args": {"question": "Which colour?", "options": ["red", "green"]}}]}
    session = ui([ask, {"text": "green it is"}, ask, {"text": "custom noted"}])
    session.type("choose")
    session.send_keys("Enter")
    session.wait_for("Which colour?")
    session.send_keys("Down", "Enter")
    session.wait_for("green it is")
    assert "→ green" in session.text()
    session.type("again")
    session.send_keys("Enter")
    session.wait_for("1. red")
    session.type("teal, please")
    session.send_keys("Enter")
    session.wait_for("custom noted")
    wait_until(lambda: "teal, please" in _tool_results(env))


def test_a_question_of_several_lines_keeps_the_screen_in_place(ui: StartUi) -> None:
    # A newline drawn inside a row moved the cursor under the region's count
    # of its rows: each redraw then left pieces of the picker behind.
    ask = {"tool_calls": [{"name": "question", "args": {
        "question": "Which one?\nFirst line of detail.\nSecond line of detail.\nThird.",
        "options": ["alpha\nbeta", "gamma"]}}]}
    session = ui([ask, {"text": "gamma it is"}], width=60, height=20)
    session.type("choose")
    session.send_keys("Enter")
    session.wait_for("Third.")
    spinner = session.status_line()[:1]
    wait_until(lambda: session.status_line()[:1] not in ("", spinner))  # drawn again since
    picker = [row.rstrip() for row in session.rows() if row.strip()]
    start = picker.index("? Which one?")
    assert picker[start:start + 8] == [
        "? Which one?", "  First line of detail.", "  Second line of detail.", "  Third.",
        "  1. alpha ⏎ beta", "  2. gamma", "  3. Other (type an answer, Enter sends)",
        "  ↑↓ or 1-9 choose · Enter answers · Esc dismisses",
    ], session.text()
    session.send_keys("Down", "Enter")
    session.wait_for("gamma it is")
    assert "→ gamma" in session.text()
    assert session.text().count("First line of detail.") <= 1, session.text()


def test_shift_tab_cycles_modes_and_plan_is_enforced_by_the_engine(ui: StartUi, repo: Path) -> None:
    write = {"tool_calls": [{"name": "write", "args": {"path": "plan.txt", "content": "x"}}]}
    session = ui([write, {"text": "could not write"}])
    assert session.status_line().startswith("ask")
    session.send_keys("BTab")
    wait_until(lambda: session.status_line().startswith("accept edits"))
    session.send_keys("BTab")
    wait_until(lambda: session.status_line().startswith("plan"))
    session.type("write the plan file")
    session.send_keys("Enter")
    session.wait_for("could not write")
    assert not (repo / "plan.txt").exists()
    assert "y once" not in session.text()  # refused by the engine, never asked
    session.send_keys("BTab")
    wait_until(lambda: session.status_line().startswith("ask"))




def test_esc_rejects_without_a_note(ui: StartUi, repo: Path) -> None:
    session = ui([_bash("touch nope.txt"), {"text": "not run"}])
    session.type("try")
    session.send_keys("Enter")
    session.wait_for("y once")
    session.send_keys("Escape")
    session.wait_for("not run")
    assert "rejected: bash" in session.text()
    assert not (repo / "nope.txt").exists()


LONG = "".join(f"line {n}\n" for n in range(1, 61))


def test_a_write_or_edit_prompt_shows_the_change_to_the_file(ui: StartUi, repo: Path) -> None:
    """The file's real lines: numbers and context for an edit, what a write
    replaces; a change too long for the prompt is cut there, Ctrl+O prints
    all of it; the finished call shows the change as made."""
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "notes.md").write_text("# Notes\n\nfirst\nsecond\n")
    (repo / "long.txt").write_text(LONG)
    edit = {"name": "edit", "args": {"path": "calc.py", "old_string": "return a - b",
                                     "new_string": "return a + b"}}  # fmt: skip
    write = {"name": "write", "args": {"path": "notes.md", "content": "# Notes\n\nfirst\nthird\n"}}
    rewrite = {"name": "write", "args": {"path": "long.txt", "content": LONG.replace("line", "LINE")}}
    session = ui([{"tool_calls": [edit]}, {"tool_calls": [write]}, {"tool_calls": [rewrite]},
                  {"text": "all changed"}])  # fmt: skip
    session.type("change them")
    session.send_keys("Enter")
    screen = session.wait_for("y once")
    assert "@@ -1,2 +1,2 @@\n     def add(a, b):\n    -    return a - b\n    +    return a + b" in screen
    session.send_keys("y")
    screen = session.wait_for(lambda s: "write wants to run" in s and "y once" in s)
    # the write replaces one line of four, not the whole file
    assert "@@ -1,4 +1,4 @@\n     # Notes\n\n     first\n    -second\n    +third" in screen
    assert "+# Notes" not in screen
    session.send_keys("y")
    screen = session.wait_for(lambda s: "long.txt" in s and "y once" in s)
    assert "more diff lines · Ctrl+O prints the whole change" in screen
    assert "+LINE 60" not in screen
    session.send_keys("C-o")
    session.wait_for("+LINE 60")
    session.send_keys("y")
    session.wait_for("all changed")
    # As made (the prompts are gone): the edit's line with its indentation,
    # the write's one line, the long change cut.
    transcript = session.tmux("capture-pane", "-p", "-S", "-")
    assert "✓ edit calc.py" in transcript and "✓ write notes.md" in transcript
    assert "· edited calc.py\n    @@ -1,2 +1,2 @@\n" in transcript
    assert transcript.count("    +    return a + b") == 1
    assert transcript.count("    -second\n    +third") == 1
    assert "    … 81 more diff lines\n" in transcript


def test_plain_mode_says_the_change_a_prompt_would_make(ui: StartUi, repo: Path) -> None:
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    edit = {"name": "edit", "args": {"path": "calc.py", "old_string": "return a - b",
                                     "new_string": "return a + b"}}  # fmt: skip
    session = ui([{"tool_calls": [edit]}, {"text": "fixed"}], "--plain", wait="Type a prompt")
    session.type("fix it")
    session.send_keys("Enter")
    screen = session.wait_for("Type y to allow once")
    assert (
        "Permission Required: edit wants to run: calc.py. edit changes calc.py\n"
        "Change (4 diff lines):\n  @@ -1,2 +1,2 @@\n   def add(a, b):\n"
        "  -    return a - b\n  +    return a + b\n"
    ) in screen
    session.type("y")
    session.send_keys("Enter")
    session.wait_for("luxe: fixed")
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
