"""Command hooks with real processes: the spec's examples verbatim, the
decision contract, fail-open/fail-closed, and process hygiene via /proc."""

from __future__ import annotations

import json
import logging
import os
import random
import stat
from pathlib import Path

import pytest
import trio

from luxe.engine.ports import tool_result_event, tool_use_event
from luxe.policy.hooks import CommandHookRunner, HookFinished
from luxe.policy.hooks_config import HookConfig, HookDefinition, load_hooks, parse_hooks
from tests.helpers.procs import live_pids_with
from tests.helpers.wait import wait_until
from tests.luxe.policy.hook_scripts import AUDIT_PY, GUARD_SH, PROMPT_POLICY_SH


def script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def runner(
    tmp_path: Path, hooks: dict[str, list[HookDefinition]]
) -> tuple[CommandHookRunner, list[HookFinished]]:
    finished: list[HookFinished] = []
    config = HookConfig({p: tuple(d) for p, d in hooks.items()})
    return CommandHookRunner(config, cwd=str(tmp_path), on_finished=finished.append), finished


def hook(*command: str, timeout_ms: int = 5000, on_timeout: str = "allow") -> HookDefinition:
    return HookDefinition(tuple(command), timeout_ms, on_timeout)  # type: ignore[arg-type]


def marker() -> str:
    # `sleep 3600.<digits>` is a sleep we can find in /proc and nobody else runs.
    return f"3600.{random.randrange(10**8):08d}"


# -- the spec's examples, verbatim ---------------------------------------------


async def test_spec_guard_sh_blocks_rm_rf(tmp_path: Path) -> None:
    guard = script(tmp_path, "guard.sh", GUARD_SH)
    r, finished = runner(tmp_path, {"BeforeToolUse": [hook(guard, on_timeout="deny")]})
    blocked = await r.run("BeforeToolUse", tool_use_event("bash", {"command": "rm -rf /tmp/x"}))
    assert blocked.blocked and blocked.reason == "blocked by guard.sh"
    fine = await r.run("BeforeToolUse", tool_use_event("bash", {"command": "ls"}))
    assert not fine.blocked and fine.context is None
    assert [(f.point, f.command, f.decision, f.error) for f in finished] == [
        ("BeforeToolUse", [guard], "deny", None),
        ("BeforeToolUse", [guard], "allow", None),
    ]
    assert all(f.duration_ms > 0 for f in finished)


async def test_spec_audit_py_logs_each_tool_result(tmp_path: Path) -> None:
    audit = script(tmp_path, "audit.py", AUDIT_PY)
    r, finished = runner(tmp_path, {"AfterToolUse": [hook("python3", audit)]})
    name = f"tool{random.randrange(10**9)}"
    outcome = await r.run("AfterToolUse", tool_result_event(name, "output", True))
    assert outcome == type(outcome)()  # no output: nothing to block or inject
    lines = Path("/tmp/luxe-audit.log").read_text().splitlines()  # noqa: ASYNC240
    assert any(line.endswith(f" {name} error=True") for line in lines)
    assert finished[0].error is None


async def test_spec_prompt_policy_blocks_internal_tokens(tmp_path: Path) -> None:
    policy = script(tmp_path, "prompt-policy.sh", PROMPT_POLICY_SH)
    r, _ = runner(tmp_path, {"UserPromptSubmit": [hook(policy, on_timeout="deny")]})
    blocked = await r.run("UserPromptSubmit", {"Other": {"content": "fix CORP-SECRET-42 now"}})
    assert blocked.blocked and blocked.reason == "prompt contained an internal token"
    fine = await r.run("UserPromptSubmit", {"Other": {"content": "fix the build"}})
    assert not fine.blocked


# -- the contract ----------------------------------------------------------------


async def test_event_reaches_stdin_as_one_json_object(tmp_path: Path) -> None:
    out = tmp_path / "event.json"
    r, _ = runner(tmp_path, {"BeforeToolUse": [hook("sh", "-c", f"cat > {out}")]})
    event = tool_use_event("edit", {"path": "a.py", "old_string": "ü", "new_string": "x"})
    await r.run("BeforeToolUse", event)
    assert json.loads(out.read_text()) == {
        "ToolUse": {
            "tool_name": "edit",
            "args": {"path": "a.py", "old_string": "ü", "new_string": "x"},
        }
    }


def emit(obj: object) -> HookDefinition:
    return hook("sh", "-c", f"cat >/dev/null; printf '%s' '{json.dumps(obj)}'")


@pytest.mark.parametrize("word", ["deny", "block", "DENY"])
async def test_deny_and_block_deny(tmp_path: Path, word: str) -> None:
    r, _ = runner(tmp_path, {"BeforeToolUse": [emit({"decision": word, "reason": "no"})]})
    outcome = await r.run("BeforeToolUse", tool_use_event("bash", {"command": "x"}))
    assert outcome.blocked and outcome.reason == "no"


@pytest.mark.parametrize(
    "output", [{"decision": "allow"}, {"decision": "continue"}, {"decision": "maybe"}, {}]
)
async def test_anything_else_continues(tmp_path: Path, output: object) -> None:
    r, _ = runner(tmp_path, {"BeforeToolUse": [emit(output)]})
    assert not (await r.run("BeforeToolUse", tool_use_event("bash", {}))).blocked


async def test_no_output_continues(tmp_path: Path) -> None:
    r, _ = runner(tmp_path, {"BeforeToolUse": [hook("true", on_timeout="deny")]})
    assert not (await r.run("BeforeToolUse", tool_use_event("bash", {}))).blocked


async def test_several_hooks_any_deny_wins_contexts_joined(tmp_path: Path) -> None:
    r, finished = runner(
        tmp_path,
        {
            "BeforeToolUse": [
                emit({"decision": "allow"}),
                emit({"decision": "deny", "reason": "second says no"}),
            ],
            "AfterToolUse": [
                emit({"decision": "allow", "context": "lint: 2 warnings"}),
                emit({"context": ""}),
                emit({"decision": "allow", "context": "tests: 3 failed"}),
            ],
        },
    )
    before = await r.run("BeforeToolUse", tool_use_event("bash", {}))
    assert before.blocked and before.reason == "second says no"
    after = await r.run("AfterToolUse", tool_result_event("edit", "ok", False))
    assert not after.blocked
    assert after.context == "lint: 2 warnings\n\ntests: 3 failed"
    assert sorted(f.decision for f in finished[:2]) == ["allow", "deny"]


async def test_after_tool_use_cannot_block(tmp_path: Path) -> None:
    r, _ = runner(
        tmp_path, {"AfterToolUse": [emit({"decision": "deny", "reason": "x", "context": "c"})]}
    )
    outcome = await r.run("AfterToolUse", tool_result_event("bash", "", False))
    assert not outcome.blocked and outcome.context is None  # a deny carries no context


async def test_user_prompt_submit_injects_context(tmp_path: Path) -> None:
    r, _ = runner(tmp_path, {"UserPromptSubmit": [emit({"context": "team style: no emojis"})]})
    outcome = await r.run("UserPromptSubmit", {"Other": {"content": "hi"}})
    assert outcome.context == "team style: no emojis" and not outcome.blocked


@pytest.mark.parametrize(
    "point",
    [
        "SessionStart",
        "SessionEnd",
        "BeforeAgentStart",
        "AgentStart",
        "FileChanged",
        "BeforeCompact",
        "AfterCompact",
        "AgentEnd",
    ],
)
async def test_observe_only_points_ignore_output(tmp_path: Path, point: str) -> None:
    ran = tmp_path / "ran"
    deny = hook(
        "sh",
        "-c",
        f'cat > {ran}; echo \'{{"decision":"deny","context":"x"}}\'; echo garbage',
        on_timeout="deny",
    )
    r, finished = runner(tmp_path, {point: [deny]})
    outcome = await r.run(point, {"Other": None})  # type: ignore[arg-type]
    assert not outcome.blocked and outcome.context is None
    assert ran.read_text() == '{"Other": null}\n'  # it did run
    assert finished[0].decision == "observe" and finished[0].error is None


# -- failures: fail-open and fail-closed -----------------------------------------

FAILING = {
    "non-zero exit": ("sh", "-c", "cat >/dev/null; echo boom-on-stderr >&2; exit 3"),
    "invalid JSON": ("sh", "-c", "cat >/dev/null; echo not json"),
    "JSON not an object": ("sh", "-c", "cat >/dev/null; echo '[1]'"),
    "spawn error": ("/nonexistent/hook-binary",),
    "megabytes": ("python3", "-c", "import sys; sys.stdout.write('x' * 5_000_000)"),
}


@pytest.mark.parametrize("case", sorted(FAILING))
@pytest.mark.parametrize("on_timeout", ["allow", "ask", "deny"])
async def test_failures_resolve_to_on_timeout(
    tmp_path: Path, case: str, on_timeout: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "luxe.policy.hooks")
    r, finished = runner(tmp_path, {"BeforeToolUse": [hook(*FAILING[case], on_timeout=on_timeout)]})
    outcome = await r.run("BeforeToolUse", tool_use_event("bash", {"command": "ls"}))
    assert outcome.blocked is (on_timeout == "deny")
    if outcome.blocked:
        assert "failed" in (outcome.reason or "")
    assert finished[0].error
    assert finished[0].decision == ("deny" if on_timeout == "deny" else "allow")
    assert FAILING[case][0] in caplog.text  # logged with its command
    if case == "non-zero exit":
        assert "boom-on-stderr" in caplog.text and "boom-on-stderr" in finished[0].error


async def test_fail_closed_only_blocks_at_blocking_points(tmp_path: Path) -> None:
    r, finished = runner(tmp_path, {"AfterToolUse": [hook("false", on_timeout="deny")]})
    outcome = await r.run("AfterToolUse", tool_result_event("bash", "", False))
    assert not outcome.blocked and finished[0].error == "exited with status 1"


# -- process hygiene -------------------------------------------------------------


@pytest.mark.parametrize("on_timeout", ["allow", "deny"])
async def test_timeout_kills_the_whole_group(tmp_path: Path, on_timeout: str) -> None:
    mark = marker()
    sleeper = hook(
        "sh",
        "-c",
        f"sleep {mark} & sleep {mark} & (sleep {mark}; echo) & sleep {mark}",
        timeout_ms=300,
        on_timeout=on_timeout,
    )
    r, finished = runner(tmp_path, {"BeforeToolUse": [sleeper]})
    outcome = await r.run("BeforeToolUse", tool_use_event("bash", {}))
    assert outcome.blocked is (on_timeout == "deny")
    assert finished[0].error == "timed out after 300 ms"
    assert wait_until(lambda: not live_pids_with(mark)), live_pids_with(mark)


async def test_timeout_kills_a_grandchild_that_left_the_group(tmp_path: Path) -> None:
    mark = marker()
    escaping = hook(
        "sh",
        "-c",
        f"sleep {mark} & (setsid sleep {mark} &); (setsid sh -c 'sleep {mark}' &); wait",
        timeout_ms=500,
    )
    r, finished = runner(tmp_path, {"BeforeToolUse": [escaping]})
    try:
        await r.run("BeforeToolUse", tool_use_event("bash", {}))
        assert finished[0].error == "timed out after 500 ms"
        assert wait_until(lambda: not live_pids_with(mark)), live_pids_with(mark)
    finally:
        for pid in live_pids_with(mark):
            os.kill(pid, 9)


async def test_hook_that_never_reads_a_huge_event_cannot_wedge(tmp_path: Path) -> None:
    mark = marker()
    r, finished = runner(
        tmp_path, {"BeforeToolUse": [hook("sleep", mark, timeout_ms=300, on_timeout="deny")]}
    )
    event = tool_use_event("write", {"path": "x", "content": "y" * 4_000_000})
    outcome = await r.run("BeforeToolUse", event)
    assert outcome.blocked and "timed out" in (finished[0].error or "")
    assert wait_until(lambda: not live_pids_with(mark))


async def test_hook_that_ignores_its_input_and_exits_is_fine(tmp_path: Path) -> None:
    r, finished = runner(
        tmp_path, {"BeforeToolUse": [hook("sh", "-c", "echo '{}'", on_timeout="deny")]}
    )
    outcome = await r.run("BeforeToolUse", tool_use_event("write", {"content": "y" * 2_000_000}))
    assert not outcome.blocked and finished[0].error is None


async def test_background_children_do_not_outlive_a_finished_hook(tmp_path: Path) -> None:
    mark = marker()
    r, finished = runner(
        tmp_path, {"AgentEnd": [hook("sh", "-c", f"sleep {mark} & sleep {mark} & echo done")]}
    )
    await r.run("AgentEnd", {"Other": None})
    assert finished[0].error is None
    assert wait_until(lambda: not live_pids_with(mark))


async def test_cancel_kills_and_reaps_the_hook(tmp_path: Path) -> None:
    mark = marker()
    started = tmp_path / "started"
    r, finished = runner(
        tmp_path,
        {
            "BeforeToolUse": [
                hook("sh", "-c", f"touch {started}; sleep {mark} & sleep {mark}", timeout_ms=60_000)
            ]
        },
    )
    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(r.run, "BeforeToolUse", tool_use_event("bash", {}))
            while not (started.exists() and len(live_pids_with(mark)) >= 2):  # noqa: ASYNC110
                await trio.sleep(0.01)
            scope.cancel()
    assert scope.cancelled_caught
    assert wait_until(lambda: not live_pids_with(mark))
    assert [(f.point, f.error) for f in finished] == [("BeforeToolUse", "cancelled with its turn")]


async def test_hooks_at_one_point_run_concurrently(tmp_path: Path) -> None:
    # Two hooks that each wait for the other's file: only concurrency finishes them.
    a, b = tmp_path / "a", tmp_path / "b"
    wait_for = "for i in $(seq 500); do [ -e {f} ] && exit 0; sleep 0.01; done; exit 1"
    r, finished = runner(
        tmp_path,
        {
            "AgentEnd": [
                hook("sh", "-c", f"touch {a}; " + wait_for.format(f=b)),
                hook("sh", "-c", f"touch {b}; " + wait_for.format(f=a)),
            ]
        },
    )
    await r.run("AgentEnd", {"Other": None})
    assert [f.error for f in finished] == [None, None]


# -- configuration -----------------------------------------------------------------


def test_parse_hooks_defaults_and_broken_definitions() -> None:
    text = """{
  "BeforeToolUse": [
    { "command": ["/abs/guard.sh"], "timeout_ms": 5000, "on_timeout": "deny" },
    { "command": "not a list" },
    { "command": ["ok"], "timeout_ms": -1 }
  ],
  "AfterToolUse": [
    { "command": ["python3", "/abs/audit.py"] },
    { "command": ["x"], "on_timeout": "explode" },
    { "command": ["x"], "timeout": 10 }
  ],
  "BeforeEverything": [ { "command": ["x"] } ]
}"""
    hooks, errors = parse_hooks("/c/hooks.json", text)
    assert hooks["BeforeToolUse"] == [
        HookDefinition(("/abs/guard.sh",), 5000, "deny", "/c/hooks.json")
    ]
    assert hooks["AfterToolUse"] == [
        HookDefinition(("python3", "/abs/audit.py"), 5000, "allow", "/c/hooks.json")
    ]
    assert errors == [
        "/c/hooks.json:4: BeforeToolUse: `command` must be a non-empty list of strings: program and arguments; this hook is skipped",
        "/c/hooks.json:5: BeforeToolUse: `timeout_ms` must be a positive whole number of milliseconds, got -1; this hook is skipped",
        '/c/hooks.json:9: AfterToolUse: `on_timeout` must be "allow", "deny" or "ask", got "explode"; this hook is skipped',
        "/c/hooks.json:10: AfterToolUse: unknown field 'timeout' (fields: command, timeout_ms, on_timeout); this hook is skipped",
        "/c/hooks.json:12: unknown hook point 'BeforeEverything'; its hooks are skipped (points: SessionStart, SessionEnd, UserPromptSubmit, BeforeAgentStart, AgentStart, BeforeToolUse, AfterToolUse, FileChanged, BeforeCompact, AfterCompact, AgentEnd)",
    ]


def test_parse_hooks_invalid_json_skips_the_file() -> None:
    hooks, errors = parse_hooks("/c/hooks.json", '{\n "AgentEnd": [\n')
    assert hooks == {} and errors[0].startswith("/c/hooks.json:3: not valid JSON")


def test_project_hooks_only_with_trust_and_appended(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    (tmp_path / "cfg/luxe").mkdir(parents=True)
    (tmp_path / "cfg/luxe/hooks.json").write_text('{"AgentEnd": [{"command": ["global"]}]}')
    (tmp_path / "repo/.luxe").mkdir(parents=True)
    (tmp_path / "repo/.luxe/hooks.json").write_text(
        '{"AgentEnd": [{"command": ["project"]}], "SessionStart": [{"command": ["p2"]}]}'
    )
    untrusted = load_hooks(project_root=str(tmp_path / "repo"), trust_project=False, env=env)
    assert [d.command for d in untrusted.for_point("AgentEnd")] == [("global",)]
    assert untrusted.for_point("SessionStart") == ()
    trusted = load_hooks(project_root=str(tmp_path / "repo"), trust_project=True, env=env)
    assert [d.command for d in trusted.for_point("AgentEnd")] == [("global",), ("project",)]
    assert [d.command for d in trusted.for_point("SessionStart")] == [("p2",)]


async def test_a_failing_hooks_stderr_is_redacted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from luxe.policy.secret_redaction import Redactor

    (tmp_path / "leak").write_text("token=sk-abcdef123456\n")
    finished: list[HookFinished] = []
    config = HookConfig({"BeforeToolUse": (hook("sh", "-c", "cat leak >&2; exit 1"),)})
    redactor = Redactor((("TOKEN", "sk-abcdef123456"),))
    r = CommandHookRunner(
        config, cwd=str(tmp_path), on_finished=finished.append, redact=redactor.redact
    )
    caplog.set_level(logging.WARNING, "luxe.policy.hooks")
    await r.run("BeforeToolUse", tool_use_event("bash", {}))
    assert finished[0].error == "exited with status 1; stderr: token=[REDACTED:TOKEN]"
    assert "sk-abcdef123456" not in caplog.text and "[REDACTED:TOKEN]" in caplog.text


async def test_an_escaped_grandchild_holding_stdout_does_not_wedge(tmp_path: Path) -> None:
    # `setsid` leaves the hook's group, so it survives the group kill (the
    # docs say so); it must still not keep us waiting for its pipe's EOF.
    mark = marker()
    r, finished = runner(
        tmp_path,
        {
            "BeforeToolUse": [
                hook(
                    "sh",
                    "-c",
                    f'setsid sleep {mark} & echo \'{{"decision":"deny"}}\'',
                    timeout_ms=20_000,
                )
            ]
        },
    )
    try:
        outcome = await r.run("BeforeToolUse", tool_use_event("bash", {}))
        assert outcome.blocked and finished[0].error is None  # answered, not timed out
    finally:
        for pid in live_pids_with(mark):
            os.kill(pid, 9)
