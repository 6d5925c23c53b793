"""A chain of symlinks, as a hostile repository can plant one.

`link_chain(folder, "l", 1200, "../notes.md")` makes `folder/l0 -> l1 ->
... -> l1200 -> ../notes.md`. The kernel follows at most 40 links and
answers ELOOP; `os.path.realpath` (Python 3.11) recursed once per link and
raised RecursionError past about 1,000, and `Path.resolve` with it.
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
