"""Text that can always be encoded: lone surrogates become U+FFFD.

A JSON string may carry a lone surrogate escape (`"\\ud800"`, what a JS
client sends after cutting an emoji in half), and a file name that is not
UTF-8 arrives from the OS as surrogate escapes. Python keeps such a string,
but UTF-8 cannot encode it, so it would break every later request that
carries it. Everything that enters the session (client actions, tool
output, model output, a loaded session file) goes through `scrub`: a valid
surrogate pair becomes its character, a lone surrogate U+FFFD.
"""

from __future__ import annotations

import re
from typing import TypeVar

T = TypeVar("T")

REPLACEMENT = "\ufffd"
_C1 = re.compile("[\x80-\x9f]")


def escape_c1(json_text: str) -> str:
    """JSON text with C1 controls (U+0080-U+009F) written as `\\u00XX`
    escapes. Raw, they are valid JSON but terminal controls (U+009B is CSI),
    and frames end up on terminals (`luxe -p --output-format json`, a log
    shown with cat). JSON escapes C0 controls already; outside strings JSON
    text is ASCII, so this only ever touches string contents."""
    if _C1.search(json_text) is None:
        return json_text
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def scrub(text: str) -> str:
    """`text` unchanged when UTF-8 can encode it, else with every lone
    surrogate replaced by U+FFFD (pairs are joined into their character)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def scrub_data(value: T) -> T:
    """`value` (JSON-like data: str, list, dict, scalars) with every string,
    keys included, scrubbed. Returns the same object when nothing changed."""
    if isinstance(value, str):
        return scrub(value)  # type: ignore[return-value]
    if isinstance(value, list):
        items = [scrub_data(v) for v in value]
        if any(a is not b for a, b in zip(items, value, strict=True)):
            return items  # type: ignore[return-value]
        return value
    if isinstance(value, tuple):
        tup = tuple(scrub_data(v) for v in value)
        if any(a is not b for a, b in zip(tup, value, strict=True)):
            return tup  # type: ignore[return-value]
        return value
    if isinstance(value, dict):
        pairs = [(scrub_data(k), scrub_data(v)) for k, v in value.items()]
        if any(k is not k0 or v is not v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True)):
            return dict(pairs)  # type: ignore[return-value]
        return value
    return value
