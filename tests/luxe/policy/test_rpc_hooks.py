"""Command hooks through the real `luxe --rpc`: blocking, context injection
reaching the model, trust, config errors, timeouts with nothing left behind."""

from __future__ import annotations

import random
from pathlib import Path

from tests.helpers.procs import live_pids_with
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import wait_until

from .e2e import (
    call,
    executable,
    global_config,
    luxe_on_fake_model,
    request_text,
    tool_results,
    write_json,
)
from .hook_scripts import GUARD_SH, PROMPT_POLICY_SH


def hooks_file(env: dict[str, str], hooks: dict[str, object]) -> Path:
    return write_json(global_config(env) / "hooks.json", hooks)


def test_guard_blocks_the_tool_and_the_model_reads_why(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    guard = executable(tmp_path / "guard.sh", GUARD_SH)
    hooks_file(
        env, {"BeforeToolUse": [{"command": [guard], "timeout_ms": 5000, "on_timeout": "deny"}]}
    )
    steps = [
        {"tool_calls": [call("bash", command="rm -rf src"), call("bash", command="echo safe")]},
        {"text": "ok"},
    ]
    (repo / "src").mkdir()
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "clean up"})
        frames = luxe.collect_until("turn_ended")
        done = {
            f["content"]["call_id"]: f["content"] for f in frames if f["kind"] == "tool_finished"
        }
        assert sorted(d["denied"] for d in done.values()) == [False, True]
        assert (repo / "src").is_dir()
        hooks = [f["content"] for f in frames if f["kind"] == "hook_finished"]
        assert sorted(h["decision"] for h in hooks if h["point"] == "BeforeToolUse") == [
            "allow",
            "deny",
        ]
        assert all(
            h["command"] == [guard] and h["duration_ms"] > 0
            for h in hooks
            if h["point"] == "BeforeToolUse"
        )
        results = tool_results(server.bodies[-1])
        assert any("blocked by guard.sh" in r for r in results)
        assert any("safe" in r for r in results)
        assert luxe.close() == 0


def test_hook_allow_never_overrides_a_deny(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    (repo / ".env").write_text("TOKEN=abcdef123456\n")
    hooks_file(
        env,
        {
            "BeforeToolUse": [
                {"command": ["sh", "-c", 'cat >/dev/null; echo \'{"decision":"allow"}\'']}
            ]
        },
    )
    write_json(global_config(env) / "permissions.json", {"deny": ["bash(touch *)"]})
    luxe = spawn(
        [
            {"tool_calls": [call("read", path=".env"), call("bash", command="touch x")]},
            {"text": "ok"},
        ],
        "--yolo",
    )
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    frames = luxe.collect_until("turn_ended")
    assert [f["content"]["denied"] for f in frames if f["kind"] == "tool_finished"] == [True, True]
    assert not (repo / "x").exists()
    assert luxe.close() == 0


def test_after_tool_use_and_prompt_context_reach_the_model(repo: Path, env: dict[str, str]) -> None:
    hooks_file(
        env,
        {
            "AfterToolUse": [
                {
                    "command": [
                        "sh",
                        "-c",
                        'cat >/dev/null; echo \'{"context":"LINT: 2 warnings in app.py"}\'',
                    ]
                }
            ],
            "UserPromptSubmit": [
                {
                    "command": [
                        "sh",
                        "-c",
                        'cat >/dev/null; echo \'{"decision":"allow","context":"TEAM RULE: no emojis"}\'',
                    ]
                }
            ],
        },
    )
    steps = [{"tool_calls": [call("read", path="README.md")]}, {"text": "ok"}]
    with luxe_on_fake_model(steps, cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "read it"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        first, second = server.bodies
        assert "TEAM RULE: no emojis" in request_text(first)
        result = tool_results(second)[0]
        assert "A demo project." in result and result.rstrip().endswith(
            "LINT: 2 warnings in app.py"
        )
        assert luxe.close() == 0


def test_prompt_policy_blocks_before_the_model_is_called(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    policy = executable(tmp_path / "prompt-policy.sh", PROMPT_POLICY_SH)
    hooks_file(env, {"UserPromptSubmit": [{"command": [policy], "on_timeout": "deny"}]})
    with luxe_on_fake_model([{"text": "fine"}], cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "deploy with CORP-SECRET-1234"})
        ended = luxe.expect("turn_ended")
        assert (
            ended["reason"] == "denied" and ended["error"] == "prompt contained an internal token"
        )
        assert server.bodies == []
        luxe.send("submit_user_message", {"text": "deploy please"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        assert len(server.bodies) == 1 and "CORP-SECRET" not in request_text(server.bodies[0])
        assert luxe.close() == 0


def test_project_hooks_need_trust_project(spawn: SpawnLuxe, repo: Path) -> None:
    write_json(
        repo / ".luxe/hooks.json",
        {
            "BeforeToolUse": [
                {
                    "command": [
                        "sh",
                        "-c",
                        'cat >/dev/null; echo \'{"decision":"deny","reason":"project says no"}\'',
                    ]
                }
            ]
        },
    )
    steps = [{"tool_calls": [call("bash", command="echo hi")]}, {"text": "ok"}]
    luxe = spawn(steps, "--yolo")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    frames = luxe.collect_until("turn_ended")
    assert "hook_finished" not in [f["kind"] for f in frames]
    assert [f["content"]["denied"] for f in frames if f["kind"] == "tool_finished"] == [False]
    assert luxe.close() == 0
    luxe = spawn(steps, "--yolo", "--trust-project")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    done = luxe.expect("tool_finished")
    assert done["denied"] and "project says no" in done["summary"]
    assert luxe.close() == 0


def test_broken_hook_config_is_reported_and_skipped(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    path = hooks_file(
        env,
        {
            "AgentEnd": [{"command": "not-a-list"}, {"command": ["true"]}],
            "BeforeEverything": [{"command": ["true"]}],
        },
    )
    luxe = spawn([{"text": "ok"}])
    luxe.expect("ready")
    errors = [luxe.expect("error") for _ in range(2)]
    assert all(e["retryable"] is False and str(path) in e["message"] for e in errors)
    assert "`command` must be a non-empty list" in errors[0]["message"]
    assert "unknown hook point 'BeforeEverything'" in errors[1]["message"]
    luxe.send("submit_user_message", {"text": "hi"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    ran = luxe.expect("hook_finished")
    assert (
        ran["point"] == "AgentEnd" and ran["command"] == ["true"] and ran["decision"] == "observe"
    )
    assert luxe.close() == 0


def sleeper_hook(mark: str, on_timeout: str) -> dict[str, object]:
    script = f"sleep {mark} & sleep {mark} & sh -c 'sleep {mark}' & sleep {mark}"
    return {"command": ["sh", "-c", script], "timeout_ms": 300, "on_timeout": on_timeout}


def test_a_hook_that_sleeps_forever_is_killed_with_its_children(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    closed, open_ = f"3600.{random.randrange(10**8):08d}", f"3600.{random.randrange(10**8):08d}"
    hooks_file(
        env,
        {
            "BeforeToolUse": [sleeper_hook(closed, "deny")],
            "AfterToolUse": [sleeper_hook(open_, "allow")],
        },
    )
    steps = [{"tool_calls": [call("bash", command="echo ran > ran.txt")]}, {"text": "ok"}]
    luxe = spawn(steps, "--yolo")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    hook = luxe.expect("hook_finished")
    assert hook["point"] == "BeforeToolUse" and hook["decision"] == "deny"
    assert hook["error"].startswith("timed out after 300 ms")
    done = luxe.expect("tool_finished")
    assert done["denied"]  # fail-closed
    assert not (repo / "ran.txt").exists()
    wait_until(lambda: not live_pids_with(closed), 5, "the timed-out hook's processes to die")
    assert luxe.close() == 0
    # Fail-open: the same hook with on_timeout allow lets the call run.
    hooks_file(env, {"BeforeToolUse": [sleeper_hook(closed, "allow")]})
    luxe = spawn(steps, "--yolo")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    assert luxe.expect("tool_finished")["denied"] is False
    assert (repo / "ran.txt").exists()
    wait_until(lambda: not live_pids_with(closed), 5, "the timed-out hook's processes to die")
    assert luxe.close() == 0


def test_session_and_turn_points_fire(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "points.log"
    points = [
        "SessionStart",
        "UserPromptSubmit",
        "BeforeAgentStart",
        "AgentStart",
        "BeforeToolUse",
        "AfterToolUse",
        "FileChanged",
        "AgentEnd",
        "SessionEnd",
    ]
    hooks_file(
        env,
        {p: [{"command": ["sh", "-c", f"printf '{p} ' >> {log}; cat >> {log}"]}] for p in points},
    )
    luxe = spawn(
        [{"tool_calls": [call("write", path="new.txt", content="x")]}, {"text": "ok"}], "--yolo"
    )
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "write"})
    luxe.expect("turn_ended")
    luxe.expect("hook_finished", where=lambda c: c["point"] == "AgentEnd")
    assert luxe.close() == 0
    lines = log.read_text().splitlines()
    seen = [line.split(" ", 1)[0] for line in lines]
    assert seen == [
        "SessionStart",
        "UserPromptSubmit",
        "BeforeAgentStart",
        "AgentStart",
        "BeforeToolUse",
        "FileChanged",
        "AfterToolUse",
        "AgentStart",
        "AgentEnd",
        "SessionEnd",
    ]
    events = dict(line.split(" ", 1) for line in lines)
    assert events["SessionStart"] == '{"Other": null}'
    assert events["BeforeAgentStart"] == '{"Other": {}}'
    assert events["UserPromptSubmit"] == '{"Other": {"content": "write"}}'
    assert (
        events["FileChanged"]
        == f'{{"FileChanged": {{"path": "{repo / "new.txt"}", "operation": "write"}}}}'
    )
    assert (
        events["BeforeToolUse"]
        == '{"ToolUse": {"tool_name": "write", "args": {"path": "new.txt", "content": "x"}}}'
    )


def test_a_hook_deny_blocks_edits_and_writes_too(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    deny_all = 'cat >/dev/null; echo \'{"decision":"deny","reason":"frozen"}\''
    hooks_file(env, {"BeforeToolUse": [{"command": ["sh", "-c", deny_all]}]})
    calls = [
        call("edit", path="README.md", old_string="demo", new_string="changed"),
        call("write", path="new.txt", content="x"),
    ]
    luxe = spawn([{"tool_calls": calls}, {"text": "ok"}], "--yolo", "--auto-approve")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    frames = luxe.collect_until("turn_ended")
    done = [f["content"] for f in frames if f["kind"] == "tool_finished"]
    assert [d["denied"] for d in done] == [True, True] and all(
        "frozen" in d["summary"] for d in done
    )
    assert "file_changed" not in [f["kind"] for f in frames]
    assert "demo" in (repo / "README.md").read_text() and not (repo / "new.txt").exists()
    assert luxe.close() == 0


def test_cancel_turn_kills_a_running_hook(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    mark = f"3600.{random.randrange(10**8):08d}"
    hooks_file(
        env,
        {
            "BeforeToolUse": [
                {"command": ["sh", "-c", f"sleep {mark} & sleep {mark}"], "timeout_ms": 60000}
            ]
        },
    )
    luxe = spawn([{"tool_calls": [call("bash", command="echo never")]}, {"text": "ok"}], "--yolo")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    luxe.expect("tool_started")
    wait_until(lambda: len(live_pids_with(mark)) >= 2, 10, "the hook's sleeps to start")
    luxe.send("cancel_turn")
    frames = luxe.collect_until("turn_ended")
    assert frames[-1]["content"]["reason"] == "cancelled"
    hooks = [f["content"] for f in frames if f["kind"] == "hook_finished"]
    assert [(h["point"], h["error"]) for h in hooks] == [
        ("BeforeToolUse", "cancelled with its turn")
    ]
    wait_until(lambda: not live_pids_with(mark), 5, "the hook's processes to die")
    assert luxe.close() == 0
