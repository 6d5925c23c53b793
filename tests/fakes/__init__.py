"""The doubles the tests own: the loopback model server, the fake GitHub, a
scriptable language server (`LSP_SERVER`, run as a program)."""

from pathlib import Path

LSP_SERVER = str(Path(__file__).with_name("lsp_server.py"))
