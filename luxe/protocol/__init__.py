"""The `luxe --rpc` wire: frozen frames and their one converter.

Imports nothing else of the project and never trio, so any client or tool can
use it as a plain data library.
"""

from luxe.protocol.actions import ACTION_TYPES, Action
from luxe.protocol.events import EVENT_TYPES, PROTOCOL_VERSION, Event
from luxe.protocol.wire import Rejection, decode_action, encode_event, frame_dict

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
