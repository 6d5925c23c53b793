"""What `luxe -p` makes of the session's events: the tally, the exit status,
and the bytes for stdout and stderr in each output format.

`Tally.see` is the only place a print run's outcome is collected (the
answer, usage, denials, changed files, how the turn ended and why print mode
ended it). `PrintRenderer` is the writer task's view of the same events
(luxe.frontends.stdout.Renderer): `text` writes only the final answer,
`json` one result object, `stream-json` every frame exactly as `--rpc`
writes it and then the `result` frame. Activity lines go to stderr when it
is a terminal or with `--verbose`. Text that reaches a terminal or a file
never carries control characters (a hostile repository can make the model
or a tool print escape sequences), and nothing is ever styled.
"""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Any, NamedTuple

from luxe.controls import record, shown
from luxe.frontends.server_notices import ServerNotices
from luxe.protocol import events as ev
from luxe.protocol.text import escape_c1

# Exit statuses (docs/print.md).
EXIT_ANSWERED = 0
EXIT_TURN_FAILED = 1
EXIT_ON_ASK_FAIL = 3
EXIT_DENIED = 4
EXIT_TIMEOUT = 124
EXIT_STDOUT_CLOSED = 141

# What starts each line of a stderr record after its first: deeper than an
# activity line under its tool (`  done: …`).
STDERR_CONTINUATION = "    "
_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def plain(text: str) -> str:
    """`text` safe for a terminal: CRLF becomes LF, other controls U+FFFD."""
    return shown(text.replace("\r\n", "\n"))


class StopCause(NamedTuple):
    """Why print mode itself ended the run (the first reason wins)."""

    reason: str  # timeout | interrupted | on_ask_fail | stdout_closed
    message: str
    status: int


class Tally:
    """Everything the result object reports, collected from the events.
    (A plain class: an attrs class costs its compile time on every start.)"""

    def __init__(self, started: float) -> None:
        self.started = started  # time.monotonic() when luxe started
        self.session_id = ""
        self.auto_approve = False
        self.ended: ev.TurnEnded | None = None
        self.rejected: str | None = None  # the prompt itself was refused
        self.requests = 0
        self.usage = ev.TokenUsage(0, 0, 0, 0)
        self.cost_usd: float | None = None
        self.denials: list[ev.PermissionDenial] = []
        self.files_changed: list[str] = []
        self.cause: StopCause | None = None
        self._call_args: dict[str, dict[str, Any]] = {}
        self._questions: dict[str, dict[str, Any]] = {}

    def see(self, event: ev.Event) -> None:
        if isinstance(event, ev.Ready):
            self.session_id = event.session_id
        elif isinstance(event, ev.StateChanged):
            self.auto_approve = event.auto_approve
        elif isinstance(event, ev.ToolStarted):
            self._call_args[event.call_id] = event.args
        elif isinstance(event, ev.ToolFinished) and event.denied:
            args = self._call_args.get(event.call_id, {})
            self.denials.append(ev.PermissionDenial(event.name, args, event.reason or event.summary))
        elif isinstance(event, ev.QuestionAsked):
            self._questions[event.id] = {"question": event.question, "options": event.options}
        elif isinstance(event, ev.QuestionResolved) and event.reply.get("dismissed"):
            reason = str(event.reply.get("reason") or "dismissed")
            self.denials.append(
                ev.PermissionDenial("question", self._questions.get(event.id, {}), reason)
            )
        elif isinstance(event, ev.FileChanged):
            if event.path not in self.files_changed:
                self.files_changed.append(event.path)
        elif isinstance(event, ev.TurnUsage):
            self.requests += event.requests
            u = self.usage
            self.usage = ev.TokenUsage(
                u.prompt_tokens + event.prompt_tokens,
                u.completion_tokens + event.completion_tokens,
                u.cache_read_tokens + event.cache_read_tokens,
                u.cache_write_tokens + event.cache_write_tokens,
            )
            self.cost_usd = event.cost_usd
        elif isinstance(event, ev.TurnEnded):
            self.ended = event
        elif isinstance(event, ev.ActionRejected) and self.ended is None:
            self.rejected = event.reason

    def stop(self, reason: str, message: str, status: int) -> None:
        """Print mode ends the run (timeout, signal, --on-ask fail, stdout)."""
        if self.cause is None:
            self.cause = StopCause(reason, message, status)

    def status(self) -> int:
        """The exit status: print mode's own cause first, then the turn's end."""
        if self.cause is not None:
            return self.cause.status
        if self.ended is None or self.ended.reason != "end_turn":
            return EXIT_TURN_FAILED
        return EXIT_DENIED if self.denials else EXIT_ANSWERED

    def result(self) -> ev.Result:
        status = self.status()
        ended = self.ended
        error: str | None
        if self.cause is not None:
            stop_reason, error = self.cause.reason, self.cause.message
        elif ended is not None:
            stop_reason, error = ended.reason, ended.error
        else:
            stop_reason, error = "none", self.rejected or "the session ended before the turn ran"
        return ev.Result(
            result=ended.text if ended is not None else "",
            session_id=self.session_id,
            is_error=status not in (EXIT_ANSWERED, EXIT_DENIED),
            stop_reason=stop_reason,
            error=error,
            exit_code=status,
            num_requests=self.requests,
            duration_ms=round((time.monotonic() - self.started) * 1000, 1),
            usage=self.usage,
            cost_usd=self.cost_usd,
            permission_denials=list(self.denials),
            files_changed=list(self.files_changed),
        )


def signal_cause(signum: int) -> tuple[str, str, int]:
    name = signal.Signals(signum).name
    return "interrupted", f"interrupted by {name}; the turn was cancelled", 128 + signum


class PrintRenderer:
    """The writer task's renderer for `luxe -p` (see the module docstring).

    The final output goes out once: at `turn_ended` (text, json) or at the
    end (stream-json, so the result frame is the last); `status` is the exit
    status it reported.
    """

    def __init__(self, tally: Tally, output_format: str, *, activity: bool) -> None:
        self.tally = tally
        self.output_format = output_format
        self.activity = activity  # tool activity and retries on stderr
        # The exit status the final output reported (it never changes after).
        self.status: int | None = None
        self._encode: Any = None
        # The last state shown of each language server, by (name, root).
        self._servers = ServerNotices()

    def frame(self, event: ev.Event) -> bytes:
        self.tally.see(event)
        self._to_stderr(event)
        if self.output_format == "stream-json":
            if self._encode is None:
                from luxe.protocol.wire import encode_event

                self._encode = encode_event
            return bytes(self._encode(event))
        if isinstance(event, ev.TurnEnded):
            return self._final()
        return b""

    def end(self) -> bytes:
        """After the last event: stream-json's result frame, or the final
        output of a run whose turn never ended."""
        return self._final()

    def _final(self) -> bytes:
        if self.status is not None:
            return b""
        result = self.tally.result()
        self.status = result.exit_code
        self._report(result)
        if self.output_format == "text":
            if result.exit_code not in (EXIT_ANSWERED, EXIT_DENIED) or not result.result:
                return b""
            answer = plain(result.result)
            return (answer if answer.endswith("\n") else answer + "\n").encode("utf-8", "replace")
        from luxe.protocol.wire import encode_event, frame_dict

        if self.output_format == "stream-json":
            return bytes(encode_event(result))
        content = frame_dict(result)["content"]
        return (escape_c1(_json.encode(content)) + "\n").encode("utf-8", "replace")

    # -- stderr ---------------------------------------------------------------

    def _report(self, result: ev.Result) -> None:
        """What a person running the command must see, whatever the format."""
        status = result.exit_code
        if status == EXIT_DENIED:
            for d in result.permission_denials:
                args = _json.encode(d.args)
                _err(f"luxe: denied: {d.tool} {_short(args)}: {_short(d.reason)}")
        elif status != EXIT_ANSWERED:
            _err(f"luxe: {result.stop_reason}: {result.error or 'the turn ended without an answer'}")

    def _to_stderr(self, event: ev.Event) -> None:
        if isinstance(event, ev.Error) and not event.retryable:
            _err(f"luxe: {event.message}")  # a broken hook, said once at start
        if not self.activity or self.output_format == "stream-json":
            return
        if isinstance(event, ev.ToolStarted):
            _err(f"· {event.name} {_short(_json.encode(event.args))}")
        elif isinstance(event, ev.ToolFinished):
            mark = "denied" if event.denied else "error" if event.is_error else "done"
            _err(f"  {mark}: {_short(event.summary)}")
        elif isinstance(event, ev.Error):
            wait = f" in {event.retry_in_s:g}s" if event.retry_in_s is not None else ""
            _err(f"  retrying{wait}: {_short(event.message)}")
        elif isinstance(event, ev.DiagnosticsServers):
            for notice in self._servers.news(event):
                _err(f"  {_short(notice)}")


def wants_activity(verbose: bool) -> bool:
    """Tool activity goes to stderr when it is a terminal or with --verbose."""
    try:
        return verbose or os.isatty(2)
    except OSError:
        return verbose


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _err(line: str) -> None:
    """One record on stderr: a line break in `line` (a provider's or a
    hook's words) starts a continuation line, indented past the activity
    lines (docs/print.md)."""
    try:
        os.write(2, (record(line, STDERR_CONTINUATION) + "\n").encode("utf-8", "replace"))
    except OSError:
        pass
