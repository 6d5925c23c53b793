"""The base of every frame class.

Frames are declared `@frame`: records (luxe.record), frozen and slotted attrs
classes with one shared `__repr__`, `__eq__` and `__hash__`, which
`luxe --rpc` can define quickly enough to send `ready` early.
"""

from __future__ import annotations

from luxe.record import record as frame


class Frame:
    """What every frame class derives from (for isinstance and typing)."""

    __slots__ = ()


__all__ = ["Frame", "frame"]
