"""Run a short-lived child (git, gh) to completion: one process per call, in
its own process group, always reaped. The one runner for Luxe's own git and
gh: Guided Review's reads, the GitHub layer, luxe/git_read.py.

`run` owns the process it starts. On cancel the whole group gets SIGTERM, a
short grace, then SIGKILL (process_group.terminate_group, as for tools),
and every member is gone before the Cancelled propagates. Given a
`stdout_cap`, it reads that much at most: a repository can make git print
gigabytes from a pack of a few (a huge file of one repeated line), so past
the cap the group is ended the same way and the result says `truncated`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import trio

from luxe import children
from luxe.record import record
from process_group import terminate_group

TERM_GRACE_S = 1.0


@record
class Completed:
    returncode: int
    stdout: bytes
    stderr: bytes
    # The output passed the caller's `stdout_cap`: `stdout` holds the first
    # `stdout_cap` bytes, and the process was ended there.
    truncated: bool = False

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", "surrogateescape")

    @property
    def error_line(self) -> str:
        """The child's complaint in one line, for a person."""
        lines = [line.strip() for line in self.stderr.decode("utf-8", "replace").splitlines()]
        lines = [line for line in lines if line and not line.startswith("hint:")]
        return "; ".join(lines[:2]) or f"exit status {self.returncode}"


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for git/gh: the user's, minus what would redirect
    output to a pager or an external diff tool, with C-locale messages."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_DIFF_OPTS", "GH_PAGER")
    }
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", NO_COLOR="1", GH_NO_UPDATE_NOTIFIER="1")
    env.update(GH_PROMPT_DISABLED="1", GIT_OPTIONAL_LOCKS="0")
    if extra:
        env.update(extra)
    return env


STDERR_KEPT = 64 * 1024  # of a child's complaint, the start is what matters


async def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    stdout_cap: int | None = None,
) -> Completed:
    """Run `argv` to completion and capture its output (with `stdout_cap`,
    at most that much: see the module doc). Raises FileNotFoundError when
    the program is not installed."""
    out = bytearray()
    err = bytearray()
    truncated = False
    process = await children.open_process(
        argv,
        cwd=str(cwd),
        env=child_env(env),
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, so an ending reaches its children
    )
    stdout, stderr = process.stdout, process.stderr
    assert stdout is not None and stderr is not None
    try:
        async with trio.open_nursery() as nursery:

            async def feed_stdin(stream: trio.abc.SendStream, data: bytes) -> None:
                async with stream:
                    try:
                        await stream.send_all(data)
                    except trio.BrokenResourceError:
                        pass  # it stopped reading: what it read is its answer

            async def read_stdout(stream: trio.abc.ReceiveStream) -> None:
                nonlocal truncated
                async for chunk in stream:
                    out.extend(chunk)
                    if stdout_cap is not None and len(out) > stdout_cap:
                        truncated = True
                        del out[stdout_cap:]
                        nursery.cancel_scope.cancel()  # the group ends below
                        return

            async def read_stderr(stream: trio.abc.ReceiveStream) -> None:
                async for chunk in stream:
                    err.extend(chunk[: max(STDERR_KEPT - len(err), 0)])

            if process.stdin is not None and stdin:
                nursery.start_soon(feed_stdin, process.stdin, stdin)
            nursery.start_soon(read_stdout, stdout)
            nursery.start_soon(read_stderr, stderr)
        if not truncated:
            await process.wait()
    finally:
        if process.returncode is None:
            # Cut at the cap, cancelled or failed while it runs: the shared
            # group ending (SIGTERM, grace, SIGKILL to whatever is left of
            # the group, not only while the leader lives), then reaped.
            await terminate_group(process, grace=TERM_GRACE_S)
        children.forget(process.pid)
        with trio.CancelScope(shield=True):
            await stdout.aclose()
            await stderr.aclose()
    returncode = process.returncode if process.returncode is not None else -1
    return Completed(returncode, bytes(out), bytes(err), truncated)
