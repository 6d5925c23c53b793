"""Laura's settings: `$XDG_CONFIG_HOME/laura/settings.json` (default
`~/.config/laura/settings.json`), read once when the host starts.

Keys this build reads (unknown keys are ignored; a missing file, bad JSON or
a bad value means the default for that key, never a failed start):

- `max_file_bytes` (integer >= 1, default 64 MiB): the most a file pane reads
  of one file. A bigger file is shown up to there with a warning.
- `max_open_bytes` (integer >= 1, default 256 MiB; never less than
  `max_file_bytes`): the most all file panes read together, across tabs. A
  pane opened past it reads what the others leave (at least 1 MiB), with a
  warning; closing a pane gives its share back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import attrs

from laura.filecheck import DEFAULT_MAX_FILE_BYTES, read_capped
from laura.panes.read_budget import DEFAULT_MAX_OPEN_BYTES

# settings.json itself is read only up to this size.
SETTINGS_LIMIT = 1 << 20


@attrs.frozen
class Settings:
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_open_bytes: int = DEFAULT_MAX_OPEN_BYTES

    @property
    def read_budget(self) -> int:
        """What all panes read together: never less than one file's cap."""
        return max(self.max_open_bytes, self.max_file_bytes)


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
    return Settings(
        max_file_bytes=_byte_count(raw, "max_file_bytes", DEFAULT_MAX_FILE_BYTES),
        max_open_bytes=_byte_count(raw, "max_open_bytes", DEFAULT_MAX_OPEN_BYTES),
    )


def _byte_count(raw: dict[str, object], key: str, default: int) -> int:
    """`raw[key]` when it is an integer >= 1 (not a bool), else `default`."""
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return default
    return value
