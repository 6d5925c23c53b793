"""Records and states: attrs classes that share one `__repr__`, `__eq__`
(and, for frozen records, `__hash__`) instead of having them generated per
class.

attrs writes and compiles those three methods for every class it builds;
for the ~100 value classes Luxe defines before its first frame (the
interface's prompt, `--rpc`'s `ready`, `-p`'s first request) that was about
two thirds of the cost of defining them. The shared methods behave as
attrs' do: a record equals another of the same class with equal fields
(fields declared `eq=False` left out), hashes as its class and field values,
and shows as `Name(field=value, ...)` (fields declared `repr=False` left out).
A class that defines one of the three itself keeps its own. A `state` is the
mutable kind (`@attrs.define`): equal by value, and unhashable, as attrs makes
it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

T = TypeVar("T", bound=type)

_EQ: dict[type, tuple[str, ...]] = {}
_REPR: dict[type, tuple[str, ...]] = {}
_SHOWING = threading.local()  # ids of the objects being shown, per thread


def _eq_names(cls: type) -> tuple[str, ...]:
    names = _EQ.get(cls)
    if names is None:
        names = _EQ[cls] = tuple(f.name for f in attrs.fields(cls) if f.eq)
    return names


def _repr_names(cls: type) -> tuple[str, ...]:
    names = _REPR.get(cls)
    if names is None:
        names = _REPR[cls] = tuple(f.name for f in attrs.fields(cls) if f.repr)
    return names


def _repr(self: Any) -> str:
    cls = type(self)
    name = cls.__qualname__.rsplit(">.", 1)[-1]
    showing: set[int] = _SHOWING.__dict__.setdefault("ids", set())
    if id(self) in showing:
        return "..."  # a state that holds itself, as attrs shows it
    showing.add(id(self))
    try:
        fields = ", ".join(f"{field}={getattr(self, field)!r}" for field in _repr_names(cls))
    finally:
        showing.discard(id(self))
    return f"{name}({fields})"


def _eq(self: Any, other: object) -> bool:
    cls = type(self)
    if type(other) is not cls:
        return NotImplemented
    return all(getattr(self, name) == getattr(other, name) for name in _eq_names(cls))


def _hash(self: Any) -> int:
    cls = type(self)
    return hash((cls, *(getattr(self, name) for name in _eq_names(cls))))


def _shared(built: Any, own: Any, hash_: Any) -> Any:
    if "__repr__" not in own:
        built.__repr__ = _repr
    if "__eq__" not in own:
        built.__eq__ = _eq
        if "__hash__" not in own:
            built.__hash__ = hash_
    return built


def _record(cls: T) -> T:
    """Declare a record: `@attrs.frozen` with the shared methods."""
    own = dict(cls.__dict__)
    built: T = _shared(attrs.frozen(eq=False, repr=False)(cls), own, _hash)
    return built


def _state(cls: T) -> T:
    """Declare a state: `@attrs.define` with the shared methods."""
    own = dict(cls.__dict__)
    built: T = _shared(attrs.define(eq=False, repr=False)(cls), own, None)
    return built


if TYPE_CHECKING:
    # What type checkers see (mypy's attrs plugin knows `attr.frozen`).
    from attr import define as state
    from attr import frozen as record
else:
    record, state = _record, _state
