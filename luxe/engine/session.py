"""A session: its history, its settings, and the turns it runs one at a time.

`Session.run` owns the session nursery and runs queued turns in order, each
inside its own cancel scope. Everything a client can do arrives as a method
call that returns at once: `steer`, `cancel_turn`, `compact`, `set_*` return
a refusal message (str) or None; `start_turn` only waits while the event
channel is full.

For programmatic turns (Guided Review and other in-process callers):

    turn = await session.start_turn("explain hunk 3", context="<the diff>")
    outcome = await turn.wait()   # TurnOutcome(reason, error, final_text)

`start_turn` queues like `submit_user_message` (a `message_queued` frame is
sent when a turn is already running) and the turn streams its frames to the
client as any other. Cancelling the turn (`cancel_turn`) gives the outcome
reason `cancelled`.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path

import attrs
import trio

from luxe.engine.history import History, clean_message
from luxe.engine.model import Message
from luxe.engine.ports import (
    EditDiagnostics,
    HookRunner,
    Leftovers,
    ModelSource,
    PermissionGate,
    other_event,
)
from luxe.engine.prompts import Prompts
from luxe.engine.redacted_model import RedactedModel
from luxe.engine.store import SessionFile
from luxe.engine.system_prompt import build_system_prompt
from luxe.engine.tooling import Tool
from luxe.engine.turn import Turn, TurnOutcome, finish_turn, run_turn, usage_event
from luxe.protocol import events as ev

log = logging.getLogger("luxe.session")

Emit = Callable[[ev.Event], Awaitable[None]]

# How long SessionEnd hooks may take while the session is closing, and the
# running turn's AgentEnd hooks before them: together well within the second
# a closing session has to exit (docs/rpc.md).
CLOSING_HOOK_S = 0.5
CLOSING_AGENT_END_S = 0.3


@attrs.define(eq=False)
class _Compaction:
    scope: trio.CancelScope = attrs.Factory(trio.CancelScope)
    done: trio.Event = attrs.Factory(trio.Event)


class Session:
    """The agent session: what its turns see of it is `TurnHost` (turn.py)
    and what compaction sees is `CompactionHost` (compaction.py)."""

    def __init__(
        self,
        *,
        cwd: Path,
        file: SessionFile,
        model: ModelSource,
        tools: list[Tool] | Callable[[], list[Tool]],
        gate: PermissionGate,
        hooks: HookRunner,
        emit: Emit,
        max_turns: int,
        resumed: bool = False,
        auto_approve: bool = False,
        context: str | None = None,
        leftovers: Leftovers | None = None,
    ) -> None:
        self.cwd = cwd
        # Appended to the system prompt: e.g. the GitHub issue or pull request
        # the session started from (luxe.github.start), marked as such.
        self.context = context
        self.file = file
        # Set by the app when language servers run (LUXE_LSP_ON_EDIT).
        self.diagnostics: EditDiagnostics | None = None
        self.history = History(file.messages)
        # Its providers' errors are redacted (an endpoint may echo the key).
        self.model: ModelSource = RedactedModel(model, gate)
        # A factory defers importing the tools until the first turn or warm-up.
        self._tools_source = tools
        self._tools: dict[str, Tool] | None = None
        self.gate = gate
        self.hooks = hooks
        # Ends what a turn's commands left running, at the turn's end (the
        # app's luxe.orphans; none for an in-process session).
        self.leftovers = leftovers
        self.emit = emit
        self.prompts = Prompts(emit)
        self.prompts.set_auto_approve(auto_approve)
        self.max_turns = max_turns
        self.resumed = resumed
        self.mode = "build"
        self.thinking = "off"
        self.session_cost_usd: float | None = None
        self._queue: deque[Turn | _Compaction] = deque()
        self._wake = trio.Event()
        self.current: Turn | _Compaction | None = None
        self._turn_ids = 0
        self._system: str | None = None
        # The warm-up and the first turn may both ask for the system prompt:
        # it is built once (it runs git).
        self._system_lock = trio.Lock()
        self._closing = False
        self._end_hook_scope: trio.CancelScope | None = None
        # Set once the last turn is over, its AgentEnd hooks included.
        self._turn_over: trio.Event | None = None

    # -- state ------------------------------------------------------------------

    def state_event(self) -> ev.StateChanged:
        return ev.StateChanged(
            model=self.model.state(),
            streaming=isinstance(self.current, Turn),
            mode=self.mode,
            thinking=self.thinking,
            permission_mode=self.gate.permission_mode,
            auto_approve=self.prompts.auto_approve,
        )

    @property
    def tools(self) -> dict[str, Tool]:
        if self._tools is None:
            source = self._tools_source
            self._tools = {t.name: t for t in (source() if callable(source) else source)}
        return self._tools

    @property
    def busy(self) -> bool:
        return self.current is not None or bool(self._queue)

    async def system_prompt(self) -> str:
        async with self._system_lock:
            if self._system is None:
                specs = [t.spec for t in self.tools.values()]
                self._system = await build_system_prompt(self.cwd, specs, self.gate)
                if self.context:  # GitHub's text (--issue, --from-pr): anyone's, redacted
                    self._system += "\n\n" + self.gate.redact(self.context)
        return self._system

    async def record(self, message: Message) -> None:
        """Append a completed message to history and fsync it to the session
        file before the turn goes on. Shielded: a cancel never splits the two.
        Text UTF-8 cannot carry (lone surrogates) is replaced first, so one
        odd character never breaks the requests that follow."""
        message = clean_message(message)
        self.history.append(message)
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(self.file.append_message, message)

    async def record_compaction(self, summary: list[Message], kept: int) -> None:
        """Replace all but the last `kept` messages by `summary`, on disk
        first. Shielded: a cancel never leaves the two apart."""
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(self.file.append_compaction, summary, kept)
        tail = self.history.messages[len(self.history.messages) - kept :]
        self.history.messages[:] = [*summary, *tail]

    def _charge(self, turn: Turn) -> ev.TurnUsage | None:
        """Add the turn's cost to the session's; its `turn_usage`, if it
        made a model request."""
        if not turn.usage:
            return None
        if turn.cost_usd is not None:
            self.session_cost_usd = (self.session_cost_usd or 0.0) + turn.cost_usd
        return usage_event(turn, self.model.state().context_window, self.session_cost_usd)

    # -- what a client can do (never blocks) -------------------------------------

    async def start_turn(
        self, text: str, *, context: str | None = None, attachments: tuple[str, ...] = ()
    ) -> Turn:
        """Queue a turn for `text`; `context` is added to its user message.
        Returns the turn; `await turn.wait()` gives its TurnOutcome."""
        self._turn_ids += 1
        turn = Turn(f"turn_{self._turn_ids}", text, context, attachments)
        # 1 = next: the job at the head of the queue is starting when none runs.
        position = len(self._queue) + (self.current is not None) if self.busy else 0
        turn.queued = position > 0
        self._queue.append(turn)
        self._wake.set()
        if position:
            await self.emit(ev.MessageQueued(text, position))
        return turn

    async def start_shell(self, command: str) -> Turn:
        """Queue `!command`: the bash tool through the gate, its output added
        to history as the user's, no model call (luxe.engine.turn.run_shell)."""
        turn = await self.start_turn(f"!{command}")
        turn.shell = command
        return turn

    @property
    def _running(self) -> Turn | _Compaction | None:
        """The job running, or the one starting: a message sent while none
        ran (never announced as queued) is the running turn from the moment
        it is accepted, before its `turn_started`."""
        if self.current is not None or not self._queue:
            return self.current
        head = self._queue[0]
        return None if isinstance(head, Turn) and head.queued else head

    def steer(self, text: str) -> str | None:
        running = self._running
        if not isinstance(running, Turn):
            return "steer_turn: no turn is running"
        running.steering.append(text)
        return None

    def cancel_turn(self) -> str | None:
        running = self._running
        if running is None:
            return "cancel_turn: no turn is running"
        running.scope.cancel()
        return None

    def compact(self) -> str | None:
        if self.busy:
            return "compact: a turn is running; compact when it has ended"
        self._queue.append(_Compaction())
        self._wake.set()
        return None

    # Each setter announces the new state (`state_changed`) itself.

    async def set_model(self, model: ModelSource) -> None:
        self.model = RedactedModel(model, self.gate)
        await self.emit(self.state_event())

    async def set_mode(self, mode: str) -> None:
        self.mode = mode
        await self.emit(self.state_event())

    async def set_thinking(self, level: str) -> None:
        self.thinking = level
        await self.emit(self.state_event())

    async def switch(self, file: SessionFile, *, resumed: bool) -> str | None:
        """Go on in another session file (a new one, or one resumed), in the
        same process; refused while a turn or compaction runs or waits. The
        session left runs SessionEnd hooks and the one entered SessionStart
        hooks, as at the process's end and start (the hooks spec: "Session
        created/resumed", "Session closing")."""
        busy = "a turn is running; cancel it or wait until it ends"
        if self.busy:
            return busy
        if self._turn_over is not None:
            await self._turn_over.wait()  # the last turn's AgentEnd hooks first
        await self.hooks.run("SessionEnd", other_event())
        if self.busy:  # a Guided Review turn may have started meanwhile
            return busy
        self.file.close()
        self.file = file
        self.history = History(file.messages)
        self.resumed = resumed
        self.session_cost_usd = None
        await self.hooks.run("SessionStart", other_event())
        return None

    async def set_permission_mode(self, mode: str) -> None:
        """The gate's mode (the caller checks what it may be set to)."""
        self.gate.permission_mode = mode
        await self.emit(self.state_event())

    async def set_auto_approve(self, enabled: bool) -> None:
        self.prompts.set_auto_approve(enabled)
        await self.emit(self.state_event())

    # -- running ----------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run queued turns one at a time until cancelled. Owns the session
        nursery; the turn running when it is cancelled ends as `cancelled`."""
        async with trio.open_nursery():
            task_status.started()
            await self.hooks.run("SessionStart", other_event())
            while True:
                while not self._queue:
                    self._wake = trio.Event()
                    await self._wake.wait()
                job = self._queue.popleft()
                self.current = job
                try:
                    if isinstance(job, Turn):
                        await self._run_turn(job)
                    else:
                        await self._run_compaction(job)
                finally:
                    self.current = None

    async def _run_turn(self, turn: Turn) -> None:
        self._turn_over = over = trio.Event()
        await self.emit(ev.TurnStarted(turn.id, turn.text))
        await self.emit(self.state_event())
        outcome = TurnOutcome("cancelled", None)
        try:
            with turn.scope:
                outcome = await run_turn(self, turn)
        except Exception as exc:
            log.exception("turn %s failed", turn.id)
            outcome = TurnOutcome("error", f"internal error: {type(exc).__name__}: {exc}")
        finally:
            if outcome.reason == "cancelled":
                outcome = TurnOutcome("cancelled", None, turn.final_text)
            with trio.CancelScope(shield=True):
                try:
                    if self.leftovers is not None:
                        await self.leftovers.sweep()
                    await finish_turn(self, turn, outcome, self._charge(turn))
                    self.current = None
                    turn.finish(outcome)
                    await self.emit(self.state_event())
                    # Bounded once the session is closing (close() shortens it too).
                    with trio.CancelScope() as self._end_hook_scope:
                        if self._closing:
                            self._end_hook_scope.deadline = trio.current_time() + CLOSING_AGENT_END_S
                        await self.hooks.run("AgentEnd", other_event())
                    self._end_hook_scope = None
                finally:
                    over.set()

    async def _run_compaction(self, job: _Compaction) -> None:
        from luxe.engine.compaction import compact

        try:
            with job.scope:
                await compact(self)
        finally:
            job.done.set()

    async def close(self) -> None:
        """End the session: cancel the running turn and everything queued,
        wait for its `turn_ended` and its AgentEnd hooks, run SessionEnd
        hooks (both bounded)."""
        self._closing = True
        # The running job, even one not begun yet, ends as any cancelled job
        # does (a turn with its turn_started and turn_ended); what waits
        # behind it never runs.
        current = self._running
        for job in self._queue:
            if isinstance(job, Turn) and job is not current:
                job.finish(TurnOutcome("cancelled", "the session closed before this turn ran"))
        self._queue.clear()
        if current is not None and current is not self.current:
            self._queue.append(current)
        if self._end_hook_scope is not None:
            self._end_hook_scope.deadline = min(
                self._end_hook_scope.deadline, trio.current_time() + CLOSING_AGENT_END_S
            )
        if current is not None:
            current.scope.cancel()
            if isinstance(current, Turn):
                await current.wait()
            else:
                await current.done.wait()
        if self._turn_over is not None:
            # The last turn's AgentEnd hooks (bounded above) end before
            # SessionEnd's start: the turn finishes, then the session.
            await self._turn_over.wait()
        with trio.move_on_after(CLOSING_HOOK_S):
            await self.hooks.run("SessionEnd", other_event())
        self.file.close()

