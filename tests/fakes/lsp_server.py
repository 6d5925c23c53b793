"""A language server our tests own, for the cases real servers do not show
on demand: a server added in settings.json, one that crashes on start, one
that never answers.

    python -m tests.fakes.lsp_server serve    answer initialize; after each
        didOpen/didChange, publish one error ("bad word") per line that holds
        BAD, for that document version (nothing when the text did not change)
    python -m tests.fakes.lsp_server crash    append a line to $FAKE_LSP_STARTS
        (when set), say so on stderr and exit 3 before reading anything
    python -m tests.fakes.lsp_server silent   read everything, answer nothing
    python -m tests.fakes.lsp_server deaf     answer initialize, then nothing
    python -m tests.fakes.lsp_server flaky    like serve, but exit 5 right after
        its first publish (a server that crashes while in use)
    python -m tests.fakes.lsp_server garbage  answer initialize, then answer a
        document with malformed messages and a body that is not JSON
    python -m tests.fakes.lsp_server refusing  offer pulled diagnostics, and
        answer each pull with an error whose message is $FAKE_LSP_SAYS

Every mode appends a line to $FAKE_LSP_STARTS when that is set, so a test
can count starts. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, BinaryIO


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    if length is None:
        return None
    return json.loads(stream.read(length))  # type: ignore[no-any-return]


def write_message(message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def diagnostics(text: str) -> list[dict[str, Any]]:
    return [
        {
            "range": {
                "start": {"line": n, "character": line.index("BAD")},
                "end": {"line": n, "character": line.index("BAD") + 3},
            },
            "severity": 1,
            "code": "F1",
            "source": "fake",
            "message": "bad word",
        }
        for n, line in enumerate(text.splitlines())
        if "BAD" in line
    ]


def serve(*, exit_after_publish: bool = False, deaf: bool = False) -> None:
    texts: dict[str, str] = {}
    while (message := read_message(sys.stdin.buffer)) is not None:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            write_message(
                {"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}}
            )
        elif method == "shutdown":
            write_message({"id": message["id"], "result": None})
        elif method == "exit":
            return
        elif method in ("textDocument/didOpen", "textDocument/didChange") and not deaf:
            document = params["textDocument"]
            text = (
                document["text"]
                if method.endswith("didOpen")
                else params["contentChanges"][-1]["text"]
            )
            if texts.get(document["uri"]) == text:
                continue
            texts[document["uri"]] = text
            write_message(
                {
                    "method": "textDocument/publishDiagnostics",
                    "params": {
                        "uri": document["uri"],
                        "version": document["version"],
                        "diagnostics": diagnostics(text),
                    },
                }
            )
            if exit_after_publish:
                sys.exit(5)
        elif "id" in message:
            write_message({"id": message["id"], "result": None})


def garbage() -> None:
    while (message := read_message(sys.stdin.buffer)) is not None:
        if message.get("method") == "initialize":
            write_message({"id": message["id"], "result": ["not", "an", "object"]})
        elif message.get("method") == "textDocument/didOpen":
            write_message({"id": [1], "result": None})
            write_message({"method": "textDocument/publishDiagnostics", "params": "nonsense"})
            write_message({"method": "textDocument/publishDiagnostics", "params": {"uri": 3}})
            sys.stdout.buffer.write(b"Content-Length: 5\r\n\r\n{oops")
            sys.stdout.buffer.flush()


def refusing() -> None:
    says = os.environ.get("FAKE_LSP_SAYS", "refused")
    while (message := read_message(sys.stdin.buffer)) is not None:
        method = message.get("method")
        if method == "initialize":
            capabilities = {"textDocumentSync": 1, "diagnosticProvider": {"interFileDependencies": False, "workspaceDiagnostics": False}}
            write_message({"id": message["id"], "result": {"capabilities": capabilities}})
        elif method == "textDocument/diagnostic":
            write_message({"id": message["id"], "error": {"code": -32603, "message": says}})
        elif method == "exit":
            return
        elif "id" in message:
            write_message({"id": message["id"], "result": None})


def main() -> None:
    starts = os.environ.get("FAKE_LSP_STARTS")
    if starts:
        with open(starts, "a") as f:
            f.write(f"{os.getpid()}\n")
    mode = sys.argv[1] if len(sys.argv) > 1 else "serve"
    if mode == "crash":
        print("fake server crashed on start", file=sys.stderr)
        sys.exit(3)
    if mode == "silent":
        while sys.stdin.buffer.read(65536):
            pass
        return
    if mode == "garbage":
        garbage()
        return
    if mode == "refusing":
        refusing()
        return
    serve(exit_after_publish=mode == "flaky", deaf=mode == "deaf")


if __name__ == "__main__":
    main()
