"""The engine calls its HookRunner at every point of the hooks spec, with the
spec's stdin shapes, and honours block and context where the spec says.

These drive a real Session in-process (real tools, real files, the scripted
model) with a HookRunner that records what it is given and answers as told:
the contract the command hook runner of luxe.policy plugs into. The same
Session API (`start_turn` + `wait`) is what Guided Review uses."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from luxe.engine.ports import HookOutcome, HookPoint
from luxe.engine.session import Session
from luxe.engine.store import SessionStore
from luxe.protocol import events as ev
from luxe.providers.choice import ModelChoice
from luxe.tools import default_tools
from tests.fakes.gates import ModeGate
from tests.luxe.rpc_driver import make_repo, write_script


class RecordingHooks:
    def __init__(self, answers: Mapping[str, HookOutcome] | None = None) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.answers = dict(answers or {})

    async def run(self, point: HookPoint, event: Mapping[str, Any]) -> HookOutcome:
        self.calls.append((point, event))
        return self.answers.get(point, HookOutcome())


async def _session(tmp_path: Path, steps: list[dict[str, Any]], hooks: RecordingHooks):  # type: ignore[no-untyped-def]
    repo = make_repo(tmp_path / "repo")
    script = write_script(tmp_path, steps)
    store = SessionStore(tmp_path / "sessions")
    frames: list[ev.Event] = []

    async def emit(event: ev.Event) -> None:
        frames.append(event)

    session = Session(
        cwd=repo,
        file=store.create(str(repo)),
        model=ModelChoice(f"scripted:{script}", {}),
        tools=default_tools(),
        gate=ModeGate(permission_mode="yolo"),
        hooks=hooks,
        emit=emit,
        max_turns=10,
    )
    return session, frames, repo


async def test_every_hook_point_fires_with_the_spec_shapes(tmp_path: Path) -> None:
    hooks = RecordingHooks({"AfterToolUse": HookOutcome(context="lint: all clean")})
    steps = [
        {"tool_calls": [{"name": "write", "args": {"path": "a.txt", "content": "hi\n"}}]},
        {"text": "done"},
        {"text": "SUMMARY"},
    ]
    session, _frames, repo = await _session(tmp_path, steps, hooks)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        turn = await session.start_turn("write a file", context="extra facts")
        outcome = await turn.wait()
        assert (outcome.reason, outcome.final_text) == ("end_turn", "done")
        compacted = trio.Event()
        plain_emit = session.emit

        async def emit(event: ev.Event) -> None:
            await plain_emit(event)
            if isinstance(event, ev.Compacted):
                compacted.set()

        session.emit = emit
        assert session.compact() is None
        with trio.fail_after(5):
            await compacted.wait()
        await session.close()
        nursery.cancel_scope.cancel()
    points = [p for p, _ in hooks.calls]
    assert points == [
        "SessionStart",
        "UserPromptSubmit",
        "BeforeAgentStart",
        "AgentStart",
        "BeforeToolUse",
        "FileChanged",
        "AfterToolUse",
        "AgentStart",
        "AgentEnd",
        "BeforeCompact",
        "AfterCompact",
        "SessionEnd",
    ]
    events = dict(hooks.calls)
    assert events["SessionStart"] == {"Other": None}
    assert events["UserPromptSubmit"] == {"Other": {"content": "write a file"}}
    assert events["BeforeAgentStart"] == {"Other": {}}
    assert events["AgentStart"] == {"Other": None}
    assert events["BeforeToolUse"] == {"ToolUse": {"tool_name": "write", "args": {"path": "a.txt", "content": "hi\n"}}}
    assert events["FileChanged"] == {"FileChanged": {"path": str(repo / "a.txt"), "operation": "write"}}
    result = events["AfterToolUse"]["ToolResult"]
    assert result["tool_name"] == "write" and result["is_error"] is False
    assert result["result"].startswith("created a.txt")
    assert events["AgentEnd"] == {"Other": None}
    assert set(events["BeforeCompact"]["Other"]) == {"tokens_before"}
    assert events["SessionEnd"] == {"Other": None}
    # AfterToolUse context reaches the model; start_turn context is in the prompt.
    user_messages = [m for m in session.history.messages if m.role == "user"]
    texts = [getattr(b, "text", getattr(b, "content", "")) for m in user_messages for b in m.content]
    assert any("lint: all clean" in t for t in texts)
    assert any("extra facts" in t for t in texts)


async def test_a_blocked_prompt_never_calls_the_model(tmp_path: Path) -> None:
    hooks = RecordingHooks({"UserPromptSubmit": HookOutcome(blocked=True, reason="no secrets")})
    session, frames, _ = await _session(tmp_path, [], hooks)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        outcome = await (await session.start_turn("CORP-SECRET-1")).wait()
        await session.close()
        nursery.cancel_scope.cancel()
    assert (outcome.reason, outcome.error) == ("denied", "no secrets")
    ended = [f for f in frames if isinstance(f, ev.TurnEnded)]
    assert [(e.reason, e.error) for e in ended] == [("denied", "no secrets")]
    assert "AgentStart" not in [p for p, _ in hooks.calls]
    assert session.history.messages == []


async def test_a_blocked_tool_does_not_run_and_the_model_is_told(tmp_path: Path) -> None:
    hooks = RecordingHooks({"BeforeToolUse": HookOutcome(blocked=True, reason="rm is blocked")})
    steps = [{"tool_calls": [{"name": "bash", "args": {"command": "touch made.txt"}}]}, {"text": "ok"}]
    session, frames, repo = await _session(tmp_path, steps, hooks)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        outcome = await (await session.start_turn("go")).wait()
        await session.close()
        nursery.cancel_scope.cancel()
    assert outcome.reason == "end_turn"
    assert not (repo / "made.txt").exists()
    finished = [f for f in frames if isinstance(f, ev.ToolFinished)]
    assert finished[0].denied is True
    results = [b for m in session.history.messages for b in m.content if hasattr(b, "tool_use_id")]
    assert "rm is blocked" in results[0].content
    assert "AfterToolUse" not in [p for p, _ in hooks.calls]


async def test_redaction_covers_output_and_results(tmp_path: Path) -> None:
    class Redacting(ModeGate):
        def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
            return text.replace("hunter2", "[redacted]")

    steps = [{"tool_calls": [{"name": "bash", "args": {"command": "echo pw=hunter2"}}]}, {"text": "ok"}]
    session, frames, _ = await _session(tmp_path, steps, RecordingHooks())
    session.gate = Redacting(permission_mode="yolo")
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        await (await session.start_turn("go")).wait()
        await session.close()
        nursery.cancel_scope.cancel()
    seen = [f.delta for f in frames if isinstance(f, ev.ToolOutputDelta)]
    assert seen and all("hunter2" not in d for d in seen)
    results = [b for m in session.history.messages for b in m.content if hasattr(b, "tool_use_id")]
    assert "pw=[redacted]" in results[0].content
