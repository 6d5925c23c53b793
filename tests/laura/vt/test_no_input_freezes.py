"""No output can make the emulator's cost grow faster than its length: a
long run of controls inside an escape sequence that never ends, or ends
late, costs per byte what a short one does. (Held, unfinished sequences are
matched again on every read; an ambiguous pattern made that quadratic, so a
file of `ESC [` followed by tens of thousands of BELs froze the pane for
seconds per sequence.)"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from laura.vt import VirtualTerminal

TOTAL = 256_000
SPELLINGS: dict[str, Callable[[int], bytes]] = {
    "CSI, then BELs, then a final byte": lambda n: b"\x1b[" + b"\x07" * n + b"x",
    "ESC, then BSs, then a character above ASCII": lambda n: b"\x1b" + b"\x08" * n + "é".encode(),
    "CSI, parameters with HTs between them": lambda n: b"\x1b[" + b"1\t" * (n // 2) + b"m",
    "CSI, intermediates and VTs, then a wide character": lambda n: b"\x1b[" + b"; \x0b" * (n // 3) + "€".encode(),
    "ESC, then inert C0 controls, then CR LF": lambda n: b"\x1b" + b"\x01\x02\x1f" * (n // 3) + b"\r\n",
    "ESC (, then SO/SI": lambda n: b"\x1b(" + b"\x0e\x0f" * (n // 2) + b"B",
}


def _cpu_per_byte(sequence: bytes) -> float:
    sequence += b" and text after it"  # so that a held sequence is matched past its end
    data = sequence * max(1, TOTAL // len(sequence))
    vt = VirtualTerminal(40, 120)
    started = time.process_time()
    for at in range(0, len(data), 4096):  # as Laura's PTY reader slices it
        vt.feed(data[at : at + 4096])
    assert vt.errors == 0
    return (time.process_time() - started) / len(data)


@pytest.mark.parametrize("make", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_a_long_run_inside_a_sequence_costs_per_byte_what_a_short_one_does(
    make: Callable[[int], bytes],
) -> None:
    short = min(_cpu_per_byte(make(1_000)) for _ in range(2))
    long = min(_cpu_per_byte(make(32_000)) for _ in range(2))
    # Linear work gives about 1; the quadratic pattern gave 30 and more.
    assert long < 5 * short, (long / short)
