"""Every event kind, GitHub's included: `luxe.protocol.EVENT_TYPES`.

GitHub's frames (luxe.protocol.github) are not loaded before `ready`, so the
full table is built here, on first use.
"""

from __future__ import annotations

from luxe.protocol.events import EVENT_TYPES as BASE_EVENT_TYPES
from luxe.protocol.github import GITHUB_EVENTS

EVENT_TYPES: dict[str, type] = {
    **BASE_EVENT_TYPES,
    **{cls.KIND: cls for cls in GITHUB_EVENTS},
}
