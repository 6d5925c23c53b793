"""luxe.child_process.run with a stdout cap: reads that much at most, ends
the whole group there, and says so; output within the cap is whole."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import trio

from luxe.child_process import run
from tests.helpers.procs import live_pids_with

CAP = 1 << 20


async def test_endless_output_stops_at_the_cap_and_leaves_no_process(tmp_path: Path) -> None:
    marker = f"cap-{uuid.uuid4().hex}"
    done = await run(("sh", "-c", f"yes {marker} | cat; echo gone >&2"), cwd=tmp_path, stdout_cap=CAP)
    assert done.truncated
    assert len(done.stdout) == CAP
    assert done.stdout.startswith(f"{marker}\n".encode())
    assert live_pids_with(marker) == []


async def test_output_within_the_cap_is_whole_with_its_status_and_complaint(tmp_path: Path) -> None:
    done = await run(
        ("sh", "-c", f"head -c {CAP} /dev/zero; echo complaint >&2; exit 3"),
        cwd=tmp_path, stdout_cap=CAP,
    )  # fmt: skip
    assert not done.truncated
    assert done.stdout == bytes(CAP)
    assert (done.returncode, done.error_line) == (3, "complaint")


async def test_stdin_reaches_a_capped_child(tmp_path: Path) -> None:
    done = await run(("cat",), cwd=tmp_path, stdin=b"fed\n", stdout_cap=CAP)
    assert (done.stdout, done.truncated, done.returncode) == (b"fed\n", False, 0)


async def test_a_missing_program_raises_as_itself(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await run(("no-such-program-4711",), cwd=tmp_path)


async def test_a_cancel_ends_the_whole_group(tmp_path: Path) -> None:
    marker = f"cancel-{uuid.uuid4().hex}"
    with trio.move_on_after(0.5) as scope:
        # A grandchild carrying the marker too (`: ` keeps sh from exec'ing sleep).
        script = f"sh -c 'sleep 30; :' {marker}-grandchild & sleep 31; :"
        await run(("sh", "-c", script, marker), cwd=tmp_path)
    assert scope.cancelled_caught
    assert live_pids_with(marker) == []
