"""Credentials the person exported before starting Luxe (a GitHub token, a
cloud secret, a database URL with its password): tool calls keep them, since
gh, aws and npm need theirs, but nothing a call prints of them reaches the
model or a client. Through the real `luxe --rpc` and the loopback model
server, in every permission mode."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import MODES, PROVIDER_KEY, everything_written, one_turn_leaks_nothing

GITHUB_TOKEN = "ghp_Vt3kR9mQ2xL7wN4pZ8sB1cY6"
AWS_SECRET = "aws-Q8zT2vM5nK9rX3bW7yL1"
DB_PASSWORD = "pg-pass-4H7kR2xV9"
URL_PASSWORD = "url-pw-6M3qZ8tN1"
PRIVATE_KEY_LINE = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
NPM_TOKEN = "npm_Rz4Tq8Lm2Xv6Kb9Wc3Yh"

EXPORTED = {
    "GITHUB_TOKEN": GITHUB_TOKEN,
    "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
    "DB_PASSWORD": DB_PASSWORD,
    "DATABASE_URL": f"postgres://app:{URL_PASSWORD}@db.internal:5432/app",
    # npm's own spelling: lower case, with the registry in the name.
    "npm_config_//registry.npmjs.org/:_authToken": NPM_TOKEN,
    "DEPLOY_PRIVATE_KEY": f"-----BEGIN PRIVATE KEY-----\n{PRIVATE_KEY_LINE}\n-----END PRIVATE KEY-----",
    # Not credentials: shown as they are.
    "SSH_AUTH_SOCK": "/tmp/ssh-agent-sock-1234",
    "BUILD_FLAVOUR": "release-candidate",
    "SECRET_SCANNING": "enabled",
}
SECRETS = (GITHUB_TOKEN, AWS_SECRET, DB_PASSWORD, URL_PASSWORD, PRIVATE_KEY_LINE, NPM_TOKEN)


@pytest.mark.parametrize("mode", MODES)
def test_exported_credentials_never_reach_the_model_or_a_client(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """Five ways a repository's script prints what it inherited: the whole
    environment, one variable by name, a shell expansion, a program of its
    own, and /proc/self/environ."""
    calls = [
        call("bash", command="env"),
        call("bash", command="printenv GITHUB_TOKEN DB_PASSWORD DEPLOY_PRIVATE_KEY SSH_AUTH_SOCK BUILD_FLAVOUR SECRET_SCANNING"),
        call("bash", command='echo "$AWS_SECRET_ACCESS_KEY and $DATABASE_URL"'),
        call("bash", command="python3 -c 'import os; print(sorted(os.environ.items()))'"),
        call("bash", command="tr '\\0' '\\n' < /proc/self/environ"),
    ]
    _done, body = one_turn_leaks_nothing(calls, mode, SECRETS, cwd=repo, env={**env, **EXPORTED})
    results = str(tool_results(body))
    assert "[REDACTED:" in results
    if mode != "read-only":  # where `env` and a program of the repository's may run
        assert "GITHUB_TOKEN=[REDACTED:" in results and "_authToken=[REDACTED:" in results
    # What is not a credential reads as it is.
    assert "/tmp/ssh-agent-sock-1234" in results and "release-candidate" in results
    assert "\\nenabled\\n" in results  # a plain word, though its name says secret
    assert "postgres://app:" in results and "@db.internal:5432/app" in results
    written = everything_written(env)  # the session file and the log
    assert written and not [value for value in SECRETS if value in written]


def test_a_tool_still_has_the_credentials_it_was_given(repo: Path, env: dict[str, str]) -> None:
    """Redacted in what reaches the model, unchanged in the tool's own
    environment: gh and aws still authenticate."""
    digest = hashlib.sha256(GITHUB_TOKEN.encode()).hexdigest()
    calls = [call("bash", command='printf %s "$GITHUB_TOKEN" | sha256sum')]
    _done, body = one_turn_leaks_nothing(calls, "yolo", SECRETS, cwd=repo, env={**env, **EXPORTED})
    assert digest in str(tool_results(body))


@pytest.mark.parametrize(
    "spelling",
    ["cat notes.txt", "grep -r sk-ant .", "read"],
)
def test_the_provider_key_in_an_ordinary_file_is_redacted(
    spelling: str, repo: Path, env: dict[str, str]
) -> None:
    """No secret file anywhere (none in the project, none in the home):
    the provider's key, pasted into a note, is still a redaction value."""
    (repo / "notes.txt").write_text(f"key for later: {PROVIDER_KEY}\n")
    tool = call("read", path="notes.txt") if spelling == "read" else call("bash", command=spelling)
    _done, body = one_turn_leaks_nothing([tool], "yolo", (PROVIDER_KEY,), cwd=repo, env=env)
    assert "key for later: [REDACTED:" in str(tool_results(body))
