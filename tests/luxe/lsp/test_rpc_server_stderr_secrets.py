"""A language server that fails says why on stderr, and its last line went
as it came to `diagnostics_servers.detail` and to the log: a server that
prints its configuration or an environment variable, or a line of the
`.env` it read, showed the value to the client. Now what a server says of
its failure is redacted (luxe/lsp/warm.py). Through the real `luxe --rpc`
with diagnostics on edit and a server that dies at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.luxe.policy.e2e import call, executable, global_config, write_json
from tests.luxe.policy.hostile import everything_written, hostile_luxe, leaked, run_turn

ENV_VALUE = "sk_live_Ls9pStd3rrQ7mX2kL9wB4cR6"
GITHUB_TOKEN = "ghp_L4ngu4geS3rv3rT0ken9aBcDeFgHiJkL"

# The last line a dying server prints on stderr, per spelling.
LAST_WORDS = {
    "a .env line": "grep STRIPE .env",
    "an exported token": 'echo "settings: github.token=$GITHUB_TOKEN"',
    "a .env value in capitals": "tr a-z A-Z < .env",
    "a token in base64": 'printf "auth %s\\n" "$(printf %s "$GITHUB_TOKEN" | base64 -w0)"',
}


@pytest.mark.parametrize("spelling", list(LAST_WORDS))
def test_a_failing_servers_last_words_are_redacted(
    spelling: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    (repo / ".env").write_text(f"STRIPE_KEY={ENV_VALUE}\n")
    server = executable(
        tmp_path / "bin" / "dying-server",
        # It dies once luxe's initialize request comes, its stderr long written.
        f"#!/bin/sh\necho starting >&2\n{LAST_WORDS[spelling]} >&2\nhead -c 1 >/dev/null\nexit 1\n",
    )
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"dying": {"ext": [".dy"], "command": [server]}}},
    )
    full = {**env, "LUXE_LSP_ON_EDIT": "1", "LUXE_LSP_TIMEOUT_S": "30", "GITHUB_TOKEN": GITHUB_TOKEN}
    steps = [{"tool_calls": [call("write", path="a.dy", content="x\n")]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=full) as (luxe, model):
        assert run_turn(luxe)[-1]["content"]["text"] == "done"
        states = [f["content"]["servers"] for f in luxe.frames if f["kind"] == "diagnostics_servers"]
        details = [s["detail"] for servers in states for s in servers if s["detail"]]
        assert any("[REDACTED:" in d for d in details), details
        values = (ENV_VALUE, ENV_VALUE.upper(), GITHUB_TOKEN)
        for value in values:
            assert not leaked(value, luxe, model), value
        assert luxe.close() == 0
    written = everything_written(env)
    assert "[REDACTED:" in written and not any(value in written for value in values)
