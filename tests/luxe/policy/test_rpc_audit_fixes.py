"""Leaks found by the permissions/hooks audit, each proven closed through the
real `luxe --rpc` and the loopback model server (what the model receives)."""

from __future__ import annotations

from pathlib import Path

from .e2e import call, global_config, luxe_on_fake_model, tool_results, write_json

SECRET = "sk-live-9b1e77d2c4aa"


def seed_env(repo: Path) -> None:
    (repo / ".env").write_text(f"API_KEY={SECRET}\n")


def test_hook_context_is_redacted_before_model_and_client(repo: Path, env: dict[str, str]) -> None:
    seed_env(repo)
    says = "cat >/dev/null; printf '{\"context\":\"%s: %s\"}' {} \"$(head -1 .env)\""
    write_json(
        global_config(env) / "hooks.json",
        {
            "AfterToolUse": [{"command": ["sh", "-c", says.replace("{}", "lint")]}],
            "UserPromptSubmit": [{"command": ["sh", "-c", says.replace("{}", "ctx")]}],
        },
    )
    steps = [{"tool_calls": [call("read", path="README.md")]}, {"text": "ok"}]
    with luxe_on_fake_model(steps, cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "read it"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        first, second = server.bodies
        assert "ctx: API_KEY=[REDACTED:API_KEY]" in str(first)
        assert "lint: API_KEY=[REDACTED:API_KEY]" in tool_results(second)[0]
        assert SECRET not in str(server.bodies)
        assert SECRET not in str(luxe.frames)
        assert luxe.close() == 0
