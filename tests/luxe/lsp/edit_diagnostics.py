"""Diagnostics on edit in-process, for the LSP tests: `edit_session` serves
them over the servers `only` leaves (the built-in ones named, plus any
added) and collects the diagnostics_servers frames the session emits
(`Frames`); leaving it cancels the service and its servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from luxe.lsp.diagnostics import EditDiagnostics, serve_edit_diagnostics
from luxe.lsp.servers import LspSettings, find_servers, parse_lsp_settings
from luxe.protocol import events as ev


def only(*keep: str, **added: dict[str, Any]) -> LspSettings:
    """The built-in servers named in `keep`, plus `added` ones."""
    table = (
        "ruff",
        "basedpyright",
        "pyright",
        "ty",
        "typescript-language-server",
        "gopls",
        "rust-analyzer",
        "clangd",
        "bash-language-server",
    )
    return parse_lsp_settings(
        {**{name: {"disabled": True} for name in table if name not in keep}, **added}
    )


class Frames(list[ev.DiagnosticsServers]):
    """The diagnostics_servers frames of a session; `changed` is set at each."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = trio.Event()

    def add(self, frame: ev.DiagnosticsServers) -> None:
        self.append(frame)
        woken, self.changed = self.changed, trio.Event()
        woken.set()


@asynccontextmanager
async def edit_session(
    root: Path, settings: LspSettings, env: Mapping[str, str], timeout_s: float = 60
) -> AsyncIterator[tuple[EditDiagnostics, Frames]]:
    frames = Frames()

    async def emit(event: ev.Event) -> None:
        assert isinstance(event, ev.DiagnosticsServers)
        frames.add(event)

    env = {**env, "LUXE_LSP_TIMEOUT_S": str(timeout_s)}
    async with trio.open_nursery() as nursery:
        diagnostics = await nursery.start(
            serve_edit_diagnostics, root, env, find_servers(settings, env), emit
        )
        assert diagnostics is not None
        yield diagnostics, frames
        nursery.cancel_scope.cancel()
