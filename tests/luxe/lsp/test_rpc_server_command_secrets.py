"""A language server's command as the person configured it in
settings.json may spell a credential (`--token=ghp_…`, a URL with a
password): the `ready` frame's `diagnostics[].command` showed it as
written. Now each word is redacted with the values known from the start
(the provider's key, the variables the person exported, their credential
files), as a hook's command is. Through the real `luxe --rpc`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes import LSP_SERVER as FAKE
from tests.luxe.policy.e2e import global_config, write_json
from tests.luxe.policy.hostile import PROVIDER_KEY, everything_written, hostile_luxe, leaked

GITHUB_TOKEN = "ghp_S3rv3rC0mmandT0ken9aBcDeFgHiJkLmN"
NETRC_PASSWORD = "n3trcP4ssw0rdQ7mX2kL9wB4cR6yH1"

# A word of the server's command, per spelling (the fake server ignores it).
WORDS = {
    "an exported token as an option": f"--token={GITHUB_TOKEN}",
    "the provider's key": PROVIDER_KEY,
    "a ~/.netrc password in a URL": f"https://me:{NETRC_PASSWORD}@registry.example.com/",
}


@pytest.mark.parametrize("spelling", list(WORDS))
def test_a_server_command_spelling_a_credential_is_shown_redacted(
    spelling: str, repo: Path, env: dict[str, str]
) -> None:
    Path(env["HOME"], ".netrc").write_text(
        f"machine registry.example.com login me password {NETRC_PASSWORD}\n"
    )
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"tokened": {"ext": [".tk"], "command": [sys.executable, FAKE, "serve", WORDS[spelling]]}}},
    )
    full = {**env, "LUXE_LSP_ON_EDIT": "1", "GITHUB_TOKEN": GITHUB_TOKEN}
    with hostile_luxe([], "yolo", cwd=repo, env=full) as (luxe, server):
        found = {s["name"]: s["command"] for s in luxe.frames[0]["content"]["diagnostics"]}
        assert found["tokened"][:3] == [sys.executable, FAKE, "serve"], found
        assert "[REDACTED:" in found["tokened"][3], found
        values = (GITHUB_TOKEN, PROVIDER_KEY, NETRC_PASSWORD)
        for value in values:
            assert not leaked(value, luxe, server), value
        assert luxe.close() == 0
    assert not any(value in everything_written(env) for value in values)
