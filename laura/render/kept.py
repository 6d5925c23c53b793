"""What was read last, up to a weight: how a view keeps a few screens of
rows and a document a few screens of blocks, making the rest again when it
is read. Pure bookkeeping."""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Kept(Generic[T]):
    """Values by their place, those read longest ago dropped while they
    weigh more than `limit` together (the last one is always kept)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._values: dict[int, tuple[T, int]] = {}  # in the order they were read
        self._weight = 0

    def get(self, place: int) -> T | None:
        """The value at `place`, now the last read; None when not kept."""
        kept = self._values.pop(place, None)
        if kept is None:
            return None
        self._values[place] = kept
        return kept[0]

    def put(self, place: int, value: T, weight: int) -> None:
        """Keep `value` at `place` (not kept there yet), as the last read."""
        self._values[place] = (value, weight)
        self._weight += weight
        while self._weight > self.limit and len(self._values) > 1:
            oldest = next(iter(self._values))
            self._weight -= self._values.pop(oldest)[1]
