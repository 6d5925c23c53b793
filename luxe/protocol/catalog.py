"""Every frame kind, GitHub's included: `luxe.protocol.ACTION_TYPES` and
`luxe.protocol.EVENT_TYPES`, and the table `decode_action` reads.

GitHub's frames (luxe.protocol.github) are not loaded before `ready` nor by
`luxe -p`, so the full tables are built here, on first use.
"""

from __future__ import annotations

from luxe.protocol.actions import ACTION_TYPES as BASE_ACTION_TYPES
from luxe.protocol.events import EVENT_TYPES as BASE_EVENT_TYPES
from luxe.protocol.github import GITHUB_ACTIONS, GITHUB_EVENTS

ACTION_TYPES: dict[str, type] = {
    **BASE_ACTION_TYPES,
    **{cls.KIND: cls for cls in GITHUB_ACTIONS},
}
EVENT_TYPES: dict[str, type] = {
    **BASE_EVENT_TYPES,
    **{cls.KIND: cls for cls in GITHUB_EVENTS},
}
