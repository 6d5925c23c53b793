"""One turn: the loop from a user prompt to the model's last answer.

`run_turn` owns the provider stream and the tool calls of its turn; the
session runs it inside the turn's cancel scope, so `cancel_turn` stops the
stream and kills the tools' processes at once. What the turn completed is
already in history and on disk; `finish_turn` (called by the session,
shielded, whatever happened) answers interrupted tool calls with a
"cancelled by the user" result, sends `tool_finished` (summary "cancelled")
for every started call that got none, then `turn_usage` and `turn_ended`.
"""

from __future__ import annotations

import logging
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import trio

from luxe.engine.history import CANCELLED_RESULT
from luxe.engine.model import (
    ModelRequest,
    ProviderError,
    RetryScheduled,
    StreamEvent,
    TextBlock,
    TextDelta,
    ThinkingDelta,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserContent,
    UserMessage,
)
from luxe.engine.tooling import ToolError, ToolResult, check_args
from luxe.protocol import events as ev

if TYPE_CHECKING:
    from luxe.engine.session import Session

log = logging.getLogger("luxe.turn")


@attrs.frozen
class TurnOutcome:
    """How a turn ended: `reason` as in `turn_ended`, the model's last text."""

    reason: str  # end_turn | cancelled | error | max_turns | denied
    error: str | None = None
    final_text: str = ""


@attrs.frozen
class CallRecord:
    """One finished tool call of a turn, kept for whoever waits on the turn
    (Guided Review tells a fix whose edits were all denied from a real one)."""

    name: str
    denied: bool  # refused by the gate, a BeforeToolUse hook or the client: it never ran
    reason: str  # why it was denied (what the model was told); "" when it ran
    changed: tuple[str, ...] = ()  # the files it changed


@attrs.define(eq=False)
class Turn:
    """A queued or running turn. `await turn.wait()` gives its outcome."""

    id: str
    text: str
    context: str | None = None
    attachments: tuple[str, ...] = ()
    scope: trio.CancelScope = attrs.Factory(trio.CancelScope)
    steering: list[str] = attrs.Factory(list)
    outcome: TurnOutcome | None = None
    _done: trio.Event = attrs.Factory(trio.Event)
    # Tool calls of the last assistant message still waiting for results.
    open_calls: tuple[ToolUseBlock, ...] = ()
    results: dict[str, ToolResultBlock] = attrs.Factory(dict)
    # Calls whose `tool_started` went out and whose `tool_finished` has not:
    # call_id -> tool name (finish_turn closes them as cancelled).
    running_calls: dict[str, str] = attrs.Factory(dict)
    usage: list[Usage] = attrs.Factory(list)
    cost_usd: float | None = 0.0
    final_text: str = ""
    calls: list[CallRecord] = attrs.Factory(list)  # finished tool calls, in finishing order
    shell: str | None = None  # `!command`: run_shell instead of the model loop

    async def wait(self) -> TurnOutcome:
        """Wait until the turn has ended (its `turn_ended` frame is sent)."""
        await self._done.wait()
        assert self.outcome is not None
        return self.outcome

    def _finish(self, outcome: TurnOutcome) -> None:
        self.outcome = outcome
        self._done.set()


class _Context:
    """What a running tool may use (see luxe.engine.tooling.ToolContext)."""

    def __init__(self, session: Session, call_id: str) -> None:
        self.session = session
        self.cwd: Path = session.cwd
        self.call_id = call_id
        # A gate may offer a stream redactor (luxe.policy does): it catches a
        # secret split across two output chunks, which per-chunk redaction misses.
        make_stream = getattr(session.gate, "stream_redactor", None)
        self._stream = make_stream() if make_stream is not None else None
        # Tools that walk directories (grep) skip the files this says are
        # secret; a gate may know more than names (hard links, by inode).
        self.is_secret_file: Callable[[str], bool] | None = getattr(
            session.gate, "is_secret_file", None
        )

    async def output(self, delta: str) -> None:
        safe = self._stream.feed(delta) if self._stream else self.session.gate.redact(delta)
        if safe:
            await self.session.emit(ev.ToolOutputDelta(self.call_id, safe))

    async def flush_output(self) -> None:
        """Send what the stream redactor held back, once the tool is done."""
        if self._stream and (rest := self._stream.flush()):
            await self.session.emit(ev.ToolOutputDelta(self.call_id, rest))

    async def ask_question(self, question: str, options: list[str], multiple: bool) -> dict[str, Any]:
        return await self.session.prompts.ask_question(self.call_id, question, options, multiple)


async def run_turn(session: Session, turn: Turn) -> TurnOutcome:
    """The loop: prompt hooks, then model call / tool calls until the model
    stops asking for tools, the guard trips, or the provider fails."""
    if turn.shell is not None:
        return await run_shell(session, turn, turn.shell)
    hooks = session.hooks
    submitted = await hooks.run("UserPromptSubmit", {"Other": {"content": turn.text}})
    if submitted.blocked:
        reason = session.gate.redact(submitted.reason or "a UserPromptSubmit hook blocked the prompt")
        return TurnOutcome("denied", reason)
    await hooks.run("BeforeAgentStart", {"Other": {}})
    content: list[UserContent] = [TextBlock(turn.text)]
    for path in turn.attachments:
        # An attachment is a read the client asked for: the gate's denies
        # (secret files) still apply; an "ask" is answered by the attaching.
        verdict = session.gate.check("read", {"path": path}, agent_mode=session.mode)  # type: ignore[arg-type]
        if verdict.decision == "deny":
            content.append(TextBlock(f"<attachment path={path!r}>refused: {verdict.reason}</attachment>"))
        else:
            content.append(TextBlock(session.gate.redact(_attachment(session.cwd, path))))
    # Hook context is redacted here too: any HookRunner, not only luxe.policy's,
    # may hand back text that quotes a secret file.
    hook_context = session.gate.redact(submitted.context) if submitted.context else None
    for extra in (turn.context, hook_context):
        if extra:
            content.append(TextBlock(f"<context>\n{extra}\n</context>"))
    await session.record(UserMessage(tuple(content)))
    system = await session.system_prompt()

    for _ in range(session.max_turns):
        await hooks.run("AgentStart", {"Other": None})
        request = ModelRequest(
            model=session.model.name,
            system=system,
            messages=session.history.for_request(),
            tools=tuple(t.spec for t in session.tools.values()),
            thinking=session.thinking,  # type: ignore[arg-type]
        )
        try:
            provider = await session.model.provider()
            answer = await provider.complete(request, lambda e: _forward(session, e))
        except ProviderError as exc:
            return TurnOutcome("error", exc.message, turn.final_text)
        except ExceptionGroup as group:
            # A provider that raises from inside its own nursery wraps the error.
            failure = _provider_error_in(group)
            if failure is None:
                raise
            return TurnOutcome("error", failure.message, turn.final_text)
        turn.open_calls, turn.results = answer.tool_uses, {}
        if answer.content:
            # An empty answer is not history: the APIs refuse empty messages.
            await session.record(answer)
        turn.usage.append(answer.usage)
        turn.cost_usd = _add_cost(turn.cost_usd, session.model.cost(answer.usage))
        text = "".join(b.text for b in answer.content if isinstance(b, TextBlock))
        if text:
            turn.final_text = text
        calls = answer.tool_uses
        if calls:
            await session.emit(session.live_usage_event(turn))
        if not calls:
            if turn.steering:
                # Steering that came in during the last answer still gets heard.
                await session.record(UserMessage(_steering(turn)))
                continue
            return TurnOutcome("end_turn", None, turn.final_text)
        async with trio.open_nursery() as nursery:
            for call in calls:
                nursery.start_soon(_run_call, session, turn, call)
        results = tuple(turn.results[c.id] for c in calls)
        turn.open_calls = ()
        await session.record(UserMessage(results + _steering(turn)))
    return TurnOutcome("max_turns", f"stopped after {session.max_turns} model requests", turn.final_text)


async def run_shell(session: Session, turn: Turn, command: str) -> TurnOutcome:
    """`!command` (run_shell): one bash call through the same gate, hooks and
    prompts as a model's call, then its output is recorded as a user message
    so the model sees it next turn. No model request is made."""
    call = ToolUseBlock(f"{turn.id}_shell", "bash", {"command": command})
    await _run_call(session, turn, call)
    result = turn.results[call.id]
    status = "failed" if result.is_error else "ran"
    note = f"I {status} `{command}` in the shell myself; its output:\n<output>\n{result.content}\n</output>"
    await session.record(UserMessage((TextBlock(note),)))
    return TurnOutcome("denied" if result.is_error and "rejected" in result.content else "end_turn", None)


def _provider_error_in(group: ExceptionGroup[Exception]) -> ProviderError | None:
    """The ProviderError of a group that holds nothing else, if any."""
    leaves: list[BaseException] = []
    stack: list[BaseException] = [group]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
        else:
            leaves.append(item)
    if len(leaves) == 1 and isinstance(leaves[0], ProviderError):
        return leaves[0]
    return None


def _steering(turn: Turn) -> tuple[TextBlock, ...]:
    blocks = tuple(TextBlock(text) for text in turn.steering)
    turn.steering.clear()
    return blocks


async def finish_turn(session: Session, turn: Turn, outcome: TurnOutcome) -> None:
    """Close the books on a turn, whatever happened. Runs shielded.
    Every `tool_started` gets exactly one `tool_finished` before `turn_ended`:
    a client pairs them (a spinner per call)."""
    for call_id, name in list(turn.running_calls.items()):
        del turn.running_calls[call_id]
        await session.emit(ev.ToolFinished(call_id, name, True, "cancelled", False))
    if turn.open_calls:
        results = tuple(
            turn.results.get(c.id) or ToolResultBlock(c.id, CANCELLED_RESULT, is_error=True)
            for c in turn.open_calls
        )
        turn.open_calls = ()
        await session.record(UserMessage(results))
    if turn.usage:
        await session.emit(session.usage_event(turn))
    await session.emit(ev.TurnEnded(turn.id, outcome.reason, outcome.error))


def _add_cost(total: float | None, cost: float | None) -> float | None:
    if total is None or cost is None:
        return None
    return total + cost


async def _forward(session: Session, event: StreamEvent) -> None:
    if isinstance(event, TextDelta):
        await session.emit(ev.TokenDelta(event.block, event.text))
    elif isinstance(event, ThinkingDelta):
        await session.emit(ev.ThinkingDelta(event.block, event.text))
    elif isinstance(event, RetryScheduled):
        await session.emit(ev.Error(event.message, True, event.retry_in_s))


def _attachment(cwd: Path, path: str) -> str:
    full = (cwd / path).resolve()
    try:
        if not stat.S_ISREG(full.stat().st_mode):
            # A FIFO or device would block the event loop.
            return f"<attachment path={path!r}>not a regular file</attachment>"
        with full.open("rb") as f:
            text = f.read(64 * 1024).decode("utf-8", "replace")
    except (OSError, UnicodeDecodeError) as exc:
        return f"<attachment path={path!r}>could not be read: {exc}</attachment>"
    return f"<attachment path={path!r}>\n{text}\n</attachment>"


async def _run_call(session: Session, turn: Turn, call: ToolUseBlock) -> None:
    """One tool call from start frame to result; its outcome lands in
    `turn.results`. Cancelled with the turn (its processes die with it)."""
    await session.emit(ev.ToolStarted(call.id, call.name, call.input))
    turn.running_calls[call.id] = call.name
    result, denied = await _decide_and_run(session, call)
    # A gate may want to know a call ran (luxe.policy looks for secret files
    # the call may have created or changed, so their values are redacted).
    tool_ran = getattr(session.gate, "tool_ran", None)
    if tool_ran is not None and not denied:
        tool_ran(call.name)
    content = session.gate.redact(result.content)
    if not denied:
        after = await session.hooks.run(
            "AfterToolUse",
            {"ToolResult": {"tool_name": call.name, "result": content, "is_error": result.is_error}},
        )
        if after.context:
            content = f"{content}\n\n{session.gate.redact(after.context)}"
    turn.results[call.id] = ToolResultBlock(call.id, content, result.is_error)
    changed = tuple(path for path, _ in result.changed)
    turn.calls.append(CallRecord(call.name, denied, content[:200] if denied else "", changed))
    summary = session.gate.redact(result.summary or content.split("\n", 1)[0])[:200]
    await session.emit(ev.ToolFinished(call.id, call.name, result.is_error, summary, denied))
    del turn.running_calls[call.id]


async def _decide_and_run(session: Session, call: ToolUseBlock) -> tuple[ToolResult, bool]:
    """Permission, BeforeToolUse hook, the ask, then the tool. Returns the
    result and whether the call was denied (and so never ran)."""
    tool = session.tools.get(call.name)
    if tool is None:
        names = ", ".join(session.tools)
        return ToolResult(f"unknown tool `{call.name}`; the tools are: {names}", True, "unknown tool"), False
    problem = check_args(tool.spec, call.input)
    if problem is not None:
        return ToolResult(problem, True, problem), False
    verdict = session.gate.check(call.name, call.input, agent_mode=session.mode)  # type: ignore[arg-type]
    if verdict.decision == "deny":
        return ToolResult(f"denied: {verdict.reason}", True, f"denied: {verdict.reason}"), True
    hook = await session.hooks.run(
        "BeforeToolUse", {"ToolUse": {"tool_name": call.name, "args": call.input}}
    )
    if hook.blocked:
        why = hook.reason or "a BeforeToolUse hook blocked this call"
        return ToolResult(f"blocked by a hook: {why}", True, f"blocked: {why}"), True
    if verdict.decision == "ask":
        answer = await session.prompts.ask_permission(call.id, call.name, call.input, verdict.reason)
        if answer.reply in ("reject", "cancelled"):
            told = f": {answer.message}" if answer.message else ""
            return ToolResult(f"the user rejected this call{told}", True, "rejected"), True
        if answer.reply == "always":
            session.gate.allow_always(call.name, call.input)
    ctx = _Context(session, call.id)
    before = _snapshot(session.cwd, call)
    try:
        result = await tool.run(call.input, ctx)
    except ToolError as exc:
        result = ToolResult(str(exc), True, str(exc).split("\n", 1)[0])
    except Exception as exc:
        log.exception("tool %s crashed", call.name)
        result = ToolResult(f"the {call.name} tool crashed: {type(exc).__name__}: {exc}", True, "crashed")
    await ctx.flush_output()
    for path, operation in result.changed:
        diff = session.gate.redact(d) if (d := _diff(path, before)) is not None else None
        await session.emit(ev.FileChanged(path, operation, diff))
        await session.hooks.run("FileChanged", {"FileChanged": {"path": path, "operation": operation}})
        if session.diagnostics is not None and operation in ("write", "edit"):
            found = await session.diagnostics.after_edit(path)
            if found:
                result = attrs.evolve(result, content=f"{result.content}\n\n{found}")
    return result, False


# Files larger than this get no diff on file_changed.
DIFF_MAX_BYTES = 256 * 1024


def _read_small(path: Path) -> str | None:
    """A small regular text file's content; "" when it does not exist."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return ""
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > DIFF_MAX_BYTES:
        return None
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _snapshot(cwd: Path, call: ToolUseBlock) -> dict[str, str | None]:
    """Before a write or edit: the target's content, for the diff after."""
    target = call.input.get("path") if call.name in ("write", "edit") else None
    if not isinstance(target, str):
        return {}
    path = (cwd / target).resolve()
    return {str(path): _read_small(path)}


def _diff(path: str, before: dict[str, str | None]) -> str | None:
    """A unified diff of `path` from its snapshot to now, or None."""
    import difflib

    old = before.get(str(Path(path).resolve()))
    new = _read_small(Path(path))
    if old is None or new is None:
        return None
    name = Path(path).name
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}"
    )
    return "".join(lines)
