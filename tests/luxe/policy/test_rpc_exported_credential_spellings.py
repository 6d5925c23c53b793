"""Credentials the person exported under the names real tools give them,
beyond the words TOKEN, SECRET, PASSWORD and KEY in API_KEY: a personal
access token (`GITHUB_PAT`, az devops's `AZURE_DEVOPS_EXT_PAT`), a bare
`*_KEY`, a webhook URL (its secret is in the path), a CI job's JWT, npm's
`_auth`, the password of a connection string that is no URL (libpq's
`password=`, .NET's `Password=`, Azure's `AccountKey=`), a password by
its short names (`SMTP_PASS`, mysql's `MYSQL_PWD`, sshpass's `SSHPASS`), and a value
exported with its quotes. Through the real `luxe --rpc`: what `env`,
`printenv` or a program prints of them never reaches the model or a
client, and the tool still has them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import everything_written, one_turn_leaks_nothing

GITHUB_PAT = "github_pat_11AbCdEf0123456789xyz"
AZURE_PAT = "x7k2m9q4r8t1v6w3y5z0a2b4c6d8e0f1"
STRIPE_KEY = "sk_live_51HxYzAbCdEfGh42"
SIGNING_KEY = "sig-Zx9Yw8Vu7Ts6Rq5"
SLACK_SECRET = "xYz123AbC456dEf789GhI012"
DISCORD_SECRET = "AbCdEfGhIjKlMnOp0123456789"
JOB_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"
NPM_AUTH = "dXNlcjpwYXNzd29yZDEyMw=="
LIBPQ_PASSWORD = "hunter2-Secret9"
DOTNET_PASSWORD = "P@ssw0rd!Db77"
AZURE_ACCOUNT_KEY = "q1W2e3R4t5Y6u7I8o9P0aSdFgHjKl=="
QUOTED_KEY = "sk-quoted-AbCdEf123456"
SMTP_PASS = "smtp-Kq7Wz3Vn"
MYSQL_PWD = "my-Rt5Yp8Lx2"
SSHPASS = "ssh-Hb4Nc9Dm"
DOCKER_AUTH = "ZG9ja2VyOnB3LTlLbTJYcTdU"
BUNDLER_PASSWORD = "gem-pw-8Tq3Zx6V"

EXPORTED = {
    "GITHUB_PAT": GITHUB_PAT,
    "AZURE_DEVOPS_EXT_PAT": AZURE_PAT,
    "STRIPE_KEY": STRIPE_KEY,
    "RELEASE_SIGNING_KEY": SIGNING_KEY,
    "SLACK_WEBHOOK_URL": f"https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/{SLACK_SECRET}",
    "DISCORD_WEBHOOK": f"https://discord.com/api/webhooks/123456789012345678/{DISCORD_SECRET}",
    "CI_JOB_JWT": JOB_JWT,
    "npm_config__auth": NPM_AUTH,
    "PG_DSN": f"host=db.internal user=app password={LIBPQ_PASSWORD} dbname=app",
    "ConnectionStrings__Default": f"Server=db;Database=app;User Id=sa;Password={DOTNET_PASSWORD};",
    "AZURE_STORAGE_CONNECTION_STRING": (
        "DefaultEndpointsProtocol=https;AccountName=acct;"
        f"AccountKey={AZURE_ACCOUNT_KEY};EndpointSuffix=core.windows.net"
    ),
    # A password by its short names: mysql reads MYSQL_PWD, sshpass SSHPASS.
    "SMTP_PASS": SMTP_PASS,
    "MYSQL_PWD": MYSQL_PWD,
    "SSHPASS": SSHPASS,
    # GitLab CI's registry login, a JSON document; Bundler's per-host login.
    "DOCKER_AUTH_CONFIG": f'{{"auths": {{"registry.example.com": {{"auth": "{DOCKER_AUTH}"}}}}}}',
    "BUNDLE_GEMS__CONTRIBSYS__COM": f"ci-user:{BUNDLER_PASSWORD}",
    # `export $(cat .env)` keeps a .env file's quotes in the value.
    "SEARCH_TOKEN": f'"{QUOTED_KEY}"',
    # Not credentials: shown as they are.
    "PATH_PATTERN": "src-*-generated",
    "KEYBOARD_LAYOUT": "dvorak-programmer",
    "PASSENGER_APP_ENV": "staging-eu-2",
}
SECRETS = (
    GITHUB_PAT, AZURE_PAT, STRIPE_KEY, SIGNING_KEY, SLACK_SECRET, DISCORD_SECRET, JOB_JWT,
    NPM_AUTH, LIBPQ_PASSWORD, DOTNET_PASSWORD, AZURE_ACCOUNT_KEY, QUOTED_KEY, SMTP_PASS,
    MYSQL_PWD, SSHPASS, DOCKER_AUTH, BUNDLER_PASSWORD,
)


@pytest.mark.parametrize(
    "command",
    [
        "env",
        "printenv",
        "python3 -c 'import os; print(sorted(os.environ.items()))'",
        "printf '%s\\n' \"$SEARCH_TOKEN\" | tr -d '\"'",
    ],
)
def test_credentials_under_their_tools_names_never_reach_the_model(
    command: str, repo: Path, env: dict[str, str]
) -> None:
    _done, body = one_turn_leaks_nothing(
        [call("bash", command=command)], "yolo", SECRETS, cwd=repo, env={**env, **EXPORTED}
    )
    results = str(tool_results(body))
    assert "[REDACTED:" in results
    if "SEARCH_TOKEN" not in command:
        # What is not a credential reads as it is, and so does the rest of a
        # connection string.
        assert "src-*-generated" in results and "dvorak-programmer" in results
        assert "staging-eu-2" in results
        assert "host=db.internal user=app password=[REDACTED:" in results
        assert "AccountName=acct;AccountKey=[REDACTED:" in results
    written = everything_written(env)
    assert written and not [value for value in SECRETS if value in written]


def test_a_tool_still_has_them(repo: Path, env: dict[str, str]) -> None:
    digest = hashlib.sha256(GITHUB_PAT.encode()).hexdigest()
    command = 'printf %s "$GITHUB_PAT" | sha256sum'
    _done, body = one_turn_leaks_nothing(
        [call("bash", command=command)], "yolo", SECRETS, cwd=repo, env={**env, **EXPORTED}
    )
    assert digest in str(tool_results(body))
