"""Geometry of one tab: a recursive binary split tree of panes, pure.

A leaf is a pane id; a split divides its rect between `first` and `second`,
side by side (`horizontal`) or stacked (`vertical`). `ratio` is the percent
of the rect given to `first` (1..99); widths are floored and the remainder
goes to `second`, so the rects always tile the area exactly. Pane 0 is the
shell and is never removed. Nothing here does I/O: every function returns a
new tree or raises `LayoutError` with the message the client is shown.
"""

from __future__ import annotations

from typing import NamedTuple

from laura.protocol import Rect

SHELL = 0
# The smallest pane that can render: one content cell inside a one-cell border.
MIN_PANE = 3
TOO_SMALL = (
    "split would shrink a pane below 3×3 — too small to render; close a pane or lower --ratio"
)


class LayoutError(ValueError):
    """A refused change; the message is what the client is told."""


class Leaf(NamedTuple):
    id: int


class Split(NamedTuple):
    dir: str  # "horizontal" | "vertical"
    ratio: int  # percent of the area given to `first`
    first: Tree
    second: Tree


Tree = Leaf | Split


def order(tree: Tree) -> list[int]:
    """Pane ids in reading order (first before second)."""
    if isinstance(tree, Leaf):
        return [tree.id]
    return order(tree.first) + order(tree.second)


def contains(tree: Tree, pane: int) -> bool:
    return pane in order(tree)


def split_rect(rect: Rect, dir: str, ratio: int) -> tuple[Rect, Rect]:
    """Divide `rect`: `first` gets floor(size * ratio / 100), `second` the rest."""
    if dir == "horizontal":
        width = rect.width * ratio // 100
        return (
            Rect(rect.x, rect.y, width, rect.height),
            Rect(rect.x + width, rect.y, rect.width - width, rect.height),
        )
    height = rect.height * ratio // 100
    return (
        Rect(rect.x, rect.y, rect.width, height),
        Rect(rect.x, rect.y + height, rect.width, rect.height - height),
    )


def rects(tree: Tree, area: Rect) -> dict[int, Rect]:
    """Every pane's rect inside `area`."""
    if isinstance(tree, Leaf):
        return {tree.id: area}
    first, second = split_rect(area, tree.dir, tree.ratio)
    return rects(tree.first, first) | rects(tree.second, second)


def fits(tree: Tree, area: Rect) -> bool:
    """True when every pane is at least MIN_PANE x MIN_PANE."""
    return all(r.width >= MIN_PANE and r.height >= MIN_PANE for r in rects(tree, area).values())


def split(tree: Tree, target: int, dir: str, ratio: int, side: str, new: int) -> Tree:
    """Replace leaf `target` by a split holding it and the new pane `new`.

    `ratio` is the new pane's percent; `side` says whether it lands `first`
    (left/top) or `second`."""
    if not contains(tree, target):
        raise LayoutError(f"no pane #{target}")
    first_ratio = ratio if side == "first" else 100 - ratio
    first_ratio = min(99, max(1, first_ratio))

    def walk(node: Tree) -> Tree:
        if isinstance(node, Leaf):
            if node.id != target:
                return node
            old, fresh = Leaf(target), Leaf(new)
            if side == "first":
                return Split(dir, first_ratio, fresh, old)
            return Split(dir, first_ratio, old, fresh)
        return Split(node.dir, node.ratio, walk(node.first), walk(node.second))

    return walk(tree)


def remove(tree: Tree, pane: int) -> Tree:
    """Drop `pane`; its parent split is replaced by the sibling subtree."""
    if pane == SHELL:
        raise LayoutError("the shell pane can't be closed")
    if not contains(tree, pane):
        raise LayoutError(f"no pane #{pane}")

    def walk(node: Tree) -> Tree:
        if isinstance(node, Leaf):
            return node
        if node.first == Leaf(pane):
            return node.second
        if node.second == Leaf(pane):
            return node.first
        return Split(node.dir, node.ratio, walk(node.first), walk(node.second))

    return walk(tree)


def depth_of(tree: Tree, pane: int, depth: int = 0) -> int | None:
    """How many splits lie above `pane` (None when absent)."""
    if isinstance(tree, Leaf):
        return depth if tree.id == pane else None
    found = depth_of(tree.first, pane, depth + 1)
    return found if found is not None else depth_of(tree.second, pane, depth + 1)


class Placement(NamedTuple):
    target: int
    dir: str
    ratio: int
    side: str


def dwindle(tree: Tree, area: Rect) -> Placement | None:
    """The inferred split for a bare open: halve the newest pane, side by
    side at even depth and stacked at odd depth, so repeated opens spiral.
    None when that split would not fit."""
    panes = order(tree)
    target = max(panes)
    depth = depth_of(tree, target) or 0
    placement = Placement(target, "horizontal" if depth % 2 == 0 else "vertical", 50, "second")
    probe = split(tree, target, placement.dir, 50, "second", max(panes) + 1)
    return placement if fits(probe, area) else None


def place(
    tree: Tree,
    area: Rect,
    *,
    split_pane: int | None,
    dir: str | None,
    ratio: int | None,
    side: str | None,
    focused: int,
) -> Placement:
    """Where an `open` lands: dwindle when every hint is absent (and it fits),
    otherwise the given hints with defaults: the focused pane, side by side,
    50 %, second."""
    if split_pane is None and dir is None and ratio is None and side is None:
        inferred = dwindle(tree, area)
        if inferred is not None:
            return inferred
    return Placement(
        focused if split_pane is None else split_pane,
        dir or "horizontal",
        50 if ratio is None else ratio,
        side or "second",
    )


def open_pane(tree: Tree, area: Rect, placement: Placement, new: int, *, check_fit: bool) -> Tree:
    """The tree with `new` placed; refused (LayoutError) when the target is
    absent or, with `check_fit`, when any pane would fall below 3x3."""
    result = split(tree, placement.target, placement.dir, placement.ratio, placement.side, new)
    if check_fit and not fits(result, area):
        raise LayoutError(TOO_SMALL)
    return result
