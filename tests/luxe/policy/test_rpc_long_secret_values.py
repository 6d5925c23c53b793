"""Secret values of a thousand characters and more: an AWS session token, a
4096-bit PEM key or a service account's JSON the person exported, a long
value in a repository's `.env`, and a ladder of values each one character
longer than the last. Redaction builds one regex of every value; it once
recursed once per character, and Luxe ended with a RecursionError at start
(an exported value) or at its first look at the project (a `.env`); and a
stream's hold-back kept every prefix of every value, gigabytes for one of
200 KB. Through
the real `luxe --rpc`: Luxe runs, and each value is redacted."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import hostile_luxe, one_turn_leaks_nothing, run_turn


def _random(length: int) -> str:
    return secrets.token_urlsafe(length)[:length]


SESSION_TOKEN = "IQoJb3JpZ2luX2Vj" + _random(1200)
PEM_LINES = [_random(64) for _ in range(50)]
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_LINES) + "\n-----END RSA PRIVATE KEY-----"
DOCUMENT = json.dumps({"type": "service_account", "private_key": PEM + "\n", "note": _random(1500)})


@pytest.mark.parametrize(
    ("variable", "value", "shown"),
    [
        ("AWS_SESSION_TOKEN", SESSION_TOKEN, SESSION_TOKEN),
        ("DEPLOY_PRIVATE_KEY", PEM, PEM_LINES[20]),
        ("GOOGLE_CREDENTIALS", DOCUMENT, PEM_LINES[30]),
    ],
    ids=["session token", "PEM key", "JSON document"],
)
def test_a_long_exported_credential_is_redacted_and_luxe_runs(
    variable: str, value: str, shown: str, repo: Path, env: dict[str, str]
) -> None:
    (repo / "copy.txt").write_text(f"pasted: {shown}\n")
    _done, body = one_turn_leaks_nothing(
        [call("bash", command=f"printenv {variable}; cat copy.txt")], "yolo", (shown,),
        cwd=repo, env={**env, variable: value},
    )
    assert "pasted: [REDACTED:" in str(tool_results(body))


@pytest.mark.parametrize("values", ["one long value", "a ladder", "a value of 200 KB"])
def test_a_repositorys_long_env_values_are_redacted_and_luxe_runs(
    values: str, repo: Path, env: dict[str, str]
) -> None:
    if values == "one long value":
        secret = "Zk7" + _random(3000)
        (repo / ".env").write_text(f"API_KEY={secret}\n")
    elif values == "a value of 200 KB":  # matched in pieces: no set of all its prefixes
        secret = "Wx4" + _random(200_000)
        (repo / ".env").write_text(f"API_KEY={secret}\n")
    else:  # each value the one before and one character more
        secret = "Lq9" + _random(1500)
        (repo / ".env").write_text("".join(f"KEY_{n}={secret[:n]}\n" for n in range(8, len(secret) + 1)))
    (repo / "copy.txt").write_text(f"pasted: {secret}\n")
    _done, body = one_turn_leaks_nothing(
        [call("bash", command="cat copy.txt")], "yolo", (secret,), cwd=repo, env=env
    )
    assert "pasted: [REDACTED:" in str(tool_results(body))


def _peak_resident_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    raise AssertionError(f"no VmHWM for {pid}")


@pytest.mark.parametrize(
    ("count", "length"),
    [(1000, 1000), (2000, 400), (4, 250_000)],
    ids=["a thousand values of 1,000", "two thousand of 400", "four of 250,000"],
)
def test_a_dotenv_of_long_values_costs_memory_in_proportion(
    repo: Path, env: dict[str, str], count: int, length: int
) -> None:
    """A repository's `.env` of about a megabyte, every value long: the
    stream's hold-back kept every prefix of every value in a set, which grew
    with the square of their length (luxe's peak was 620-630 MB for the
    first two spellings at the first bash call). Now it stays near what a
    session costs anyway (118-139 MB measured), and the value is still
    redacted."""
    values = [_random(length) for _ in range(count)]
    (repo / ".env").write_text("".join(f"V{i}={v}\n" for i, v in enumerate(values)))
    (repo / "notes.txt").write_text(f"first {values[0]} last\n")
    with hostile_luxe(
        [{"tool_calls": [call("bash", command="cat notes.txt")]}, {"text": "done"}],
        "yolo", "--auto-approve", cwd=repo, env=env,
    ) as (luxe, server):
        run_turn(luxe)
        assert values[0][:40] not in str(server.bodies)
        assert "first [REDACTED:" in str(tool_results(server.bodies[-1]))
        assert _peak_resident_mb(luxe.pid) < 300
        assert luxe.close() == 0
