"""A stand-in agent for end-to-end tests: records every byte it reads.

Run as `python recorder.py OUT`: puts its terminal in raw mode (so nothing
is translated or line-buffered on the way in), writes its `LAURA_TAB` to
`OUT.tab` (so the test can talk to the tab as the agent would), prints
`recorder ready`, then
appends every byte read from stdin to OUT, unbuffered. It runs until its
terminal closes (the test closes the tab or kills the tmux server).
"""

from __future__ import annotations

import os
import sys
import termios
import tty


def main(out_path: str) -> int:
    fd = sys.stdin.fileno()
    if os.isatty(fd):
        tty.setraw(fd, termios.TCSANOW)
    with open(out_path + ".tab", "w") as tab:
        tab.write(os.environ.get("LAURA_TAB", ""))
    # Creating the file first lets a test tell "nothing written" from "not started".
    with open(out_path, "ab", buffering=0) as out:
        sys.stdout.write("recorder ready\r\n")
        sys.stdout.flush()
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return 0
            if not chunk:
                return 0
            out.write(chunk)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
