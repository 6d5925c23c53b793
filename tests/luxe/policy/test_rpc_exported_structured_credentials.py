"""A credential exported or named as a structured document: a Google
service account's JSON, its private key one string with `\\n` escapes
(`GOOGLE_CREDENTIALS`, read by Terraform's google provider, holds the JSON
itself; `GOOGLE_APPLICATION_CREDENTIALS` names its file). A program that
parses it prints the key with real line breaks (`json.load(...)["private_key"]`,
`jq -r .private_key`): each of its lines is a redaction value. And what is
no secret of it reads as it is: the PEM markers and the document's plain
fields, which every source file or fixture holding them would show
garbled. Through the real `luxe --rpc`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import everything_written, one_turn_leaks_nothing

KEY_LINES = (
    "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC7x",
    "Zq3Lm8Rt2Vw9Xy4Ab6Cd1Ef5Gh7Ij0Kl3Mn8Op2Qr6St9Uv1Wx4Yz",
)
PRIVATE_KEY = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(KEY_LINES) + "\n-----END PRIVATE KEY-----\n"
DOCUMENT = json.dumps(
    {"type": "service_account", "project_id": "demo", "private_key": PRIVATE_KEY}, indent=1
)
PRINT_KEY = (
    "python3 -c 'import json,os,sys; v=os.environ[sys.argv[1]]; "
    "print(json.loads(v if v.startswith(\"{\") else open(v).read())[\"private_key\"])' "
)
# Files of the project that hold what is no secret of the document.
FIXTURE = '-----BEGIN PRIVATE KEY-----\n"type": "service_account",\n-----END PRIVATE KEY-----\n'


@pytest.mark.parametrize(
    ("variable", "command"),
    [
        ("GOOGLE_CREDENTIALS", PRINT_KEY + "GOOGLE_CREDENTIALS"),
        ("GOOGLE_APPLICATION_CREDENTIALS", PRINT_KEY + "GOOGLE_APPLICATION_CREDENTIALS"),
        ("GOOGLE_CREDENTIALS", 'printf "%b" "$GOOGLE_CREDENTIALS"'),
        ("GOOGLE_APPLICATION_CREDENTIALS", 'printf "%b" "$(cat "$GOOGLE_APPLICATION_CREDENTIALS")"'),
    ],
)
def test_a_structured_credentials_key_lines_are_redacted(
    variable: str, command: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    sa = tmp_path / "keys" / "ci-runner.json"
    sa.parent.mkdir()
    sa.write_text(DOCUMENT)
    value = DOCUMENT if variable == "GOOGLE_CREDENTIALS" else str(sa)
    _done, body = one_turn_leaks_nothing(
        [call("bash", command=command)], "yolo", KEY_LINES, cwd=repo, env={**env, variable: value}
    )
    assert "[REDACTED:" in str(tool_results(body))
    written = everything_written(env)
    assert written and not [line for line in KEY_LINES if line in written]


@pytest.mark.parametrize("variable", ["GOOGLE_CREDENTIALS", "DEPLOY_PRIVATE_KEY"])
def test_what_is_no_secret_of_it_reads_as_it_is(
    variable: str, repo: Path, env: dict[str, str]
) -> None:
    (repo / "fixture.txt").write_text(FIXTURE)
    value = DOCUMENT if variable == "GOOGLE_CREDENTIALS" else PRIVATE_KEY
    _done, body = one_turn_leaks_nothing(
        [call("bash", command="cat fixture.txt")], "yolo", KEY_LINES, cwd=repo,
        env={**env, variable: value},
    )
    assert FIXTURE.rstrip("\n") in str(tool_results(body)[0]).replace("\\n", "\n")


def test_a_big_documents_words_never_push_another_credential_out(
    repo: Path, env: dict[str, str]
) -> None:
    """Redaction takes a bounded number of values; a credential document of
    thousands of words, exported before the person's token, once took them
    all, and the token went through."""
    words = {f"k{n}": f"value-{n:05d}-Xq" for n in range(3000)}
    token = "ghp_Mz8Kq2Wv7Rt4Yn6Lp3Xc9Bd1"
    exported = {"BULK_CREDENTIALS": json.dumps(words), "GITHUB_TOKEN": token}
    _done, body = one_turn_leaks_nothing(
        [call("bash", command="printenv GITHUB_TOKEN")], "yolo", (token,), cwd=repo,
        env={**exported, **env},
    )
    assert "[REDACTED:GITHUB_TOKEN]" in str(tool_results(body))
