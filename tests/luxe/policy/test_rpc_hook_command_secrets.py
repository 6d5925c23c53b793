"""A hook's command as the person configured it may spell a credential
(`curl -H "Authorization: Bearer ghp_…"`, a webhook URL, `--api-key=…`):
`hook_finished.command` and the log's line for a failing hook showed it
as written. Now each word is redacted with the values known from the
start (the provider's key, the credentials the person exported, their
credential files), so even the first prompt's hooks, which run before the
project's scan, show none of them. Through the real `luxe --rpc`."""

from __future__ import annotations

from pathlib import Path

import pytest

from .e2e import call, global_config, write_json
from .hostile import PROVIDER_KEY, everything_written, hostile_luxe, leaked, run_turn

GITHUB_TOKEN = "ghp_H00kC0mmandT0ken9aBcDeFgHiJkLmNoP"
STORED_TOKEN = "ghp_St0redCr3dent1alZ9yX8wV7uT6sR5qP"

# A word of the command, per spelling; each hook ignores its arguments.
WORDS = {
    "an exported token in a header": f"Authorization: Bearer {GITHUB_TOKEN}",
    "the provider's key as an option": f"--api-key={PROVIDER_KEY}",
    "a stored credential in a URL": f"https://octo:{STORED_TOKEN}@github.com/o/r.git",
}


@pytest.mark.parametrize("spelling", list(WORDS))
def test_a_hook_command_spelling_a_credential_is_shown_redacted(
    spelling: str, repo: Path, env: dict[str, str]
) -> None:
    Path(env["HOME"], ".git-credentials").write_text(f"https://octo:{STORED_TOKEN}@github.com\n")
    word = WORDS[spelling]
    write_json(
        global_config(env) / "hooks.json",
        {
            "UserPromptSubmit": [{"command": ["true", word]}],  # before the project's scan
            "AfterToolUse": [{"command": ["false", word]}],  # fails: the log names it
        },
    )
    full = {**env, "GITHUB_TOKEN": GITHUB_TOKEN}
    steps = [{"tool_calls": [call("read", path="README.md")]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=full) as (luxe, server):
        assert run_turn(luxe)[-1]["content"]["text"] == "done"
        commands = [f["content"]["command"] for f in luxe.frames if f["kind"] == "hook_finished"]
        assert len(commands) == 2 and all("[REDACTED:" in c[1] for c in commands), commands
        values = (GITHUB_TOKEN, PROVIDER_KEY, STORED_TOKEN)
        for value in values:
            assert not leaked(value, luxe, server), value
        assert luxe.close() == 0
    written = everything_written(env)
    assert "[REDACTED:" in written and not any(value in written for value in values)
