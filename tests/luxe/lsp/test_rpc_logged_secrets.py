"""What Luxe logs passes the redactor: every line of
`$XDG_STATE_HOME/luxe/luxe.log` (and of `--verbose`'s stderr), whoever
logged it. A language server that answered a diagnostics pull with an
error quoting a secret (its settings, an environment variable, a `.env`
line) had it redacted in the tool result the model reads, but the log's
`diagnostics for … failed:` line kept it as it came. Through the real
`luxe --rpc` with diagnostics on edit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes import LSP_SERVER as FAKE
from tests.luxe.policy.e2e import call, global_config, tool_results, write_json
from tests.luxe.policy.hostile import everything_written, hostile_luxe, leaked, run_turn

ENV_VALUE = "sk_live_L0gg3dV4lu3Q7mX2kL9wB4cR"
GITHUB_TOKEN = "ghp_L0gg3dT0ken9aBcDeFgHiJkLmNoPqRsTu"

# What the server's error says, per spelling.
SAYS = {
    "a .env line": f"cannot load settings: STRIPE_KEY={ENV_VALUE}",
    "an exported token": f"github.token={GITHUB_TOKEN} was refused",
    "a token reversed": f"bad key {GITHUB_TOKEN[::-1]}",
    "a .env value in capitals": f"unknown option {ENV_VALUE.upper()}",
}


@pytest.mark.parametrize("spelling", list(SAYS))
def test_a_logged_server_error_quoting_a_secret_is_redacted(
    spelling: str, repo: Path, env: dict[str, str]
) -> None:
    (repo / ".env").write_text(f"STRIPE_KEY={ENV_VALUE}\n")
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"refusing": {"ext": [".rf"], "command": [sys.executable, FAKE, "refusing"]}}},
    )
    full = {
        **env,
        "LUXE_LSP_ON_EDIT": "1",
        "LUXE_LSP_TIMEOUT_S": "30",
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "FAKE_LSP_SAYS": SAYS[spelling],
    }
    steps = [{"tool_calls": [call("write", path="a.rf", content="x\n")]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=full) as (luxe, server):
        assert run_turn(luxe)[-1]["content"]["text"] == "done"
        told = tool_results(server.bodies[-1])[0]
        assert "refusing failed on this file" in told and "[REDACTED:" in told, told
        values = (ENV_VALUE, ENV_VALUE.upper(), GITHUB_TOKEN, GITHUB_TOKEN[::-1])
        for value in values:
            assert not leaked(value, luxe, server), value
        assert luxe.close() == 0
    logged = [
        line
        for line in Path(env["XDG_STATE_HOME"], "luxe", "luxe.log").read_text().splitlines()
        if "from refusing failed" in line
    ]
    assert logged and all("[REDACTED:" in line for line in logged), logged
    written = everything_written(env)
    assert not any(value in written for value in values)
