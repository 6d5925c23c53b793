"""A credentials file the person named in the environment: a Google service
account's key (`GOOGLE_APPLICATION_CREDENTIALS`), a kubeconfig (`KUBECONFIG`,
a list of them), libpq's password file (`PGPASSFILE`), a deploy key's path
(`DEPLOY_PRIVATE_KEY_PATH`). Any name at all: a tool reads it with
`cat "$GOOGLE_APPLICATION_CREDENTIALS"`. Such a file is a secret file like
the user's well-known ones: the read tool refuses it, and what a bash call
prints of it is redacted. Through the real `luxe --rpc`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import everything_written, one_turn_leaks_nothing

SA_KEY_LINE = "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC7"
KUBE_TOKEN = "eyJhbGciOiJSUzI1NiIsImtpZCI6Imt1YmUifQ.c2VydmljZQ.sig9Xy"
PGPASS = "pgpass-Zq8Wx7Rv"
DEPLOY_KEY_LINE = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB"
SECRETS = (SA_KEY_LINE, KUBE_TOKEN, PGPASS, DEPLOY_KEY_LINE)


def plant(place: Path) -> dict[str, str]:
    """The four files under `place`, with nothing in their names that says
    secret, and the variables naming them."""
    place.mkdir(parents=True)
    sa = place / "ci-runner.json"
    private_key = f"-----BEGIN PRIVATE KEY-----\n{SA_KEY_LINE}\n-----END PRIVATE KEY-----\n"
    sa.write_text(json.dumps({"type": "service_account", "private_key": private_key}, indent=1))
    kube = place / "cluster.yaml"
    kube.write_text(f"users:\n- name: ci\n  user:\n    token: {KUBE_TOKEN}\n")
    pgpass = place / "pg.conf"
    pgpass.write_text(f"db.internal:5432:app:app:{PGPASS}\n")
    deploy = place / "deploy"
    deploy.write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{DEPLOY_KEY_LINE}\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    return {
        "GOOGLE_APPLICATION_CREDENTIALS": str(sa),
        "KUBECONFIG": f"{place / 'missing.yaml'}:{kube}",
        "PGPASSFILE": str(pgpass),
        "DEPLOY_PRIVATE_KEY_PATH": str(deploy),
    }


@pytest.mark.parametrize(
    "command",
    [
        'cat "$GOOGLE_APPLICATION_CREDENTIALS" "$PGPASSFILE" "$DEPLOY_PRIVATE_KEY_PATH"',
        'cat "${KUBECONFIG#*:}"; cat "$PGPASSFILE"',
        "python3 -c 'import os,json; print(json.load(open(os.environ[\"GOOGLE_APPLICATION_CREDENTIALS\"])))'",
    ],
)
def test_a_credentials_file_named_in_the_environment_is_redacted(
    command: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    named = plant(tmp_path / "keys")
    _done, body = one_turn_leaks_nothing(
        [call("bash", command=command)], "yolo", SECRETS, cwd=repo, env={**env, **named}
    )
    assert "[REDACTED:" in str(tool_results(body))
    written = everything_written(env)
    assert written and not [value for value in SECRETS if value in written]


@pytest.mark.parametrize("variable", ["GOOGLE_APPLICATION_CREDENTIALS", "PGPASSFILE"])
def test_the_read_tool_refuses_it(
    variable: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    named = plant(tmp_path / "keys")
    done, _body = one_turn_leaks_nothing(
        [call("read", path=named[variable])], "yolo", SECRETS, cwd=repo, env={**env, **named}
    )
    assert done and "secret" in str(done).lower()


def test_an_ordinary_file_named_by_an_ordinary_variable_reads_as_it_is(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("release-candidate-0042\n")
    _done, body = one_turn_leaks_nothing(
        [call("bash", command='cat "$RELEASE_NOTES"')], "yolo", (), cwd=repo,
        env={**env, "RELEASE_NOTES": str(notes), "SSH_AUTH_SOCK": str(notes)},
    )
    assert "release-candidate-0042" in str(tool_results(body))


@pytest.mark.parametrize(
    ("variable", "spelling"),
    [
        ("KUBECONFIG", "ops/cluster.yaml"),
        ("PGPASSFILE", "./ops/pg.conf"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "../keys/ci-runner.json"),
    ],
)
def test_a_relative_path_is_taken_from_where_luxe_started(
    variable: str, spelling: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """`KUBECONFIG=ops/cluster.yaml` in an infrastructure checkout: kubectl
    run beside Luxe reads it from there, and so may a bash call."""
    plant(tmp_path / "keys")  # the third spelling reaches out of the project to it
    (repo / "ops").mkdir()
    for name in ("cluster.yaml", "pg.conf"):
        (repo / "ops" / name).write_bytes((tmp_path / "keys" / name).read_bytes())
    _done, body = one_turn_leaks_nothing(
        [call("bash", command=f'cat "${variable}"')], "yolo", SECRETS, cwd=repo,
        env={**env, variable: spelling},
    )
    assert "[REDACTED:" in str(tool_results(body))
