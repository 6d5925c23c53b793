"""Path handling shared by the file tools: resolve against the session cwd,
and walk a tree."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from luxe.engine.tooling import ToolError, call_path, path_problem


def resolve(cwd: Path, path: str) -> Path:
    """`path` made absolute against `cwd` (`~` expands); never touches disk.
    A ToolError when no file can have that name (empty, a NUL, too long)."""
    if not path:
        raise ToolError("empty path")
    full = call_path(cwd, path)
    problem = path_problem(full)
    if problem is not None:
        raise ToolError(problem)
    return full


def shown(cwd: Path, path: Path) -> str:
    """A path as the model should see it: relative to cwd when inside it."""
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"})


def walk_files(root: Path, enter: Callable[[str], bool]) -> Iterator[Path]:
    """Files under `root` in os.walk's order (a directory's files, sorted,
    then each directory `enter` accepts, by name), lazily, never following a
    symlinked directory. Its own stack: os.walk recursed (Python 3.11), and a
    checkout 1,500 directories deep raised RecursionError."""
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        below = []
        for entry in entries:
            try:
                is_dir, linked = entry.is_dir(), entry.is_symlink()
            except OSError:
                continue
            if not is_dir:
                yield Path(entry.path)
            elif not linked and enter(entry.name):  # a link to a directory: neither
                below.append(Path(entry.path))
        stack.extend(reversed(below))
