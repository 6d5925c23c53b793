"""One turn: the loop from a user prompt to the model's last answer.

`run_turn` owns the provider stream and the tool calls of its turn; the
session runs it inside the turn's cancel scope, so `cancel_turn` stops the
stream and kills the tools' processes at once. What the turn completed is
already in history and on disk; `finish_turn` (called by the session,
shielded, whatever happened) answers interrupted tool calls with a
"cancelled by the user" result, sends `tool_finished` (summary "cancelled")
for every started call that got none, then `turn_usage` and `turn_ended`.

The turn sees its session only through `TurnHost`. Text from outside the
engine (hook answers, tool results and output, attached files, and a
prompt that quotes files: a person's review typed in by Laura) is redacted
by the gate once, as it enters the turn (`_Redacting`), so nothing the turn
emits, records for the model or hands to a hook needs it again.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs
import trio

from luxe.engine import file_change
from luxe.engine.attachments import attachment_text
from luxe.engine.history import CANCELLED_RESULT, History
from luxe.engine.model import (
    AssistantMessage,
    Message,
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
from luxe.engine.ports import (
    EditDiagnostics,
    HookOutcome,
    HookPoint,
    HookRunner,
    ModelSource,
    PermissionGate,
    StreamRedaction,
    file_changed_event,
    other_event,
    tool_result_event,
    tool_use_event,
)
from luxe.engine.prompts import Prompts
from luxe.engine.redacted_model import provider_error_in
from luxe.engine.tooling import Tool, ToolError, ToolResult, check_args, secret_opened
from luxe.protocol import events as ev
from luxe.protocol.laura_review import REVIEW_HEADER
from luxe.record import record

log = logging.getLogger("luxe.turn")

# How much of a denial's reason `tool_finished.reason` carries.
MAX_DENIAL_REASON = 2000


@record
class TurnOutcome:
    """How a turn ended: `reason` as in `turn_ended`, the model's last text."""

    reason: str  # end_turn | cancelled | error | max_turns | denied
    error: str | None = None
    final_text: str = ""


@record
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
    queued: bool = False  # it waited behind another job (`message_queued` was sent)
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

    def finish(self, outcome: TurnOutcome) -> None:
        """Settle the outcome and wake every `wait` (once its frames are sent)."""
        self.outcome = outcome
        self._done.set()


class TurnHost(Protocol):
    """What a turn needs from its session. Attributes are read when used,
    so a setting changed mid-turn (mode) applies from the next tool call."""

    cwd: Path
    history: History
    model: ModelSource
    gate: PermissionGate
    hooks: HookRunner
    prompts: Prompts
    diagnostics: EditDiagnostics | None
    mode: str  # build | plan
    thinking: str  # off | low | medium | high
    max_turns: int  # model requests per prompt
    session_cost_usd: float | None  # before the running turn

    @property
    def tools(self) -> Mapping[str, Tool]: ...

    emit: Callable[[ev.Event], Awaitable[None]]  # send a frame to the client

    async def record(self, message: Message) -> None:
        """Append a completed message to history and to the session file."""
        ...

    async def system_prompt(self) -> str: ...


async def run_turn(host: TurnHost, turn: Turn) -> TurnOutcome:
    """The loop: prompt hooks, then model call / tool calls until the model
    stops asking for tools, the guard trips, or the provider fails."""
    safe = _Redacting(host.gate)
    hooks = safe.hooks(host.hooks)
    if turn.shell is not None:
        await host.gate.settle()  # a bash call is checked against every secret file
        return await run_shell(host, safe, hooks, turn, turn.shell)
    submitted = await hooks.run("UserPromptSubmit", other_event({"content": turn.text}))
    if submitted.blocked:
        return TurnOutcome("denied", submitted.reason or "a UserPromptSubmit hook blocked the prompt")
    await hooks.run("BeforeAgentStart", other_event({}))
    if turn.attachments or any(map(_quotes_files, (turn.text, *turn.steering))):
        # An attachment is checked against every secret file; quoted file
        # text is redacted with every value known.
        await host.gate.settle()
    # Steering sent before the turn started goes with its prompt.
    await host.record(UserMessage(_prompt(host, safe, turn, submitted.context) + _steering(turn, safe)))
    system = await host.system_prompt()
    for _ in range(host.max_turns):
        await hooks.run("AgentStart", other_event())
        try:
            answer = await _ask_model(host, system)
        except ProviderError as exc:
            return TurnOutcome("error", exc.message, turn.final_text)
        await _take_answer(host, turn, answer)
        if answer.tool_uses:
            await host.emit(usage_updated(turn, host.model.state().context_window, host.session_cost_usd))
            # Every secret file and value must be known before a call is
            # checked or its output redacted: the first request did not wait
            # for the scan (it overlaps the model's answer, in a worker
            # thread), a tool call does.
            await host.gate.settle()
            async with trio.open_nursery() as nursery:
                for call in answer.tool_uses:
                    nursery.start_soon(_run_call, host, safe, hooks, turn, call)
            results = tuple(turn.results[c.id] for c in answer.tool_uses)
            turn.open_calls = ()
            await host.record(UserMessage(results + _steering(turn, safe)))
        elif turn.steering:
            # Steering that came in during the last answer still gets heard.
            if any(map(_quotes_files, turn.steering)):
                await host.gate.settle()  # redacted with every value known
            await host.record(UserMessage(_steering(turn, safe)))
        else:
            return TurnOutcome("end_turn", None, turn.final_text)
    return TurnOutcome("max_turns", f"stopped after {host.max_turns} model requests", turn.final_text)


async def finish_turn(host: TurnHost, turn: Turn, outcome: TurnOutcome, usage: ev.TurnUsage | None) -> None:
    """Close the books on a turn, whatever happened. Runs shielded.
    Every `tool_started` gets exactly one `tool_finished` before `turn_ended`:
    a client pairs them (a spinner per call). `usage` is sent when given."""
    for call_id, name in list(turn.running_calls.items()):
        del turn.running_calls[call_id]
        await host.emit(ev.ToolFinished(call_id, name, True, "cancelled", False))
    if turn.open_calls:
        results = tuple(
            turn.results.get(c.id) or ToolResultBlock(c.id, CANCELLED_RESULT, is_error=True)
            for c in turn.open_calls
        )
        turn.open_calls = ()
        await host.record(UserMessage(results))
    if usage is not None:
        await host.emit(usage)
    await host.emit(ev.TurnEnded(turn.id, outcome.reason, outcome.error, outcome.final_text))


async def run_shell(
    host: TurnHost, safe: _Redacting, hooks: HookRunner, turn: Turn, command: str
) -> TurnOutcome:
    """`!command` (run_shell): one bash call through the same gate, hooks and
    prompts as a model's call, then its output is recorded as the user's
    message so the model sees it next turn. No model request is made."""
    call = ToolUseBlock(f"{turn.id}_shell", "bash", {"command": command})
    await _run_call(host, safe, hooks, turn, call)
    result = turn.results[call.id]
    status = "failed to run" if result.is_error else "ran"
    note = f"I {status} `{command}` in the shell myself; its output:\n<output>\n{result.content}\n</output>"
    await host.record(UserMessage((TextBlock(note),)))
    denied = bool(turn.calls and turn.calls[-1].denied)
    return TurnOutcome("denied" if denied else "end_turn", None)


def usage_updated(turn: Turn, context_window: int, session_cost_usd: float | None) -> ev.UsageUpdated:
    """`usage_updated` while a turn runs: its totals so far; the session
    cost includes the running turn."""
    last = turn.usage[-1]
    if turn.cost_usd is not None:
        session_cost_usd = (session_cost_usd or 0.0) + turn.cost_usd
    return ev.UsageUpdated(
        prompt_tokens=sum(u.input_tokens for u in turn.usage),
        completion_tokens=sum(u.output_tokens for u in turn.usage),
        context_used=last.input_tokens + last.cache_read_tokens + last.cache_write_tokens + last.output_tokens,
        context_window=context_window,
        cost_usd=turn.cost_usd,
        session_cost_usd=session_cost_usd,
    )


def usage_event(turn: Turn, context_window: int, session_cost_usd: float | None) -> ev.TurnUsage:
    """`turn_usage` for a turn that made at least one model request:
    totals over its requests; the context used is the last request's."""
    last = turn.usage[-1]
    return ev.TurnUsage(
        prompt_tokens=sum(u.input_tokens for u in turn.usage),
        completion_tokens=sum(u.output_tokens for u in turn.usage),
        cache_read_tokens=sum(u.cache_read_tokens for u in turn.usage),
        cache_write_tokens=sum(u.cache_write_tokens for u in turn.usage),
        cost_usd=turn.cost_usd,
        context_used=last.input_tokens + last.cache_read_tokens + last.cache_write_tokens + last.output_tokens,
        context_window=context_window,
        session_cost_usd=session_cost_usd,
        requests=len(turn.usage),
    )


# -- the steps of the loop ------------------------------------------------------


def _prompt(host: TurnHost, safe: _Redacting, turn: Turn, hook_context: str | None) -> tuple[UserContent, ...]:
    """The user message: the text, its attachments, the caller's and the
    UserPromptSubmit hooks' context."""
    text = safe.text(turn.text) if _quotes_files(turn.text) else turn.text
    content: list[UserContent] = [TextBlock(text)]
    for path in turn.attachments:
        # An attachment is a read the client asked for: the gate's denies
        # (secret files) still apply; an "ask" is answered by the attaching.
        verdict = host.gate.check("read", {"path": path}, agent_mode=host.mode)  # type: ignore[arg-type]
        if verdict.decision == "deny":
            reason = verdict.reason.removeprefix("refused: ")  # the gate's own reasons say it
            content.append(TextBlock(f"<attachment path={path!r}>refused: {reason}</attachment>"))
        else:
            block = attachment_text(host.cwd, path, host.gate.is_secret_opened)
            content.append(TextBlock(safe.text(block)))
    for extra in (turn.context, hook_context):
        if extra:
            content.append(TextBlock(f"<context>\n{extra}\n</context>"))
    return tuple(content)


async def _ask_model(host: TurnHost, system: str) -> AssistantMessage:
    """One model request over the history, its stream forwarded as frames.
    Raises ProviderError (also when a provider's nursery wraps it)."""
    request = ModelRequest(
        model=host.model.name,
        system=system,
        messages=host.history.for_request(),
        tools=tuple(t.spec for t in host.tools.values()),
        thinking=host.thinking,  # type: ignore[arg-type]
    )

    async def forward(event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            await host.emit(ev.TokenDelta(event.block, event.text))
        elif isinstance(event, ThinkingDelta):
            await host.emit(ev.ThinkingDelta(event.block, event.text))
        elif isinstance(event, RetryScheduled):
            await host.emit(ev.Error(event.message, True, event.retry_in_s))

    try:
        provider = await host.model.provider()
        return await provider.complete(request, forward)
    except ExceptionGroup as group:
        failure = provider_error_in(group)
        if failure is None:
            raise
        raise failure from None


async def _take_answer(host: TurnHost, turn: Turn, answer: AssistantMessage) -> None:
    """Record the answer and count its usage, cost and text."""
    turn.open_calls, turn.results = answer.tool_uses, {}
    if answer.content:
        # An empty answer is not history: the APIs refuse empty messages.
        await host.record(answer)
    turn.usage.append(answer.usage)
    turn.cost_usd = _add_cost(turn.cost_usd, host.model.cost(answer.usage))
    text = "".join(b.text for b in answer.content if isinstance(b, TextBlock))
    if text:
        turn.final_text = text


def _quotes_files(text: str) -> bool:
    """A review Laura typed in for the person quotes each commented line of
    the file, which may hold a secret file's value, as a read of it would.
    The person's own prompts are theirs: they go as typed, and the first
    does not wait for the secret files' scan."""
    return REVIEW_HEADER in text


def _steering(turn: Turn, safe: _Redacting) -> tuple[TextBlock, ...]:
    blocks = tuple(
        TextBlock(safe.text(text) if _quotes_files(text) else text) for text in turn.steering
    )
    turn.steering.clear()
    return blocks


def _add_cost(total: float | None, cost: float | None) -> float | None:
    if total is None or cost is None:
        return None
    return total + cost


# -- redaction: where outside text enters the turn ----------------------------------


class _Redacting:
    """The turn's one redaction wrapper, over the gate: hook answers (any
    HookRunner, not only luxe.policy's, may quote a secret file), tool
    results and live output, and attached files pass through it."""

    def __init__(self, gate: PermissionGate) -> None:
        self.gate = gate

    def text(self, text: str) -> str:
        return self.gate.redact(text)

    def result(self, result: ToolResult) -> ToolResult:
        summary = self.gate.redact(result.summary) if result.summary else ""
        return attrs.evolve(result, content=self.gate.redact(result.content), summary=summary)

    def hooks(self, hooks: HookRunner) -> HookRunner:
        return _RedactedHooks(hooks, self.gate)


class _RedactedHooks:
    def __init__(self, hooks: HookRunner, gate: PermissionGate) -> None:
        self._hooks, self._gate = hooks, gate

    async def run(self, point: HookPoint, event: Mapping[str, Any]) -> HookOutcome:
        outcome = await self._hooks.run(point, event)
        if outcome.reason or outcome.context:
            await self._gate.settle()  # waited for here, not inside a redaction on the loop
        redact = self._gate.redact
        return HookOutcome(
            blocked=outcome.blocked,
            reason=redact(outcome.reason) if outcome.reason else outcome.reason,
            context=redact(outcome.context) if outcome.context else outcome.context,
        )


# -- one tool call ------------------------------------------------------------------


class _Context:
    """What a running tool may use (see luxe.engine.tooling.ToolContext)."""

    def __init__(self, host: TurnHost, call_id: str) -> None:
        self.host = host
        self.cwd: Path = host.cwd
        self.call_id = call_id
        self.call_token = secrets.token_hex(8)
        # One stream redactor per call: it catches a secret split across two
        # output chunks, which per-chunk redaction misses.
        self._stream = host.gate.stream_redactor()

    def is_secret_file(self, path: str) -> bool:
        return self.host.gate.is_secret_file(path)

    def is_secret_opened(self, fd: int) -> bool:
        return self.host.gate.is_secret_opened(fd)

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        return self.host.gate.redact(text, cut_start=cut_start, cut_end=cut_end)

    def redacting_stream(self) -> StreamRedaction:
        return self.host.gate.stream_redactor()

    async def output(self, delta: str) -> None:
        if safe := self._stream.feed(delta):
            await self.host.emit(ev.ToolOutputDelta(self.call_id, safe))

    async def flush_output(self) -> None:
        """Send what the stream redactor held back, once the tool is done."""
        if rest := self._stream.flush():
            await self.host.emit(ev.ToolOutputDelta(self.call_id, rest))

    async def ask_question(self, question: str, options: list[str], multiple: bool) -> dict[str, Any]:
        return await self.host.prompts.ask_question(self.call_id, question, options, multiple)


async def _run_call(host: TurnHost, safe: _Redacting, hooks: HookRunner, turn: Turn, call: ToolUseBlock) -> None:
    """One tool call from start frame to result; its outcome lands in
    `turn.results`. Cancelled with the turn (its processes die with it)."""
    await host.emit(ev.ToolStarted(call.id, call.name, call.input))
    turn.running_calls[call.id] = call.name
    result, denied = await _decide_and_run(host, hooks, call)
    if not denied:
        await host.gate.tool_ran(call.name)
    result = safe.result(result)
    content = result.content
    if not denied:
        after = await hooks.run("AfterToolUse", tool_result_event(call.name, content, result.is_error))
        if after.context:
            content = f"{content}\n\n{after.context}"
    turn.results[call.id] = ToolResultBlock(call.id, content, result.is_error)
    changed = tuple(path for path, _ in result.changed)
    turn.calls.append(CallRecord(call.name, denied, content[:200] if denied else "", changed))
    summary = (result.summary or content.split("\n", 1)[0])[:200]
    reason = content[:MAX_DENIAL_REASON] if denied else None
    await host.emit(ev.ToolFinished(call.id, call.name, result.is_error, summary, denied, reason))
    del turn.running_calls[call.id]


async def _decide_and_run(host: TurnHost, hooks: HookRunner, call: ToolUseBlock) -> tuple[ToolResult, bool]:
    """Permission, BeforeToolUse hook, the ask, then the tool. Returns the
    result and whether the call was denied (and so never ran)."""
    tool = host.tools.get(call.name)
    if tool is None:
        names = ", ".join(host.tools)
        return ToolResult(f"unknown tool `{call.name}`; the tools are: {names}", True, "unknown tool"), False
    problem = check_args(tool.spec, call.input)
    if problem is not None:
        return ToolResult(problem, True, problem), False
    verdict = host.gate.check(call.name, call.input, agent_mode=host.mode)  # type: ignore[arg-type]
    if verdict.decision == "deny":
        return ToolResult(f"denied: {verdict.reason}", True, f"denied: {verdict.reason}"), True
    hook = await hooks.run("BeforeToolUse", tool_use_event(call.name, call.input))
    if hook.blocked:
        why = hook.reason or "a BeforeToolUse hook blocked this call"
        return ToolResult(f"blocked by a hook: {why}", True, f"blocked: {why}"), True
    if verdict.decision == "ask":
        # In a worker thread, like every file read and diff here: bounded
        # (256 KiB, MATCH_LIMIT), but some tens of ms the loop need not wait.
        # The file opened for the preview is judged by its descriptor: a
        # name swapped for a secret file after the gate's check is refused
        # here, as write and edit refuse it, and shows no line of it.
        preview = None
        if call.name in file_change.CHANGING_TOOLS:
            try:
                preview = await trio.to_thread.run_sync(
                    file_change.planned_diff, host.cwd, call.name, call.input, host.gate.is_secret_opened
                )
            except file_change.SecretOpened:
                why = secret_opened(str(call.input["path"]))
                return ToolResult(why, True, why), True
        answer = await host.prompts.ask_permission(
            call.id, call.name, call.input, verdict.reason, _redacted(host, preview)
        )
        if answer.reply in ("reject", "cancelled"):
            told = f": {answer.message}" if answer.message else ""
            return ToolResult(f"the user rejected this call{told}", True, "rejected"), True
        if answer.reply == "always":
            host.gate.allow_always(call.name, call.input)
    ctx = _Context(host, call.id)
    before: dict[str, str | None] = {}
    if call.name in file_change.CHANGING_TOOLS:
        before = await trio.to_thread.run_sync(
            file_change.snapshot, host.cwd, call.name, call.input, host.gate.is_secret_opened
        )
    try:
        result = await tool.run(call.input, ctx)
    except ToolError as exc:
        result = ToolResult(str(exc), True, str(exc).split("\n", 1)[0])
    except Exception as exc:
        log.exception("tool %s crashed", call.name)
        result = ToolResult(f"the {call.name} tool crashed: {type(exc).__name__}: {exc}", True, "crashed")
    await ctx.flush_output()
    for path, operation in result.changed:
        diff = await trio.to_thread.run_sync(file_change.diff_since, path, before, host.gate.is_secret_opened)
        await host.emit(ev.FileChanged(path, operation, _redacted(host, diff), call.id))
        await hooks.run("FileChanged", file_changed_event(path, operation))
        if host.diagnostics is not None and operation in ("write", "edit"):
            found = await host.diagnostics.after_edit(path)
            if found:
                result = attrs.evolve(result, content=f"{result.content}\n\n{found}")
    return result, False


def _redacted(host: TurnHost, diff: str | None) -> str | None:
    """A diff of a file's text as a client may see it (secrets redacted)."""
    return None if diff is None else host.gate.redact(diff)
