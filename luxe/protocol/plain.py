"""Encode a frame without the converter, for the handshake.

`luxe --rpc` writes `ready`, `state_changed` and `session_info` before it
loads cattrs (and the action classes the converter is built for); those
frames hold only strings, numbers, booleans, lists and nested frames, for
which `attrs.asdict` gives what `luxe.protocol.wire.encode_event` gives
(a test compares the two).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import attrs

from luxe.protocol.text import escape_c1, scrub

if TYPE_CHECKING:
    from luxe.protocol.events import Event

_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def encode_plain_event(event: Event) -> bytes:
    """One event as one line of UTF-8 JSON, as encode_event writes it."""
    content = attrs.asdict(event, recurse=True)
    frame = {"kind": event.KIND, "content": content} if content else {"kind": event.KIND}
    return (escape_c1(scrub(_encoder.encode(frame))) + "\n").encode("utf-8")
