"""What a language server may run of the project's own code.

A hostile repository is the threat model, and some servers execute code the
repository ships. Unless Luxe was started with `--trust-project`:
- typescript-language-server would run the project's `node_modules/typescript`
  (any JavaScript the repository commits there): it gets an installed
  TypeScript instead, and is not started when there is none but the project's;
- rust-analyzer is not started. Loading a workspace runs `cargo metadata`,
  which runs the `rustc` (or wrapper) the repository's `.cargo/config.toml`
  names and the toolchain its `rust-toolchain.toml` points to, before any
  build script or procedural macro, and the workspace's `rust-analyzer.toml`
  can name commands of its own; no setting of the server's turns all of that
  off;
- clangd is not started: LLVM does not treat source it parses as a security
  boundary (https://llvm.org/docs/Security.html), and the project's
  `compile_commands.json` and `.clangd` choose the flags it parses with
  (vscode-clangd turns it off in untrusted workspaces for the same reason);
- basedpyright and pyright run the project's `.venv/bin/python` (found by
  themselves) to learn its import paths, and that Python runs the `.pth`
  files of its site-packages: a `.venv` the repository ships is any program
  it likes. Unless the `.venv` is the person's own (untracked in the git
  work tree: made here, not cloned), the server is told to use an installed
  Python instead (`python.pythonPath`, asked for by `workspace/configuration`),
  and is not started when there is none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from luxe.git_read import git_read
from luxe.lsp.servers import NEED_TRUST, ServerSpec, find_program

# Servers that run the Python of a `.venv` they find at the project's root.
RUN_PROJECT_PYTHON = frozenset({"basedpyright", "pyright"})
GIT_TIMEOUT_S = 5.0


class NeedsTrust(Exception):
    """The server would run the project's own code; the message (which
    follows the server's name where it is shown) says why and how to allow
    it."""


def initialization_options(
    spec: ServerSpec, root: Path, env: Mapping[str, str], trust_project: bool
) -> dict[str, Any] | None:
    """The `initializationOptions` that keep `spec` from running the
    project's code, or None when it needs none. Raises NeedsTrust when the
    server cannot run without doing so."""
    if trust_project:
        return None
    if spec.name in NEED_TRUST:
        raise NeedsTrust(
            f"not started in an untrusted project: {NEED_TRUST[spec.name]}; "
            "start Luxe with --trust-project to run it"
        )
    if spec.name == "typescript-language-server":
        installed = installed_tsserver(env)
        if installed is not None:
            return {"tsserver": {"path": installed}}
        if (root / "node_modules" / "typescript").exists():
            raise NeedsTrust(
                "not started: the only TypeScript is the project's own (node_modules/typescript); "
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


async def configuration(
    spec: ServerSpec, root: Path, env: Mapping[str, str], trust_project: bool
) -> dict[str, Any]:
    """The settings `spec` is answered when it asks (by section) so that it
    runs none of the project's code: for a Python type checker in a project
    that ships its `.venv`, an installed Python. Raises NeedsTrust when
    there is none."""
    if trust_project or spec.name not in RUN_PROJECT_PYTHON:
        return {}
    shipped = await trio.to_thread.run_sync(os.path.lexists, root / ".venv")
    if not shipped or await _persons_own(root, ".venv"):
        return {}
    python = find_program("python3", env) or find_program("python", env)
    if python is None:
        raise NeedsTrust(
            "not started: the only Python is the project's own (.venv, part of the repository); "
            "install Python, or start Luxe with --trust-project to run the project's"
        )
    return {"python": {"pythonPath": python}}


async def _persons_own(root: Path, name: str) -> bool:
    """`root/name` is no part of what git tracks in the work tree at `root`
    (so it was made here, by the person or their tools). False outside a
    work tree, or when git cannot say in time."""
    try:
        done = await git_read(
            "ls-files", "-z", "--", name, cwd=root, timeout_s=GIT_TIMEOUT_S, stdout_cap=1 << 12
        )
    except OSError:
        return False
    return done is not None and done.returncode == 0 and not done.stdout
