"""Loading command hook definitions (luxe-command-hooks.txt, "Config schema").

The global `$XDG_CONFIG_HOME/luxe/hooks.json` is always loaded; the project's
`<repo>/.luxe/hooks.json` only with `--trust-project`, and its hooks are
appended after the global ones for each point. A broken definition (or a
whole file that is not JSON) is skipped and reported in `HookConfig.errors`
as `file:line: reason`; the session starts without it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Literal, get_args

import attrs

from luxe.engine.ports import HookPoint
from luxe.policy.rules_files import config_dir
from luxe.record import record
from luxe.regular_file import UnreadableFile, read_text_file

HOOK_POINTS: tuple[str, ...] = get_args(HookPoint)
OnTimeout = Literal["allow", "deny", "ask"]
DEFINITION_FIELDS = frozenset({"command", "timeout_ms", "on_timeout"})
DEFAULT_TIMEOUT_MS = 5000

# A hooks file is a few lines; a FIFO or /dev/zero there must not hold the start.
HOOKS_FILE_MAX_BYTES = 1 << 20


@record
class HookDefinition:
    command: tuple[str, ...]
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    on_timeout: OnTimeout = "allow"
    source: str = ""  # the file it came from

    @property
    def fails_closed(self) -> bool:
        return self.on_timeout == "deny"  # "ask" behaves as allow (spec)


@record
class HookConfig:
    hooks: Mapping[str, tuple[HookDefinition, ...]] = attrs.field(factory=dict)
    errors: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def for_point(self, point: str) -> tuple[HookDefinition, ...]:
        return self.hooks.get(point, ())


def _line_of(text: str, needle: str, start: int = 0) -> tuple[int, int]:
    at = text.find(needle, start)
    if at < 0:
        return 1, start
    return text.count("\n", 0, at) + 1, at + 1


def _definition(raw: Any, source: str) -> HookDefinition | str:
    """A valid definition, or the reason it is broken."""
    if not isinstance(raw, dict):
        return "a hook definition must be an object with a `command`"
    unknown = sorted(set(raw) - DEFINITION_FIELDS)
    if unknown:
        return f"unknown field {unknown[0]!r} (fields: command, timeout_ms, on_timeout)"
    command = raw.get("command")
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(a, str) for a in command)
        or not command[0]
    ):
        return "`command` must be a non-empty list of strings: program and arguments"
    timeout = raw.get("timeout_ms", DEFAULT_TIMEOUT_MS)
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
        return f"`timeout_ms` must be a positive whole number of milliseconds, got {json.dumps(timeout)}"
    on_timeout = raw.get("on_timeout", "allow")
    if on_timeout not in ("allow", "deny", "ask"):
        return f'`on_timeout` must be "allow", "deny" or "ask", got {json.dumps(on_timeout)}'
    return HookDefinition(tuple(command), timeout, on_timeout, source)


def parse_hooks(path: str, text: str) -> tuple[dict[str, list[HookDefinition]], list[str]]:
    """Valid definitions by point, and one message per thing skipped. Pure."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        return {}, [f"{path}:{e.lineno}: not valid JSON ({e.msg}); every hook in it is skipped"]
    if not isinstance(data, dict):
        return {}, [f"{path}:1: expected an object mapping hook points to lists of hooks"]
    hooks: dict[str, list[HookDefinition]] = {}
    errors: list[str] = []
    for point, defs in data.items():
        line, cursor = _line_of(text, json.dumps(point))
        if point not in HOOK_POINTS:
            errors.append(
                f"{path}:{line}: unknown hook point {point!r}; its hooks are skipped "
                f"(points: {', '.join(HOOK_POINTS)})"
            )
            continue
        if not isinstance(defs, list):
            errors.append(f"{path}:{line}: {point} must be a list of hook definitions")
            continue
        for raw in defs:
            needle = '"command"' if isinstance(raw, dict) and "command" in raw else "{"
            def_line, cursor = _line_of(text, needle, cursor)
            result = _definition(raw, path)
            if isinstance(result, str):
                errors.append(f"{path}:{def_line}: {point}: {result}; this hook is skipped")
            else:
                hooks.setdefault(point, []).append(result)
    return hooks, errors


def load_hooks(
    *, project_root: str, trust_project: bool, env: Mapping[str, str] | None = None
) -> HookConfig:
    """Global hooks, then (trusted) project hooks appended per point."""
    paths = [os.path.join(config_dir(env), "hooks.json")]
    if trust_project:
        paths.append(os.path.join(project_root, ".luxe", "hooks.json"))
    merged: dict[str, list[HookDefinition]] = {}
    errors: list[str] = []
    files: list[str] = []
    for path in paths:
        try:
            text = read_text_file(path, HOOKS_FILE_MAX_BYTES)
        except UnreadableFile as e:
            errors.append(f"{path}:1: {e}; every hook in it is skipped")
            continue
        if text is None:
            continue
        files.append(path)
        hooks, errs = parse_hooks(path, text)
        errors.extend(errs)
        for point, defs in hooks.items():
            merged.setdefault(point, []).extend(defs)
    return HookConfig({p: tuple(d) for p, d in merged.items()}, tuple(errors), tuple(files))
