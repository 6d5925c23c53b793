"""Diagnostics on edit: what an edit pays for its diagnostics, per server.

For each server of the table installed here (ruff, basedpyright,
typescript-language-server, ...), in a fresh temporary project:
- cold: the first edit's `after_edit` (process start, initialize, first
  diagnostics), the cost the first edit of a language pays;
- warm: `after_edit` on a warm server, edits alternating between a file with
  an error and the fixed file, against the server's own time to answer the
  same change (measured on a bare LSP connection in the same loop: didChange
  -> the first publishDiagnostics of that version, or the pull answer). The
  difference is Luxe's overhead, mostly the quiet period (0.1-0.3 s) given
  to servers that publish in waves.
Medians; nothing is asserted (bench/ prints, tests check behaviour).
Run: .venv/bin/python bench/lsp_diagnostics.py [EDITS]
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from luxe.lsp.client import LspClient, open_lsp_client  # noqa: E402
from luxe.lsp.diagnostics import EditDiagnostics, serve_edit_diagnostics  # noqa: E402
from luxe.lsp.servers import (  # noqa: E402
    LspSettings,
    ServerSpec,
    find_servers,
    language_id,
)
from luxe.protocol import events as ev  # noqa: E402

EDITS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
COLD_LIMIT_S = 120.0
# (file name, text with an error, the fixed text) per extension.
SAMPLES = {
    ".py": (
        "calc.py",
        "def half(n: int) -> int:\n    return n / 2\n\nprint(missing)\n",
        "def half(n: int) -> int:\n    return n // 2\n\nprint(half(4))\n",
    ),
    ".ts": ("app.ts", "export const n: number = 'one';\n", "export const n: number = 1;\n"),
    ".go": (
        "main.go",
        'package main\n\nfunc main() { var x int = "a"; _ = x }\n',
        "package main\n\nfunc main() { var x int = 1; _ = x }\n",
    ),
    ".rs": ("src/main.rs", 'fn main() { let x: i32 = "a"; }\n', "fn main() { let _x: i32 = 1; }\n"),
    ".c": (
        "main.c",
        'int main(void) { int x = "a"; return x; }\n',
        "int main(void) { int x = 1; return x; }\n",
    ),
    ".sh": ("run.sh", "#!/bin/bash\nif [ 1 ]; then\n", "#!/bin/bash\nif [ 1 ]; then echo; fi\n"),
}
MARKERS = {
    ".go": ("go.mod", "module bench\n\ngo 1.21\n"),
    ".rs": ("Cargo.toml", '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n'),
}


async def _ignore(event: ev.Event) -> None:
    return None


def sample_of(spec: ServerSpec) -> tuple[str, str, str, str] | None:
    for ext in spec.extensions:
        if ext in SAMPLES:
            return (ext, *SAMPLES[ext])
    return None


async def own_publish_s(
    client: LspClient, pull: bool, path: Path, text: str, version: int
) -> float:
    """The server's own time to answer one change, on a bare connection."""
    uri = path.as_uri()
    before = client.publishes
    start = time.perf_counter()
    await client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    )
    if pull:
        await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    else:
        await client.wait_published(uri, version, before)
    return time.perf_counter() - start


async def measure(spec: ServerSpec, env: dict[str, str]) -> str:
    sample = sample_of(spec)
    if sample is None:
        return f"{spec.name:28} no sample for {', '.join(spec.extensions)}"
    ext, name, bad, good = sample
    with tempfile.TemporaryDirectory(prefix="lsp-bench-") as tmp:
        root = Path(tmp)
        if ext in MARKERS:
            (root / MARKERS[ext][0]).write_text(MARKERS[ext][1])
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(bad)
        env = {**env, "LUXE_LSP_TIMEOUT_S": str(COLD_LIMIT_S)}
        async with trio.open_nursery() as nursery:
            diagnostics: EditDiagnostics | None = await nursery.start(
                serve_edit_diagnostics, root, env, [spec], _ignore
            )
            assert diagnostics is not None
            start = time.perf_counter()
            first = await diagnostics.after_edit(str(path))
            cold = time.perf_counter() - start
            if first is None or "did not answer" in first or "stopped" in first:
                nursery.cancel_scope.cancel()
                return f"{spec.name:28} cold {cold * 1000:7.0f} ms; no diagnostics for the sample: {first!r}"
            # The bare connection: the same server, its own process.
            other = root / f"bare{ext}"
            other.write_text(bad)
            ours, own = [], []
            async with open_lsp_client(
                spec.command, cwd=str(root), env=env, name=spec.name
            ) as client:
                result = await client.request(
                    "initialize",
                    {
                        "processId": os.getpid(),
                        "rootUri": root.as_uri(),
                        "workspaceFolders": [{"uri": root.as_uri(), "name": "bench"}],
                        "capabilities": {
                            "workspace": {"configuration": True},
                            "textDocument": {
                                "diagnostic": {},
                                "publishDiagnostics": {"versionSupport": True},
                            },
                        },
                    },
                )
                await client.notify("initialized", {})
                pull = bool((result or {}).get("capabilities", {}).get("diagnosticProvider"))
                uri = other.as_uri()
                before = client.publishes
                document = {
                    "uri": uri,
                    "languageId": language_id(str(other)),
                    "version": 1,
                    "text": bad,
                }
                await client.notify("textDocument/didOpen", {"textDocument": document})
                if not pull:
                    await client.wait_published(uri, 1, before)
                for i in range(EDITS):
                    text = good if i % 2 == 0 else bad
                    path.write_text(text)
                    start = time.perf_counter()
                    await diagnostics.after_edit(str(path))
                    ours.append(time.perf_counter() - start)
                    own.append(await own_publish_s(client, pull, other, text, i + 2))
            nursery.cancel_scope.cancel()
    ours_ms, own_ms = statistics.median(ours) * 1000, statistics.median(own) * 1000
    return (
        f"{spec.name:28} cold {cold * 1000:7.0f} ms | warm edit {ours_ms:6.1f} ms, "
        f"server's own {own_ms:6.1f} ms ({'pull' if pull else 'push'}): "
        f"overhead {ours_ms - own_ms:+6.1f} ms ({ours_ms / own_ms:.2f}x), quiet period {spec.quiet_s * 1000:.0f} ms"
    )


async def main() -> None:
    logging.disable(logging.WARNING)  # a server that fails is reported below
    env = dict(os.environ)
    servers = find_servers(LspSettings(), env)
    print(f"diagnostics on edit, {EDITS} warm edits per server (medians)")
    for spec in servers:
        print(await measure(spec, env), flush=True)
    missing = {"ruff", "basedpyright", "typescript-language-server"} - {s.name for s in servers}
    if missing:
        print(f"not installed here: {', '.join(sorted(missing))}")


if __name__ == "__main__":
    trio.run(main)
