"""`luxe` with neither -p nor --rpc: the interface's entry point from luxe.cli.

Refuses (exit 2) when stdin or stdout is not a terminal, then runs the
session (luxe.app.run) behind the interface, or behind its plain-lines face
with --plain. The interface draws its prompt before the engine is imported
(some thirty milliseconds of a start, see docs/performance.md); from then on
a stop signal ends luxe at once and the terminal is given back on the way
out (luxe.stop_signals), as it is after a refused start.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from luxe import stop_signals
from luxe.config import paths_from_env
from luxe.options import Options

if TYPE_CHECKING:
    from luxe.frontends.tui.frontend import Interface
    from luxe.frontends.tui.plain import PlainInterface


def main_interface(options: Options) -> int:
    if not (os.isatty(0) and os.isatty(1)):
        print(
            "luxe: the interface needs a terminal on stdin and stdout; "
            "programs use `luxe -p PROMPT` or `luxe --rpc`",
            file=sys.stderr,
        )
        return 2
    env = dict(os.environ)
    paths = paths_from_env(env)
    front: Interface | PlainInterface
    if options.plain:
        from luxe.frontends.tui.plain import PlainInterface

        front = PlainInterface(
            cwd=Path.cwd(), state_dir=paths.state_dir, config_dir=paths.config_dir, env=env,
            trust_project=options.trust_project, first_prompt=options.prompt,
        )
    else:
        from luxe.frontends.tui.frontend import Interface

        front = Interface(
            cwd=Path.cwd(), state_dir=paths.state_dir, config_dir=paths.config_dir, env=env,
            trust_project=options.trust_project, first_prompt=options.prompt,
            pick_session=options.resume == "",
        )
    try:
        stop_signals.handle_with(stop_signals.end_at_once)
        front.show_prompt()
        from luxe.app import run

        return run(options, env, front)
    finally:
        front.release()  # whatever happened, the terminal is given back
