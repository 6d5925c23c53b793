"""Where Luxe keeps its files (XDG) and what settings.json may say.

Paths: config `$XDG_CONFIG_HOME/luxe` (settings.json), sessions
`$XDG_DATA_HOME/luxe/sessions`, logs `$XDG_STATE_HOME/luxe`. Each falls back to
the XDG default under `$HOME`. Nothing here creates a directory; the owner of
a file creates its parent when it first writes, through `private_files`
(0700 directories and 0600 files below the XDG base, whatever the umask).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import attrs

import private_files
from luxe.lsp.servers import LspSettings, parse_lsp_settings
from luxe.record import record
from luxe.regular_file import UnreadableFile, read_text_file

DEFAULT_MAX_TURNS = 50
# settings.json is a few lines; a FIFO or /dev/zero there must not hold the start.
SETTINGS_MAX_BYTES = 1 << 20


@record
class Paths:
    config_dir: Path
    sessions_dir: Path
    state_dir: Path

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def log_file(self) -> Path:
        return self.state_dir / "luxe.log"

    @property
    def state_base(self) -> Path:
        """$XDG_STATE_HOME: below it, private_files checks every directory."""
        return self.state_dir.parent

    @property
    def data_base(self) -> Path:
        """$XDG_DATA_HOME (sessions are `luxe/sessions/` below it)."""
        return self.sessions_dir.parent.parent


def paths_from_env(env: Mapping[str, str]) -> Paths:
    home = private_files.home(env)

    def xdg(var: str, default: str) -> Path:
        value = env.get(var)
        # The XDG spec says relative values are invalid and must be ignored.
        return Path(value) if value and os.path.isabs(value) else home / default

    return Paths(
        config_dir=xdg("XDG_CONFIG_HOME", ".config") / "luxe",
        sessions_dir=xdg("XDG_DATA_HOME", ".local/share") / "luxe" / "sessions",
        state_dir=xdg("XDG_STATE_HOME", ".local/state") / "luxe",
    )


@record
class Settings:
    """The keys of settings.json this build reads; unknown keys are ignored."""

    model: str | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    # Hosted in Laura: show each edit in one reused pane (`laura.show_edits`).
    laura_show_edits: bool = True
    # Language servers for diagnostics on edit (docs/lsp.md).
    lsp: LspSettings = attrs.Factory(LspSettings)


class SettingsError(Exception):
    """settings.json exists but cannot be used; the message names the file."""


def load_settings(path: Path) -> Settings:
    """Read settings.json; a missing file means defaults."""
    try:
        raw = read_text_file(path, SETTINGS_MAX_BYTES)
    except UnreadableFile as exc:
        raise SettingsError(f"{path}: {exc}") from None
    if raw is None:
        return Settings()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise SettingsError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: must hold a JSON object")
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise SettingsError(f"{path}: `model` must be a string like anthropic/claude-sonnet-4-5")
    max_turns = data.get("max_turns", DEFAULT_MAX_TURNS)
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise SettingsError(f"{path}: `max_turns` must be a positive integer")
    laura = data.get("laura", {})
    if not isinstance(laura, dict) or not isinstance(laura.get("show_edits", True), bool):
        raise SettingsError(f'{path}: `laura` must be an object like {{"show_edits": true}}')
    try:
        lsp = parse_lsp_settings(data.get("lsp"))
    except ValueError as exc:
        raise SettingsError(f"{path}: {exc}") from exc
    return Settings(
        model=model,
        max_turns=max_turns,
        laura_show_edits=laura.get("show_edits", True),
        lsp=lsp,
    )
