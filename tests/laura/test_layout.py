"""The split tree's geometry, pure: tiling, close/split round trips, dwindle, refusals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laura import layout
from laura.layout import TOO_SMALL, LayoutError, Leaf, Placement
from laura.protocol import Rect

AREA = Rect(0, 1, 120, 38)


@st.composite
def trees(draw: st.DrawFn) -> tuple[layout.Tree, Rect]:
    """A tree built by random splits of random panes, in a random area."""
    area = Rect(draw(st.integers(0, 5)), draw(st.integers(0, 5)), draw(st.integers(1, 300)), draw(st.integers(1, 100)))
    tree: layout.Tree = Leaf(0)
    for new in range(1, draw(st.integers(0, 12)) + 1):
        target = draw(st.sampled_from(layout.order(tree)))
        tree = layout.split(
            tree,
            target,
            draw(st.sampled_from(["horizontal", "vertical"])),
            draw(st.integers(1, 99)),
            draw(st.sampled_from(["first", "second"])),
            new,
        )
    return tree, area


@settings(max_examples=150, deadline=None)
@given(trees())
def test_rects_tile_the_area_exactly_with_no_overlap(case: tuple[layout.Tree, Rect]) -> None:
    tree, area = case
    rects = layout.rects(tree, area)
    assert sorted(rects) == sorted(layout.order(tree))
    covered: set[tuple[int, int]] = set()
    total = 0
    for rect in rects.values():
        assert rect.width >= 0 and rect.height >= 0
        cells = {(x, y) for x in range(rect.x, rect.x + rect.width) for y in range(rect.y, rect.y + rect.height)}
        assert not cells & covered, "panes overlap"
        covered |= cells
        total += rect.width * rect.height
    assert total == area.width * area.height
    assert all(area.x <= x < area.x + area.width and area.y <= y < area.y + area.height for x, y in covered)


@settings(max_examples=150, deadline=None)
@given(trees(), st.data())
def test_closing_a_new_pane_restores_the_tree_and_its_siblings_rect(
    case: tuple[layout.Tree, Rect], data: st.DataObject
) -> None:
    tree, area = case
    target = data.draw(st.sampled_from(layout.order(tree)))
    new = max(layout.order(tree)) + 1
    grown = layout.split(tree, target, data.draw(st.sampled_from(["horizontal", "vertical"])), data.draw(st.integers(1, 99)), data.draw(st.sampled_from(["first", "second"])), new)
    assert layout.remove(grown, new) == tree
    assert layout.rects(layout.remove(grown, new), area)[target] == layout.rects(tree, area)[target]


@settings(max_examples=100, deadline=None)
@given(trees(), st.data())
def test_refused_opens_change_nothing(case: tuple[layout.Tree, Rect], data: st.DataObject) -> None:
    tree, area = case
    placement = Placement(
        data.draw(st.sampled_from(layout.order(tree))),
        data.draw(st.sampled_from(["horizontal", "vertical"])),
        data.draw(st.integers(1, 99)),
        data.draw(st.sampled_from(["first", "second"])),
    )
    before = (tree, layout.rects(tree, area))
    try:
        result = layout.open_pane(tree, area, placement, 99, check_fit=True)
    except LayoutError as exc:
        assert str(exc) == TOO_SMALL
        assert (tree, layout.rects(tree, area)) == before
    else:
        assert layout.fits(result, area) or not layout.fits(tree, area)
        assert all(r.width >= 3 and r.height >= 3 for pid, r in layout.rects(result, area).items())


def test_the_original_tree_example() -> None:
    area = Rect(0, 0, 100, 40)
    tree = layout.split(Leaf(0), 0, "horizontal", 40, "second", 1)
    assert layout.rects(tree, area) == {0: Rect(0, 0, 60, 40), 1: Rect(60, 0, 40, 40)}
    tree = layout.split(tree, 1, "vertical", 25, "second", 2)
    rects = layout.rects(tree, area)
    assert rects[1] == Rect(60, 0, 40, 30)
    assert rects[2] == Rect(60, 30, 40, 10)


def test_ratio_is_the_new_panes_percent_on_either_side() -> None:
    area = Rect(0, 1, 120, 38)
    for side in ("first", "second"):
        tree = layout.split(Leaf(0), 0, "horizontal", 75, side, 1)
        assert layout.rects(tree, area)[1].width == 90
        assert layout.rects(tree, area)[1].height == 38


def test_bare_opens_dwindle_alternating_and_never_move_the_shell_after_the_first() -> None:
    tree: layout.Tree = Leaf(0)
    dirs = []
    shell_rects = []
    for new in range(1, 6):
        placement = layout.place(tree, AREA, split_pane=None, dir=None, ratio=None, side=None, focused=0)
        assert placement.target == new - 1
        dirs.append(placement.dir)
        tree = layout.open_pane(tree, AREA, placement, new, check_fit=True)
        shell_rects.append(layout.rects(tree, AREA)[0])
    assert dirs == ["horizontal", "vertical", "horizontal", "vertical", "horizontal"]
    assert len(set(shell_rects)) == 1
    rects = layout.rects(tree, AREA)
    assert len({r.x for r in rects.values()}) > 2 and len({r.y for r in rects.values()}) > 2


def test_dwindle_depth_is_measured_live_after_a_close() -> None:
    tree: layout.Tree = Leaf(0)
    for new in range(1, 4):
        tree = layout.open_pane(tree, AREA, layout.place(tree, AREA, split_pane=None, dir=None, ratio=None, side=None, focused=0), new, check_fit=True)
    tree = layout.remove(tree, 3)
    placement = layout.place(tree, AREA, split_pane=None, dir=None, ratio=None, side=None, focused=0)
    assert placement == Placement(2, "horizontal", 50, "second")


def test_any_hint_turns_off_dwindle_and_defaults_to_the_focused_pane() -> None:
    tree = layout.split(Leaf(0), 0, "horizontal", 50, "second", 1)
    placement = layout.place(tree, AREA, split_pane=None, dir="vertical", ratio=None, side=None, focused=0)
    assert placement == Placement(0, "vertical", 50, "second")


def test_halving_stops_at_the_three_cell_floor() -> None:
    area = Rect(0, 1, 120, 38)
    tree: layout.Tree = Leaf(0)
    newest = 0
    widths = []
    with pytest.raises(LayoutError, match="below 3×3"):
        for new in range(1, 20):
            tree = layout.open_pane(tree, area, Placement(newest, "horizontal", 50, "second"), new, check_fit=True)
            newest = new
            widths.append(layout.rects(tree, area)[new].width)
    assert widths[:4] == [60, 30, 15, 8]
    assert min(r.width for r in layout.rects(tree, area).values()) >= 3


def test_removal_errors() -> None:
    tree = layout.split(Leaf(0), 0, "horizontal", 50, "second", 1)
    with pytest.raises(LayoutError, match="the shell pane can't be closed"):
        layout.remove(tree, 0)
    with pytest.raises(LayoutError, match="no pane #7"):
        layout.remove(tree, 7)
    with pytest.raises(LayoutError, match="no pane #7"):
        layout.split(tree, 7, "horizontal", 50, "second", 2)


@settings(max_examples=60, deadline=None)
@given(st.integers(20, 300), st.integers(10, 100), st.integers(1, 12))
def test_bare_opens_alternate_by_depth_until_they_stop_fitting(width: int, height: int, opens: int) -> None:
    area = Rect(0, 1, width, height)
    tree: layout.Tree = Leaf(0)
    for new in range(1, opens + 1):
        inferred = layout.dwindle(tree, area)
        if inferred is None:
            # the spiral no longer fits: a bare open falls back to halving the focused pane
            fallback = layout.place(tree, area, split_pane=None, dir=None, ratio=None, side=None, focused=0)
            assert fallback == Placement(0, "horizontal", 50, "second")
            break
        depth = layout.depth_of(tree, inferred.target)
        assert inferred.target == new - 1
        assert inferred.dir == ("horizontal" if depth % 2 == 0 else "vertical")
        tree = layout.open_pane(tree, area, inferred, new, check_fit=True)
        assert layout.fits(tree, area)
