"""`luxe -p`: answer one prompt headless, for scripts and CI (docs/print.md).

One more front end on the session `--rpc` runs (luxe.frontends.face): it
submits the prompt as a `submit_user_message` action, answers permission
prompts and questions with `respond_permission` / `answer_question` as
`--on-ask` says (nobody else can), and ends with `close` once the turn has
ended, `--timeout` ran out, or `--on-ask fail` met a prompt. A signal ends
the session as it ends `--rpc`'s. The writer task renders the same events
(luxe.frontends.print_render); the exit status says how the run went.

Ownership and cancellation: the driver (`serve_input`) runs in the
session's inner nursery and is cancelled when the session closes; the
session cancels the turn and kills its processes before the event channel
closes, so when `run_print` returns no process of ours is left.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from luxe.frontends.face import say_refused
from luxe.frontends.print_input import InputRefused, InputTimedOut, PromptInput, read_prompt
from luxe.frontends.print_render import (
    EXIT_ON_ASK_FAIL,
    EXIT_STDOUT_CLOSED,
    EXIT_TIMEOUT,
    PrintRenderer,
    Tally,
    signal_cause,
    wants_activity,
)
from luxe.frontends.stdout import StdoutOwner
from luxe.options import Options, PrintOptions
from luxe.protocol import events as ev

if TYPE_CHECKING:
    import trio

    from luxe.frontends.rpc_actions import RpcActions

EXIT_REFUSED = 2
EXIT_SIGINT = 130
# What the model is told when nobody can answer (docs/print.md).
NO_PERSON_PERMISSION = "no person is available to approve this (luxe -p --on-ask deny)"
NO_PERSON_QUESTION = "no person is available; decide and say what you assumed"

Ask = ev.PermissionRequested | ev.QuestionAsked


def main_print(options: Options) -> NoReturn:
    """`luxe -p`'s entry point: run, then end the process at once.

    Once the run is over every file is closed and flushed and no child
    is left, so the interpreter's teardown is skipped (luxe.exit_now): a
    script waiting on `luxe -p` gets its exit status right after the answer.
    """
    from luxe.exit_now import exit_now

    exit_now(run_print(options))


def run_print(options: Options) -> int:
    """Run `luxe -p`; returns the exit status (docs/print.md)."""
    started = time.monotonic()
    assert options.print is not None
    timeout_s = options.print.timeout_s
    deadline = started + timeout_s if timeout_s is not None else None
    try:
        try:
            given = read_prompt(options.print.prompt, deadline)
        except InputRefused as exc:
            print(f"luxe: {exc}", file=sys.stderr)
            return EXIT_REFUSED
        except InputTimedOut as exc:
            print(f"luxe: {exc}", file=sys.stderr)
            return EXIT_TIMEOUT
        front = PrintFrontEnd(
            options.print, given, started=started, deadline=deadline, verbose=options.verbose
        )
        from luxe.app import run

        return run(options, front=front)
    except KeyboardInterrupt:
        # SIGINT before the session's signal handling was in place: nothing ran.
        print("luxe: interrupted", file=sys.stderr)
        return EXIT_SIGINT


class PrintFrontEnd:
    """luxe.frontends.face.FrontEnd for `-p`; also the writer's Renderer."""

    def __init__(
        self,
        options: PrintOptions,
        given: PromptInput,
        *,
        started: float,
        deadline: float | None,
        verbose: bool,
    ) -> None:
        self.options = options
        self.given = given
        self.deadline = deadline
        self.stdout = StdoutOwner()
        self.tally = Tally(started)
        self.renderer = PrintRenderer(
            self.tally, options.output_format, activity=wants_activity(verbose)
        )
        self._asks: tuple[trio.MemorySendChannel[Ask], trio.MemoryReceiveChannel[Ask]] | None = None

    # -- FrontEnd ----------------------------------------------------------------

    def handshake(self, frames: list[ev.Event]) -> None:
        for event in frames:
            self.tally.see(event)
        if self.options.output_format == "stream-json":
            self.stdout.write_now(frames)

    async def serve_output(
        self, events: trio.MemoryReceiveChannel[ev.Event], on_broken: Callable[[], None]
    ) -> None:
        def broken() -> None:
            self.tally.stop("stdout_closed", "stdout was closed", EXIT_STDOUT_CLOSED)
            on_broken()

        await self.stdout.serve(events, broken, render=self)

    async def serve_input(self, actions: RpcActions, stop: trio.Event) -> None:
        """The driver: submit, answer prompts as --on-ask says, then close."""
        import trio

        from luxe.protocol import actions as act

        asks = self._channel()[1]
        left = self.deadline - time.monotonic() if self.deadline is not None else float("inf")
        with trio.move_on_after(left) as timer:
            if self.options.on_ask == "allow":
                await actions.dispatch(act.SetPermissionAutoApprove(True))
            await actions.dispatch(
                act.SubmitUserMessage(self.given.prompt, context=self.given.context)
            )
            async for ask in asks:
                if not await self._answer(ask, actions):
                    break
        if timer.cancelled_caught:
            self.tally.stop(
                "timeout",
                f"--timeout {self.options.timeout_s:g}s reached; the turn was cancelled",
                EXIT_TIMEOUT,
            )
        await actions.dispatch(act.Close())

    def refused(self, reason: str) -> None:
        say_refused(reason)

    def signalled(self, signum: int) -> None:
        self.tally.stop(*signal_cause(signum))

    def closing(self) -> None:
        self.stdout.begin_shutdown()

    def exit_status(self) -> int:
        return self.renderer.status if self.renderer.status is not None else self.tally.status()

    # -- Renderer (called by the writer task; never blocks) ------------------------

    def frame(self, event: ev.Event) -> bytes:
        data = self.renderer.frame(event)
        if isinstance(event, ev.PermissionRequested | ev.QuestionAsked):
            self._channel()[0].send_nowait(event)
        elif isinstance(event, ev.TurnEnded) or (
            isinstance(event, ev.ActionRejected) and event.kind == "submit_user_message"
        ):
            self._channel()[0].close()  # the driver closes the session
        return data

    def end(self) -> bytes:
        return self.renderer.end()

    # -- the driver's answers --------------------------------------------------------

    def _channel(self) -> tuple[trio.MemorySendChannel[Ask], trio.MemoryReceiveChannel[Ask]]:
        if self._asks is None:
            import math

            import trio

            self._asks = trio.open_memory_channel[Ask](math.inf)
        return self._asks

    async def _answer(self, ask: Ask, actions: RpcActions) -> bool:
        """Answer one prompt as --on-ask says; False when the run must end."""
        from luxe.protocol import actions as act

        policy = self.options.on_ask
        if isinstance(ask, ev.PermissionRequested):
            if self.tally.auto_approve:
                return True  # answered `auto` already (--on-ask allow, --auto-approve)
            if policy == "fail":
                args = _one_line(ask.args)
                self.tally.stop(
                    "on_ask_fail",
                    f"--on-ask fail: {ask.tool} needs permission ({ask.reason}): {args}",
                    EXIT_ON_ASK_FAIL,
                )
                return False
            await actions.dispatch(act.RespondPermission(ask.id, "reject", NO_PERSON_PERMISSION))
            return True
        if policy == "fail":
            self.tally.stop(
                "on_ask_fail",
                f"--on-ask fail: the question tool asks: {ask.question}",
                EXIT_ON_ASK_FAIL,
            )
            return False
        await actions.dispatch(
            act.AnswerQuestion(ask.id, {"dismissed": True, "reason": NO_PERSON_QUESTION})
        )
        return True


def _one_line(args: object) -> str:
    import json

    return json.dumps(args, ensure_ascii=False)
