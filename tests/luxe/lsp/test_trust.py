"""A hostile repository's own code never runs through a language server
unless Luxe was started with --trust-project."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from luxe.lsp.servers import LspSettings, find_servers
from luxe.lsp.trust import NeedsTrust, initialization_options
from tests.luxe.lsp.test_diagnostics import edit_session, only
from tests.luxe.rpc_driver import make_env

TSLS = shutil.which("typescript-language-server")
needs_typescript = pytest.mark.skipif(
    TSLS is None or shutil.which("tsserver") is None,
    reason=".ci/run installs typescript-language-server and typescript with npm",
)
# The repository's "TypeScript": running it leaves a mark.
HOSTILE_TSSERVER = (
    "require('fs').writeFileSync(__dirname + '/../../../RAN', 'x'); process.exit(1);\n"
)


def hostile_repo(root: Path) -> Path:
    lib = root / "node_modules" / "typescript" / "lib"
    lib.mkdir(parents=True)
    for name in ("tsserver.js", "typescript.js"):
        (lib / name).write_text(HOSTILE_TSSERVER)
    (lib.parent / "package.json").write_text('{"name": "typescript", "version": "5.9.3"}')
    (root / "tsconfig.json").write_text("{}")
    return root


def spec(name: str, path: str):  # type: ignore[no-untyped-def]
    return next(s for s in find_servers(LspSettings(), {"PATH": path}) if s.name == name)


def test_rust_analyzer_runs_no_build_script_or_proc_macro_unless_trusted(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "rust-analyzer").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "rust-analyzer").chmod(0o755)
    ra = spec("rust-analyzer", str(tmp_path / "bin"))
    options = initialization_options(ra, tmp_path, {}, trust_project=False)
    assert options == {
        "cargo": {"buildScripts": {"enable": False}},
        "procMacro": {"enable": False},
        "checkOnSave": False,
    }
    assert initialization_options(ra, tmp_path, {}, trust_project=True) is None


@needs_typescript
def test_typescript_comes_from_the_machine_not_the_project(tmp_path: Path) -> None:
    tsls = spec("typescript-language-server", "/usr/bin:/usr/local/bin")
    root = hostile_repo(tmp_path / "repo")
    options = initialization_options(tsls, root, {"PATH": str(Path(str(TSLS)).parent)}, False)
    assert options is not None
    installed = Path(options["tsserver"]["path"])
    assert installed.name == "tsserver.js" and root not in installed.parents
    with pytest.raises(NeedsTrust, match="--trust-project"):
        initialization_options(tsls, root, {"PATH": str(tmp_path / "empty")}, False)
    assert initialization_options(tsls, root, {}, trust_project=True) is None


@needs_typescript
async def test_a_repositorys_own_typescript_never_runs(tmp_path: Path) -> None:
    root = hostile_repo(tmp_path / "repo")
    env = make_env(tmp_path)
    source = root / "app.ts"
    source.write_text("export const n: number = 'one';\n")
    settings = only("typescript-language-server")
    async with edit_session(root, settings, env) as (diagnostics, _):
        found = await diagnostics.after_edit(str(source))
        assert found is not None and "error [typescript 2322]" in found
    assert not (root / "RAN").exists()

    # No TypeScript on the machine: the server is not started at all.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("typescript-language-server", "node"):
        (bin_dir / program).symlink_to(str(shutil.which(program)))
    env = {**env, "PATH": str(bin_dir)}
    async with edit_session(root, settings, env) as (diagnostics, frames):
        found = await diagnostics.after_edit(str(source))
        assert found == "typescript-language-server stopped; diagnostics off for .ts"
        detail = frames[-1].servers[0].detail
        assert detail is not None and "--trust-project" in detail
    assert not (root / "RAN").exists()
