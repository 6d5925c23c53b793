"""`luxe -p` output: the three formats, stdin as prompt and as context, no
escape bytes off a terminal, `-c` after `--rpc`, `| head -1`, `--help`."""

from __future__ import annotations

import itertools
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from luxe.protocol import EVENT_TYPES
from luxe.protocol.wire import converter
from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.policy.e2e import call
from tests.luxe.print_driver import LUXE_P, model_env, run_print
from tests.luxe.rpc_driver import LuxeProcess

RESULT_KEYS = {
    "result", "session_id", "is_error", "stop_reason", "error", "exit_code", "num_requests",
    "duration_ms", "usage", "cost_usd", "permission_denials", "files_changed",
}
ONE_TOOL = [
    {"text": "Let me look.", "tool_calls": [call("read", path="README.md")]},
    {"text": "A demo project.", "usage": {"input_tokens": 50, "output_tokens": 7}},
]


def _user_texts(body: dict) -> str:  # type: ignore[type-arg]
    """Every text block of the user messages of an Anthropic request."""
    out = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
        else:
            out += [b.get("text", "") for b in content if b.get("type") == "text"]
    return "\n".join(out)


def test_text_prints_only_the_final_answer(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer(ONE_TOOL) as server:
        done = run_print(["what is this?"], cwd=repo, env={**env, **model_env(server)})
        assert len(server.requests) == 2
    assert (done.returncode, done.stdout) == (0, b"A demo project.\n")
    # stderr is not a terminal and there is no --verbose: no activity lines.
    assert done.stderr == ""


def test_verbose_sends_tool_activity_to_stderr(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer(ONE_TOOL) as server:
        done = run_print(["what is this?", "--verbose"], cwd=repo, env={**env, **model_env(server)})
    assert (done.returncode, done.stdout) == (0, b"A demo project.\n")
    assert '· read {"path":"README.md"}' in done.stderr
    assert "done: README.md" in done.stderr


def test_json_is_one_result_object(repo: Path, env: dict[str, str]) -> None:
    steps = [
        {"tool_calls": [call("write", path="notes.txt", content="hi\n")]},
        {"text": "Wrote it.", "usage": {"input_tokens": 10, "output_tokens": 3}},
    ]
    with FakeLLMServer(steps) as server:
        done = run_print(
            ["take a note", "--output-format", "json", "--yolo"],
            cwd=repo, env={**env, **model_env(server)},
        )
    assert done.returncode == 0, done.stderr
    result = done.result()
    assert set(result) == RESULT_KEYS
    assert result["result"] == "Wrote it."
    assert (result["is_error"], result["stop_reason"], result["exit_code"]) == (False, "end_turn", 0)
    assert result["num_requests"] == 2
    assert result["usage"]["completion_tokens"] >= 3
    assert result["permission_denials"] == []
    assert result["files_changed"] == [str(repo / "notes.txt")]
    assert result["duration_ms"] > 0
    sessions = Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions"
    assert (sessions / f"{result['session_id']}.jsonl").is_file()


def test_stream_json_is_the_rpc_frames_then_a_result_frame(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer(ONE_TOOL) as server:
        streamed = run_print(
            ["what is this?", "--output-format", "stream-json"],
            cwd=repo, env={**env, **model_env(server)},
        )
    with FakeLLMServer(ONE_TOOL) as server:
        whole = run_print(
            ["what is this?", "--output-format", "json"], cwd=repo, env={**env, **model_env(server)}
        )
    assert streamed.returncode == 0, streamed.stderr
    frames = streamed.frames()
    kinds = [f["kind"] for f in frames]
    assert kinds[:3] == ["ready", "state_changed", "turn_started"]
    assert kinds[-1] == "result" and kinds.count("result") == 1
    assert kinds.index("turn_ended") < kinds.index("result")
    for f in ("tool_started", "tool_finished", "token_delta", "turn_usage"):
        assert f in kinds
    # One parser serves both: every line is a frame the protocol defines.
    for f in frames:
        event = converter.structure(f.get("content", {}), EVENT_TYPES[f["kind"]])
        assert isinstance(event, EVENT_TYPES[f["kind"]])
    result = frames[-1]["content"]
    assert set(result) == RESULT_KEYS == set(whole.result())
    assert result["result"] == whole.result()["result"] == "A demo project."
    assert result["session_id"] == frames[0]["content"]["session_id"]


def test_stdin_is_the_prompt_without_an_argument(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer([{"text": "4"}]) as server:
        done = run_print([], cwd=repo, env={**env, **model_env(server)}, stdin=b"what is 2+2?\n")
        body = server.bodies[0]
    assert (done.returncode, done.stdout) == (0, b"4\n")
    assert "what is 2+2?" in _user_texts(body)
    assert "<context>" not in _user_texts(body)


def test_piped_stdin_is_marked_context_under_the_prompt(repo: Path, env: dict[str, str]) -> None:
    diff = b"diff --git a/x b/x\n+print('hi')\n"
    with FakeLLMServer([{"text": "fine"}]) as server:
        done = run_print(["review this"], cwd=repo, env={**env, **model_env(server)}, stdin=diff)
        text = _user_texts(server.bodies[0])
    assert (done.returncode, done.stdout) == (0, b"fine\n")
    assert text.index("review this") < text.index("<context>")
    context = text[text.index("<context>") :]
    assert "stdin" in context and "+print('hi')" in context and context.rstrip().endswith("</context>")


def test_a_file_on_stdin_is_read_like_a_pipe(repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("the build broke at step 3\n")
    with FakeLLMServer([{"text": "Step 3."}]) as server, notes.open("rb") as stdin:
        done = subprocess.run(
            [*LUXE_P, "where did it break?"], cwd=repo, env={**env, **model_env(server)},
            stdin=stdin, capture_output=True, timeout=60,
        )
        text = _user_texts(server.bodies[0])
    assert (done.returncode, done.stdout) == (0, b"Step 3.\n")
    assert "<context>" in text and "the build broke at step 3" in text


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["review this"], b"x" * (1024 * 1024 + 1), "cap for piped input"),
        ([], b"y" * (1024 * 1024 + 1), "cap for piped input"),
        (["review this"], b"\x7fELF\0\0binary", "binary"),
        ([], b"  \n", "stdin was empty"),
        ([], None, "no prompt"),
    ],
)
def test_refused_input_changes_nothing(
    args: list[str], stdin: bytes | None, message: str, repo: Path, env: dict[str, str]
) -> None:
    with FakeLLMServer([{"text": "never"}]) as server:
        done = run_print(args, cwd=repo, env={**env, **model_env(server)}, stdin=stdin)
        assert server.requests == []
    assert done.returncode == 2
    assert message in done.stderr and done.stdout == b""
    assert not (Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions").exists()


HOSTILE = "Done \x1b[31mred\x1b[0m \x1b]0;title\x07 and \x9b2J.\r\nNext line"


def test_no_escape_bytes_when_stdout_is_not_a_terminal(repo: Path, env: dict[str, str]) -> None:
    steps = [
        {"tool_calls": [call("read", path="README.md")]},
        {"text": HOSTILE},
    ]
    for fmt in ("text", "json", "stream-json"):
        with FakeLLMServer(steps) as server:
            done = run_print(
                ["go", "--output-format", fmt, "--verbose"],
                cwd=repo, env={**env, **model_env(server)},
            )
        assert done.returncode == 0, done.stderr
        assert b"\x1b" not in done.stdout and b"\xc2\x9b" not in done.stdout, fmt
        assert "\x1b" not in done.stderr, fmt
    assert done.stdout  # the last run printed something
    text_run = run_print_text(steps, repo, env)
    assert text_run.startswith(b"Done \xef\xbf\xbd[31mred")
    assert b"\nNext line\n" in text_run


def run_print_text(steps: list[dict], repo: Path, env: dict[str, str]) -> bytes:  # type: ignore[type-arg]
    with FakeLLMServer(steps) as server:
        return run_print(["go"], cwd=repo, env={**env, **model_env(server)}).stdout


def test_no_escape_bytes_on_a_terminal_with_no_color(repo: Path, env: dict[str, str]) -> None:
    steps = [{"tool_calls": [call("read", path="README.md")]}, {"text": HOSTILE}]
    with FakeLLMServer(steps) as server:
        master, slave = pty.openpty()
        proc = subprocess.Popen(
            [*LUXE_P, "go"], cwd=repo, env={**env, **model_env(server), "NO_COLOR": "1"},
            stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, start_new_session=True,
        )
        os.close(slave)
        output = bytearray()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the terminal's last writer has gone
                    break
                if not chunk:
                    break
                output += chunk
        os.close(master)
        assert proc.wait(timeout=30) == 0
    assert b"\x1b" not in output
    # stderr is a terminal: the tool activity is there, and the answer.
    assert b"\xc2\xb7 read" in output and b"Next line" in output


def test_verbose_log_lines_on_stderr_and_in_the_log_hold_no_control_characters(
    repo: Path, env: dict[str, str]
) -> None:
    # AGENTS.md and LUXE.md link to secret files in directories whose names
    # are attacks: the gate leaves them out, and --verbose logs why, naming
    # where each link leads.
    for name, attack in (("AGENTS.md", "\x1b]0;pwn-bel\x07 \x9b2J"),
                         ("LUXE.md", "\x1b]2;pwn-st\x1b\\ kept\rGONE kept\x08\x08XY")):
        target = repo / f"dir {attack}"
        target.mkdir()
        (target / ".env").write_text("TOKEN=1\n")
        (repo / name).symlink_to(target / ".env")
    with FakeLLMServer([{"text": "answered"}]) as server:
        done = run_print(["go", "--verbose"], cwd=repo, env={**env, **model_env(server)})
    assert (done.returncode, done.stdout) == (0, b"answered\n"), done.stderr
    assert done.stderr.count("left out of the system prompt") == 2, done.stderr
    log = (Path(env["XDG_STATE_HOME"]) / "luxe" / "luxe.log").read_text()  # read with tail -f
    for written in (done.stderr, log):
        assert re.findall(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", written) == []
        for seen in ("\ufffd]0;pwn-bel\ufffd \ufffd2J", "\ufffd]2;pwn-st\ufffd\\",
                     "kept\ufffdGONE", "kept\ufffd\ufffdXY"):
            assert seen in written, seen


def test_continue_picks_up_a_session_made_over_rpc(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer([{"text": "Noted: the word is tangerine."}, {"text": "tangerine"}]) as server:
        run_env = {**env, **model_env(server)}
        with LuxeProcess.start([], cwd=repo, env=run_env) as luxe:
            ready = luxe.handshake()
            luxe.send("submit_user_message", {"text": "remember the word tangerine"})
            assert luxe.expect("turn_ended")["reason"] == "end_turn"
            assert luxe.close() == 0
        done = run_print(["-c", "which word?", "--output-format", "json"], cwd=repo, env=run_env)
        second = _user_texts(server.bodies[1])
    assert done.returncode == 0, done.stderr
    assert done.result()["session_id"] == ready["session_id"]
    assert done.result()["result"] == "tangerine"
    assert "remember the word tangerine" in second and "which word?" in second
    session = Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions" / f"{ready['session_id']}.jsonl"
    assert "which word?" in session.read_text()


def test_a_closed_stdout_ends_the_run_cleanly(repo: Path, env: dict[str, str]) -> None:
    # head exits after the first frame; the answer comes later, into a closed pipe.
    steps = [{"text": "late", "delay_s": 1.0}]
    with FakeLLMServer(steps) as server:
        done = subprocess.run(
            ["bash", "-c", '"$@" | head -1; echo "status=${PIPESTATUS[0]}" >&2', "sh",
             *LUXE_P, "go", "--output-format", "stream-json"],
            cwd=repo, env={**env, **model_env(server)}, capture_output=True, timeout=60,
            stdin=subprocess.DEVNULL,
        )
    assert json.loads(done.stdout)["kind"] == "ready"
    stderr = done.stderr.decode()
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
    assert "status=141" in stderr
    # A text answer longer than head wants: luxe wrote it, head kept one line.
    with FakeLLMServer([{"text": "one\ntwo\nthree"}]) as server:
        done = subprocess.run(
            ["bash", "-c", '"$@" | head -1; echo "status=${PIPESTATUS[0]}" >&2', "sh",
             *LUXE_P, "go"],
            cwd=repo, env={**env, **model_env(server)}, capture_output=True, timeout=60,
            stdin=subprocess.DEVNULL,
        )
    assert done.stdout == b"one\n"
    assert "Traceback" not in done.stderr.decode() and "status=0" in done.stderr.decode()


def test_help_lists_every_flag_on_one_line_in_groups(repo: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "luxe", "--help"], cwd=repo, env=env, capture_output=True,
        text=True, timeout=30,
    )
    assert done.returncode == 0
    groups = re.findall(r"^(\w[\w ]*):$", done.stdout, flags=re.M)
    assert groups == ["options", "session", "model", "permissions", "output"]
    flag_lines = [line for line in done.stdout.splitlines() if re.match(r"^  -", line)]
    for line in flag_lines:
        # The flag and its help share the line; no help text wraps onto the next.
        assert re.match(r"^  \S.*\S {2,}\S", line), line
    listed = {m for line in flag_lines for m in re.findall(r"--[a-z-]+", line.split("  ")[1])}
    assert listed >= {
        "--print", "--rpc", "--continue", "--resume", "--timeout", "--model", "--max-turns",
        "--permission-mode", "--read-only", "--yolo", "--auto-approve", "--on-ask",
        "--trust-project", "--github-writes", "--output-format", "--verbose",
    }
    body = done.stdout.split("\n\n")
    for block in body:
        lines = block.splitlines()
        for prev, line in itertools.pairwise(lines):
            assert not (prev.startswith("  -") and line.startswith("    ")), (prev, line)


def test_the_print_path_loads_no_review_github_lsp_or_converter(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer(ONE_TOOL) as server:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "luxe", "-p", "what is this?"],
            cwd=repo, env={**env, **model_env(server)}, capture_output=True, timeout=60,
            stdin=subprocess.DEVNULL,
        )
    assert (done.returncode, done.stdout) == (0, b"A demo project.\n")
    loaded = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)$", done.stderr.decode(), flags=re.M)
    assert "trio" in loaded and "luxe.frontends.print_mode" in loaded  # the list is real
    # Finding the language servers on PATH (for `ready`) is the one part of
    # luxe.lsp on the path: standard library only, no client, no server.
    allowed = ("luxe.lsp", "luxe.lsp.servers")
    unwanted = [
        m for m in loaded
        if (m.startswith(("luxe.review", "luxe.lsp", "luxe.github", "cattrs")) and m not in allowed)
        or m == "luxe.protocol.wire"
    ]
    assert unwanted == []
