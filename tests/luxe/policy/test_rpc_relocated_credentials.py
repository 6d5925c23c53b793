"""The person's credential files where their environment moved them: gh's
hosts.yml under $XDG_CONFIG_HOME or $GH_CONFIG_DIR, AWS's credentials at
$AWS_SHARED_CREDENTIALS_FILE, a service account at
$GOOGLE_APPLICATION_CREDENTIALS, a kubeconfig named in $KUBECONFIG, docker's
under $DOCKER_CONFIG. Each is refused by `read` and its values are redacted
from what a bash call prints, as ~/.config/gh/hosts.yml is. Through the real
`luxe --rpc` and the loopback model server."""

from __future__ import annotations

from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import everything_written, one_turn_leaks_nothing

TOKEN = "gho_R3lOc4t3dT0k3nZ9q8W7e6"


def _plant(kind: str, env: dict[str, str], tmp: Path) -> tuple[dict[str, str], Path]:
    """A credential file holding TOKEN where `kind` says, and the variables
    that point there."""
    elsewhere = tmp / "elsewhere"
    if kind == "XDG_CONFIG_HOME gh":
        path = Path(env["XDG_CONFIG_HOME"]) / "gh" / "hosts.yml"
        text, extra = f"github.com:\n    oauth_token: {TOKEN}\n    user: me\n", {}
    elif kind == "GH_CONFIG_DIR":
        path = elsewhere / "gh-config" / "hosts.yml"
        text, extra = f"github.com:\n    oauth_token: {TOKEN}\n", {"GH_CONFIG_DIR": str(path.parent)}
    elif kind == "AWS_SHARED_CREDENTIALS_FILE":
        path = elsewhere / "aws-creds"
        text = f"[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = {TOKEN}\n"
        extra = {"AWS_SHARED_CREDENTIALS_FILE": str(path)}
    elif kind == "GOOGLE_APPLICATION_CREDENTIALS":
        path = elsewhere / "service-account.json"
        text = f'{{"type": "service_account", "private_key_id": "{TOKEN}"}}\n'
        extra = {"GOOGLE_APPLICATION_CREDENTIALS": str(path)}
    elif kind == "KUBECONFIG":
        path = elsewhere / "kube" / "prod.yaml"
        text = f"users:\n- name: me\n  user:\n    token: {TOKEN}\n"
        extra = {"KUBECONFIG": f"{elsewhere / 'kube' / 'missing.yaml'}:{path}"}
    else:  # DOCKER_CONFIG
        path = elsewhere / "docker" / "config.json"
        text = f'{{"auths": {{"registry.example": {{"auth": "{TOKEN}"}}}}}}\n'
        extra = {"DOCKER_CONFIG": str(path.parent)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return {**env, **extra}, path


KINDS = [
    "XDG_CONFIG_HOME gh",
    "GH_CONFIG_DIR",
    "AWS_SHARED_CREDENTIALS_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "KUBECONFIG",
    "DOCKER_CONFIG",
]


@pytest.mark.parametrize("kind", KINDS)
def test_a_relocated_credential_file_is_a_secret(
    kind: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    full, path = _plant(kind, env, tmp_path)
    calls = [
        call("read", path=str(path)),
        call("bash", command=f"cat '{path}'"),
        call("bash", command=f"grep -h {TOKEN[:6]} '{path}' || true"),
    ]
    _done, body = one_turn_leaks_nothing(calls, "yolo", (TOKEN,), cwd=repo, env=full)
    results = tool_results(body)
    assert "secret" in str(results[0]).lower(), results[0]  # read refuses it
    for result in results[1:]:  # refused by the file's name, or ran and was redacted
        assert "secret file" in str(result) or "[REDACTED:" in str(result), result
    assert TOKEN not in everything_written(full)
