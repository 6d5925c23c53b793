"""One hook process, from spawn to reaped (luxe-command-hooks.txt, "Fail-safe,
timeout & process hygiene").

The command is spawned without a shell in its own session, so its own
process group, in the session's directory; the event is written to its
stdin and stdin is closed; stdout and stderr are read concurrently (stdout
capped, stderr kept as a tail), so a hook that prints megabytes or never
reads its input cannot wedge us. When the hook's own process exits, its
group is SIGKILLed (nothing it started outlives it); on timeout or cancel
the whole group is SIGKILLed; the process is always reaped before
`run_hook_process` returns or raises.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from collections.abc import Mapping

import attrs
import trio
from trio.lowlevel import FdStream

from luxe.policy.hooks_config import HookDefinition

log = logging.getLogger("luxe.policy.hooks")

STDOUT_CAP = 1 << 20  # a decision is a few hundred bytes; more is a broken hook
STDERR_TAIL = 2048


@attrs.frozen
class HookRun:
    """The raw result of running one hook process."""

    stdout: bytes
    stderr_tail: str
    error: str | None  # why the run failed, None when it exited 0 in time


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
