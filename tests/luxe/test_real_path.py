"""luxe.real_path: the file a path names, as `os.path.realpath` says for
ordinary shapes (links in any component, a dangling last link, a missing
tail), and an answer instead of an exception for what a hostile repository
plants (loops, a chain of 1,200 links, a NUL, a path over PATH_MAX)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from luxe.real_path import real_path
from tests.helpers.link_chains import LONG_CHAIN, link_chain


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    (root / "d" / "e").mkdir(parents=True)
    (root / "f").write_text("x")
    (root / "fl").symlink_to("f")
    (root / "de").symlink_to("d/e")
    (root / "up").symlink_to("../..")
    (root / "abs").symlink_to(str(root / "d"))
    (root / "dangling").symlink_to("/nonexistent-luxe-test/target")
    (root / "dangling2").symlink_to("nowhere/deeper")
    (root / "hop").symlink_to("de")
    return root


ORDINARY = [
    "f", "fl", "fl/x", "de", "de/new/file", "up", "up/x", "abs/e", "hop/z",
    "dangling", "dangling/x", "dangling2", "dangling2/q", "new", "new/deeper/x", ".", "d/e/../f",
]  # fmt: skip


@pytest.mark.parametrize("given", ORDINARY)
def test_ordinary_paths_resolve_as_realpath_resolves_them(tree: Path, given: str) -> None:
    assert real_path(tree / given) == os.path.realpath(tree / given)


def test_what_realpath_raises_on_is_answered(tree: Path) -> None:
    (tree / "a").symlink_to("b")
    (tree / "b").symlink_to("a")
    (tree / "x").symlink_to("x")
    (tree / "d" / "loop").symlink_to("loop")
    first = link_chain(tree / "chain", "l", LONG_CHAIN, "../f")
    with pytest.raises(RecursionError):
        os.path.realpath(tree / "chain" / first)
    assert real_path(tree / "x") == str(tree / "x")
    assert real_path(tree / "a") in (str(tree / "a"), str(tree / "b"))
    assert real_path(tree / "d/loop/file") == str(tree / "d/loop/file")
    assert real_path(tree / "chain" / first).startswith(str(tree / "chain" / "l"))
    assert real_path(f"{tree}/n\0ul") == f"{tree}/n\0ul"
    long = "/".join(["y" * 200] * 30)
    assert real_path(tree / long) == str(tree / long)


def test_a_chain_the_kernel_follows_resolves_to_its_end(tree: Path) -> None:
    first = link_chain(tree / "chain", "l", 30, "../f")
    assert real_path(tree / "chain" / first) == str(tree / "f")
