"""The `luxe --rpc` wire: frozen frames and their one converter.

Imports nothing else of the project and never trio, so any client or tool can
use it as a plain data library. The actions and the converter (cattrs) load
on first use: `luxe --rpc` writes its handshake before it needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from luxe.protocol.events import PROTOCOL_VERSION

if TYPE_CHECKING:
    from luxe.protocol.actions import Action
    from luxe.protocol.catalog import ACTION_TYPES, EVENT_TYPES
    from luxe.protocol.events import Event
    from luxe.protocol.rejection import Rejection
    from luxe.protocol.wire import decode_action, encode_event, frame_dict

__all__ = [
    "ACTION_TYPES",
    "EVENT_TYPES",
    "PROTOCOL_VERSION",
    "Action",
    "Event",
    "Rejection",
    "decode_action",
    "encode_event",
    "frame_dict",
]

_LAZY = {
    "ACTION_TYPES": "luxe.protocol.catalog",
    "EVENT_TYPES": "luxe.protocol.catalog",
    "Event": "luxe.protocol.session_events",
    "Action": "luxe.protocol.actions",
    "Rejection": "luxe.protocol.rejection",
    "decode_action": "luxe.protocol.wire",
    "encode_event": "luxe.protocol.wire",
    "frame_dict": "luxe.protocol.wire",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'luxe.protocol' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
