"""What a language server may run of the project's own code.

A hostile repository is the threat model, and some servers execute code the
repository ships: typescript-language-server runs the project's
`node_modules/typescript` (any JavaScript the repository commits there), and
rust-analyzer runs build scripts and procedural macros. Unless Luxe was
started with `--trust-project`, such a server is told not to: it gets an
installed TypeScript instead of the project's (and is not started when there
is none but the project's), and rust-analyzer gets build scripts, proc
macros and check-on-save turned off (its own analysis still reports type
errors).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from luxe.lsp.servers import ServerSpec, find_program

RUST_ANALYZER_UNTRUSTED = {
    "cargo": {"buildScripts": {"enable": False}},
    "procMacro": {"enable": False},
    "checkOnSave": False,
}


class NeedsTrust(Exception):
    """The server would run the project's own code; the message says how
    to allow it."""


def initialization_options(
    spec: ServerSpec, root: Path, env: Mapping[str, str], trust_project: bool
) -> dict[str, Any] | None:
    """The `initializationOptions` that keep `spec` from running the
    project's code, or None when it needs none. Raises NeedsTrust when the
    server cannot run without doing so."""
    if trust_project:
        return None
    if spec.name == "rust-analyzer":
        return RUST_ANALYZER_UNTRUSTED
    if spec.name == "typescript-language-server":
        installed = installed_tsserver(env)
        if installed is not None:
            return {"tsserver": {"path": installed}}
        if (root / "node_modules" / "typescript").exists():
            raise NeedsTrust(
                "the only TypeScript is the project's own (node_modules/typescript): "
                "install TypeScript, or start Luxe with --trust-project to run the project's"
            )
    return None


def installed_tsserver(env: Mapping[str, str]) -> str | None:
    """tsserver.js of a TypeScript installed on this machine (found through
    the `tsserver` program on PATH, never in the project)."""
    program = find_program("tsserver", env)
    if program is None:
        return None
    library = Path(os.path.realpath(program)).parent.parent / "lib" / "tsserver.js"
    return str(library) if library.is_file() else None
