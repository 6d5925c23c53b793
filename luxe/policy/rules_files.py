"""Loading permission rules files.

`$XDG_CONFIG_HOME/luxe/permissions.json` is always read; the project's
`<repo>/.luxe/permissions.json` only with `--trust-project`. Shape:

    {"allow": ["bash(git status*)"], "ask": [], "deny": ["edit(**/*.lock)"], "mode": "ask"}

A file that is not valid raises `PermissionsFileError` naming the file, the
line and the reason: the session refuses to start rather than run with a
policy the user did not write.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from luxe.policy.permissions import MODE_STRICTNESS, PERMISSION_MODES, RuleSet
from luxe.policy.rules import Rule, RuleError, parse_rule
from luxe.record import record
from luxe.regular_file import UnreadableFile, read_text_file

KEYS = ("allow", "ask", "deny", "mode")
# A rules file is a few lines; a FIFO or /dev/zero there must not hold the start.
RULES_FILE_MAX_BYTES = 1 << 20


class PermissionsFileError(Exception):
    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = path, line, reason


@record
class PermissionsFile:
    path: str
    rules: RuleSet
    mode: str | None


@record
class LoadedPermissions:
    rules: RuleSet
    global_mode: str | None
    project_mode: str | None
    files: tuple[str, ...]  # the files that were read, global first


def config_dir(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".config"
    )
    return os.path.join(base, "luxe")


def _line_of(text: str, needle: str, default: int = 1) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else default


def parse_permissions(path: str, text: str) -> PermissionsFile:
    """Validate one file's text. Pure."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise PermissionsFileError(path, e.lineno, f"not valid JSON: {e.msg}") from None
    if not isinstance(data, dict):
        raise PermissionsFileError(path, 1, "expected a JSON object with allow, ask, deny and mode")
    for key in data:
        if key not in KEYS:
            line = _line_of(text, json.dumps(key))
            raise PermissionsFileError(
                path, line, f"unknown key {key!r} (expected allow, ask, deny, mode)"
            )
    lists: dict[str, tuple[Rule, ...]] = {}
    for key in ("allow", "ask", "deny"):
        value = data.get(key, [])
        key_line = _line_of(text, json.dumps(key))
        if not isinstance(value, list):
            raise PermissionsFileError(path, key_line, f"{key!r} must be a list of rules")
        rules: list[Rule] = []
        for item in value:
            line = _line_of(text, json.dumps(item), key_line) if isinstance(item, str) else key_line
            if not isinstance(item, str):
                raise PermissionsFileError(
                    path, line, f"{key!r}: every rule must be a string, got {json.dumps(item)}"
                )
            try:
                rules.append(parse_rule(item, source=path))
            except RuleError as e:
                raise PermissionsFileError(path, line, f"{key!r}: {e}") from None
        lists[key] = tuple(rules)
    mode = data.get("mode")
    if mode is not None and mode not in PERMISSION_MODES:
        raise PermissionsFileError(
            path,
            _line_of(text, '"mode"'),
            f"mode must be one of {', '.join(PERMISSION_MODES)}, got {json.dumps(mode)}",
        )
    return PermissionsFile(path, RuleSet(lists["deny"], lists["ask"], lists["allow"]), mode)


def read_permissions_file(path: str) -> PermissionsFile | None:
    """None when the file does not exist; an unreadable file is an error
    (also one that is not a regular file, or larger than RULES_FILE_MAX_BYTES)."""
    try:
        text = read_text_file(path, RULES_FILE_MAX_BYTES)
    except UnreadableFile as e:
        raise PermissionsFileError(path, 1, str(e)) from None
    return None if text is None else parse_permissions(path, text)


def load_permissions(
    *, project_root: str, trust_project: bool, env: Mapping[str, str] | None = None
) -> LoadedPermissions:
    files: list[PermissionsFile] = []
    global_file = read_permissions_file(os.path.join(config_dir(env), "permissions.json"))
    if global_file:
        files.append(global_file)
    project_file = None
    if trust_project:
        project_file = read_permissions_file(
            os.path.join(project_root, ".luxe", "permissions.json")
        )
        if project_file:
            files.append(project_file)
    rules = RuleSet()
    for f in files:
        rules = rules.plus(f.rules)
    return LoadedPermissions(
        rules,
        global_file.mode if global_file else None,
        project_file.mode if project_file else None,
        tuple(f.path for f in files),
    )


def effective_mode(flag_mode: str | None, loaded: LoadedPermissions) -> str:
    """The session's permission mode.

    A read-only mode in any file wins over every flag. Otherwise a flag wins,
    then the global file's mode, then `ask`. A (trusted) project file may only
    tighten the result, never loosen it: a cloned repository cannot turn on
    yolo for you.
    """
    if "read-only" in (loaded.global_mode, loaded.project_mode):
        return "read-only"
    mode = flag_mode or loaded.global_mode or "ask"
    if loaded.project_mode and MODE_STRICTNESS[loaded.project_mode] < MODE_STRICTNESS[mode]:
        mode = loaded.project_mode
    return mode
