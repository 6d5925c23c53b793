"""What the model sees: the diagnostics of every server that checked a file,
merged into one block for the tool result.

Errors and warnings only (information and hints are left out), the same
range and message reported by two servers shown once, errors first, then by
position, capped at `MAX_DIAGNOSTICS` lines. Each line names its source (the
diagnostic's own `source`, else the server) and code:
`app.py:2:9: error [Ruff F821] Undefined name `x``. Notes about servers that were
left out follow the list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MAX_DIAGNOSTICS = 20
MAX_MESSAGE_LINES = 3
SEVERITY = {1: "error", 2: "warning"}


def _severity(d: Mapping[str, Any]) -> int:
    value = d.get("severity", 1)
    return value if isinstance(value, int) else 1


def _position(d: Mapping[str, Any], end: str) -> tuple[int, int]:
    try:
        at = d["range"][end]
        return int(at["line"]), int(at["character"])
    except (KeyError, TypeError, ValueError):
        return 0, 0


def _message(d: Mapping[str, Any]) -> str:
    lines = [line.strip() for line in str(d.get("message", "")).splitlines() if line.strip()]
    shown = lines[:MAX_MESSAGE_LINES]
    if len(lines) > MAX_MESSAGE_LINES:
        shown[-1] += " …"
    return "\n    ".join(shown)


def merge(
    by_server: Mapping[str, Sequence[Mapping[str, Any]]],
) -> list[tuple[str, Mapping[str, Any]]]:
    """(source, diagnostic) for every error and warning of every server,
    de-duplicated on range and message, errors first, then by position."""
    seen: set[tuple[tuple[int, int], tuple[int, int], str]] = set()
    merged = []
    for server, items in by_server.items():
        for d in items:
            if _severity(d) not in SEVERITY:
                continue
            key = (_position(d, "start"), _position(d, "end"), _message(d))
            if key in seen:
                continue
            seen.add(key)
            source = d.get("source")
            merged.append((source if isinstance(source, str) and source else server, d))
    merged.sort(key=lambda pair: (_severity(pair[1]), _position(pair[1], "start")))
    return merged


def format_report(
    path: str, by_server: Mapping[str, Sequence[Mapping[str, Any]]], notes: Sequence[str] = ()
) -> str | None:
    """The block appended to the tool result; None when every server
    found the file clean and there is nothing to note."""
    merged = merge(by_server)
    lines = []
    if merged:
        errors = sum(1 for _, d in merged if _severity(d) == 1)
        lines.append(
            f"Diagnostics for {path} ({', '.join(by_server)}): "
            f"{errors} error(s), {len(merged) - errors} warning(s)"
        )
        for source, d in merged[:MAX_DIAGNOSTICS]:
            line, character = _position(d, "start")
            code = d.get("code")
            label = f"{source} {code}" if isinstance(code, str | int) and code != "" else source
            lines.append(
                f"{path}:{line + 1}:{character + 1}: {SEVERITY[_severity(d)]} [{label}] {_message(d)}"
            )
        if len(merged) > MAX_DIAGNOSTICS:
            lines.append(f"(and {len(merged) - MAX_DIAGNOSTICS} more)")
    lines.extend(notes)
    return "\n".join(lines) or None
