"""The command hook runner (luxe-command-hooks.txt): the engine's HookRunner.

One hook run, as the spec says: the command is spawned without a shell in
its own process group (start_new_session) in the session's directory; the
event is written to its stdin as one JSON object and stdin is closed;
stdout and stderr are read concurrently (stdout capped, stderr kept as a
tail), so a hook that prints megabytes or never reads its input cannot wedge
us. When the hook's own process exits, its group is SIGKILLed (nothing it
started outlives it); on timeout or cancel the whole group is SIGKILLed and
the process is always reaped before `run` returns or raises.

Any failure (spawn error, stdin-write error, non-zero exit, invalid JSON,
timeout) resolves to the definition's `on_timeout` (`ask` behaves as
`allow`) and is logged with the command and the tail of its stderr.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import signal
import subprocess
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import trio
from trio.lowlevel import FdStream

from luxe.engine.ports import HookOutcome, HookPoint
from luxe.policy.hooks_config import HookConfig, HookDefinition
from luxe.protocol.events import HookFinished

log = logging.getLogger("luxe.policy.hooks")

BLOCKING_POINTS = frozenset({"BeforeToolUse", "UserPromptSubmit"})
CONTEXT_POINTS = frozenset({"AfterToolUse", "UserPromptSubmit"})
STDOUT_CAP = 1 << 20  # a decision is a few hundred bytes; more is a broken hook
STDERR_TAIL = 2048


@attrs.frozen
class HookRun:
    """The raw result of running one hook process."""

    stdout: bytes
    stderr_tail: str
    error: str | None  # why the run failed, None when it exited 0 in time


@attrs.frozen
class HookVerdict:
    deny: bool = False
    reason: str | None = None
    context: str | None = None
    error: str | None = None


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone


async def _read_capped(
    stream: trio.abc.ReceiveStream, buf: bytearray, cap: int, *, tail: bool
) -> bool:
    """Drain `stream` to EOF, keeping at most `cap` bytes (the first ones, or
    the last ones when `tail`). Returns True when something was dropped."""
    dropped = False
    while chunk := await stream.receive_some(65536):
        buf += chunk
        if len(buf) > cap:
            dropped = True
            if tail:
                del buf[: len(buf) - cap]
            else:
                del buf[cap:]
    return dropped


def _spawn(
    command: tuple[str, ...], *, cwd: str | None, env: Mapping[str, str] | None
) -> tuple[subprocess.Popen[bytes], int, FdStream, FdStream]:
    """Start the hook in its own session (so its own process group) with
    three pipes. Popen runs in the event loop's thread, not a worker thread
    as trio.lowlevel.open_process does: a fork/exec takes well under a
    millisecond, less than the hop to a thread and back, and a hook runs on
    every tool call."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        proc = subprocess.Popen(
            list(command),
            stdin=in_r,
            stdout=out_w,
            stderr=err_w,
            start_new_session=True,
            cwd=cwd,
            env=dict(env) if env is not None else None,
        )
    except BaseException:
        for fd in (in_w, out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    return proc, in_w, FdStream(out_r), FdStream(err_r)


async def _wait_exited(proc: subprocess.Popen[bytes], pidfd: int) -> None:
    """Wait until the process has exited, without reaping it."""
    if pidfd >= 0:
        await trio.lowlevel.wait_readable(pidfd)
        return
    while proc.poll() is None:  # noqa: ASYNC110 - no pidfd (old kernel): poll, reaping on exit
        await trio.sleep(0.005)


async def run_hook_process(
    definition: HookDefinition,
    payload: bytes,
    *,
    cwd: str | None,
    env: Mapping[str, str] | None,
    stdout_cap: int = STDOUT_CAP,
) -> HookRun:
    """Run one hook to completion, timeout or cancel.

    Owns the hook's process group: on every path out (normal exit, timeout,
    cancel, error) the group is SIGKILLed and the process reaped, shielded
    from cancellation so nothing is left behind.
    """
    try:
        proc, stdin_fd, stdout, stderr = _spawn(definition.command, cwd=cwd, env=env)
    except (OSError, ValueError) as e:
        return HookRun(b"", "", f"could not start: {getattr(e, 'strerror', None) or e}")
    out, err = bytearray(), bytearray()
    stdin_error: str | None = None
    overflow = exited = False
    try:
        pidfd = os.pidfd_open(proc.pid)
    except OSError:
        pidfd = -1
    stdin: FdStream | None = None
    rest = b""
    try:
        # Write what the empty pipe takes at once (usually the whole event)
        # without a task; whatever is left goes to a writer task, so a hook
        # that never reads its input cannot wedge us.
        os.set_blocking(stdin_fd, False)
        try:
            written = os.write(stdin_fd, payload)
        except BlockingIOError:
            written = 0
        except OSError as e:
            written = len(payload)
            stdin_error = f"writing the event to stdin failed: {e.strerror or e}"
        rest = payload[written:]
        if rest:
            stdin = FdStream(stdin_fd)
        else:
            os.close(stdin_fd)
        with trio.move_on_after(definition.timeout_ms / 1000) as timer:

            async def write_stdin(stream: FdStream) -> None:
                nonlocal stdin_error
                try:
                    await stream.send_all(rest)
                except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                    stdin_error = f"writing the event to stdin failed: {e.__cause__ or e}"
                finally:
                    stream.close()

            async def read_stdout() -> None:
                nonlocal overflow
                overflow = await _read_capped(stdout, out, stdout_cap, tail=False)

            async def read_stderr() -> None:
                await _read_capped(stderr, err, STDERR_TAIL, tail=True)

            async with trio.open_nursery() as nursery:
                if stdin is not None:
                    nursery.start_soon(write_stdin, stdin)
                nursery.start_soon(read_stdout)
                nursery.start_soon(read_stderr)
                # Wait for the hook itself to exit (without reaping it, so its
                # pid still names its group), then end whatever it left running
                # in that group: the pipes then reach EOF.
                await _wait_exited(proc, pidfd)
                exited = True
                _kill_group(proc.pid)
    finally:
        if not exited:
            _kill_group(proc.pid)
        with trio.CancelScope(shield=True):
            if not exited:
                await _wait_exited(proc, pidfd)
            proc.wait()  # reaps at once: the process has exited
        for stream in (stdin, stdout, stderr):
            if stream is not None:
                stream.close()
        if pidfd >= 0:
            os.close(pidfd)
    tail = err.decode("utf-8", "replace").strip()
    if timer.cancelled_caught:
        return HookRun(bytes(out), tail, f"timed out after {definition.timeout_ms} ms")
    code = proc.returncode or 0
    if code != 0:
        how = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        return HookRun(bytes(out), tail, how)
    if overflow:
        return HookRun(b"", tail, f"printed more than {stdout_cap} bytes on stdout")
    # A write error is a failure of the hook, except when the hook exited 0
    # without reading its input (e.g. `true`): whether the write then fails
    # is only a matter of timing, and the hook told us all it wanted to.
    if stdin_error:
        log.debug("hook %s did not read its input: %s", definition.command, stdin_error)
    return HookRun(bytes(out), tail, None)


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
    ) -> None:
        self.config = config
        self.redact = redact
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
            run = await run_hook_process(
                definition, payload, cwd=self.cwd, env=env, stdout_cap=self.stdout_cap
            )
            verdicts[i] = verdict = judge(point, definition, run)
            finished = self._report(point, definition, verdict, run, trio.current_time() - started)
            if self.on_finished is not None:
                result = self.on_finished(finished)
                if inspect.isawaitable(result):
                    await result

        if len(definitions) == 1:
            await one(0, definitions[0])  # the common case: no nursery needed
        else:
            async with trio.open_nursery() as nursery:
                for i, definition in enumerate(definitions):
                    nursery.start_soon(one, i, definition)
        denies = [v for v in verdicts if v.deny]
        if denies:
            return HookOutcome(blocked=True, reason="; ".join(v.reason or "denied" for v in denies))
        contexts = [v.context for v in verdicts if v.context]
        return HookOutcome(context="\n\n".join(contexts) if contexts else None)

    def _report(
        self,
        point: str,
        definition: HookDefinition,
        verdict: HookVerdict,
        run: HookRun,
        seconds: float,
    ) -> HookFinished:
        if verdict.error:
            log.warning(
                "hook %s at %s failed: %s (on_timeout=%s); stderr tail: %s",
                json.dumps(list(definition.command)),
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
        return HookFinished(
            point, list(definition.command), decision, round(seconds * 1000, 1), error
        )


# -- the spec's stdin events (externally tagged) -------------------------------


def tool_use_event(tool_name: str, args: Mapping[str, Any]) -> dict[str, Any]:
    return {"ToolUse": {"tool_name": tool_name, "args": dict(args)}}


def tool_result_event(tool_name: str, result: str, is_error: bool) -> dict[str, Any]:
    return {"ToolResult": {"tool_name": tool_name, "result": result, "is_error": is_error}}


def file_changed_event(path: str, operation: str) -> dict[str, Any]:
    return {"FileChanged": {"path": path, "operation": operation}}


def other_event(content: Any) -> dict[str, Any]:
    """SessionStart/End, AgentStart, AgentEnd: `{"Other": null}`;
    BeforeAgentStart: `{"Other": {}}`; UserPromptSubmit: `{"Other":
    {"content": text}}`; Before/AfterCompact: `{"Other": {"tokens_before": n}}`."""
    return {"Other": content}
