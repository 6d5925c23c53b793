"""Laura's VT/xterm emulator: pure Python, built for throughput.

`VirtualTerminal(lines, columns, reply=None)` implements the
`laura.emulator.Emulator` seam.
"""

from laura.vt.core import VirtualTerminal

__all__ = ["VirtualTerminal"]
