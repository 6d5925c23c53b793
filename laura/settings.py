"""Laura's settings: `$XDG_CONFIG_HOME/laura/settings.json` (default
`~/.config/laura/settings.json`), read once when the host starts.

Keys this build reads (unknown keys are ignored; a missing file, bad JSON or
a bad value means the default for that key, never a failed start):

- `max_file_bytes` (integer >= 1, default 64 MiB): the most a file pane reads
  of one file. A bigger file is shown up to there with a warning.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import attrs

from laura.filecheck import DEFAULT_MAX_FILE_BYTES, read_capped

# settings.json itself is read only up to this size.
SETTINGS_LIMIT = 1 << 20


@attrs.frozen
class Settings:
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES


def settings_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    configured = env.get("XDG_CONFIG_HOME", "")
    if configured and os.path.isabs(configured):
        return Path(configured) / "laura" / "settings.json"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" / "laura" / "settings.json"


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """The settings file's values over the defaults (see the module docstring)."""
    try:
        raw = json.loads(read_capped(str(settings_path(env)), SETTINGS_LIMIT).data)
    except (OSError, ValueError):
        return Settings()
    if not isinstance(raw, dict):
        return Settings()
    cap = raw.get("max_file_bytes")
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        return Settings()
    return Settings(max_file_bytes=cap)
