"""Hosted children's bells and notifications, as bytes for the user's terminal.

A child's BEL or OSC 9 would be lost inside its pane: the person is looking
at the terminal Laura runs in. The emulator collects them as `Alert`s
(printable, capped text); here they become one BEL for any number of bells
in a frame, and one OSC 9 per notification. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable

from laura.emulator import Alert

BELL = "\x07"


def outer_alerts(alerts: Iterable[Alert]) -> str:
    """What to write to the user's terminal for `alerts` ("" for none)."""
    out: list[str] = []
    rang = False
    for alert in alerts:
        if alert.kind == "notify":
            out.append(f"\x1b]9;{alert.text}\x1b\\")
        elif not rang:
            out.append(BELL)
            rang = True
    return "".join(out)
