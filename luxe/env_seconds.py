"""Durations read from environment variables (`LUXE_*_S`): one rule for every
such knob, so none can end a session with a word it did not expect."""

from __future__ import annotations

import math
from collections.abc import Mapping


def seconds_from(env: Mapping[str, str], name: str, default: float) -> float:
    """`env[name]` as a number of seconds: positive and finite, else
    `default` (unset, empty, a word, zero, negative, `nan`, `inf`)."""
    try:
        value = float(env.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 and math.isfinite(value) else default
