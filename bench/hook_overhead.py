"""Command hooks: the latency one BeforeToolUse hook adds to a tool call.

Prints, measured in the same run:
- baseline: a bare `subprocess.run(["true"])` (the cost of spawning any
  process from Python on this machine);
- runner: `CommandHookRunner.run` with one hook whose command is `true`
  (spawn in its own process group, stdin written and closed, stdout/stderr
  drained, group killed, reaped, decision judged): the runner's whole cost;
- runner, guard.sh: the spec's guard.sh example (bash + jq), for scale;
- end to end: a real `luxe --rpc` running turns of `read` calls with and
  without that `true` hook; the difference in the time from `tool_started`
  to `tool_finished` is the added latency per tool call.
Target (not asserted): the runner within 1.5x of the bare spawn.
Run: .venv/bin/python bench/hook_overhead.py
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from luxe.engine.ports import tool_use_event  # noqa: E402
from luxe.policy.hooks import CommandHookRunner  # noqa: E402
from luxe.policy.hooks_config import HookConfig, HookDefinition  # noqa: E402

CALLS = 200
TOOL_CALLS_PER_TURN = 60
TURN_RUNS = 5
GUARD_SH = """#!/usr/bin/env bash
event=$(cat)
cmd=$(printf '%s' "$event" | jq -r '.ToolUse.args.command // empty')
case "$cmd" in
  *"rm -rf"*|*"mkfs"*) echo '{"decision":"deny","reason":"blocked by guard.sh"}' ;;
  *)                    echo '{"decision":"allow"}' ;;
esac
"""
EVENT = tool_use_event("bash", {"command": "git status --short"})


def interleaved_ms(command: tuple[str, ...], n: int) -> tuple[float, float]:
    """Median ms of a bare spawn and of one hook run, measured alternately
    in the same loop so machine load weighs on both alike."""
    config = HookConfig({"BeforeToolUse": (HookDefinition(command),)})
    runner = CommandHookRunner(config, cwd=str(ROOT))

    async def main() -> tuple[float, float]:
        bare, hooked = [], []
        subprocess.run(["true"], check=True)  # noqa: ASYNC221 - warm both paths
        await runner.run("BeforeToolUse", EVENT)
        for _ in range(n):
            start = time.perf_counter()
            subprocess.run(["true"], check=True)  # noqa: ASYNC221 - the baseline is the blocking call
            bare.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            outcome = await runner.run("BeforeToolUse", EVENT)
            hooked.append((time.perf_counter() - start) * 1000)
            assert not outcome.blocked
        return statistics.median(bare), statistics.median(hooked)

    return trio.run(main)


HOOK_MS: list[float] = []  # duration_ms of every hook_finished seen


def call_ms(with_hook: bool, tmp: Path) -> float:
    """Median ms from `tool_started` to `tool_finished` of the read calls of
    one turn, as the client sees them: the BeforeToolUse hook runs between the
    two. (Whole-turn time is no good here: it is dominated by the fsync of
    every message, which varies with the machine's disk load.)"""
    home = tmp / ("hook" if with_hook else "bare")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "LUXE_"))}
    for var in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        (home / var).mkdir(parents=True, exist_ok=True)
        env[var] = str(home / var)
    if with_hook:
        (home / "XDG_CONFIG_HOME/luxe").mkdir()
        hooks = {"BeforeToolUse": [{"command": ["true"]}]}
        (home / "XDG_CONFIG_HOME/luxe/hooks.json").write_text(json.dumps(hooks))
    steps = [
        {"tool_calls": [{"name": "read", "args": {"path": "README.md"}}]}
    ] * TOOL_CALLS_PER_TURN
    script = home / "script.jsonl"
    script.write_text("".join(json.dumps(s) + "\n" for s in [*steps, {"text": "done"}]))
    luxe = subprocess.Popen(
        [sys.executable, "-m", "luxe", "--rpc", "--model", f"scripted:{script}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        text=True,
    )
    assert luxe.stdin and luxe.stdout
    started: dict[str, float] = {}
    calls: list[float] = []
    try:
        while json.loads(luxe.stdout.readline())["kind"] != "state_changed":
            pass
        luxe.stdin.write(
            json.dumps({"kind": "submit_user_message", "content": {"text": "go"}}) + "\n"
        )
        luxe.stdin.flush()
        while (frame := json.loads(luxe.stdout.readline()))["kind"] != "turn_ended":
            now = time.perf_counter()
            content = frame.get("content", {})
            if frame["kind"] == "tool_started":
                started[content["call_id"]] = now
            elif frame["kind"] == "tool_finished":
                calls.append((now - started[content["call_id"]]) * 1000)
            elif frame["kind"] == "hook_finished":
                HOOK_MS.append(content["duration_ms"])
        luxe.stdin.write('{"kind":"close"}\n')
        luxe.stdin.flush()
        luxe.wait(timeout=10)
        return statistics.median(calls)
    finally:
        if luxe.poll() is None:
            luxe.kill()
            luxe.wait()


def main() -> None:
    bare, hook = interleaved_ms(("true",), CALLS)
    print(f"bare subprocess.run(['true'])        {bare:7.2f} ms per call (baseline)")
    print(
        f"one BeforeToolUse hook (`true`)      {hook:7.2f} ms per call  "
        f"({hook / bare:.2f}x baseline, target <= 1.5x)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        if shutil.which("jq") and shutil.which("bash"):
            guard = Path(tmp) / "guard.sh"
            guard.write_text(GUARD_SH)
            guard.chmod(0o755)
            gbare, g = interleaved_ms((str(guard),), CALLS // 4)
            print(
                f"one BeforeToolUse hook (guard.sh)    {g:7.2f} ms per call  "
                f"({g / gbare:.2f}x baseline; bash + jq start-up dominates)"
            )
        without, with_, spawns = [], [], []
        for i in range(TURN_RUNS):  # alternate, so load weighs on all alike
            without.append(call_ms(False, Path(tmp) / f"a{i}"))
            with_.append(call_ms(True, Path(tmp) / f"b{i}"))
            for _ in range(TOOL_CALLS_PER_TURN):
                start = time.perf_counter()
                subprocess.run(["true"], check=True)
                spawns.append((time.perf_counter() - start) * 1000)
        added = statistics.median(with_) - statistics.median(without)
        spawn = statistics.median(spawns)
        print(
            f"luxe --rpc, tool_started -> tool_finished of a read call: "
            f"{statistics.median(without):.2f} ms bare, {statistics.median(with_):.2f} ms with the "
            f"hook -> {added:.2f} ms added per tool call; bare spawn in the same window "
            f"{spawn:.2f} ms ({added / spawn:.2f}x baseline)"
        )
        hook_ms = statistics.median(HOOK_MS)
        print(
            f"luxe --rpc, the hook as hook_finished.duration_ms reports it: {hook_ms:.2f} ms "
            f"({hook_ms / spawn:.2f}x baseline; the client-side figure above is blurred by "
            "the writer batching frames per wake-up)"
        )


if __name__ == "__main__":
    main()
