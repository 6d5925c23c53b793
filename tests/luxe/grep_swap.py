"""The grep tool searching while the repository swaps a name for a secret
file, through the real `luxe --rpc`: what the model and the client saw.

    shown = grep_while_swapping(hard_link_to_env, repo, env)
    assert "MARKER" not in shown
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.helpers.swap import ENV, swapping_names
from tests.luxe.policy.hostile import hostile_luxe
from tests.luxe.rpc_driver import call


def grep_while_swapping(
    plant: Callable[[Path], None],
    repo: Path,
    env: dict[str, str],
    *,
    path: str = ".",
    searches: int = 300,
) -> str:
    """Every frame but the model's own calls, and every request to the
    model, of one turn making `searches` grep calls under `path` at once while
    `swap/racy.md` (TEXT) and what `plant` plants trade places; the
    repository's `.env` holds ENV. The pattern never spells what it finds,
    so the model's own call arguments (in every later request) cannot
    count as a leak."""
    (repo / ".env").write_text(ENV)
    greps = [call("grep", pattern="M.RKER|API.KEY|TEXT", path=path)] * searches
    steps = [{"tool_calls": greps}, {"text": "done"}]
    with swapping_names(repo, plant), hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended", timeout=60.0)
        assert frames[-1]["content"]["text"] == "done", frames[-1]
        assert luxe.close() == 0
    return str([f for f in luxe.frames if f["kind"] != "tool_started"]) + str(server.bodies)
