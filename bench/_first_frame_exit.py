"""Run `luxe ARGS` and exit the moment the interface's handshake would draw
the first frame (for bench/luxe_interface.py's instruction count: what the
process executed before the prompt could show, nothing after)."""

import os
import sys

import luxe.frontends.tui.frontend as frontend
from luxe.cli import main


def _exit_at_first_frame(self: object, events: object) -> None:
    os._exit(0)


frontend.Interface.handshake = _exit_at_first_frame  # type: ignore[method-assign]
sys.argv = ["luxe", *sys.argv[1:]]
main()
