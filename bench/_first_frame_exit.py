"""Run `luxe ARGS` and exit the moment the interface would draw its first
frame, the prompt (`Interface.show_prompt`, before the engine is imported),
or, with LUXE_BENCH_EXIT_AT=handshake, the handshake's frame (the status
line: the session settled). For bench/luxe_interface.py's instruction
count: what the process executed before that frame, nothing after."""

import os
import sys

import luxe.frontends.tui.frontend as frontend
from luxe.cli import main


def _exit_at_frame(self: object, *args: object) -> None:
    os._exit(0)


if os.environ.get("LUXE_BENCH_EXIT_AT") == "handshake":
    frontend.Interface.handshake = _exit_at_frame  # type: ignore[method-assign]
else:
    frontend.Interface.show_prompt = _exit_at_frame  # type: ignore[method-assign]
sys.argv = ["luxe", *sys.argv[1:]]
main()
