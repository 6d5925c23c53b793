"""The bash tool: one command in its own process group, output streamed.

The command runs as `bash -c COMMAND` in the session cwd, in a new session
(so its own process group). Output (stdout and stderr together) streams to
the client as it comes and is capped in the result the model reads. When the
command ends, on timeout, or when the turn is cancelled, the whole group gets
SIGTERM, a short grace, then SIGKILL, and is reaped: background jobs a
command starts end with it. So does every process that left the group
(`setsid`): each carries the call's token in its environment and is killed
by it (luxe.tools.escapees); one that also cleared its environment is an
orphan Luxe adopted, ended by the sweep that follows (luxe.orphans) unless
another call still runs (then by the sweep at that call's end, or the
turn's).

Output is redacted as it comes (a value split across chunks is caught) and
before the result is cut to its head and tail, so a cut never leaves a
piece of a secret. The provider's credentials are not in the command's
environment (luxe.app removes them from the process environment at start).
"""

from __future__ import annotations

import codecs
import os
import subprocess
from collections.abc import Mapping
from typing import Any

import trio

import program_path
from luxe import children, orphans
from luxe.engine.model import ToolSpec
from luxe.engine.ports import StreamRedaction
from luxe.engine.tooling import ToolContext, ToolError, ToolResult
from luxe.tools.escapees import CALL_TOKEN_VAR, kill_tagged
from process_group import terminate_group

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0
RESULT_HEAD = 16 * 1024
RESULT_TAIL = 16 * 1024
STREAM_CAP = 1024 * 1024
# After the group is gone, how long to wait for the pipe to close (a process
# that left the group with setsid may still hold it).
DRAIN_S = 1.0


class _Output:
    """Keeps the head and tail of a long output, counting what it drops."""

    def __init__(self) -> None:
        self.head: list[str] = []
        self.head_size = 0
        self.tail = ""
        self.dropped = 0

    def add(self, text: str) -> None:
        room = RESULT_HEAD - self.head_size
        if room > 0:
            self.head.append(text[:room])
            self.head_size += len(text[:room])
            text = text[room:]
        if text:
            self.tail += text
            if len(self.tail) > RESULT_TAIL:
                self.dropped += len(self.tail) - RESULT_TAIL
                self.tail = self.tail[-RESULT_TAIL:]

    def text(self) -> str:
        middle = f"\n[... {self.dropped} characters omitted ...]\n" if self.dropped else ""
        return "".join(self.head) + middle + self.tail


class BashTool:
    name = "bash"
    spec = ToolSpec(
        "bash",
        "Run a shell command with bash in the cwd. stdout and stderr are combined; long "
        "output is cut in the middle. timeout_s defaults to 120 (max 600). Background "
        "processes end when the command ends.",
        {
            "type": "object",
            "properties": {"command": {"type": "string"}, "timeout_s": {"type": "number"}},
            "required": ["command"],
        },
    )

    def __init__(self) -> None:
        self.shell = program_path.which("bash") or "/bin/sh"

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        command = args["command"]
        if not command.strip():
            raise ToolError("empty command")
        timeout = min(max(float(args.get("timeout_s") or DEFAULT_TIMEOUT_S), 0.1), MAX_TIMEOUT_S)
        env = dict(os.environ, PAGER="cat", GIT_PAGER="cat", TERM="dumb")
        env[CALL_TOKEN_VAR] = ctx.call_token
        try:
            process = await children.open_process(
                [self.shell, "-c", command],
                command=True,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=ctx.cwd,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            raise ToolError(f"cannot start {self.shell}: {exc.strerror}") from None
        output = _Output()
        redacting = ctx.redacting_stream()
        timed_out = False
        try:
            async with trio.open_nursery() as nursery:
                drained = trio.Event()
                nursery.start_soon(self._pump, process, output, redacting, ctx, drained)
                with trio.move_on_after(timeout) as deadline:
                    await process.wait()
                timed_out = deadline.cancelled_caught
                await terminate_group(process)
                with trio.move_on_after(DRAIN_S):
                    await drained.wait()
                nursery.cancel_scope.cancel()
        finally:
            await self._end(process, ctx.call_token)
            if process.stdout is not None:
                with trio.CancelScope(shield=True):
                    await process.stdout.aclose()
        text = output.text()
        status = process.returncode
        if timed_out:
            footer = f"[timed out after {timeout:g}s; the command and its processes were killed]"
        elif status is not None and status < 0:
            footer = f"[killed by signal {-status}]"
        else:
            footer = f"[exit status {status}]"
        body = (text.rstrip("\n") + "\n" + footer) if text else footer
        is_error = timed_out or status != 0
        summary = "timed out" if timed_out else f"exit {status}"
        return ToolResult(body, is_error=is_error, summary=summary)

    @staticmethod
    async def _end(process: trio.Process, token: str) -> None:
        """End everything the call started: its group, reaped (a no-op after
        the body's); what left the group still carrying the call's token;
        then what left it with an empty environment, when no other call
        runs (luxe.orphans). Runs to the end under a cancel: its parts are
        shielded or synchronous."""
        await terminate_group(process)
        children.forget(process.pid)
        kill_tagged(CALL_TOKEN_VAR, token)
        await orphans.sweep()

    async def _pump(
        self,
        process: trio.Process,
        output: _Output,
        redacting: StreamRedaction,
        ctx: ToolContext,
        drained: trio.Event,
    ) -> None:
        """Read the pipe to EOF, redacting and streaming each chunk; owns
        nothing else."""
        assert process.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        streamed = 0
        while True:
            try:
                data = await process.stdout.receive_some(65536)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                break
            if not data:
                break
            text = redacting.feed(decoder.decode(data))
            if text:
                output.add(text)
                if streamed < STREAM_CAP:
                    streamed += len(text)
                    await ctx.output(text)
        rest = redacting.feed(decoder.decode(b"", final=True)) + redacting.flush()
        if rest:
            output.add(rest)
            if streamed < STREAM_CAP:
                await ctx.output(rest)
        drained.set()
