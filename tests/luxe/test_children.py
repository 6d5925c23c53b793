"""luxe.children, the one registry of the children Luxe starts: a look at it
never misses a child that is being started, every child is forgotten once
its owner has reaped it, and nothing else in Luxe starts a process."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from luxe import child_process, children

LUXE = Path(__file__).resolve().parents[2] / "luxe"


def registered() -> dict[int, children.Child]:
    view = trio.run(children.look, lambda r: dict(r.children))
    assert view is not None
    return view


async def test_a_look_waits_for_a_child_being_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window between the fork (in trio's worker thread) and the pid's
    registration, held open: a look made in it waits, then sees the child."""
    real = trio.lowlevel.open_process
    forked, release = trio.Event(), trio.Event()

    async def held_open(*args: Any, **kwargs: Any) -> trio.Process:
        process = await real(*args, **kwargs)
        forked.set()
        await release.wait()
        return process

    monkeypatch.setattr(trio.lowlevel, "open_process", held_open)
    seen: list[dict[int, children.Child]] = []
    started: list[trio.Process] = []

    async def start() -> None:
        started.append(await children.open_process(["sleep", "30"], command=True))

    async def look() -> None:
        seen.append(await children.look(lambda r: dict(r.children)) or {})

    async with trio.open_nursery() as nursery:
        nursery.start_soon(start)
        await forked.wait()
        nursery.start_soon(look)
        await trio.testing.wait_all_tasks_blocked()
        assert seen == []  # still waiting: the child exists, unregistered
        release.set()
    (process,) = started
    try:
        assert seen[0][process.pid] == children.Child(process.pid, True)
    finally:
        process.kill()
        await process.wait()
        children.forget(process.pid)
    assert process.pid not in (await children.look(lambda r: dict(r.children)) or {})


async def test_a_look_gives_up_on_a_start_that_never_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    stuck = trio.Event()

    async def never(*args: Any, **kwargs: Any) -> trio.Process:
        stuck.set()
        await trio.sleep_forever()
        raise AssertionError

    monkeypatch.setattr(trio.lowlevel, "open_process", never)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(children.open_process, ["true"])
        await stuck.wait()
        assert await children.look(lambda r: True, wait_s=0.05) is None
        nursery.cancel_scope.cancel()
    assert await children.look(lambda r: True) is True  # the cancelled start counts no more


def test_every_child_is_forgotten_once_reaped(tmp_path: Path) -> None:
    before = registered()
    done = trio.run(lambda: child_process.run(("sh", "-c", "echo hi"), cwd=tmp_path))
    assert done.stdout == b"hi\n"
    assert children.run(["sh", "-c", "exit 3"]).returncode == 3
    process = children.popen(["true"], stdout=subprocess.DEVNULL)
    assert process.pid in registered()
    process.wait()
    children.forget(process.pid)
    with pytest.raises(FileNotFoundError):
        children.run(["no-such-program-4711"])
    assert registered() == before


# What starts a process, in Python: only luxe/children.py may say it.
SPAWNS = re.compile(
    r"subprocess\.(Popen|run|call|check_call|check_output|getoutput|getstatusoutput)\("
    r"|\bopen_process\(|\brun_process\b|os\.(fork|forkpty|posix_spawnp?|spawn\w*|exec\w*|system|popen)\("
    r"|pty\.(fork|spawn)\(|multiprocessing|asyncio\.create_subprocess"
)


def test_nothing_else_in_luxe_starts_a_process() -> None:
    found = []
    for path in sorted(LUXE.rglob("*.py")):
        if path.name == "children.py" and path.parent == LUXE:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if SPAWNS.search(code) and "children." not in code:
                found.append(f"{path.relative_to(LUXE.parent)}:{number}: {line.strip()}")
    assert found == []
