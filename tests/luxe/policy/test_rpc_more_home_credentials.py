"""More of the person's credential files in their home: Terraform Cloud's
token, Azure's token cache, Maven's and Gradle's publishing passwords,
rclone's, Hugging Face's and another agent's tokens, a GPG private key.
`read` refuses each; what a bash call prints of it is redacted, `cat` or a
program that parses the file. Through the real `luxe --rpc`."""

from __future__ import annotations

from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import one_turn_leaks_nothing

TOKEN = "tfc-Hm4Q8zR2wX7vK1nB5tY9"

HOME_FILES = {
    ".terraform.d/credentials.tfrc.json": f'{{"credentials": {{"app.terraform.io": {{"token": "{TOKEN}"}}}}}}\n',
    ".azure/msal_token_cache.json": f'{{"AccessToken": {{"k": {{"secret": "{TOKEN}"}}}}}}\n',
    ".m2/settings.xml": f"<settings><servers><server><id>central</id>"
    f"<password>{TOKEN}</password></server></servers></settings>\n",
    ".gradle/gradle.properties": f"signing.password={TOKEN}\n",
    ".config/rclone/rclone.conf": f'[drive]\ntype = drive\ntoken = {{"access_token":"{TOKEN}"}}\n',
    ".cache/huggingface/token": f"{TOKEN}\n",
    ".claude/.credentials.json": f'{{"claudeAiOauth": {{"accessToken": "{TOKEN}"}}}}\n',
    ".gnupg/private-keys-v1.d/0123ABCD.key": f"Created: 20260101T000000\nKey: (private-key (rsa (d #{TOKEN}#)))\n",
}


@pytest.mark.parametrize("rel", sorted(HOME_FILES))
def test_a_home_credential_file_is_a_secret(rel: str, repo: Path, env: dict[str, str]) -> None:
    path = Path(env["HOME"]) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HOME_FILES[rel])
    calls = [call("read", path=str(path)), call("bash", command=f"cat '{path}'")]
    _done, body = one_turn_leaks_nothing(calls, "yolo", (TOKEN,), cwd=repo, env=env)
    read, cat = (str(result) for result in tool_results(body))
    assert "secret file" in read, read
    assert "[REDACTED:" in cat or "secret file" in cat, cat


def test_a_password_a_program_parses_out_of_mavens_xml_is_redacted(
    repo: Path, env: dict[str, str]
) -> None:
    """The file's line is one word to a reader that splits on spaces; the
    password alone is what a program that parses the XML prints (naming the
    file in a way no reading of the command line sees)."""
    path = Path(env["HOME"]) / ".m2" / "settings.xml"
    path.parent.mkdir(parents=True)
    path.write_text(HOME_FILES[".m2/settings.xml"])
    program = (
        "import xml.etree.ElementTree as E, os; "
        "where = os.path.join(os.environ['HOME'], '.m' + '2', 'settings' + '.xml'); "
        "print(E.parse(where).find('.//password').text)"
    )
    calls = [call("bash", command=f'python3 -c "{program}"')]
    _done, body = one_turn_leaks_nothing(calls, "yolo", (TOKEN,), cwd=repo, env=env)
    assert "[REDACTED:" in str(tool_results(body))


def test_gradles_settings_read_as_they_are_its_credentials_redacted(
    repo: Path, env: dict[str, str]
) -> None:
    """gradle.properties holds settings beside the credentials: only the
    credential keys' values are redaction values (a JVM flag there was
    redacted wherever it showed)."""
    path = Path(env["HOME"]) / ".gradle" / "gradle.properties"
    path.parent.mkdir(parents=True)
    path.write_text(
        "org.gradle.jvmargs=-Xmx2048m -XX:MaxMetaspaceSize=512m\n"
        f"signing.password={TOKEN}\n"
        "gpr.key=ghp_GradleGpr0Key9Token8\n"
    )
    calls = [
        call("bash", command="echo building with -Xmx2048m and MaxMetaspaceSize=512m"),
        # A program of the repository's reads it by a name no reading of the
        # command line sees (`cat` of the path is refused outright).
        call("bash", command=(
            "python3 -c \"import os; print(open(os.path.join(os.environ['HOME'], "
            "'.gra' + 'dle', 'gradle.prop' + 'erties')).read())\""
        )),
    ]
    _done, body = one_turn_leaks_nothing(
        calls, "yolo", (TOKEN, "ghp_GradleGpr0Key9Token8"), cwd=repo, env=env
    )
    echoed, shown = (str(result) for result in tool_results(body))
    assert "building with -Xmx2048m and MaxMetaspaceSize=512m" in echoed
    assert "org.gradle.jvmargs=-Xmx2048m" in shown
    assert "signing.password=[REDACTED:" in shown and "gpr.key=[REDACTED:" in shown
