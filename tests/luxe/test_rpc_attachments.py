"""Attached files from a hostile repository: whatever the path names, or
comes to name while Luxe reads it (a FIFO, a device, a socket, a directory,
a link to one of those or to itself, a path that changes under the read),
the turn is answered with what the file held or why it was not read, and
never waits, reads without end or fails. Through the real `luxe --rpc` and
the loopback model server."""

from __future__ import annotations

import ctypes
import os
import re
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers.link_chains import LONG_CHAIN, link_chain
from tests.luxe.policy.hostile import hostile_luxe

# How long a turn of attachments may take: reading them is instant, so this
# only bounds a hang (a FIFO's open waits for a writer for good).
TURN_S = 30.0


def _attachment_blocks(body: dict) -> list[str]:  # type: ignore[type-arg]
    """The text of each attachment block of the first user message."""
    content = body["messages"][0]["content"]
    return [b["text"] for b in content if b["text"].startswith("<attachment")]


def _fifo(repo: Path) -> str:
    os.mkfifo(repo / "notes.md")
    return "notes.md"


def _link_to_fifo(repo: Path) -> str:
    os.mkfifo(repo / ".pipe")
    (repo / "notes.md").symlink_to(".pipe")
    return "notes.md"


def _zero(repo: Path) -> str:
    return "/dev/zero"


def _link_to_zero(repo: Path) -> str:
    (repo / "data.bin").symlink_to("/dev/zero")
    return "data.bin"


def _directory(repo: Path) -> str:
    (repo / "docs.md").mkdir()
    return "docs.md"


def _socket(repo: Path) -> str:
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(repo / "notes.md"))
    listener.close()  # the socket file stays
    return "notes.md"


def _link_loop(repo: Path) -> str:
    (repo / "notes.md").symlink_to("notes.md")
    return "notes.md"


def _two_links(repo: Path) -> str:
    (repo / "a.md").symlink_to("b.md")
    (repo / "b.md").symlink_to("a.md")
    return "a.md"


def _long_chain(repo: Path) -> str:
    (repo / "real.md").write_text("REAL\n")
    return "chain/" + link_chain(repo / "chain", "l", LONG_CHAIN, "../real.md")


def _long_chain_to_a_folder(repo: Path) -> str:
    (repo / "docs").mkdir()
    (repo / "docs" / "real.md").write_text("REAL\n")
    return "chain/" + link_chain(repo / "chain", "l", LONG_CHAIN, "../docs") + "/real.md"


def _nul(repo: Path) -> str:
    return "notes\0.md"


@pytest.mark.parametrize(
    ("plant", "answer"),
    [
        (_fifo, "not a regular file"),
        (_link_to_fifo, "not a regular file"),
        (_zero, "not a regular file"),
        (_link_to_zero, "not a regular file"),
        (_directory, "not a regular file"),
        (_socket, "not a regular file"),
        (_link_loop, "could not be read"),
        (_two_links, "could not be read"),
        (_long_chain, "could not be read"),
        (_long_chain_to_a_folder, "could not be read"),
        (_nul, "could not be read"),
    ],
    ids=lambda v: getattr(v, "__name__", "")[1:] or None,
)
def test_what_is_not_a_regular_file_is_answered_and_never_read(
    plant: Callable[[Path], str], answer: str, repo: Path, env: dict[str, str]
) -> None:
    """Each is said in its attachment block; the turn and the next go on.
    (A symlink loop and a NUL in the path ended the turn with an internal
    error, and the prompt was lost; so did a chain of 1,200 links, on which
    os.path.realpath raised RecursionError.)"""
    path = plant(repo)
    steps = [{"text": "read it"}, {"text": "next"}]
    with hostile_luxe(steps, "ask", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go", "attachments": [{"path": path}]})
        assert luxe.expect("turn_ended", timeout=TURN_S)["reason"] == "end_turn"
        [block] = _attachment_blocks(server.bodies[0])
        assert block == f"<attachment path={path!r}>{answer}</attachment>" or (
            answer in block and block.startswith(f"<attachment path={path!r}>")
        ), block
        luxe.send("submit_user_message", {"text": "again"})
        assert luxe.expect("turn_ended", timeout=TURN_S)["reason"] == "end_turn"
        assert luxe.close() == 0


def test_a_large_attachment_is_read_to_its_cap_and_says_so(repo: Path, env: dict[str, str]) -> None:
    with (repo / "big.log").open("wb") as f:
        f.write(b"first line\n")
        f.truncate(1 << 40)  # sparse: a terabyte of NULs, no disk
    with hostile_luxe([{"text": "ok"}], "ask", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go", "attachments": [{"path": "big.log"}]})
        assert luxe.expect("turn_ended", timeout=TURN_S)["reason"] == "end_turn"
        [block] = _attachment_blocks(server.bodies[0])
        assert block.startswith("<attachment path='big.log' cut_at='64 KiB'>\nfirst line\n")
        assert len(block) < 70_000
        assert luxe.close() == 0


_RENAME_EXCHANGE = 2  # renameat2(2): swap two names atomically
_AT_FDCWD = -100


@pytest.fixture
def swapping(repo: Path) -> Iterator[str]:
    """`swap/racy.md` in `repo`, a regular file and a FIFO by turns: the
    directory `swap` and another holding a FIFO of that name trade places
    (one atomic renameat2 each), as fast as a thread can, until the test
    ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    for name, plant in (("swap", "text"), (".other", "fifo")):
        (repo / name).mkdir()
        if plant == "text":
            (repo / name / "racy.md").write_text("TEXT\n")
        else:
            os.mkfifo(repo / name / "racy.md")
    here, there = bytes(repo / "swap"), bytes(repo / ".other")
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            if libc.renameat2(_AT_FDCWD, here, _AT_FDCWD, there, _RENAME_EXCHANGE) != 0:
                raise OSError(ctypes.get_errno(), "renameat2")

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        yield "swap/racy.md"
    finally:
        stop.set()
        thread.join(timeout=10)


def test_a_file_swapped_for_a_fifo_under_the_read_never_holds_the_turn(
    swapping: str, repo: Path, env: dict[str, str]
) -> None:
    """A path that is a regular file when looked at and a FIFO when opened:
    the look and the open were two steps, so one attachment in a few of
    these froze the whole session in a FIFO's open. Now the descriptor
    opened (non-blocking) is the one checked and read: every block is the
    file's text or says it is not a regular file."""
    attached = [{"path": swapping}] * 3000
    with hostile_luxe([{"text": "ok"}], "ask", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go", "attachments": attached})
        assert luxe.expect("turn_ended", timeout=TURN_S)["reason"] == "end_turn"
        blocks = _attachment_blocks(server.bodies[0])
        assert len(blocks) == len(attached)
        allowed = re.compile(
            r"<attachment path='swap/racy.md'>(\nTEXT\n\n|not a regular file)</attachment>"
        )
        assert all(allowed.fullmatch(block) for block in blocks), set(blocks)
        assert luxe.close() == 0
