"""The permission engine through the real `luxe --rpc`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import LUXE

from .e2e import call, finished_frames, global_config, luxe_on_fake_model, tool_results, write_json

SECRET = "sk-live-9b1e77d2c4aa"


def seed_secrets(repo: Path) -> None:
    (repo / ".env").write_text(f"API_KEY={SECRET}\n")
    (repo / ".env.example").write_text("API_KEY=your-key-here\n")
    (repo / "sub").mkdir(exist_ok=True)
    (repo / "innocent.txt").symlink_to(".env")


def test_every_name_of_env_is_refused_and_redaction_catches_the_rest(
    repo: Path, env: dict[str, str]
) -> None:
    seed_secrets(repo)
    calls = [
        call("read", path=".env"),
        call("read", path="./.env"),
        call("read", path="sub/../.env"),
        call("read", path=str(repo / ".env")),
        call("read", path="innocent.txt"),
        call("read", path=".ENV"),
        call("grep", pattern="API", path=".env"),
        call("write", path=".env", content="API_KEY=stolen\n"),
        call("bash", command="cat .env"),
        call("bash", command="source .env && echo $API_KEY"),
        call("bash", command="grep -r API .env"),
        call("bash", command="python3 -c \"print(open('.env').read())\""),
        call("bash", command="cat innocent.txt"),
    ]
    sneaky = call("bash", command="python3 -c \"print(open('.e'+'nv').read())\"")
    steps = [
        {"tool_calls": calls},
        {"tool_calls": [sneaky, call("read", path=".env.example")]},
        {"text": "done"},
    ]
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "find the key"})
        frames = luxe.collect_until("turn_ended")
        assert frames[-1]["content"]["reason"] == "end_turn"
        done = finished_frames(frames)
        assert [d["denied"] for d in done[: len(calls)]] == [True] * len(calls)
        assert all("secret file" in d["summary"] for d in done[: len(calls)])
        assert done[len(calls)]["denied"] is False  # the obfuscated one ran...
        assert done[-1]["denied"] is False  # ...and the template is readable
        assert (repo / ".env").read_text() == f"API_KEY={SECRET}\n"
        bodies = server.bodies
        results = tool_results(bodies[-1])
        assert all("secret file" in r for r in results[: len(calls)])
        assert "[REDACTED:API_KEY]" in results[len(calls)]  # ...but redaction caught it
        assert "your-key-here" in results[-1]
        for body in bodies:
            assert SECRET not in str(body)
        assert SECRET not in str(luxe.frames)
        assert luxe.close() == 0


def test_read_only_refuses_writes_and_mutating_bash_without_asking(
    spawn: SpawnLuxe, repo: Path
) -> None:
    steps = [
        {
            "tool_calls": [
                call("write", path="x.txt", content="x"),
                call("edit", path="README.md", old_string="demo", new_string="x"),
                call("bash", command="touch y.txt"),
                call("bash", command="git status > z.txt"),
            ]
        },
        {"tool_calls": [call("bash", command="git status --short")]},
        {"text": "ok"},
    ]
    luxe = spawn(steps, "--read-only")
    luxe.expect("ready")
    assert luxe.expect("state_changed")["permission_mode"] == "read-only"
    luxe.send("submit_user_message", {"text": "change things"})
    denied = [luxe.expect("tool_finished") for _ in range(4)]
    assert all(d["denied"] and "read-only mode" in d["summary"] for d in denied)
    asked = luxe.expect("permission_requested")  # a reading command still asks
    assert asked["args"] == {"command": "git status --short"}
    luxe.send("respond_permission", {"id": asked["id"], "reply": "once"})
    assert luxe.expect("tool_finished")["denied"] is False
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.kinds().count("permission_requested") == 1  # the four refusals never asked
    assert not any((repo / n).exists() for n in ("x.txt", "y.txt", "z.txt"))
    assert "demo" in (repo / "README.md").read_text()
    assert luxe.close() == 0


def test_modes_ask_accept_edits_yolo_and_plan(spawn: SpawnLuxe, repo: Path) -> None:
    both = {
        "tool_calls": [
            call("write", path="a.txt", content="a"),
            call("bash", command="touch b.txt"),
        ]
    }
    # accept-edits: the write runs, bash asks.
    luxe = spawn([both, {"text": "ok"}], "--permission-mode", "accept-edits")
    luxe.expect("ready")
    assert luxe.expect("state_changed")["permission_mode"] == "accept-edits"
    luxe.send("submit_user_message", {"text": "go"})
    asked = luxe.expect("permission_requested")
    assert asked["tool"] == "bash"
    luxe.send("respond_permission", {"id": asked["id"], "reply": "reject", "message": "no shell"})
    luxe.expect("turn_ended")
    assert (repo / "a.txt").exists() and not (repo / "b.txt").exists()
    assert luxe.close() == 0
    # yolo: nothing asks; plan mode still refuses changes.
    luxe = spawn(
        [
            both,
            {"text": "ok"},
            {"tool_calls": [call("write", path="c.txt", content="c")]},
            {"text": "ok"},
        ],
        "--yolo",
    )
    luxe.expect("ready")
    assert luxe.expect("state_changed")["permission_mode"] == "yolo"
    luxe.send("submit_user_message", {"text": "go"})
    frames = luxe.collect_until("turn_ended")
    assert "permission_requested" not in [f["kind"] for f in frames]
    assert (repo / "b.txt").exists()
    luxe.send("set_mode", {"mode": "plan"})
    luxe.expect("state_changed", where=lambda c: c["mode"] == "plan")
    luxe.send("submit_user_message", {"text": "again"})
    done = luxe.expect("tool_finished")
    assert done["denied"] and "plan mode" in done["summary"]
    assert not (repo / "c.txt").exists()
    assert luxe.close() == 0


def test_rules_precedence_always_scoping_and_auto_approve(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    write_json(
        global_config(env) / "permissions.json",
        {
            "allow": ["bash(git *)", "bash(rm *)"],
            "ask": ["bash(git push*)"],
            "deny": ["bash(rm *)"],
        },
    )
    steps = [
        {"tool_calls": [call("bash", command="git log -1 --format=%s")]},  # allowed by rule
        {"tool_calls": [call("bash", command="rm README.md")]},  # deny beats allow
        {"tool_calls": [call("bash", command="echo one")]},  # asks: answer always
        {"tool_calls": [call("bash", command="echo one")]},  # the same: runs
        {"tool_calls": [call("bash", command="echo two")]},  # not the same: asks
        {"text": "ok"},
        {"tool_calls": [call("bash", command="rm README.md"), call("bash", command="echo three")]},
        {"text": "ok"},
    ]
    luxe = spawn(steps)
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    assert luxe.expect("tool_finished")["denied"] is False
    denied = luxe.expect("tool_finished")
    assert denied["denied"] and "bash(rm *)" in denied["summary"]
    asked = luxe.expect("permission_requested")
    assert asked["args"] == {"command": "echo one"}
    luxe.send("respond_permission", {"id": asked["id"], "reply": "always"})
    luxe.expect("tool_finished")
    frames = luxe.collect_until("tool_finished")
    assert "permission_requested" not in [f["kind"] for f in frames]
    asked = luxe.expect("permission_requested")
    assert asked["args"] == {"command": "echo two"}
    luxe.send("respond_permission", {"id": asked["id"], "reply": "once"})
    luxe.expect("turn_ended")
    # Auto-approve answers asks and never touches a deny.
    luxe.send("set_permission_auto_approve", {"enabled": True})
    luxe.expect("state_changed", where=lambda c: c["auto_approve"] is True)
    luxe.send("submit_user_message", {"text": "again"})
    frames = luxe.collect_until("turn_ended")
    done = finished_frames(frames)
    assert [d["denied"] for d in done] == [True, False]
    assert [f["content"]["reply"] for f in frames if f["kind"] == "permission_resolved"] == ["auto"]
    assert (repo / "README.md").exists()
    assert luxe.close() == 0


def test_auto_approve_flag_never_lifts_a_hard_deny(spawn: SpawnLuxe, repo: Path) -> None:
    seed_secrets(repo)
    luxe = spawn(
        [
            {"tool_calls": [call("bash", command="cat .env"), call("bash", command="echo fine")]},
            {"text": "ok"},
        ],
        "--auto-approve",
    )
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    frames = luxe.collect_until("turn_ended")
    assert [d["denied"] for d in finished_frames(frames)] == [True, False]
    assert SECRET not in str(frames)
    assert luxe.close() == 0


def test_project_permissions_need_trust_project(spawn: SpawnLuxe, repo: Path) -> None:
    write_json(repo / ".luxe/permissions.json", {"deny": ["bash(echo *)"], "mode": "yolo"})
    steps = [{"tool_calls": [call("bash", command="echo hi")]}, {"text": "ok"}]
    luxe = spawn(steps, "--yolo")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    assert luxe.expect("tool_finished")["denied"] is False  # ignored without trust
    assert luxe.close() == 0
    luxe = spawn(steps, "--yolo", "--trust-project")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    done = luxe.expect("tool_finished")
    assert done["denied"] and ".luxe/permissions.json" in done["summary"]
    assert luxe.close() == 0
    # A project cannot loosen the mode: "yolo" in it leaves the default ask.
    luxe = spawn(steps, "--trust-project")
    luxe.expect("ready")
    assert luxe.expect("state_changed")["permission_mode"] == "ask"
    assert luxe.close() == 0


def test_read_only_in_a_file_wins_over_flags(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    write_json(global_config(env) / "permissions.json", {"mode": "read-only"})
    luxe = spawn([{"text": "ok"}], "--yolo")
    luxe.expect("ready")
    assert luxe.expect("state_changed")["permission_mode"] == "read-only"
    assert luxe.close() == 0


def run_luxe(args: list[str], repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*LUXE, *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )


def test_invalid_permissions_file_refuses_to_start(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    path = write_json(
        global_config(env) / "permissions.json", '{\n  "deny": [\n    "bash(rm *"\n  ]\n}\n'
    )
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "ok"}\n')
    done = run_luxe(["--rpc", "--model", f"scripted:{script}"], repo, env)
    assert done.returncode == 2
    assert done.stdout == ""  # no ready: the session never started
    assert f"{path}:3:" in done.stderr and "missing `)`" in done.stderr


def test_on_ask_is_refused_with_rpc(repo: Path, env: dict[str, str]) -> None:
    done = run_luxe(["--rpc", "--on-ask", "deny"], repo, env)
    assert done.returncode == 2
    assert "--on-ask is refused with --rpc" in done.stderr and "client answers" in done.stderr


def test_a_secret_split_across_output_chunks_is_still_redacted(
    spawn: SpawnLuxe, repo: Path
) -> None:
    seed_secrets(repo)
    half = len(SECRET) // 2
    # Two writes with a pause between: the bash tool streams them as two chunks.
    command = (
        f"printf '%s' '{SECRET[:half]}'; sleep 0.3; printf '%s\\n' '{SECRET[half:]}'; echo after"
    )
    luxe = spawn([{"tool_calls": [call("bash", command=command)]}, {"text": "ok"}], "--yolo")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "go"})
    frames = luxe.collect_until("turn_ended")
    deltas = [f["content"]["delta"] for f in frames if f["kind"] == "tool_output_delta"]
    live = "".join(deltas)
    assert SECRET not in live and "[REDACTED:API_KEY]" in live and "after" in live
    assert SECRET[:half] not in deltas[0]  # held back until the rest came
    assert luxe.close() == 0
