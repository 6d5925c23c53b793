"""A child for the shell pane that records every byte it reads.

    python recorder.py OUT [--alt] [--paste] [--mouse] [--dsr] [--focus]

Puts its terminal in raw mode, optionally switches to the alternate screen
(so PageUp/PageDown reach it), enables bracketed paste and SGR mouse
reporting, focus reporting (DECSET 1004), or sends a DSR cursor-position query; prints READY; then appends
every byte it reads to OUT until it reads the byte 0x04 twice in a row
(Ctrl+D Ctrl+D) or stdin closes.
"""

import os
import sys
import termios
import tty

out_path = sys.argv[1]
flags = set(sys.argv[2:])
fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
tty.setraw(fd)
setup = ""
if "--alt" in flags:
    setup += "\x1b[?1049h"
if "--paste" in flags:
    setup += "\x1b[?2004h"
if "--mouse" in flags:
    setup += "\x1b[?1000h\x1b[?1006h"
if "--focus" in flags:
    setup += "\x1b[?1004h"
sys.stdout.write(setup + "\x1b[2;3HREADY\r\n")
sys.stdout.flush()
if "--dsr" in flags:
    sys.stdout.write("\x1b[6n")
    sys.stdout.flush()
previous = b""
try:
    with open(out_path, "ab", buffering=0) as out:
        while True:
            data = os.read(fd, 4096)
            if not data:
                break
            out.write(data)
            if b"\x04\x04" in previous + data:
                break
            previous = data[-1:]
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, saved)
