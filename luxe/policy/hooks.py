"""The command hook runner (luxe-command-hooks.txt): the engine's HookRunner.

It runs every hook configured at a point (each in its own process group,
see `hook_process.py`), judges each answer by the spec's decision contract,
combines them (any deny wins, contexts joined) and reports every run as a
`hook_finished` event.

Any failure (spawn error, stdin-write error, non-zero exit, invalid JSON,
timeout) resolves to the definition's `on_timeout` (`ask` behaves as
`allow`) and is logged with the command and the tail of its stderr.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import trio

from luxe.engine.ports import HookOutcome, HookPoint
from luxe.policy.hook_process import STDOUT_CAP, HookRun, run_hook_process
from luxe.policy.hooks_config import HookConfig, HookDefinition
from luxe.protocol.events import HookFinished
from luxe.record import record

log = logging.getLogger("luxe.policy.hooks")

BLOCKING_POINTS = frozenset({"BeforeToolUse", "UserPromptSubmit"})
CONTEXT_POINTS = frozenset({"AfterToolUse", "UserPromptSubmit"})
# How long a cancelled hook may take to report itself (shielded).
CANCELLED_REPORT_S = 0.1


@record
class HookVerdict:
    deny: bool = False
    reason: str | None = None
    context: str | None = None
    error: str | None = None


def judge(point: str, definition: HookDefinition, run: HookRun) -> HookVerdict:
    """What one run means at `point` (the spec's decision contract)."""
    error = run.error
    decision: Any = None
    if error is None and point not in BLOCKING_POINTS | CONTEXT_POINTS:
        return HookVerdict()  # observe-only: output ignored entirely
    if error is None and run.stdout.strip():
        try:
            decision = json.loads(run.stdout)
        except (json.JSONDecodeError, UnicodeDecodeError):
            error = "printed output that is not JSON"
        else:
            if not isinstance(decision, dict):
                error = "printed JSON that is not an object"
    if error is not None:
        if definition.fails_closed and point in BLOCKING_POINTS:
            return HookVerdict(
                deny=True,
                reason=f"hook {' '.join(definition.command)} failed ({error}) and is fail-closed",
                error=error,
            )
        return HookVerdict(error=error)
    if not decision:
        return HookVerdict()
    verdict = str(decision.get("decision", "")).lower()
    reason = decision.get("reason")
    reason = str(reason) if reason not in (None, "") else None
    if verdict in ("deny", "block"):
        if point not in BLOCKING_POINTS:
            return HookVerdict()  # a deny cannot block here, and carries no context
        return HookVerdict(
            deny=True, reason=reason or f"denied by hook {' '.join(definition.command)}"
        )
    context = decision.get("context")
    if point in CONTEXT_POINTS and isinstance(context, str) and context.strip():
        return HookVerdict(context=context)
    return HookVerdict()


def hook_environment(point: str, cwd: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["LUXE_HOOK_POINT"] = point
    if cwd:
        env["LUXE_PROJECT_DIR"] = cwd
    return env


class CommandHookRunner:
    """The engine's HookRunner for configured command hooks.

    `on_finished` receives a `HookFinished` for every hook run (the
    `hook_finished` frame); it may be a coroutine function (awaited in the
    hook's task, so it is cancelled with the turn like the hook itself).
    """

    def __init__(
        self,
        config: HookConfig,
        *,
        cwd: str | None = None,
        on_finished: Callable[[HookFinished], Awaitable[None] | None] | None = None,
        stdout_cap: int = STDOUT_CAP,
        redact: Callable[[str], str] = str,
        redact_known: Callable[[str], str] = str,
    ) -> None:
        self.config = config
        self.redact = redact
        # For the commands as configured, redacted without waiting for the
        # project's scan (PermissionGate.redact_known): the first prompt's
        # hooks run before it.
        self.redact_known = redact_known
        self.cwd = cwd
        self.on_finished = on_finished
        self.stdout_cap = stdout_cap
        self._environments: dict[str, dict[str, str]] = {}

    async def run(self, point: HookPoint, event: Mapping[str, Any]) -> HookOutcome:
        """Run every hook at `point` concurrently; any deny wins, contexts
        are joined in configuration order. Cancelling the caller kills and
        reaps every hook process before the cancellation propagates."""
        definitions = self.config.for_point(point)
        if not definitions:
            return HookOutcome()
        payload = (json.dumps(event, ensure_ascii=False) + "\n").encode()
        verdicts: list[HookVerdict] = [HookVerdict()] * len(definitions)
        env = self._environments.get(point)
        if env is None:  # built once per point: copying os.environ per call shows up
            env = self._environments[point] = hook_environment(point, self.cwd)

        async def one(i: int, definition: HookDefinition) -> None:
            started = trio.current_time()
            try:
                run = await run_hook_process(
                    definition, payload, cwd=self.cwd, env=env, stdout_cap=self.stdout_cap
                )
            except BaseException:  # Cancelled, perhaps inside an exception group
                # The turn was cancelled: the hook is already killed and reaped.
                # Still tell the client it ran, briefly shielded.
                elapsed = trio.current_time() - started
                why = "cancelled with its turn"
                run = HookRun(b"", "", why)
                report = self._report(point, definition, HookVerdict(error=why), run, elapsed)
                with trio.CancelScope(shield=True), trio.move_on_after(CANCELLED_REPORT_S):
                    await self._finished(report)
                raise
            verdicts[i] = verdict = judge(point, definition, run)
            elapsed = trio.current_time() - started
            await self._finished(self._report(point, definition, verdict, run, elapsed))

        if len(definitions) == 1:
            await one(0, definitions[0])  # the common case: no nursery needed
        else:
            async with trio.open_nursery() as nursery:
                for i, definition in enumerate(definitions):
                    nursery.start_soon(one, i, definition)
        denies = [v for v in verdicts if v.deny]
        if denies:
            reason = "; ".join(v.reason or "denied" for v in denies)
            return HookOutcome(blocked=True, reason=self.redact(reason))
        # A hook may print a secret (`lint: $(head -1 .env)`): what it says
        # reaches the model and the client, so it is redacted like tool output.
        contexts = [self.redact(v.context) for v in verdicts if v.context]
        return HookOutcome(context="\n\n".join(contexts) if contexts else None)

    async def _finished(self, finished: HookFinished) -> None:
        if self.on_finished is None:
            return
        try:
            result = self.on_finished(finished)
            if inspect.isawaitable(result):
                await result
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the session is closing and its event channel with it

    def _report(
        self,
        point: str,
        definition: HookDefinition,
        verdict: HookVerdict,
        run: HookRun,
        seconds: float,
    ) -> HookFinished:
        # The command as configured may spell a credential (`curl -H
        # "Authorization: Bearer ghp_…"`): the frame and the log show it redacted.
        command = [self.redact_known(word) for word in definition.command]
        if verdict.error:
            log.warning(
                "hook %s at %s failed: %s (on_timeout=%s); stderr tail: %s",
                json.dumps(command),
                point,
                verdict.error,
                definition.on_timeout,
                self.redact(run.stderr_tail[-500:]) or "(empty)",
            )
        if verdict.deny:
            decision = "deny"
        elif point in BLOCKING_POINTS | CONTEXT_POINTS:
            decision = "allow"
        else:
            decision = "observe"
        error = verdict.error
        if error and run.stderr_tail:
            error = self.redact(f"{error}; stderr: {run.stderr_tail[-300:]}")
        return HookFinished(point, command, decision, round(seconds * 1000, 1), error)

