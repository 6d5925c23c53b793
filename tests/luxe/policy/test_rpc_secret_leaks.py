"""Secret values never reach the model or the client: through hook context,
hard links, grep, bash searches, new or changed secret files and common
encodings. Each leak is proven closed through the real `luxe --rpc` and the
loopback model server (what the model receives)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .e2e import call, finished_frames, global_config, luxe_on_fake_model, tool_results, write_json

SECRET = "sk-live-9b1e77d2c4aa"


def tool_output(frames: list[dict[str, Any]]) -> str:
    """What the client was shown of tool output (not the model's own call
    arguments, which may quote whatever the model guessed)."""
    kinds = ("tool_output_delta", "tool_finished", "hook_finished")
    return str([f for f in frames if f["kind"] in kinds])


def seed_env(repo: Path) -> None:
    (repo / ".env").write_text(f"API_KEY={SECRET}\n")


def test_hook_context_is_redacted_before_model_and_client(repo: Path, env: dict[str, str]) -> None:
    seed_env(repo)
    says = 'cat >/dev/null; printf \'{"context":"%s: %s"}\' {} "$(head -1 .env)"'
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


def test_hard_link_to_env_is_refused_like_a_symlink(repo: Path, env: dict[str, str]) -> None:
    seed_env(repo)
    os.link(repo / ".env", repo / "hard")
    (repo / "sub").mkdir()
    os.link(repo / ".env", repo / "sub" / "notes.txt")
    calls = [
        call("read", path="hard"),
        call("read", path="sub/notes.txt"),
        call("edit", path="hard", old_string=f"API_KEY={SECRET}", new_string="API_KEY=pwned"),
        call("write", path="sub/notes.txt", content="API_KEY=pwned\n"),
        call("bash", command="base64 hard"),
        call("bash", command="cat hard | tr a-z A-Z"),
        call("bash", command="echo INJECT=1 >> hard"),
        call("bash", command="rev sub/notes.txt"),
        call("bash", command='printf %s "$(<h"ard")" | fold -w3'),
    ]
    steps = [{"tool_calls": calls}, {"text": "done"}]
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "find the key"})
        frames = luxe.collect_until("turn_ended")
        done = finished_frames(frames)
        assert [d["denied"] for d in done] == [True] * len(calls), done
        assert all("secret file" in d["summary"] for d in done)
        assert (repo / ".env").read_text() == f"API_KEY={SECRET}\n"
        assert all("secret file" in r for r in tool_results(server.bodies[-1]))
        results = "".join(tool_results(server.bodies[-1]))
        assert SECRET not in results and SECRET.upper() not in results
        assert SECRET not in tool_output(luxe.frames)
        assert luxe.close() == 0


def test_a_env_that_is_a_symlink_guards_the_file_it_points_to(
    tmp_path: Path, repo: Path, env: dict[str, str]
) -> None:
    """The person's `.env` is a link to the file holding the values, in the
    project under a plain name or outside it (`.env.local -> ../shared.env`).
    The walk skipped every symlink not to a directory, so Luxe knew neither
    the target nor its values: `.env` was refused by its name, while `read
    config/values.txt` showed the value, and a program reading the link
    printed it unredacted."""
    (repo / "config").mkdir()
    (repo / "config" / "values.txt").write_text(f"API_KEY={SECRET}\n")
    (repo / ".env").symlink_to("config/values.txt")
    (tmp_path / "shared.env").write_text("SHARED=shared-Vw83kLp2q\n")
    (repo / ".env.local").symlink_to(tmp_path / "shared.env")
    calls = [
        call("read", path="config/values.txt"),
        call("bash", command="cat config/values.txt"),
        call("bash", command=f"cat {tmp_path / 'shared.env'}"),
        call("bash", command="python3 -c \"print(open('.'+'env').read(), open('.'+'env.local').read())\""),
    ]
    steps = [{"tool_calls": calls}, {"text": "done"}]
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "find the key"})
        done = finished_frames(luxe.collect_until("turn_ended"))
        assert [d["denied"] for d in done] == [True, True, True, False], done
        results = tool_results(server.bodies[-1])
        assert "API_KEY=[REDACTED:API_KEY]" in results[3]
        assert "SHARED=[REDACTED:SHARED]" in results[3]
        for value in (SECRET, "shared-Vw83kLp2q"):
            assert value not in str(server.bodies)
            assert value not in tool_output(luxe.frames)
        assert luxe.close() == 0


def test_grep_tool_skips_secret_files_and_says_so(repo: Path, env: dict[str, str]) -> None:
    seed_env(repo)
    os.link(repo / ".env", repo / "hard")
    calls = [
        call("grep", pattern="sk-live"),
        call("grep", pattern="API_KEY=sk-live-9b1e77d2c4a[a-f]", path="."),
        call("grep", pattern="demo"),
    ]
    steps = [{"tool_calls": calls}, {"text": "done"}]
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "search"})
        frames = luxe.collect_until("turn_ended")
        done = sorted(finished_frames(frames), key=lambda d: d["call_id"])
        assert [d["summary"] for d in done[:2]] == ["0 matches", "0 matches"]
        assert done[2]["summary"] != "0 matches"  # the search itself still works
        results = tool_results(server.bodies[-1])
        assert all("[2 secret files skipped]" in r for r in results), results
        assert "README.md" in results[2]
        assert "REDACTED" not in str(server.bodies)  # no secret line was even found
        assert luxe.close() == 0


MAKE_ENV_LOCAL = "python3 -c \"open('.'+'env.local','w').write('TOKEN=freshtoken4242')\""


def test_secret_values_are_refreshed_when_secret_files_appear_or_change(
    repo: Path, env: dict[str, str]
) -> None:
    seed_env(repo)
    steps = [
        # Naming `.env.local` would be refused; building the name at run time is not.
        {"tool_calls": [call("bash", command=MAKE_ENV_LOCAL)]},
        {"tool_calls": [call("bash", command="echo token is freshtoken4242")]},
        {"text": "made it"},
        {"tool_calls": [call("bash", command="echo rotated is rotatedkey777")]},
        {"text": "done"},
    ]
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "make a token"})
        luxe.collect_until("turn_ended")
        # The user rotates the key while the session runs.
        (repo / ".env").write_text("API_KEY=rotatedkey777\n")
        luxe.send("submit_user_message", {"text": "show it"})
        luxe.collect_until("turn_ended")
        results = tool_results(server.bodies[-1])
        assert "token is [REDACTED:TOKEN]" in results[1]
        assert "rotated is [REDACTED:API_KEY]" in results[2]
        for value in ("freshtoken4242", "rotatedkey777"):
            assert value not in "".join(results)
            assert value not in tool_output(luxe.frames)
        assert luxe.close() == 0


def test_bash_recursive_search_over_a_secret_file_is_refused_unless_excluded(
    repo: Path, env: dict[str, str]
) -> None:
    seed_env(repo)
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("API = 1\n")
    os.link(repo / ".env", repo / "src" / "cfg")
    refused = [
        "grep -rl sk-live-9b1e77d2c4a .",
        "grep -rc API",
        "grep -r API src",  # src holds only a hard link to .env
        "cd src && grep -rn API . | wc -l",
        "rg -c API",
        "git grep --untracked -c API",
    ]
    allowed = ["grep -rn --exclude=cfg API src", "grep -rn sk-live README.md"]
    calls = [call("bash", command=c) for c in [*refused, *allowed]]
    with luxe_on_fake_model(
        [{"tool_calls": calls}, {"text": "ok"}], "--yolo", cwd=repo, env=env
    ) as (
        luxe,
        server,
    ):
        luxe.send("submit_user_message", {"text": "search"})
        frames = luxe.collect_until("turn_ended")
        done = sorted(finished_frames(frames), key=lambda d: d["call_id"])
        assert [d["denied"] for d in done] == [True] * len(refused) + [False] * len(allowed)
        results = tool_results(server.bodies[-1])
        assert all("secret file" in r for r in results[: len(refused)])
        assert "src/app.py:1:API = 1" in results[-2] and "cfg" not in results[-2]
        assert SECRET not in "".join(results)
        assert luxe.close() == 0


LEAK_ENCODED = (
    "python3 -c \"import base64; d = open('.'+'env').read(); "
    "print(base64.b64encode(d.encode()).decode()); print(d.upper()); print(d[::-1]); "
    "print(d.encode().hex()); print(base64.b64encode(('x'+d).encode()).decode())\""
)


def test_common_encodings_of_a_secret_are_redacted(repo: Path, env: dict[str, str]) -> None:
    """bash is no sandbox: a name built at run time is not recognised, so the
    last line is redaction, which also catches the common encodings."""
    import base64

    seed_env(repo)
    steps = [{"tool_calls": [call("bash", command=LEAK_ENCODED)]}, {"text": "ok"}]
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "encode it"})
        luxe.collect_until("turn_ended")
        result = tool_results(server.bodies[-1])[0]
        assert result.count("[REDACTED:API_KEY]") == 5, result
        shown = result + tool_output(luxe.frames)
        for form in (SECRET, SECRET.upper(), SECRET[::-1], SECRET.encode().hex()):
            assert form not in shown
        middle = base64.b64encode(SECRET.encode()).decode()[4:-4]  # any alignment's core
        assert middle not in shown
        assert luxe.close() == 0
