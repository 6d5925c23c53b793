"""The base of every frame class: one shared `__repr__` and `__eq__`.

Frames are declared `@frame` (frozen, slotted attrs classes without their own
generated repr/eq): generating those two methods per class was two thirds of
the cost of defining the ~40 frame classes, which `luxe --rpc` pays before it
can send `ready`. The shared methods behave the same way.
"""

from __future__ import annotations

from typing import Any, TypeVar, dataclass_transform

import attrs

T = TypeVar("T", bound=type)


class Frame:
    __slots__ = ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _names(type(self)))
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _names(type(self)))

    __hash__ = None  # type: ignore[assignment]


@dataclass_transform(frozen_default=True)
def frame(cls: T) -> T:
    """Declare a frame class (it must derive from Frame)."""
    result: Any = attrs.frozen(eq=False, repr=False)(cls)
    return result


def _names(cls: type) -> list[str]:
    return [f.name for f in attrs.fields(cls)]
