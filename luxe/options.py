"""What the command line asked for: `Options`, read by the composition root.

A plain value with no behaviour, so `luxe.cli` (which builds it) and
`luxe.app` (which reads it) both depend on it and not on each other.
"""

from __future__ import annotations

import attrs

PERMISSION_MODES = ("ask", "accept-edits", "read-only", "yolo")


@attrs.frozen
class Options:
    rpc: bool = False
    model: str | None = None
    permission_mode: str | None = None
    continue_latest: bool = False
    resume: str | None = None
    github_writes: bool = False
    auto_approve: bool = False
    trust_project: bool = False
    verbose: bool = False
    max_turns: int | None = None
    # The interface: a first prompt, and the screen-reader mode.
    prompt: str | None = None
    plain: bool = False
