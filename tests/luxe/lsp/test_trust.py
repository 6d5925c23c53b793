"""A hostile repository's own code never runs through a language server
unless Luxe was started with --trust-project."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from luxe.lsp.servers import NEED_TRUST, LspSettings, find_servers
from luxe.lsp.trust import NeedsTrust, initialization_options
from tests.luxe.lsp.edit_diagnostics import edit_session, only
from tests.luxe.policy.e2e import call, global_config, luxe_on_fake_model, tool_results, write_json
from tests.luxe.rpc_driver import make_env

FAKE_SERVER = Path(__file__).resolve().parents[2] / "fakes" / "lsp_server.py"
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


@pytest.mark.parametrize("name", ["rust-analyzer", "clangd"])
def test_servers_that_run_or_parse_what_the_project_ships_need_trust(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / name).write_text("#!/bin/sh\n")
    (tmp_path / "bin" / name).chmod(0o755)
    server = spec(name, str(tmp_path / "bin"))
    with pytest.raises(NeedsTrust, match=r"^not started in an untrusted project: .*--trust-project"):
        initialization_options(server, tmp_path, {}, trust_project=False)
    assert initialization_options(server, tmp_path, {}, trust_project=True) is None


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
        assert found == (
            "typescript-language-server not started: the only TypeScript is the project's own "
            "(node_modules/typescript); install TypeScript, or start Luxe with --trust-project "
            "to run the project's"
        )
        detail = frames[-1].servers[0].detail
        assert detail is not None and "--trust-project" in detail
    assert not (root / "RAN").exists()


# A Rust workspace whose cargo configuration runs the repository's own
# program, and a C project whose compile flags the repository chose: three
# places each for the file the agent edits.
EVIL = "#!/bin/sh\ntouch \"$(dirname \"$0\")/RAN\"\nexec rustc \"$@\"\n"
CARGO = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'
HOSTILE_PROJECT = {
    "Cargo.toml": CARGO,
    "src/main.rs": "fn main() {}\n",
    ".cargo/config.toml": '[build]\nrustc = "./evil.sh"\nrustc-wrapper = "./evil.sh"\n',
    "rust-toolchain.toml": '[toolchain]\npath = "./toolchain"\n',
    "rust-analyzer.toml": '[cargo.buildScripts]\noverrideCommand = ["./evil.sh"]\n',
    "crates/inner/Cargo.toml": CARGO.replace("demo", "inner"),
    "crates/inner/.cargo/config.toml": '[build]\nrustc = "../../evil.sh"\n',
    "compile_commands.json": '[{"directory": ".", "file": "a.c", '
    '"command": "./evil.sh -Xclang -load -Xclang ./evil.so -c a.c"}]',
    ".clangd": "CompileFlags:\n  Add: [-fplugin=./evil.so]\n",
    "native/compile_flags.txt": "-fplugin=../evil.so\n",
}
EDITS = {
    # at the root, in a nested crate, with no Cargo.toml, option-looking,
    # through a symlinked directory
    "rust-analyzer": ("src/lib.rs", "crates/inner/src/lib.rs", "scratch/alone.rs",
                      "src/--config=evil.rs", "linked/via_link.rs"),
    "clangd": ("a.c", "native/b.cpp", "include/c.h", "native/-Xclang.c", "linked/via_link.c"),
}  # fmt: skip


def hostile_native_project(root: Path) -> None:
    for name, text in HOSTILE_PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "crates/inner/src").mkdir(parents=True, exist_ok=True)
    (root / "linked").symlink_to(root / "crates/inner/src")
    (root / "evil.sh").write_text(EVIL)
    (root / "evil.sh").chmod(0o755)


def run_edits(
    repo: Path, env: dict[str, str], *flags: str
) -> tuple[dict[str, str], list[dict[str, Any]], dict[str, bool]]:
    """Write one file with a BAD line at each place; the last tool result
    of each write by path, the servers of the last diagnostics_servers
    frame, and `needs_trust` of each server the ready frame lists."""
    paths = [path for name in EDITS for path in EDITS[name]]
    steps: list[dict[str, Any]] = [
        {"tool_calls": [call("write", path=path, content="BAD\n")]} for path in paths
    ]
    with luxe_on_fake_model([*steps, {"text": "done"}], "--yolo", *flags, cwd=repo, env=env) as (
        luxe,
        server,
    ):
        listed = {d["name"]: d["needs_trust"] for d in luxe.frames[0]["content"]["diagnostics"]}
        luxe.send("submit_user_message", {"text": "go"})
        assert luxe.expect("turn_ended", timeout=60)["reason"] == "end_turn"
        results = {path: tool_results(server.bodies[n + 1])[-1] for n, path in enumerate(paths)}
        frames = [f for f in luxe.frames if f["kind"] == "diagnostics_servers"]
        assert luxe.close() == 0
    return results, frames[-1]["content"]["servers"], listed


def test_rust_analyzer_and_clangd_start_only_in_a_trusted_project(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    hostile_native_project(repo)
    starts = tmp_path / "starts"
    # The fake server stands in for both (neither is installed here); the
    # test is whether Luxe starts them, and FAKE_LSP_STARTS counts starts.
    serve = [sys.executable, str(FAKE_SERVER), "serve"]
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {name: {"command": serve} for name in EDITS}},
    )
    env = {**env, "LUXE_LSP_ON_EDIT": "1", "LUXE_LSP_TIMEOUT_S": "30",
           "FAKE_LSP_STARTS": str(starts)}  # fmt: skip

    results, servers, listed = run_edits(repo, env)
    # `ready` says up front that they will not start
    assert listed["rust-analyzer"] is True and listed["clangd"] is True
    assert listed.get("ruff", False) is False
    for name, paths in EDITS.items():
        for path in paths:
            said = results[path]
            if path == paths[0]:  # said once per project root, never a diagnostic
                assert said.endswith(
                    f"\n\n{name} not started in an untrusted project: {NEED_TRUST[name]}; "
                    "start Luxe with --trust-project to run it"
                ), said
            assert "bad word" not in said
        details = [s for s in servers if s["name"] == name]
        assert details and all(s["state"] == "stopped" for s in details)
        assert all("--trust-project" in s["detail"] for s in details)
    assert not starts.exists()
    assert not (repo / "RAN").exists()

    # Trusted, the same edits reach the servers (so the test can fail).
    results, _, listed = run_edits(repo, env, "--trust-project")
    assert listed["rust-analyzer"] is False and listed["clangd"] is False
    for name, paths in EDITS.items():
        for path in paths:
            said = results[path]
            assert f"Diagnostics for {path} ({name}): 1 error(s)" in said, said
    assert starts.exists()
