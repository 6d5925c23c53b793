"""Attached files from a hostile repository: whatever the path names, or
comes to name while Luxe reads it (a FIFO, a device, a socket, a directory,
a link to one of those or to itself, a path that changes under the read),
the turn is answered with what the file held or why it was not read, and
never waits, reads without end or fails. Through the real `luxe --rpc` and
the loopback model server."""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers.link_chains import (
    long_chain,
    long_chain_to_a_folder,
    two_links,
)
from tests.helpers.swap import (
    ENV,
    hard_link_to_env,
    link_to_a_siblings_env,
    link_to_env,
    swapping_names,
)
from tests.luxe.policy.hostile import hostile_luxe
from tests.luxe.rpc_driver import call

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
        (two_links, "could not be read"),
        (long_chain, "could not be read"),
        (long_chain_to_a_folder, "could not be read"),
        (_nul, "could not be read"),
    ],
    ids=lambda v: getattr(v, "__name__", "").lstrip("_") or None,
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


@pytest.fixture
def swapping(repo: Path) -> Iterator[str]:
    """`swap/racy.md`: a regular file and a FIFO by turns."""
    with swapping_names(repo, os.mkfifo) as path:
        yield path


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


# -- a name swapped to a secret file under the read -------------------------------



@pytest.mark.parametrize(
    "plant", [hard_link_to_env, link_to_env, link_to_a_siblings_env], ids=lambda f: f.__name__
)
def test_a_name_swapped_to_a_secret_file_under_the_read_is_refused(
    plant: Callable[[Path], None], repo: Path, env: dict[str, str]
) -> None:
    """`swap/racy.md` is a plain file and, by turns, a hard link to .env, a
    symlink to it, or a symlink to a sibling project's .env that no walk of
    this one finds. The gate's check of the path came before the open, so a
    swap in between attached the secret file (its values redacted, the file
    itself read: here its comment line). Now the file opened is judged by
    its descriptor (identity, real name): every block is the plain file's
    text or a refusal."""
    (repo / ".env").write_text(ENV)
    attached = [{"path": "swap/racy.md"}] * 3000
    with swapping_names(repo, plant), hostile_luxe([{"text": "ok"}], "ask", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go", "attachments": attached})
        assert luxe.expect("turn_ended", timeout=TURN_S)["reason"] == "end_turn"
        blocks = _attachment_blocks(server.bodies[0])
        assert len(blocks) == len(attached)
        assert not [b for b in blocks if "MARKER" in b], "a secret file was attached"
        allowed = re.compile(
            r"<attachment path='swap/racy.md'>(\nTEXT\n\n|refused: .*secret file.*"
            r"|could not be read: .*)</attachment>"
        )
        assert all(allowed.fullmatch(block) for block in blocks), {b[:120] for b in blocks}
        assert luxe.close() == 0


def test_a_link_and_ahardlink_to_env_are_refused(repo: Path, env: dict[str, str]) -> None:
    """Without a race: each is refused (the path's check; the descriptor's
    would refuse them too: tests/luxe/test_attachment_reader.py)."""
    (repo / ".env").write_text(ENV)
    (repo / "link.md").symlink_to(".env")
    os.link(repo / ".env", repo / "notes.txt")
    attached = [{"path": "link.md"}, {"path": "notes.txt"}]
    with hostile_luxe([{"text": "ok"}], "ask", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go", "attachments": attached})
        assert luxe.expect("turn_ended", timeout=TURN_S)["reason"] == "end_turn"
        blocks = _attachment_blocks(server.bodies[0])
        assert [b.split(">", 1)[1][:8] for b in blocks] == ["refused:", "refused:"], blocks
        assert "MARKER" not in str(server.bodies[0])
        assert luxe.close() == 0


@pytest.mark.parametrize("plant", [hard_link_to_env, link_to_a_siblings_env], ids=lambda f: f.__name__)
def test_a_read_of_a_name_swapped_to_a_secret_file_is_refused(
    plant: Callable[[Path], None], repo: Path, env: dict[str, str]
) -> None:
    """The `read` and `edit` tools open a file the gate allowed by its path
    too, so they judge the descriptor the same way."""
    (repo / ".env").write_text(ENV)
    calls = [call("read", path="swap/racy.md")] * 150 + [
        call("edit", path="swap/racy.md", old_string="NOPE", new_string="x")
    ] * 50
    steps = [{"tool_calls": calls}, {"text": "done"}]
    with swapping_names(repo, plant), hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended", timeout=TURN_S)
        assert frames[-1]["content"]["reason"] == "end_turn", frames[-1]
        results = [b for b in server.bodies[1]["messages"][-1]["content"] if b["type"] == "tool_result"]
        assert len(results) == len(calls)
        assert not [r for r in results if "MARKER" in str(r["content"])], "a secret file was read"
        # The file's text, the gate's refusal of the path, the refusal of
        # the file opened; or, for edit, its text without the match.
        allowed = re.compile(
            r"     1\tTEXT.*|denied: refused: `swap/racy.md .*|refused: swap/racy.md is a secret file .*"
            r"|old_string was not found in swap/racy.md.*",
            re.S,
        )
        assert all(allowed.fullmatch(str(r["content"])) for r in results), {
            str(r["content"])[:60] for r in results
        }
        assert luxe.close() == 0
