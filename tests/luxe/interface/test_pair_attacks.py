"""Where Laura and Luxe meet, attacked: the real `laura` in tmux hosts the
real `luxe` interface (the loopback model server answers), and what a person
would see, or what is left running, is asserted.

- A stop signal to Laura (SIGHUP, SIGTERM, SIGINT, or its tmux pane
  closed) while a tool of Luxe's outlives SIGTERM (ignores it, sleeps in
  its trap, or has a child in a session of its own): Luxe ends its tools'
  groups with a grace of its own, which Laura must let it have; no process
  of either survives.
- Luxe ran in a shell tab, sent `ready`, and was left (exited, suspended):
  a review is never typed into the shell that took its place.
- Guided Review of a change to a secret file: Luxe never opens the secret
  file in a Laura pane.
- A review quoting a line that holds a secret file's value: the model gets
  it redacted, as it gets the file's read (also a value in the person's own
  comment, one only git's history knows, one in the file a `.env` symlink
  points to, one spanning two quoted lines).
- Ctrl+Z in a luxe that no shell started (or started under `setsid`): it
  never stops for good; in one a shell ran behind a wrapper (`sh -c`): the
  job stops, and `fg` resumes it.
- A review submitted over a draft: sent on its own, never part of the
  draft (after `!`, a shell command), whether the draft has two lines, the
  cursor mid-line, or the agent is working (the review waits in the queue).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.gitrepo import git
from tests.helpers.procs import alive, processes
from tests.laura.tmux import LauraSession
from tests.luxe.in_laura import comment, file_panes, last_user_text, start
from tests.luxe.rpc_driver import call, make_repo, provider_env, wait_until

pytestmark = pytest.mark.tmux


def submit_review(laura: LauraSession, pane: int, line: int, text: str) -> None:
    """Comment `text` on `line` of file pane `pane` and submit the review
    with an empty body, as a person does (c, the comment, S, Enter)."""
    laura.wait_footer("c comment")
    comment(laura, pane, line, text)
    laura.send_keys("S")
    laura.wait_footer("review body")
    laura.send_keys("Enter")


def carrying(marker: str) -> list[int]:
    """Living processes whose command line holds `marker`."""
    return [p.pid for p in processes() if p.alive and marker in p.cmdline()]


# A tool that outlives SIGTERM, each in its own way; {armed} is touched once
# it does, {marker} is on the command line of what must not survive.
IGNORES_TERM = "trap '' TERM HUP; touch {armed}; sleep 1000 && echo {marker}"
PYTHON_IGNORES_TERM = (
    "{python} -c 'import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
    " open(sys.argv[1], \"w\"); time.sleep(1000)' {armed} {marker}"
)
# Its trap runs on TERM but sleeps: the shell never gets to end.
SLEEPS_IN_ITS_TRAP = "trap 'sleep 1000' TERM HUP; touch {armed}; sleep 1000 & wait; echo {marker}"
# Its child leaves the group and the session (setsid): out of reach of the
# signals to the tool's group, Luxe finds it by the call's token, once the
# group's grace is over.
LEAVES_THE_SESSION = (
    "setsid sh -c 'sleep 1000; :' {marker} & trap '' TERM HUP INT; touch {armed}; wait"
)


@pytest.mark.parametrize(
    ("stop", "command"),
    [
        (signal.SIGHUP, IGNORES_TERM),
        (signal.SIGTERM, PYTHON_IGNORES_TERM),
        (signal.SIGINT, LEAVES_THE_SESSION),
        ("pane closed", SLEEPS_IN_ITS_TRAP),
    ],
    ids=["sighup-shell", "sigterm-python", "sigint-setsid-child", "pane-closed-trap-sleeps"],
)
def test_a_stop_signal_to_laura_leaves_no_tool_of_luxe_running(
    tmp_path: Path, stop: int | str, command: str
) -> None:
    """Laura is stopped (a signal, or its terminal gone: the tmux pane it
    runs in is closed) while a tool of Luxe's outlives SIGTERM. Laura gives
    Luxe time to end the tool's group (and what left it) before SIGKILL."""
    marker = f"pair-{os.getpid()}-{stop}".replace(" ", "-")
    armed = tmp_path / "armed"  # the tool ignores SIGTERM from now on
    script = command.format(marker=marker, python=sys.executable, armed=armed)
    repo = make_repo(tmp_path / "repo", {"main.py": "x\n"})
    steps = [{"tool_calls": [call("bash", command=script)]}, {"text": "done"}]
    with FakeLLMServer(steps) as server:
        # Nothing compiled ahead (a first run, or a busy machine): Luxe's
        # own clean-up takes a moment longer, as it may.
        cold = {"PYTHONPYCACHEPREFIX": str(tmp_path / "pyc"), "PYTHONDONTWRITEBYTECODE": "1"}
        laura = start(tmp_path, repo, server, "--yolo", env=cold)
        try:
            laura.type("run it")
            laura.send_keys("Enter")
            wait_until(armed.exists, what="the tool running, ignoring SIGTERM")
            pid = laura.laura_pid
            if isinstance(stop, str):
                # tmux hangs up the pane's terminal and sends its group SIGHUP:
                # Laura's own terminal is gone while it closes its tabs.
                laura.tmux("kill-pane")
                wait_until(lambda: not alive(pid), what="laura gone with its pane")
            else:
                os.kill(pid, stop)
                assert laura.wait_exit() == 128 + stop
            # Laura has exited: whatever is left now was left for good.
            left = carrying(marker)
            assert left == [], f"still running after laura exited: {left}"
        finally:
            for survivor in carrying(marker):
                os.kill(survivor, signal.SIGKILL)
            laura.close()


@pytest.mark.parametrize("leave", ["exit", "suspend"])
@pytest.mark.parametrize(
    ("line", "remark"),
    [("x = $(touch {pwned})", "looks fine"), ("x = 2", "main.py is fine")],
    ids=["substitution-in-the-file", "redirect-in-the-comment"],
)
def test_a_review_is_never_typed_into_the_shell_once_luxe_has_left(
    tmp_path: Path, leave: str, line: str, remark: str
) -> None:
    """Luxe in a shell tab sent `ready`; the person leaves it (Ctrl+D or
    Ctrl+Z) and the shell is in the foreground again. A review submitted now
    would be typed into the shell, which runs each line: `$(…)` in the file's
    line runs, a comment `> main.py is fine` truncates main.py."""
    pwned = tmp_path / "PWNED"
    text = f"a = 1\n{line.format(pwned=pwned)}\n"
    repo = make_repo(tmp_path / "repo", {"main.py": text})
    with FakeLLMServer([]) as server:
        env = {
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "test-key",
            "LUXE_MODEL": "anthropic/claude-sonnet-4-5",
        }
        laura = LauraSession(tmp_path / "laura", width=160, height=40, env=env)
        laura.start()
        try:
            laura.wait_for("$ ")
            laura.type(f"cd '{repo}' && {sys.executable} -m luxe")
            laura.send_keys("Enter")
            laura.wait_for("›")
            assert laura.cli("open", str(repo / "main.py")).returncode == 0
            laura.wait_footer("c comment")  # luxe said `ready`
            assert laura.cli("focus", "0").returncode == 0
            if leave == "exit":
                laura.send_keys("C-d")
                laura.wait_for(lambda screen: "ctx " not in screen)  # its dock is gone
            else:
                laura.send_keys("C-z")
                laura.wait_for("Stopped")
            (pane,) = (p["id"] for p in file_panes(laura))
            assert laura.cli("focus", str(pane)).returncode == 0
            comment(laura, pane, 2, remark)
            laura.send_keys("S")
            laura.wait_for(lambda s: "not the agent that ran" in s or "review body" in laura.footer())
            if "review body" in laura.footer():
                laura.send_keys("Enter")  # no refusal at S: submit, as a person would
            screen = laura.wait_for(lambda s: "not the agent that ran" in s or "laura review" in s)
            assert "[laura review" not in screen, "the review was typed into the shell"
            assert "not the agent that ran" in screen
            assert not pwned.exists()
            assert (repo / "main.py").read_text() == text
        finally:
            laura.close()


SECRET_VALUE = "TOKEN=s3cr3t-value-123\n"


def _changed_secret(repo: Path, spelling: str) -> None:
    """A change to a secret file, reached as `spelling` names it: by its own
    name, as a key file, through a tracked symlink, or as a hard link under
    a name that says nothing (the `.env` beside it is ignored, untracked)."""
    if spelling in (".env", "deploy/server.key"):
        (repo / spelling).parent.mkdir(parents=True, exist_ok=True)
        (repo / spelling).write_text(SECRET_VALUE)
        commit_all(repo)
        (repo / spelling).write_text(SECRET_VALUE + "OTHER=an0ther-s3cr3t-456\n")
        return
    (repo / ".gitignore").write_text(".env\n")
    (repo / ".env").write_text(SECRET_VALUE)
    if spelling == "symlink":
        (repo / "a_settings.txt").symlink_to(".env")
        commit_all(repo)
        (repo / "a_settings.txt").unlink()
        (repo / "a_settings.txt").symlink_to("./.env")  # the link changes; its target is the .env
    else:  # a hard link
        os.link(repo / ".env", repo / "a_notes.txt")
        commit_all(repo)
        (repo / ".env").write_text(SECRET_VALUE + "OTHER=an0ther-s3cr3t-456\n")


def commit_all(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change")


@pytest.mark.parametrize("spelling", [".env", "deploy/server.key", "symlink", "hard link"])
def test_guided_review_never_opens_a_secret_file_beside_luxe(tmp_path: Path, spelling: str) -> None:
    """A change to a secret file: Luxe's review hides its hunks, and must
    not then open the file in full in a Laura pane, where the person sees
    it and a comment on it would quote its line to the model. The chapter
    after it (a test file's: tests come last) does open, so the secret's
    chance came first."""
    repo = make_repo(tmp_path / "repo", {"tests/test_main.py": "x\n"})
    _changed_secret(repo, spelling)
    (repo / "tests" / "test_main.py").write_text("x = 1\n")
    with FakeLLMServer([{"text": "no chapters today"}]) as server:
        laura = start(tmp_path, repo, server)
        try:
            laura.type("/review")
            laura.send_keys("Enter")
            laura.wait_for("its contents are not shown")
            laura.type("/review next")
            laura.send_keys("Enter")
            wait_until(lambda: file_panes(laura), what="the test file's chapter beside luxe")
            assert [p["path"].endswith("test_main.py") for p in file_panes(laura)] == [True]
            assert "s3cr3t" not in laura.text()
        finally:
            laura.close()


@pytest.mark.parametrize(
    ("secrets", "line"),
    [
        (".env", "TOKEN=s3cr3t-value-123\n"),
        (".env.local", 'export API_KEY="s3cr3t-value-123"  # rotate\n'),
    ],
    ids=["env", "env-local-exported"],
)
def test_a_review_quoting_a_line_that_holds_a_secret_value_reaches_the_model_redacted(
    tmp_path: Path, secrets: str, line: str
) -> None:
    """The model shows main.py, whose line 2 holds a secret file's value
    (Luxe's read of it says [REDACTED:…]); the person comments on that line
    and submits. The review quotes the line: it must reach the model
    redacted, as the read did."""
    main = "a = 1\nurl = 'https://me:s3cr3t-value-123@example.com'\n"
    repo = make_repo(tmp_path / "repo", {"main.py": main, secrets: line})
    steps = [
        {"tool_calls": [call("show", path="main.py", start=2)]},
        {"text": "Shown."},
        {"text": "Thanks for the review."},
    ]
    with FakeLLMServer(steps) as server:
        laura = start(tmp_path, repo, server)
        try:
            laura.type("show me main.py")
            laura.send_keys("Enter")
            laura.wait_for("Shown.")
            (pane,) = wait_until(lambda: file_panes(laura), what="the shown file")
            assert laura.cli("focus", str(pane["id"])).returncode == 0
            submit_review(laura, pane["id"], 2, "rotate this")
            laura.wait_for("Thanks for the review.")
            review = last_user_text(server.bodies[2])
            assert review.startswith("[laura review · ")
            assert "> rotate this" in review
            assert "s3cr3t-value-123" not in json.dumps(server.bodies[2])
            assert "url = 'https://me:[REDACTED:" in review
        finally:
            laura.close()


def _review_carrying_a_value(repo: Path, spelling: str) -> tuple[str, list[tuple[int, str]], list[str]]:
    """Set up `repo` for a review that carries a secret value by `spelling`:
    (the file the person opens in Laura, their comments as (line, text),
    the values that must not reach the model)."""
    if spelling == "in-the-comment":  # the person pastes the value themselves
        (repo / ".env").write_text("TOKEN=s3cr3t-value-123\n")
        (repo / "main.py").write_text("a = 1\ntoken = os.environ['TOKEN']\n")
        return "main.py", [(2, "locally it is s3cr3t-value-123, rotate it")], ["s3cr3t-value-123"]
    if spelling == "only-in-git-history":  # a .env once committed, since removed
        (repo / ".env").write_text("TOKEN=h1st0ry-value-456\n")
        commit_all(repo)
        git(repo, "rm", "-q", ".env")
        (repo / "main.py").write_text("a = 1\nTOKEN = 'h1st0ry-value-456'\n")
        commit_all(repo)
        return "main.py", [(2, "rotate this")], ["h1st0ry-value-456"]
    if spelling == "env-is-a-symlink":  # .env links to a plainly named file, opened by that name
        (repo / "config").mkdir()
        (repo / "config" / "values.txt").write_text("# local\nTOKEN=l1nk3d-value-789\n")
        (repo / ".env").symlink_to("config/values.txt")
        commit_all(repo)
        return "config/values.txt", [(2, "rotate this")], ["l1nk3d-value-789"]
    # A quoted value spanning two lines (each line of it is a value), both
    # lines quoted in one review beside another file's value.
    (repo / ".env").write_text('CERT="first-half-AAAA111\nsecond-half-BBBB222"\n')
    (repo / ".env.local").write_text("OTHER=an0ther-value-333\n")
    (repo / "main.py").write_text('CERT = """first-half-AAAA111\nsecond-half-BBBB222"""  # an0ther-value-333\n')
    commit_all(repo)
    return (
        "main.py",
        [(1, "inline cert"), (2, "and here")],
        ["first-half-AAAA111", "second-half-BBBB222", "an0ther-value-333"],
    )


@pytest.mark.parametrize(
    "spelling", ["in-the-comment", "only-in-git-history", "env-is-a-symlink", "over-two-lines"]
)
def test_a_review_carrying_a_secret_value_otherwise_reaches_the_model_redacted(
    tmp_path: Path, spelling: str
) -> None:
    """The same guarantee, the value reaching the review by other ways: in
    the person's own comment, in a quoted line when only git's history knows
    it, in a line of the file a `.env` symlink points to (opened under its
    plain name), and a multi-line value quoted over two lines, beside a
    value of another file. The person opens the file in Laura, comments and
    submits; nothing of a value reaches the model."""
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    path, comments, values = _review_carrying_a_value(repo, spelling)
    with FakeLLMServer([{"text": "Thanks for the review."}]) as server:
        laura = start(tmp_path, repo, server)
        try:
            assert laura.cli("open", str(repo / path)).returncode == 0
            (pane,) = (p["id"] for p in file_panes(laura))
            laura.wait_footer("c comment")
            for line, text in comments:
                comment(laura, pane, line, text)
            laura.send_keys("S")
            laura.wait_footer("review body")
            laura.send_keys("Enter")
            laura.wait_for("Thanks for the review.")
            review = last_user_text(server.bodies[0])
            assert review.startswith("[laura review · ")
            sent = json.dumps(server.bodies[0])
            assert [v for v in values if v in sent] == []
            assert "[REDACTED:" in review
        finally:
            laura.close()


def _luxe_from_the_tabs_shell(tmp_path: Path, server: FakeLLMServer, command: str) -> LauraSession:
    """Laura's tab runs its shell, a job-control one; the person types
    `command` there (`{luxe}` is the luxe command line) and luxe starts."""
    laura = LauraSession(tmp_path / "laura", width=200, height=50, env=provider_env(server, "anthropic"))
    laura.start()
    laura.wait_for("$ ")
    laura.type(command.format(luxe=f"{sys.executable} -m luxe"))
    laura.send_keys("Enter")
    laura.wait_for("›")
    return laura


@pytest.mark.parametrize("how", ["exec", "child-of-sh", "setsid-from-a-shell"])
def test_ctrl_z_never_freezes_a_luxe_no_shell_can_resume(tmp_path: Path, how: str) -> None:
    """Laura runs luxe as its tab's program (as `laura --agent` does): no
    job-control shell is above it, so a stopped luxe would stay stopped,
    the tab frozen for good. Ctrl+Z says so instead, and luxe answers. So
    too for a luxe the tab's shell started under `setsid`: in a session of
    its own, no shell's job."""
    repo = make_repo(tmp_path / "repo", {"main.py": "x\n"})
    with FakeLLMServer([{"text": "hello back"}]) as server:
        if how == "exec":
            laura = start(tmp_path, repo, server)
        elif how == "setsid-from-a-shell":
            laura = _luxe_from_the_tabs_shell(tmp_path, server, f"cd '{repo}' && setsid -w {{luxe}}")
        else:  # a wrapper that runs luxe as its child, in its own group
            luxe = f"cd '{repo}' && {sys.executable} -m luxe; exit"
            laura = LauraSession(
                tmp_path / "laura", command=["sh", "-c", luxe], width=200, height=50,
                env=provider_env(server, "anthropic"),
            )  # fmt: skip
            laura.start()
            laura.wait_for("›")
        try:
            laura.send_keys("C-z")
            laura.type("hi there")
            laura.send_keys("Enter")
            screen = laura.wait_for("hello back")
            assert "no shell started luxe here" in screen
        finally:
            laura.close()


def test_ctrl_z_stops_the_job_of_a_luxe_behind_a_wrapper_and_fg_resumes_it(tmp_path: Path) -> None:
    """The tab's shell runs luxe as a job behind a wrapper that stays its
    parent (`sh -c 'luxe; …'`, as `make` or a launcher script do): a shell
    can `fg` it, so Ctrl+Z stops it. Luxe stopped only itself, the wrapper
    kept waiting for it, and the shell for the wrapper: the tab froze. The
    job stops, the shell is back (`Stopped`), and `fg` brings luxe back."""
    repo = make_repo(tmp_path / "repo", {"main.py": "x\n"})
    with FakeLLMServer([{"text": "hello back"}]) as server:
        command = f"cd '{repo}' && sh -c '{{luxe}}; echo luxe-ended'"
        laura = _luxe_from_the_tabs_shell(tmp_path, server, command)
        try:
            laura.send_keys("C-z")
            laura.wait_for("Stopped")
            laura.type("fg")
            laura.send_keys("Enter")
            laura.wait_for(lambda screen: "›" in screen.split("$ fg", 1)[-1])  # luxe is back
            laura.type("hi there")
            laura.send_keys("Enter")
            screen = laura.wait_for("hello back")
            assert "no shell started luxe here" not in screen
        finally:
            laura.close()


def test_a_laura_ready_typed_at_the_prompt_still_lets_the_agent_started_next_read_reviews(
    tmp_path: Path,
) -> None:
    """The footer's own advice: the person types `laura ready` at the shell
    prompt, then starts the agent (here `cat`, which keeps what it reads):
    the review reaches the agent, though `ready` came from another job."""
    repo = make_repo(tmp_path / "repo", {"main.py": "a = 1\nb = 2\n"})
    got = tmp_path / "agent-read.txt"
    laura = LauraSession(tmp_path / "laura", width=160, height=40)
    laura.start()
    try:
        laura.wait_for("$ ")
        laura.type(f"cd '{repo}' && laura ready && cat > '{got}'")
        laura.send_keys("Enter")
        wait_until(got.exists, what="the agent reading")
        assert laura.cli("open", str(repo / "main.py")).returncode == 0
        (pane,) = (p["id"] for p in file_panes(laura))
        submit_review(laura, pane, 2, "why two?")
        wait_until(lambda: "> why two?" in got.read_text(), what="the review read by the agent")
    finally:
        laura.close()


# A draft the person left, as keys (literal text, or tmux key names in
# brackets), and what the editor shows of it once it is back.
DRAFTS = {
    "bang": (["!"], ["! !"]),
    "bang-and-command": (["! echo hi && "], ["! ! echo hi &&"]),
    # Two lines (`\` then Enter): the review went in at the cursor, on the
    # second.
    "multi-line": (["! echo one \\", "[Enter]", "echo two"], ["! ! echo one", "echo two"]),
    # The cursor in the middle: the review went in there, between `!` and
    # the command; once back, what is typed next lands where it was.
    "cursor-in-the-middle": (["! echo hi", "[Left]", "[Left]"], ["! ! echo Xhi"]),
}


def _leave_a_draft(laura: LauraSession, keys: list[str]) -> None:
    for key in keys:
        if key.startswith("[") and key.endswith("]"):
            laura.send_keys(key[1:-1])
        else:
            laura.type(key)


@pytest.mark.parametrize("draft", [*DRAFTS, "while-the-agent-works"])
def test_a_review_over_a_draft_is_sent_on_its_own_and_never_runs_as_a_command(
    tmp_path: Path, draft: str
) -> None:
    """The person left a draft starting with `!` (run a command) and
    submits a review in Laura. Typed into the draft, the review became the
    command: yolo ran its lines (`touch` in a file's line, and `> why` made
    a file). The review goes out on its own; the draft is back, whole (two
    lines, the cursor where it was). While the agent works, a `!` draft sent
    is queued and runs when the turn ends: the review is queued on its own."""
    pwned = tmp_path / "PWNED"
    go = tmp_path / "go"
    repo = make_repo(tmp_path / "repo", {"main.py": f"a = 1\nx = 2; touch {pwned}\n"})
    busy = draft == "while-the-agent-works"
    keys, shown = DRAFTS["bang-and-command" if busy else draft]
    # While the agent works: a tool call waits for `go`; then the turn ends.
    working = [{"tool_calls": [call("bash", command=f"while [ ! -e {go} ]; do sleep 0.05; done")]}]
    steps = [*working, {"text": "Worked."}] if busy else []
    with FakeLLMServer([*steps, {"text": "Thanks for the review."}]) as server:
        laura = start(tmp_path, repo, server, "--yolo")
        try:
            if busy:
                laura.type("work")
                laura.send_keys("Enter")
                wait_until(lambda: len(server.bodies) == 1, what="the agent working")
            _leave_a_draft(laura, keys)
            assert laura.cli("open", str(repo / "main.py")).returncode == 0
            (pane,) = (p["id"] for p in file_panes(laura))
            submit_review(laura, pane, 2, "why two")
            if busy:
                assert laura.cli("focus", "0").returncode == 0
                laura.wait_for("queued 1: ")  # the review, or (before) the draft it joined
                go.touch()
            screen = laura.wait_for(lambda s: "Thanks for the review." in s or pwned.exists())
            assert "Thanks for the review." in screen
            assert last_user_text(server.bodies[-1]).startswith("[laura review · ")
            assert laura.cli("focus", "0").returncode == 0
            if draft == "cursor-in-the-middle":
                laura.type("X")
            for line in shown:
                laura.wait_for(line)  # the draft is back (a `!` line)
            assert not pwned.exists()
            assert not (repo / "why").exists()
        finally:
            laura.close()
