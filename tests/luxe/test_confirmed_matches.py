"""Lines ripgrep reported, kept only when Luxe's own read of the file holds
them (luxe/tools/confirmed_matches.py): the records parsed, each line found
at its number whatever chunks the file was read in, a secret refused."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.tools import confirmed_matches
from luxe.tools.confirmed_matches import Reported, confirmed_lines, reported_lines


def test_records_are_name_nul_number_colon_text_and_nothing_else() -> None:
    output = (
        b"./a.txt\x001:one: two\n"
        b"b\x003:x\r\n"
        b"no nul here 4:x\n"
        b"c\x00no number\n"
        b"c\x000:line zero\n"
        b"c\x00-1:minus\n"
        b"d\x007:cut by the ca"
    )
    assert list(reported_lines(output)) == [
        (b"./a.txt", 1, b"one: two"),
        (b"b", 3, b"x\r"),
        (b"d", 7, b"cut by the ca"),
    ]


@settings(max_examples=500, deadline=None)
@given(
    data=st.binary(max_size=120).map(lambda b: bytes(b"ab\n\r"[x % 4] for x in b)),
    numbers=st.lists(st.integers(1, 30), max_size=8, unique=True),  # ripgrep: ascending
    lies=st.sets(st.integers(1, 30)),
    chunk=st.integers(1, 9),
)
def test_a_line_is_kept_only_where_the_file_holds_its_text_at_its_number(
    data: bytes, numbers: list[int], lies: set[int], chunk: int
) -> None:
    lines = data.split(b"\n")
    reported = [
        (b"./f", n, b"not in the file" if n in lies else lines[n - 1] if n <= len(lines) else b"a")
        for n in numbers
    ]
    expected = [
        ("f", n, text.removesuffix(b"\r").decode())
        for _, n, text in reported
        if n <= len(lines) and lines[n - 1] == text
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(confirmed_matches, "_CHUNK", chunk)  # lines span the reads
        assert _confirmed(data, reported) == expected


def test_a_file_whose_descriptor_is_a_secret_or_whose_name_is_refused_keeps_no_line() -> None:
    reported: list[Reported] = [(b"f", 1, b"KEY=1")]
    assert _confirmed(b"KEY=1\n", reported) == [("f", 1, "KEY=1")]
    assert _confirmed(b"KEY=1\n", reported, secret=True) == []
    assert _confirmed(b"KEY=1\n", reported, refused=True) == []
    assert _confirmed(None, reported) == []  # missing


def _confirmed(
    data: bytes | None, reported: list[Reported], *, secret: bool = False, refused: bool = False
) -> list[tuple[str, int, str]]:
    """confirmed_lines over a file `f` holding `data` (none when None)."""
    with tempfile.TemporaryDirectory() as cwd:
        if data is not None:
            Path(cwd, "f").write_bytes(data)
        return list(
            confirmed_lines(
                reported, cwd, lambda _name: refused, lambda _fd: secret, threading.Event(), 1 << 20
            )
        )
