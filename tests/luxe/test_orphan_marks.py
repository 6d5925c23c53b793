"""The marks of hook runs a sweep spares (luxe.children's `keeps`, read by
luxe.orphans) last only while a process holds them: each hook run adds one,
and a long session once kept every one until it closed. A sweep forgets a
mark once no descendant of Luxe holds it, and keeps one a living process
(a child, or a child's child) holds, or that one it cannot read for a
moment (in the middle of an exec) may hold.

The registry is the process's own, shared with whatever else ran in this
worker: each test looks only at the marks it made."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from luxe import children, orphans
from luxe.policy.hook_process import RUN_TOKEN_VAR, run_hook_process
from luxe.policy.hooks_config import HookDefinition
from luxe.tools import escapees
from tests.helpers.wait import wait_until

MARK = "LUXE_TEST_ORPHAN_MARK"


async def marks(var: str) -> frozenset[str]:
    keeps = await children.look(lambda registered: registered.keeps)
    assert keeps is not None
    return keeps.get(var, frozenset())


def start(argv: list[str], mark: str | None = None) -> subprocess.Popen[bytes]:
    """`argv` in a session of its own; with `mark`, holding MARK=mark and
    registered with it, as a hook is."""
    environ = {**os.environ, MARK: mark} if mark else None
    keeps = (MARK, mark) if mark else None
    return children.popen(argv, keeps=keeps, env=environ, start_new_session=True)


def end(process: subprocess.Popen[bytes]) -> None:
    """End `process`'s whole group, reaped and forgotten."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    children.forget(process.pid)


def holds(pid: int, mark: str) -> bool:
    return f"{MARK}={mark}\0".encode() in (escapees.environ_of(pid) or b"")


@pytest.fixture
def held() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes the test started, ended with it."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        end(process)


async def test_the_marks_of_hook_runs_whose_daemons_exited_are_forgotten(tmp_path: Path) -> None:
    before = await marks(RUN_TOKEN_VAR)
    # Each run detaches a daemon (as docs/hooks.md allows) that soon exits.
    # The hook answers once its daemon runs in a session of its own (out of
    # the hook's group, which is ended when the hook exits).
    daemon = (
        "cat >/dev/null; setsid -f sh -c ': > \"$0.started\"; sleep 0.1; : > \"$0\"' \"$1\"\n"
        "while [ ! -e \"$1.started\" ]; do sleep 0.01; done; echo '{}'"
    )
    for run in range(5):
        hook = HookDefinition(("sh", "-c", daemon, "sh", str(tmp_path / f"done-{run}")))
        result = await run_hook_process(hook, b"{}", cwd=str(tmp_path), env=None)
        assert result.error is None, result
    runs = await marks(RUN_TOKEN_VAR) - before
    assert len(runs) == 5  # one mark a run, kept past the run for its daemon
    wait_until(lambda: len(list(tmp_path.glob("done-?"))) == 5, what="the daemons to finish")
    await orphans.sweep()
    assert await marks(RUN_TOKEN_VAR) & runs == frozenset()


async def test_a_mark_a_living_process_holds_is_kept_until_it_ends(
    held: list[subprocess.Popen[bytes]],
) -> None:
    # "child": the process started holds it; "grandchild": that process
    # clears its own environment, and only the child it started first holds it.
    held.append(start(["sleep", "30"], "child"))
    held.append(start(["sh", "-c", "sleep 30 & exec env -i sleep 30"], "grandchild"))
    end(start(["true"], "gone"))
    parent = held[1].pid
    wait_until(
        lambda: not holds(parent, "grandchild")
        and any(holds(pid, "grandchild") for pid in escapees.our_subtree() or ()),
        what="the grandchild alone to hold its mark",
    )
    await orphans.sweep()
    assert await marks(MARK) == {"child", "grandchild"}
    for process in held:
        end(process)
    held.clear()
    await orphans.sweep()
    assert await marks(MARK) == frozenset()


async def test_a_mark_is_kept_while_its_holder_cannot_be_read_a_moment(
    held: list[subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A holder in the middle of an exec, its environment unreadable for a
    moment (two passes of the sweep's look here): its mark is kept."""
    holder = start(["sleep", "30"], "exec")
    held.append(holder)
    end(start(["true"], "gone"))
    real = escapees.environ_of
    unread = [2]

    def in_an_exec(pid: int) -> bytes | None:
        if pid == holder.pid and unread[0]:
            unread[0] -= 1
            return None
        return real(pid)

    monkeypatch.setattr(escapees, "environ_of", in_an_exec)
    await orphans.sweep()
    assert unread == [0]
    assert await marks(MARK) == {"exec"}
