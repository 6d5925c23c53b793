"""The process-group terminator (process_group.terminate_group) Luxe shares with Laura,
which tools, command hooks, language servers and Guided Review's git and gh
all end through: nothing of the group survives it, not a grandchild that
ignores SIGTERM, and not when the leader has already exited."""

from __future__ import annotations

import os
import subprocess

import pytest
import trio

from process_group import terminate_group
from tests.helpers.procs import live_pids_with


def _group_of(leader_waits: bool, marker: str) -> list[str]:
    """A leader shell whose child shell ignores TERM and starts a sleep
    (the grandchild, TERM ignored too); the leader waits for it or exits."""
    child = f"trap '' TERM; echo armed; sleep {marker}; true"
    leader = f"sh -c \"{child}\" & " + ("wait" if leader_waits else "exit 0")
    return ["sh", "-c", leader]


@pytest.mark.parametrize("leader_waits", [True, False], ids=["leader-waits", "leader-exited"])
async def test_a_grandchild_that_ignores_term_dies(leader_waits: bool) -> None:
    marker = f"{3000 + os.getpid() % 997}.{int(leader_waits)}731"
    process = await trio.lowlevel.open_process(
        _group_of(leader_waits, marker), stdout=subprocess.PIPE, start_new_session=True
    )
    assert process.stdout is not None
    with trio.fail_after(10):
        assert (await process.stdout.receive_some(64)).startswith(b"armed")
        while not live_pids_with(f"sleep {marker}"):  # noqa: ASYNC110 - the sleep is exec'ing
            await trio.sleep(0.01)
    if not leader_waits:
        with trio.fail_after(10):
            await process.wait()  # the leader is gone; its group is not
        assert live_pids_with(f"sleep {marker}")
    await terminate_group(process, grace=0.1)
    assert process.returncode is not None
    assert live_pids_with(f"sleep {marker}") == []
    await process.stdout.aclose()
