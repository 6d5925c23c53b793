"""luxe.record: records and states behave as attrs' own classes do."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from luxe.record import record, state


def _shapes(decorate: Any) -> tuple[type, type, type]:
    @decorate
    class Point:
        x: int
        y: str = "a"
        cache: int = attrs.field(default=0, eq=False, repr=False)

    @decorate
    class Labelled(Point):
        label: tuple[str, ...] = ()

    @decorate
    class Own:
        x: int

        def __repr__(self) -> str:
            return "mine"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    return Point, Labelled, Own


def _observed(decorate: Any) -> list[object]:
    point, labelled, own = _shapes(decorate)
    p = point(1, "b", cache=7)
    seen: list[object] = [
        repr(p), repr(labelled(1, label=("z",))), repr(own(1)),
        p == point(1, "b"), p == point(2, "b"), p != point(2, "b"), p == labelled(1, "b"),
        p == (1, "b"), own(1) == own(2), labelled(1) == labelled(1),
    ]  # fmt: skip
    try:
        seen += [hash(p) == hash(point(1, "b", cache=3)), {p: "v"}.get(point(1, "b"))]
    except TypeError as error:
        seen.append(f"unhashable: {error}".replace("Point", "?"))
    return seen


@pytest.mark.parametrize(("ours", "theirs"), [(record, attrs.frozen), (state, attrs.define)])
def test_shared_methods_answer_as_attrs_generated_ones(ours: Any, theirs: Any) -> None:
    assert _observed(ours) == _observed(theirs)


def test_a_record_is_frozen_and_a_state_is_not() -> None:
    point, _, _ = _shapes(record)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        point(1).x = 2
    mutable, _, _ = _shapes(state)
    m = mutable(1)
    m.x = 2
    assert m == mutable(2) and attrs.evolve(m, y="c") == mutable(2, "c")


def test_a_state_that_holds_itself_shows_as_attrs_shows_it() -> None:
    shown = []
    for decorate in (state, attrs.define):

        @decorate
        class Node:
            parent: Any = None

        node = Node()
        node.parent = [node]
        shown.append(repr(node))
    assert shown[0] == shown[1] == "Node(parent=[...])"
