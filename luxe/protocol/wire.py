"""The wire: one cattrs converter, frames to bytes and bytes to actions.

`decode_action` never raises: a line is either an action or a `Rejection`
whose reason uses the spec's wording ("steer_turn: missing field `text`").
Field types are checked strictly here (a number is not a string) before the
converter builds the frozen action.
"""

from __future__ import annotations

import json
import types
import typing
from functools import cache
from typing import Any, Literal, Union

import attrs
import cattrs

from luxe.protocol.actions import Action
from luxe.protocol.events import Event
from luxe.protocol.rejection import Rejection
from luxe.protocol.text import escape_c1, scrub, scrub_data

converter = cattrs.Converter()


_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def frame_dict(event: Event) -> dict[str, Any]:
    """The `{kind, content}` object of an event (content left out when empty)."""
    content = converter.unstructure(event)
    if not content:
        return {"kind": event.KIND}
    return {"kind": event.KIND, "content": content}


def encode_event(event: Event) -> bytes:
    """One event as one line of UTF-8 JSON, newline included.

    Lone surrogates (which a tool's or the model's text may carry) become
    U+FFFD, so the output is always valid UTF-8 and strict JSON; no control
    character is ever written raw (see escape_c1).
    """
    text = escape_c1(_encoder.encode(frame_dict(event))) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return scrub(text).encode("utf-8")


def decode_action(line: bytes) -> Action | Rejection:
    """Parse one line (without its newline) into an action, or say why not."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Rejection(None, f"line is not valid UTF-8 (byte {exc.start})")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return Rejection(None, f"line is not JSON: {exc}")
    if b"\\u" in line:
        # Only a \u escape can make a lone surrogate (the bytes are valid
        # UTF-8): it becomes U+FFFD here, so no later step can trip on it.
        try:
            obj = scrub_data(obj)
        except RecursionError:
            return Rejection(None, "line is nested too deeply")
    if not isinstance(obj, dict):
        return Rejection(None, "a frame must be a JSON object with a `kind`")
    kind = obj.get("kind")
    if kind is None:
        return Rejection(None, "missing field `kind`")
    if not isinstance(kind, str):
        return Rejection(None, "field `kind` must be a string")
    from luxe.protocol.catalog import ACTION_TYPES  # every kind, GitHub's included

    cls = ACTION_TYPES.get(kind)
    if cls is None:
        return Rejection(kind, f"unknown kind `{kind}`")
    content = obj.get("content", {})
    if content is None:
        content = {}
    if not isinstance(content, dict):
        return Rejection(kind, f"{kind}: `content` must be an object")
    request_id = content.get("request_id")
    request_id = request_id if isinstance(request_id, str) else None
    for name, (tp, required) in _fields(cls).items():
        if name not in content:
            if required:
                return Rejection(kind, f"{kind}: missing field `{name}`", request_id)
            continue
        problem = _type_problem(content[name], tp)
        if problem is not None:
            return Rejection(kind, f"{kind}: field `{name}` {problem}", request_id)
    known = {k: v for k, v in content.items() if k in _fields(cls)}
    try:
        action: Action = converter.structure(known, cls)
    except Exception as exc:  # the checks above should make this unreachable
        return Rejection(kind, f"{kind}: {exc}", request_id)
    return action


@cache
def _fields(cls: type) -> dict[str, tuple[Any, bool]]:
    hints = typing.get_type_hints(cls)
    return {
        f.name: (hints[f.name], f.default is attrs.NOTHING)
        for f in attrs.fields(cls)
    }


def _type_problem(value: Any, tp: Any) -> str | None:
    """None when `value` fits `tp`, else what it must be ("must be a string")."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        problems = [_type_problem(value, o) for o in options if o is not type(None)]
        if any(p is None for p in problems):
            return None
        return problems[0]
    if origin is Literal:
        allowed = typing.get_args(tp)
        if value in allowed and isinstance(value, str):
            return None
        return "must be one of " + ", ".join(json.dumps(a) for a in allowed)
    if tp is str:
        return None if isinstance(value, str) else "must be a string"
    if tp is bool:
        return None if isinstance(value, bool) else "must be true or false"
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else "must be an integer"
    if origin is list:
        if not isinstance(value, list):
            return "must be a list"
        (item_tp,) = typing.get_args(tp)
        for index, item in enumerate(value):
            problem = _type_problem(item, item_tp)
            if problem is not None:
                return f"item {index} {problem}"
        return None
    if origin is dict or tp is dict:
        return None if isinstance(value, dict) else "must be an object"
    if attrs.has(tp):
        if not isinstance(value, dict):
            return "must be an object"
        for name, (field_tp, required) in _fields(tp).items():
            if name not in value:
                if required:
                    return f"is missing `{name}`"
                continue
            problem = _type_problem(value[name], field_tp)
            if problem is not None:
                return f"field `{name}` {problem}"
        return None
    return None
