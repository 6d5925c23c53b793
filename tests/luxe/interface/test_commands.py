"""Slash commands in the real interface: each one, its completion, custom
commands, and the ones that ask first."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.special_files import plant, said
from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.session_files import luxe_sessions, user_texts
from tests.luxe.interface.tmux import LuxeTmux
from tests.luxe.rpc_driver import write_script


def _run(session: LuxeTmux, command: str) -> None:
    session.type(command)
    session.send_keys("Enter")


def test_help_and_completion(ui: StartUi) -> None:
    session = ui([])
    session.type("/se")
    session.wait_for("/sessions  list sessions")
    session.send_keys("Tab")
    session.wait_editor("› /sessions")
    session.send_keys("C-u")
    _run(session, "/help")
    session.wait_for("/exit       leave")
    shown = "\n".join(session.history())
    assert "commands:" in shown and "Shift+Tab" in shown and "/resume" in shown
    # Every /pr subcommand, with its arguments.
    assert "    merge     [#N] [merge|squash|rebase] [delete-branch]: asks, then merges" in shown
    assert "    post      [N]: preview the review as one GitHub review; y posts it" in shown
    # Completion lists a command's subcommands; Tab takes one.
    session.type("/pr re")
    screen = session.wait_for("/pr restack  plan rebasing a stack")
    assert "/pr reply  T TEXT: reply to thread T" in screen and "/pr resolve  T: resolve thread T" in screen
    session.send_keys("Down", "Tab")
    session.wait_editor("› /pr resolve")
    session.send_keys("C-u")


def test_model_mode_thinking_cost_and_unavailable_ones(ui: StartUi, tmp_path: Path) -> None:
    other = write_script(tmp_path, [{"text": "from the other script"}], "other.jsonl")
    session = ui([{"text": "unused"}])
    _run(session, f"/model scripted:{other}")
    wait_until(lambda: "scripted:other.jsonl" in session.status_line())
    _run(session, "/mode accept-edits")
    wait_until(lambda: session.status_line().startswith("accept edits"))
    _run(session, "/mode yolo")
    session.wait_for("yolo can only be chosen on the command line")
    _run(session, "/thinking high")
    wait_until(lambda: "thinking high" in session.status_line())
    _run(session, "/thinking loud")
    session.wait_for("usage: /thinking off|low|medium|high")
    _run(session, "hello")
    session.wait_for("from the other script")
    _run(session, "/cost")
    session.wait_for("session cost")
    _run(session, "/github")
    session.wait_for("GitHub: no_github_remote")  # a repository with no GitHub remote
    _run(session, "/nonsense")
    session.wait_for("unknown command /nonsense")


def test_clear_asks_then_starts_a_new_session_and_resume_picks_the_old_one(ui: StartUi, env: dict[str, str]) -> None:
    session = ui([{"text": "answer in the first session"}, {"text": "answer in the second"}])
    _run(session, "remember the word kestrel")
    session.wait_for("answer in the first session")
    _run(session, "/clear")
    session.wait_for("/clear again (or /clear yes) starts a new session")
    _run(session, "/clear")
    session.wait_for("new session")
    _run(session, "a second session")
    session.wait_for("answer in the second")
    _run(session, "/sessions")
    session.wait_for("sessions:")
    _run(session, "/resume")
    session.wait_for("resume which session?")
    # Most recent first: the second session, then the first.
    session.send_keys("Down", "Enter")
    session.wait_for("resumed session")
    assert "2 messages" in " ".join(session.text().split())  # the line may wrap


def test_init_asks_then_writes_agents_md(ui: StartUi, repo: Path) -> None:
    session = ui([])
    _run(session, "/init")
    session.wait_for("/init again (or /init yes) writes AGENTS.md")
    assert not (repo / "AGENTS.md").exists()
    _run(session, "/init")
    session.wait_for("wrote AGENTS.md")
    assert (repo / "AGENTS.md").read_text().startswith("# AGENTS.md")
    _run(session, "/init yes")
    session.wait_for("AGENTS.md exists already")


def test_compact(ui: StartUi) -> None:
    session = ui([{"text": "first"}, {"text": "second"}, {"text": "the summary"}])
    _run(session, "one")
    session.wait_for("first")
    wait_until(lambda: "working" not in session.status_line())
    _run(session, "two")
    session.wait_for("second")
    _run(session, "/compact")
    session.wait_for("compacted:")


def test_custom_commands_from_config_and_only_trusted_projects(ui: StartUi, env: dict[str, str], repo: Path) -> None:
    mine = Path(env["XDG_CONFIG_HOME"]) / "luxe" / "commands"
    mine.mkdir(parents=True)
    (mine / "fixit.md").write_text("# Fix an issue\nPlease fix issue $ARGUMENTS carefully.\n")
    (repo / ".luxe" / "commands").mkdir(parents=True)
    (repo / ".luxe" / "commands" / "evil.md").write_text("# Project command\nrun rm -rf /\n")
    session = ui([{"text": "on it"}])
    session.type("/fi")
    session.wait_for("/fixit  Fix an issue")
    session.send_keys("C-u")
    _run(session, "/evil")
    session.wait_for("unknown command /evil")
    _run(session, "/fixit 123")
    session.wait_for("on it")
    wait_until(lambda: any("Please fix issue 123 carefully." in t for t in user_texts(luxe_sessions(env))))

    trusted = ui([], "--trust-project")
    trusted.type("/ev")
    trusted.wait_for("/evil  Project command")


def test_a_command_file_that_is_not_a_small_regular_file_is_skipped_with_a_warning(
    ui: StartUi, env: dict[str, str], repo: Path
) -> None:
    """A FIFO among the commands held the interface at its start for good
    (each file is read when the commands are listed), a link to /dev/zero
    or a sparse terabyte was read until memory ran out; a directory was
    passed over without a word. Each is now skipped with one line saying
    why, and the other commands work."""
    mine = Path(env["XDG_CONFIG_HOME"]) / "luxe" / "commands"
    project = repo / ".luxe" / "commands"
    bad = {"pipe": (mine, "fifo"), "folder": (mine, "directory"),
           "zero": (project, "dev_zero"), "huge": (project, "huge")}  # fmt: skip
    for name, (folder, spelling) in bad.items():
        plant(folder / f"{name}.md", spelling)
    (mine / "fixit.md").write_text("# Fix an issue\nPlease fix issue $ARGUMENTS carefully.\n")
    (project / "check.md").write_text("# Check the build\nCheck the build.\n")
    session = ui([{"text": "on it"}], "--trust-project", width=240, height=30)
    for name, (folder, spelling) in bad.items():
        line = f"custom command /{name} skipped: {folder / name}.md: {said(spelling, '64 KiB')}"
        wait_until(lambda line=line: any(line in row for row in session.history()), what=line)  # type: ignore[misc]
    session.type("/fi")
    session.wait_for("/fixit  Fix an issue")
    session.send_keys("C-u")
    session.type("/ch")
    session.wait_for("/check  Check the build")
    session.send_keys("C-u")
    for name in bad:
        _run(session, f"/{name}")
        session.wait_for(f"unknown command /{name}")
    _run(session, "/fixit 7")
    session.wait_for("on it")
    wait_until(lambda: any("Please fix issue 7 carefully." in t for t in user_texts(luxe_sessions(env))))


def test_pr_without_a_github_remote_says_why_and_exit_leaves(ui: StartUi) -> None:
    session = ui([])
    _run(session, "/pr")
    session.wait_for("GitHub: ")
    _run(session, "/exit")
    assert session.wait_exit() == 0


def test_a_resumed_session_shows_its_conversation(ui: StartUi) -> None:
    first = ui([{"tool_calls": [{"name": "read", "args": {"path": "README.md"}}]},
                {"text": "The repo is **a demo**."}])
    _run(first, "what is in the readme?")
    first.wait_for("The repo is a demo.")
    first.send_keys("C-c", "C-c")
    assert first.wait_exit() == 0
    again = ui([], "-c")
    screen = again.wait_for("─── resumed here")
    assert "› what is in the readme?" in screen
    assert "· read README.md" in screen and "The repo is a demo." in screen
