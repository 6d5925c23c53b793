"""Why a line is not an action (the wire's answer to a bad line).

Its own module, without the converter: a front end that makes its actions
itself (`luxe -p`) dispatches through the same code as `--rpc` without
loading cattrs.
"""

from __future__ import annotations

from luxe.record import record


@record
class Rejection:
    """Why a line is not an action; `kind` is the line's kind when it had one,
    `request_id` the line's `request_id` when it was a string (so an action
    that is answered under its request_id can be refused under it too)."""

    kind: str | None
    reason: str
    request_id: str | None = None
