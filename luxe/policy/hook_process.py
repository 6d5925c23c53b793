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
import secrets
import select
import subprocess
from collections.abc import Mapping

import trio

from luxe import children
from luxe.policy.hooks_config import HookDefinition
from luxe.record import record
from luxe.tools.escapees import kill_tagged
from process_group import kill_group

log = logging.getLogger("luxe.policy.hooks")

STDOUT_CAP = 1 << 20  # a decision is a few hundred bytes; more is a broken hook
STDERR_TAIL = 2048


@record
class HookRun:
    """The raw result of running one hook process."""

    stdout: bytes
    stderr_tail: str
    error: str | None  # why the run failed, None when it exited 0 in time


# Every hook run carries a token in its environment, which its descendants
# inherit: after a timeout or cancel, a process that left the hook's group
# (`setsid`) is still found by it and killed.
RUN_TOKEN_VAR = "LUXE_HOOK_RUN"


def _kill_escaped(token: str) -> int:
    """SIGKILL our processes whose environment holds this run's token (they
    may still be dying members of the group: all of /proc is searched).
    Returns how many."""
    return len(kill_tagged(RUN_TOKEN_VAR, token, children_only=False))


def _spawn(
    command: tuple[str, ...], *, cwd: str | None, env: Mapping[str, str] | None, token: str
) -> tuple[subprocess.Popen[bytes], int, int, int]:
    """Start the hook in its own session (so its own process group) with
    three pipes; returns the process and our ends (stdin, stdout, stderr),
    non-blocking. It starts in the event loop's thread (luxe.children.popen),
    not a worker thread as trio.lowlevel.open_process does: a fork/exec
    takes well under a millisecond, less than the hop to a thread and back,
    and a hook runs on every tool call."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        # A command child (luxe.children): its daemon, still holding the
        # token, is left alone by sweeps (a hook may mean to start one).
        proc = children.popen(
            command,
            command=True,
            keeps=(RUN_TOKEN_VAR, token),
            stdin=in_r,
            stdout=out_w,
            stderr=err_w,
            start_new_session=True,
            cwd=cwd,
            env={**(os.environ if env is None else env), RUN_TOKEN_VAR: token},
        )
    except BaseException:
        for fd in (in_w, out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    for fd in (in_w, out_r, err_r):
        os.set_blocking(fd, False)
    return proc, in_w, out_r, err_r


class _Pipes:
    """Our ends of a hook's pipes, and its pidfd, pumped from one task
    through one epoll set that trio waits on (no task per pipe: a hook runs
    on every tool call, and every task and wake-up shows in its latency)."""

    def __init__(
        self, stdin: int, stdout: int, stderr: int, pidfd: int, payload: bytes, cap: int
    ) -> None:
        self.stdin, self.stdout, self.stderr, self.pidfd = stdin, stdout, stderr, pidfd
        self.payload = memoryview(payload)
        self.cap = cap
        self.out, self.err = bytearray(), bytearray()
        self.overflow = False
        self.stdin_error: str | None = None
        self.reading = {stdout, stderr}
        self.epoll = select.epoll()
        self._stdin_registered = False
        for fd in self.reading:
            self.epoll.register(fd, select.EPOLLIN)
        if pidfd >= 0:
            self.epoll.register(pidfd, select.EPOLLIN)
        self.write_some()
        if self.stdin >= 0:
            self.epoll.register(self.stdin, select.EPOLLOUT)
            self._stdin_registered = True

    def write_some(self) -> None:
        """Write what the pipe takes now; close stdin when all is written
        or the hook stopped reading."""
        try:
            while self.payload:
                written = os.write(self.stdin, self.payload)
                self.payload = self.payload[written:]
        except BlockingIOError:
            return
        except OSError as e:
            self.stdin_error = f"writing the event to stdin failed: {e.strerror or e}"
        self._close_stdin()

    def _close_stdin(self) -> None:
        if self.stdin < 0:
            return
        if self._stdin_registered:
            self.epoll.unregister(self.stdin)
            self._stdin_registered = False
        os.close(self.stdin)
        self.stdin = -1

    def read_some(self, fd: int) -> None:
        """Read what is there (to EOF or until the pipe is empty), keeping
        the first `cap` bytes of stdout and the last STDERR_TAIL of stderr."""
        while fd in self.reading:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return
            if not chunk:
                self.reading.discard(fd)
                self.epoll.unregister(fd)
                return
            if fd == self.stdout:
                room = max(self.cap - len(self.out), 0)
                if len(chunk) > room:
                    self.overflow = True
                self.out += chunk[:room]
            else:
                self.err += chunk
                del self.err[: max(len(self.err) - STDERR_TAIL, 0)]

    def pump(self) -> bool:
        """Move what is ready; True when the hook's process has exited."""
        exited = False
        for fd, _ in self.epoll.poll(0):
            if fd == self.pidfd:
                exited = True
            elif fd == self.stdin:
                self.write_some()
            else:
                self.read_some(fd)
        return exited

    def drain(self) -> None:
        """After the hook's group is gone: take whatever is left."""
        for fd in list(self.reading):
            self.read_some(fd)

    def close(self) -> None:
        self._close_stdin()
        for fd in (self.stdout, self.stderr, self.epoll.fileno()):
            trio.lowlevel.notify_closing(fd)
        os.close(self.stdout)
        os.close(self.stderr)
        self.epoll.close()


class _Leader:
    """The hook's process as terminate_group's GroupLeader: `wait` waits
    for the exit (on the pidfd, when the kernel gives one) and reaps."""

    def __init__(self, proc: subprocess.Popen[bytes], pidfd: int) -> None:
        self.proc, self.pidfd = proc, pidfd

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    async def wait(self) -> int:
        if self.proc.poll() is None:  # poll reaps a process that has exited
            if self.pidfd >= 0:
                await trio.lowlevel.wait_readable(self.pidfd)
            while self.proc.poll() is None:  # noqa: ASYNC110 - no pidfd (old kernel): poll
                await trio.sleep(0.005)
        return self.proc.wait()


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
    token = secrets.token_hex(8)
    try:
        proc, stdin, stdout, stderr = _spawn(definition.command, cwd=cwd, env=env, token=token)
    except (OSError, ValueError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else e
        return HookRun(b"", "", f"could not start: {why}")
    try:
        pidfd = os.pidfd_open(proc.pid)
    except OSError:
        pidfd = -1
    leader = _Leader(proc, pidfd)
    exited = False
    try:
        pipes = _Pipes(stdin, stdout, stderr, pidfd, payload, stdout_cap)
    except BaseException:  # no epoll (fd limit): end the hook we just started
        await kill_group(leader)
        children.forget(proc.pid)
        for fd in (stdin, stdout, stderr, pidfd):
            try:
                os.close(fd)
            except OSError:
                pass  # already closed, or never opened (-1)
        raise
    try:
        with trio.move_on_after(definition.timeout_ms / 1000) as timer:
            while not exited:
                if pidfd >= 0:
                    await trio.lowlevel.wait_readable(pipes.epoll.fileno())
                    exited = pipes.pump()
                else:  # no pidfd (old kernel): poll for the exit as well
                    with trio.move_on_after(0.005):
                        await trio.lowlevel.wait_readable(pipes.epoll.fileno())
                    pipes.pump()
                    exited = proc.poll() is not None
    finally:
        # Every way out ends the group, SIGKILLed and reaped: once the hook
        # has exited (not reaped yet, so its pid still names the group),
        # whatever it left running; on timeout or cancel, the hook too.
        await kill_group(leader)
        children.forget(proc.pid)
        if not exited and _kill_escaped(token):
            # Nothing it started may outlive it, not even what left its
            # group. Twice: one may have been forking.
            _kill_escaped(token)
        if exited:
            pipes.drain()  # what it wrote before it exited
        pipes.close()
        if pidfd >= 0:
            trio.lowlevel.notify_closing(pidfd)
            os.close(pidfd)
    tail = pipes.err.decode("utf-8", "replace").strip()
    out = bytes(pipes.out)
    if timer.cancelled_caught:
        return HookRun(out, tail, f"timed out after {definition.timeout_ms} ms")
    code = proc.returncode or 0
    if code != 0:
        how = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        return HookRun(out, tail, how)
    if pipes.overflow:
        return HookRun(b"", tail, f"printed more than {stdout_cap} bytes on stdout")
    # A write error is a failure of the hook, except when the hook exited 0
    # without reading its input (e.g. `true`): whether the write then fails
    # is only a matter of timing, and the hook told us all it wanted to.
    if pipes.stdin_error:
        log.debug("hook %s did not read its input: %s", definition.command, pipes.stdin_error)
    return HookRun(out, tail, None)
