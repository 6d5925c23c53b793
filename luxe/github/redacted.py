"""GitHub's words pass the session's redactor before a client or the model
sees them: a pull request's title and branches, a commenter's login, a
check's name, a thread's comments, gh's complaints are all written by
someone else, and any may quote the person's own key (their `.env`).

`redacted` passes every string of a frame (records and lists, however
nested) through `redact`, the session's (PermissionGate.redact), so no field
is left out by forgetting it. It is applied where GitHub's text leaves:
every frame the GitHub layer sends (luxe.github.face) and the threads a
Guided Review shows as findings (luxe.review.service). Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import attrs

T = TypeVar("T")

# The client's own words, handed back so it can match the answer: not
# GitHub's, and a client must find its request_id unchanged.
KEPT = frozenset({"request_id"})


def redacted(value: T, redact: Callable[[str], str]) -> T:
    """`value` with every string in it passed through `redact`."""
    return cast(T, _walk(value, redact))


def _walk(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list | tuple):
        return type(value)(_walk(item, redact) for item in value)
    if isinstance(value, dict):
        return {key: _walk(item, redact) for key, item in value.items()}
    if attrs.has(type(value)):
        changes = {
            field.alias: _walk(getattr(value, field.name), redact)
            for field in attrs.fields(type(value))
            if field.init and field.name not in KEPT
        }
        return attrs.evolve(value, **changes)
    return value
