"""The language server table: which servers check which file extensions,
how each is found on this machine, and what settings.json's `lsp` changes.

Pure data and lookups (no trio): `luxe --rpc` lists the servers found in its
`ready` frame before the event loop runs. A program is looked up on the
absolute directories of PATH and beside Luxe's own interpreter (tools
installed in Luxe's venv); a relative PATH entry is skipped, so a repository
cannot put a `ruff` of its own in front of the real one, and servers run
with that PATH (`server_env`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

import program_path
from luxe.env_seconds import seconds_from
from luxe.record import record

AFTER_EDIT_TIMEOUT_S = 5.0
OFF_VALUES = ("0", "false", "no", "off")

PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json")
JS_MARKERS = ("tsconfig.json", "jsconfig.json", "package.json")
C_MARKERS = ("compile_commands.json", "compile_flags.txt")
TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
C_EXTENSIONS = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx")

# The LSP languageId of each extension the table knows.
LANGUAGE_IDS: Mapping[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    **{ext: "cpp" for ext in C_EXTENSIONS if ext not in (".c", ".h")},
    ".sh": "shellscript",
    ".bash": "shellscript",
}


@record
class ServerSpec:
    """One language server: `command` is what runs (its program looked up
    by `find_servers`), `extensions` the files it checks, `markers` the
    files that make a directory its project root. Servers sharing a
    `choice` are alternatives: only the first one installed runs.
    `quiet_s` is how long to wait after a publish for a further wave
    (servers that publish syntax errors first and type errors after)."""

    name: str
    command: tuple[str, ...]
    extensions: tuple[str, ...]
    markers: tuple[str, ...] = ()
    choice: str | None = None
    quiet_s: float = 0.0


BUILTIN_SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec("ruff", ("ruff", "server"), (".py", ".pyi"), PYTHON_MARKERS),
    ServerSpec(
        "basedpyright",
        ("basedpyright-langserver", "--stdio"),
        (".py", ".pyi"),
        PYTHON_MARKERS,
        choice="python types",
        quiet_s=0.1,
    ),
    ServerSpec(
        "pyright",
        ("pyright-langserver", "--stdio"),
        (".py", ".pyi"),
        PYTHON_MARKERS,
        choice="python types",
        quiet_s=0.1,
    ),
    ServerSpec("ty", ("ty", "server"), (".py", ".pyi"), PYTHON_MARKERS, choice="python types"),
    ServerSpec(
        "typescript-language-server",
        ("typescript-language-server", "--stdio"),
        TS_EXTENSIONS,
        JS_MARKERS,
        quiet_s=0.3,
    ),
    ServerSpec("gopls", ("gopls",), (".go",), ("go.work", "go.mod")),
    ServerSpec("rust-analyzer", ("rust-analyzer",), (".rs",), ("Cargo.toml",)),
    ServerSpec("clangd", ("clangd",), C_EXTENSIONS, C_MARKERS),
    ServerSpec("bash-language-server", ("bash-language-server", "start"), (".sh", ".bash")),
)


# Servers that run or parse what the repository ships, with why, as the
# `diagnostics_servers` frame says it: they start only with --trust-project
# (luxe.lsp.trust), and `ready` marks them so.
NEED_TRUST = {
    "rust-analyzer": "it runs cargo, which runs the programs the project's .cargo/config.toml "
    "and rust-toolchain.toml name",
    "clangd": "it parses with the flags the project's compile_commands.json and .clangd choose, "
    "and clang is not hardened against hostile source",
}


@record
class ServerOverride:
    """One entry of settings.json `lsp`: keyed by server name, it adds a
    server (a new name, with `command` and `ext`), replaces a built-in's
    command or extensions, or turns one off (`disabled`)."""

    command: tuple[str, ...] | None = None
    extensions: tuple[str, ...] | None = None
    markers: tuple[str, ...] | None = None
    disabled: bool = False


@record
class LspSettings:
    """settings.json `lsp`: `false` turns diagnostics on edit off; an
    object maps server names to overrides."""

    enabled: bool = True
    servers: Mapping[str, ServerOverride] = attrs.Factory(dict)


def _strings(value: Any, what: str, *, dotted: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{what} must be a non-empty list of strings")
    if dotted and not all(v.startswith(".") and len(v) > 1 for v in value):
        raise ValueError(f'{what} must list extensions like ".zig"')
    return tuple(value)


def parse_lsp_settings(raw: Any) -> LspSettings:
    """Read settings.json's `lsp` value; ValueError says what is wrong."""
    if raw is None or raw is True:
        return LspSettings()
    if raw is False:
        return LspSettings(enabled=False)
    if not isinstance(raw, dict):
        raise ValueError("`lsp` must be false or an object keyed by server name")
    builtin = {spec.name for spec in BUILTIN_SERVERS}
    servers: dict[str, ServerOverride] = {}
    for name, entry in raw.items():
        where = f"lsp.{name}"
        if not isinstance(entry, dict):
            raise ValueError(f"`{where}` must be an object")
        unknown = set(entry) - {"command", "ext", "root_markers", "disabled"}
        if unknown:
            raise ValueError(f"`{where}`: unknown key(s) {', '.join(sorted(unknown))}")
        disabled = entry.get("disabled", False)
        if not isinstance(disabled, bool):
            raise ValueError(f"`{where}.disabled` must be true or false")
        override = ServerOverride(
            command=_strings(entry["command"], f"`{where}.command`")
            if "command" in entry
            else None,
            extensions=tuple(
                e.lower() for e in _strings(entry["ext"], f"`{where}.ext`", dotted=True)
            )
            if "ext" in entry
            else None,
            markers=_strings(entry["root_markers"], f"`{where}.root_markers`")
            if "root_markers" in entry
            else None,
            disabled=disabled,
        )
        if (
            name not in builtin
            and not disabled
            and (override.command is None or override.extensions is None)
        ):
            raise ValueError(f"`{where}` is a new server: it needs `command` and `ext`")
        servers[name] = override
    return LspSettings(servers=servers)


def configured_servers(settings: LspSettings) -> list[ServerSpec]:
    """The built-in table with settings.json's changes applied (before
    looking anything up on this machine)."""
    if not settings.enabled:
        return []
    specs = []
    for spec in BUILTIN_SERVERS:
        override = settings.servers.get(spec.name)
        if override is None:
            specs.append(spec)
        elif not override.disabled:
            specs.append(_apply(spec, override))
    builtin = {spec.name for spec in BUILTIN_SERVERS}
    for name, override in settings.servers.items():
        if name not in builtin and not override.disabled:
            specs.append(_apply(ServerSpec(name, (), ()), override))
    return specs


def _apply(spec: ServerSpec, override: ServerOverride) -> ServerSpec:
    return attrs.evolve(
        spec,
        command=override.command or spec.command,
        extensions=override.extensions or spec.extensions,
        markers=override.markers if override.markers is not None else spec.markers,
        # A server whose command the user chose runs: it is no one's fallback.
        choice=None if override.command else spec.choice,
    )


def search_path(env: Mapping[str, str]) -> str:
    """Where programs are looked up: PATH's absolute entries, then the
    directory of Luxe's interpreter."""
    return os.pathsep.join(
        p for p in (program_path.absolute_entries(env.get("PATH")), os.path.dirname(sys.executable)) if p
    )


def server_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment a server runs with: Luxe's, with PATH cut to the
    directories programs are looked up in. A server runs in the project's
    directory, so a relative PATH entry would let the repository supply the
    programs it starts (pyright's python, gopls's go, ...)."""
    return {**env, "PATH": search_path(env)}


def find_program(program: str, env: Mapping[str, str]) -> str | None:
    """The absolute path of `program` (on PATH or beside Luxe's own
    interpreter), or None when it is not installed."""
    return program_path.which(program, env, also=(os.path.dirname(sys.executable),))


def find_servers(settings: LspSettings, env: Mapping[str, str]) -> list[ServerSpec]:
    """The servers that can run here, each with its program resolved to an
    absolute path; of alternatives (`choice`), only the first found."""
    found = []
    chosen: set[str] = set()
    for spec in configured_servers(settings):
        if spec.choice is not None and spec.choice in chosen:
            continue
        program = find_program(spec.command[0], env)
        if program is None:
            continue
        if spec.choice is not None:
            chosen.add(spec.choice)
        found.append(attrs.evolve(spec, command=(program, *spec.command[1:])))
    return found


def servers_for(servers: Sequence[ServerSpec], path: str) -> list[ServerSpec]:
    suffix = Path(path).suffix.lower()
    return [spec for spec in servers if suffix in spec.extensions]


def language_id(path: str) -> str:
    suffix = Path(path).suffix.lower()
    return LANGUAGE_IDS.get(suffix, suffix.lstrip("."))


def project_root(path: Path, markers: Sequence[str], session_root: Path) -> Path:
    """The nearest directory at or above `path`'s own that holds one of
    `markers`, not going above the session's directory; the session's
    directory when there is none (or the file lies outside it)."""
    try:
        path.parent.relative_to(session_root)
    except ValueError:
        return session_root
    directory = path.parent
    while True:
        if any(_is_file(directory / marker) for marker in markers):
            return directory
        if directory == session_root or directory.parent == directory:
            return session_root
        directory = directory.parent


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # e.g. a directory we may not search
        return False


def lsp_enabled(env: Mapping[str, str], settings: LspSettings) -> bool:
    """Diagnostics on edit are on unless `LUXE_LSP_ON_EDIT=0` or settings.json
    says `"lsp": false`."""
    return settings.enabled and env.get("LUXE_LSP_ON_EDIT", "1").strip().lower() not in OFF_VALUES


def session_servers(settings: LspSettings, env: Mapping[str, str]) -> list[ServerSpec] | None:
    """The servers a session may start, or None when diagnostics on edit are off."""
    return find_servers(settings, env) if lsp_enabled(env, settings) else None


def timeout_from(env: Mapping[str, str]) -> float:
    """`LUXE_LSP_TIMEOUT_S`: how long an edit waits for its diagnostics
    (default 5 s; a value that is not a positive number means the default)."""
    return seconds_from(env, "LUXE_LSP_TIMEOUT_S", AFTER_EDIT_TIMEOUT_S)
