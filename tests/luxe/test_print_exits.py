"""`luxe -p` exit codes and who answers a prompt: every `--on-ask` value with
a bash call that needs one, the question tool, errors, `--timeout` and
signals during a running `bash` with nothing of ours left in /proc, hooks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.procs import kill_group
from tests.luxe.policy.e2e import call, executable, global_config, tool_results, write_json
from tests.luxe.policy.hook_scripts import GUARD_SH, PROMPT_POLICY_SH
from tests.luxe.print_driver import model_env, run_print, start_print
from tests.luxe.rpc_driver import EXIT_TIMEOUT_S, processes_with_marker, unique_duration, wait_until

NO_PERSON_QUESTION = "no person is available; decide and say what you assumed"


def _bash_then_answer(command: str) -> list[dict]:  # type: ignore[type-arg]
    return [{"tool_calls": [call("bash", command=command)]}, {"text": "Did what I could."}]


def test_on_ask_deny_refuses_tells_the_model_and_exits_4(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer(_bash_then_answer("touch made-by-bash")) as server:
        done = run_print(
            ["make a file", "--output-format", "json"], cwd=repo, env={**env, **model_env(server)}
        )
        told = tool_results(server.bodies[1])
    assert done.returncode == 4, done.stderr
    assert not (repo / "made-by-bash").exists()
    result = done.result()
    assert result["result"] == "Did what I could."
    assert (result["exit_code"], result["is_error"], result["stop_reason"]) == (4, False, "end_turn")
    (denial,) = result["permission_denials"]
    assert denial["tool"] == "bash" and denial["args"] == {"command": "touch made-by-bash"}
    assert "no person is available" in denial["reason"]
    assert any("no person is available" in t for t in told)
    assert "denied: bash" in done.stderr


def test_deny_is_the_default_and_text_still_prints_the_answer(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer(_bash_then_answer("touch made-by-bash")) as server:
        done = run_print(["make a file"], cwd=repo, env={**env, **model_env(server)})
    assert (done.returncode, done.stdout) == (4, b"Did what I could.\n")
    assert "touch made-by-bash" in done.stderr


def test_on_ask_allow_approves_but_a_deny_rule_still_denies(repo: Path, env: dict[str, str]) -> None:
    write_json(global_config(env) / "permissions.json", {"deny": ["bash(rm *)"]})
    steps = [
        {"tool_calls": [call("bash", command="touch made-by-bash")]},
        {"tool_calls": [call("bash", command="rm README.md")]},
        {"text": "Done."},
    ]
    with FakeLLMServer(steps) as server:
        done = run_print(
            ["go", "--on-ask", "allow", "--output-format", "json"],
            cwd=repo, env={**env, **model_env(server)},
        )
    assert done.returncode == 4, done.stderr
    assert (repo / "made-by-bash").exists() and (repo / "README.md").exists()
    (denial,) = done.result()["permission_denials"]
    assert denial["args"] == {"command": "rm README.md"} and "deny" in denial["reason"]


def test_on_ask_allow_with_nothing_denied_exits_0(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer(_bash_then_answer("touch made-by-bash")) as server:
        done = run_print(["go", "--on-ask", "allow"], cwd=repo, env={**env, **model_env(server)})
    assert (done.returncode, done.stdout) == (0, b"Did what I could.\n")
    assert (repo / "made-by-bash").exists()


def test_on_ask_fail_stops_at_the_first_prompt_with_exit_3(repo: Path, env: dict[str, str]) -> None:
    with FakeLLMServer(_bash_then_answer("touch made-by-bash")) as server:
        done = run_print(
            ["go", "--on-ask", "fail", "--output-format", "json"],
            cwd=repo, env={**env, **model_env(server)},
        )
        assert len(server.requests) == 1
    assert done.returncode == 3
    assert not (repo / "made-by-bash").exists()
    assert "bash" in done.stderr and "touch made-by-bash" in done.stderr
    result = done.result()
    assert (result["exit_code"], result["is_error"], result["stop_reason"]) == (3, True, "on_ask_fail")


@pytest.mark.parametrize("policy", ["deny", "allow"])
def test_a_question_nobody_can_answer_is_decided_by_the_model(
    policy: str, repo: Path, env: dict[str, str]
) -> None:
    steps = [
        {"tool_calls": [call("question", question="Use staging?", options=["yes", "no"])]},
        {"text": "Assumed no."},
    ]
    with FakeLLMServer(steps) as server:
        done = run_print(
            ["go", "--on-ask", policy, "--output-format", "json"],
            cwd=repo, env={**env, **model_env(server)},
        )
        told = tool_results(server.bodies[1])
    assert done.returncode == 4, done.stderr
    assert told == [NO_PERSON_QUESTION]
    (denial,) = done.result()["permission_denials"]
    assert denial == {
        "tool": "question", "args": {"question": "Use staging?", "options": ["yes", "no"]},
        "reason": NO_PERSON_QUESTION,
    }


def test_a_question_under_on_ask_fail_exits_3(repo: Path, env: dict[str, str]) -> None:
    steps = [{"tool_calls": [call("question", question="Use staging?")]}, {"text": "never"}]
    with FakeLLMServer(steps) as server:
        done = run_print(["go", "--on-ask", "fail"], cwd=repo, env={**env, **model_env(server)})
    assert (done.returncode, done.stdout) == (3, b"")
    assert "Use staging?" in done.stderr


def test_a_failed_turn_exits_1_with_the_message_on_stderr(repo: Path, env: dict[str, str]) -> None:
    steps = [{"http_error": {"status": 400, "message": "prompt is too long"}}]
    with FakeLLMServer(steps) as server:
        done = run_print(["go"], cwd=repo, env={**env, **model_env(server)})
    assert (done.returncode, done.stdout) == (1, b"")
    assert "error" in done.stderr and "prompt is too long" in done.stderr


def test_max_turns_exits_1(repo: Path, env: dict[str, str]) -> None:
    steps = [{"tool_calls": [call("ls")]}] * 3
    with FakeLLMServer(steps) as server:
        done = run_print(
            ["loop", "--max-turns", "2", "--output-format", "json"],
            cwd=repo, env={**env, **model_env(server)},
        )
        assert len(server.requests) == 2
    assert done.returncode == 1
    result = done.result()
    assert (result["stop_reason"], result["is_error"], result["num_requests"]) == ("max_turns", True, 2)
    assert "max_turns" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-p", "hi", "--rpc"], "contradict"),
        (["-p", "hi", "--on-ask", "maybe"], "invalid choice"),
        (["-p", "hi", "--output-format", "xml"], "invalid choice"),
        (["-p", "hi", "--timeout", "0"], "positive number"),
        (["-p", "hi", "--timeout", "nan"], "positive number"),
        (["-p", "hi", "--max-turns", "0"], "at least 1"),
        (["-p", "hi", "--read-only", "--yolo"], "contradict"),
        (["-p", "hi", "--resume", "nope"], "no session"),
        (["-p", " "], "PROMPT is empty"),
        (["--rpc", "--on-ask", "deny"], "your client answers"),
        (["--rpc", "--timeout", "5"], "needs -p"),
        (["--rpc", "--output-format", "json"], "needs -p"),
        (["--rpc", "hello"], "needs -p"),
    ],
)
def test_a_refused_command_line_exits_2(
    args: list[str], message: str, repo: Path, env: dict[str, str]
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "luxe", *args], cwd=repo, env=env, capture_output=True, text=True,
        timeout=EXIT_TIMEOUT_S, stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert message in done.stderr


def test_timeout_during_bash_cancels_cleanly_and_exits_124(repo: Path, env: dict[str, str]) -> None:
    marker = unique_duration()
    with FakeLLMServer(_bash_then_answer(f"sleep {marker}")) as server:
        done = run_print(
            ["go", "--yolo", "--timeout", "3", "--output-format", "json"],
            cwd=repo, env={**env, **model_env(server)},
        )
    assert done.returncode == 124, done.stderr
    result = done.result()
    assert (result["stop_reason"], result["exit_code"], result["is_error"]) == ("timeout", 124, True)
    assert "--timeout 3s" in done.stderr
    assert processes_with_marker(marker, scope=env) == []


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_a_signal_during_bash_cancels_cleanly(
    signum: int, status: int, repo: Path, env: dict[str, str]
) -> None:
    marker = unique_duration()
    with FakeLLMServer(_bash_then_answer(f"sleep {marker}")) as server:
        proc = start_print(["go", "--yolo"], cwd=repo, env={**env, **model_env(server)})
        try:
            wait_until(lambda: processes_with_marker(marker, scope=env), what="the running bash")
            os.kill(proc.pid, signum)  # luxe alone: it must end its children itself
            out, err = proc.communicate(timeout=EXIT_TIMEOUT_S)
        finally:
            kill_group(proc)
    assert proc.returncode == status, err
    assert out == b""
    assert b"interrupted by SIG" in err and b"Traceback" not in err
    assert processes_with_marker(marker, scope=env) == []


def test_project_hooks_apply_with_trust_project(repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    guard = executable(tmp_path / "guard.sh", GUARD_SH)
    write_json(repo / ".luxe" / "hooks.json", {"BeforeToolUse": [{"command": [guard]}]})
    (repo / "src").mkdir()
    for trust, status in (([], 0), (["--trust-project"], 4)):
        (repo / "src").mkdir(exist_ok=True)
        with FakeLLMServer(_bash_then_answer("rm -rf src")) as server:
            done = run_print(
                ["clean up", "--yolo", "--output-format", "json", *trust],
                cwd=repo, env={**env, **model_env(server)},
            )
        assert done.returncode == status, done.stderr
        if trust:
            assert (repo / "src").is_dir()
            (denial,) = done.result()["permission_denials"]
            assert "blocked by guard.sh" in denial["reason"]
        else:
            assert not (repo / "src").exists()


@pytest.mark.parametrize(
    ("flags", "status", "made"),
    [
        (["--auto-approve"], 0, True),
        (["--permission-mode", "yolo"], 0, True),
        (["--permission-mode", "accept-edits"], 4, False),  # bash still asks; nobody answers
        (["--read-only"], 4, False),
        (["--read-only", "--on-ask", "allow"], 4, False),  # read-only refuses without asking
    ],
)
def test_permission_flags_apply_as_in_rpc(
    flags: list[str], status: int, made: bool, repo: Path, env: dict[str, str]
) -> None:
    with FakeLLMServer(_bash_then_answer("touch made-by-bash")) as server:
        done = run_print(["go", *flags], cwd=repo, env={**env, **model_env(server)})
    assert done.returncode == status, done.stderr
    assert (repo / "made-by-bash").exists() == made


def test_model_resume_and_github_writes_apply(repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    for name in ("first", "second"):
        (tmp_path / f"{name}.jsonl").write_text(f'{{"text": "{name}"}}\n')
    model = ["--model", f"scripted:{tmp_path / 'first.jsonl'}"]
    first = run_print(["one", *model, "--output-format", "json"], cwd=repo, env=env)
    assert first.returncode == 0, first.stderr
    session_id = first.result()["session_id"]
    model = ["--model", f"scripted:{tmp_path / 'second.jsonl'}"]
    again = run_print(
        ["two", *model, "--resume", session_id, "--github-writes", "--output-format", "stream-json"],
        cwd=repo, env=env,
    )
    assert again.returncode == 0, again.stderr
    frames = again.frames()
    ready = frames[0]["content"]
    assert (ready["session_id"], ready["resumed"], ready["github_writes"]) == (session_id, True, True)
    assert frames[2]["kind"] == "session_info" and frames[2]["content"]["messages"] == 2
    assert frames[-1]["content"]["result"] == "second"


def test_a_prompt_a_hook_blocks_exits_1_before_any_request(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    policy = executable(tmp_path / "policy.sh", PROMPT_POLICY_SH)
    write_json(global_config(env) / "hooks.json", {"UserPromptSubmit": [{"command": [policy]}]})
    with FakeLLMServer([{"text": "never"}]) as server:
        done = run_print(
            ["deploy CORP-SECRET-7", "--output-format", "json"],
            cwd=repo, env={**env, **model_env(server)},
        )
        assert server.requests == []
    assert done.returncode == 1
    result = done.result()
    assert (result["stop_reason"], result["is_error"]) == ("denied", True)
    assert "internal token" in result["error"] and "internal token" in done.stderr
