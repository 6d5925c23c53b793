"""A tree of folders deeper than Python's recursion limit, made and removed
one level at a time (os.makedirs and shutil.rmtree recurse, and pytest's
clean-up of old temp dirs would fail on one left behind)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def deep_tree(root: Path, depth: int, name: str = "d") -> Iterator[Path]:
    """`root`/name/name/… `depth` levels down; yields the deepest folder,
    and removes everything under `root` on the way out, deepest first."""
    root.mkdir()
    path = root
    for _ in range(depth):
        path = path / name
        path.mkdir()
    try:
        yield path
    finally:
        folder = path
        while True:
            for entry in os.scandir(folder):
                if entry.is_dir(follow_symlinks=False):
                    continue  # the level below, removed already
                os.unlink(entry.path)
            os.rmdir(folder)
            if folder == root:
                break
            folder = folder.parent
