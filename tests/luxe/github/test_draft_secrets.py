"""`preview_pull_request` drafts the title and body with the model from the
branch's commits and diff. That diff holds whatever the branch holds: a
committed `.env`, a key pasted into code, a commit message quoting it. The
model gets the diff as Guided Review shows it: secret files left out, every
other line and the commit messages redacted, so no value reaches it (nor,
through its draft, the preview or the pull request). The real `luxe --rpc`,
the real gh, the fake GitHub and the loopback model server."""

from __future__ import annotations

import json

import pytest

from tests.fakes.github.server import FakeGitHub
from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.github import Checkout, needs_gh
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import provider_env

pytestmark = needs_gh

VALUE = "draftkey-Hq8Wz4Rn2"


@pytest.mark.parametrize("how", ["a committed .env", "a committed key file", "pasted into code"])
def test_the_draft_request_carries_no_secret(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, how: str
) -> None:
    if how == "a committed .env":
        files = {"svc/.env.production": f"KEY={VALUE}\n", "svc/app.py": "import os\n"}
    elif how == "a committed key file":
        files = {"deploy/id.pem": f"-----BEGIN PRIVATE KEY-----\n{VALUE}\n", "x.py": "X = 1\n"}
    else:  # the person's own .env knows it; the branch pastes it, and says so
        (checkout.path / ".env").write_text(f"KEY={VALUE}\n")
        files = {"settings.py": f'KEY = "{VALUE}"\n'}
    checkout.branch("leaky", files, f"configure the service ({VALUE})", push=False)
    with FakeLLMServer([{"text": "Configure the service\n\nAdds its settings."}]) as server:
        luxe = spawn(None, "--github-writes", env_extra=provider_env(server, "anthropic"))
        luxe.handshake()
        luxe.send("preview_pull_request", {"request_id": "p"})
        preview = luxe.expect("pull_request_preview")
        assert preview["drafted_by"] == "model"
        assert luxe.close() == 0
        sent = json.dumps([r.body for r in server.requests])
    assert "Diff:" in sent
    assert VALUE not in sent and VALUE not in json.dumps(luxe.frames)
