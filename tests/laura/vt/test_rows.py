"""The row-local batches (laura/vt/rows.py) leave exactly the state the
per-token path leaves."""

from __future__ import annotations

import random

import pytest

from laura.vt import VirtualTerminal
from laura.vt import core as vt_core
from laura.vt import rows as vt_rows
from laura.vt.rows import RowBatch
from tests.laura.vt.state import vt_state
from tests.laura.vt.streams import random_stream


def _fed(data: bytes, lines: int, columns: int, seed: int) -> VirtualTerminal:
    """`vt` after `data` in random reads; its `alerts` are all it raised, taken
    after each read as the host takes them (so none is lost to the limit)."""
    rnd = random.Random(seed)
    vt = VirtualTerminal(lines, columns)
    taken = []
    at = 0
    while at < len(data):
        step = rnd.choice((1, 3, 64, 4096, 4096, rnd.randint(1, 20_000)))
        vt.feed(data[at : at + step])
        taken += vt.take_alerts()
        at += step
    vt.alerts = taken
    return vt


def _inputs() -> list[bytes]:
    rnd = random.Random(18)
    noise = rnd.randbytes(128 * 1024)
    pieces = [b"\x08", b"\t", b"\r", b"\r\n", b"\x0b", b"\x07", b"\x0e", b"\x0f", b"\x18",
              b"\x1b", b"\x1bH", b"\x1b[3g", b"\x1b[4h", b"\x1b[4l", b"\x1b[?7l", b"\x1b[?7h",
              b"\x1b[1m", b"\x1b[m", b"\x1b(0", b"\x1b(B", b"\x1b)0", b"\x1b)B",
              b"\x1b[2;5r", b"\x1b[r", b"\x1b[?6h",
              "漢字".encode(), "e\u0301".encode(), "\ufffd".encode(), b"abcdefgh", b"xyz " * 9,
              # Broken sequences, and a mark after cells never written.
              b"\x1b[2\r", b"\x1b(\n", b"\x1b\xe4\xb8\x80", b"\x1b[1;", b"\x1b]0;t",
              b"\x1b[3C\xcc\x81", b"\x0b\xcc\x81"]
    mixed = b"".join(rnd.choice(pieces) for _ in range(30_000))
    streams = b"".join(random_stream(seed, steps=200, lines=6, columns=20, wide=True)
                       for seed in range(40))
    # Text before tokens that do nothing (or BEL) goes down joined to the
    # next chunk: runs of them, ended by SGR (the batch stops and the
    # per-token path starts where the run began, its bells uncounted), by a
    # control, by the end of a read, or by SO/SI once line drawing is
    # designated.
    texts = ["漢".encode(), "e\u0301".encode(), "\ufffd".encode(), b"ab", b"xyz" * 30]
    joinable = [b"\x18", b"\x1a", "\x1b漢".encode(), b"\x1bb", b"\x1bZ", b"\x0e", b"\x0f", b"\x07"]
    others = [b"\x1b[1m", b"\x1b[m", b"\x1b)0", b"\x1b)B", b"\x1b(0", b"\x1b(B", b"\r", b"\r\n",
              b"\x08", b"\x1bD"]
    joined = b"".join((rnd.choice(texts) if rnd.random() < 0.6 else b"")
                      + rnd.choice(joinable if rnd.random() < 0.6 else others)
                      for _ in range(12_000))
    return [noise.replace(b"\n", b"\r\n"), noise, mixed, streams, joined]


@pytest.mark.parametrize("table", [True, False], ids=["one-cell table", "other Unicode"])
@pytest.mark.parametrize("size", [(24, 80), (6, 20), (3, 7), (1, 1)])
def test_batches_leave_the_state_the_per_token_path_leaves(
        size: tuple[int, int], table: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not table:  # as on a Python whose Unicode data is another version
        monkeypatch.setattr(vt_rows, "not_narrow", lambda: None)
        monkeypatch.setattr(vt_core, "not_narrow", lambda: None)
    inputs = _inputs()
    batched = [vt_state(_fed(data, *size, seed)) for seed, data in enumerate(inputs)]
    monkeypatch.setattr(RowBatch, "_batch", lambda self, parts, i, count, bulk: (i, bulk))
    for seed, data in enumerate(inputs):
        assert batched[seed] == vt_state(_fed(data, *size, seed)), f"input {seed}"

