"""A chain of symlinks, as a hostile repository can plant one.

`link_chain(folder, "l", 1200, "../notes.md")` makes `folder/l0 -> l1 ->
... -> l1200 -> ../notes.md`. The kernel follows at most 40 links and
answers ELOOP; `os.path.realpath` (Python 3.11) recursed once per link and
raised RecursionError past about 1,000, and `Path.resolve` with it.

Planters for a repository (each plants its links in `repo` and returns the
name a tool or a person would give, relative to it; they can share one
repository): `two_links` (a.md -> b.md -> a.md), `long_chain` (a chain to
a file), `long_chain_to_a_folder` (a chain to a folder, then a file in it).
"""

from __future__ import annotations

import os
from pathlib import Path

LONG_CHAIN = 1200


def link_chain(folder: Path, name: str, length: int, target: str) -> str:
    """Plant the chain in `folder` (created); its first link's name."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(length):
        os.symlink(f"{name}{i + 1}", folder / f"{name}{i}")
    os.symlink(target, folder / f"{name}{length}")
    return f"{name}0"


def two_links(repo: Path) -> str:
    """a.md -> b.md -> a.md."""
    (repo / "a.md").symlink_to("b.md")
    (repo / "b.md").symlink_to("a.md")
    return "a.md"


def long_chain(repo: Path) -> str:
    """chain/l0 -> … -> ../other.md, a file that exists."""
    (repo / "other.md").write_text("OTHER\n")
    return "chain/" + link_chain(repo / "chain", "l", LONG_CHAIN, "../other.md")


def long_chain_to_a_folder(repo: Path) -> str:
    """links/m0 -> … -> ../docs, then docs/guide.md through it."""
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("GUIDE\n")
    return "links/" + link_chain(repo / "links", "m", LONG_CHAIN, "../docs") + "/guide.md"
