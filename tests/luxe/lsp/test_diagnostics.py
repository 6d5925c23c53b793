"""Diagnostics on edit in-process: real ruff and basedpyright, and the
fake server of tests/fakes/lsp_server.py for what real servers do not do on
demand (crash on start, never answer)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import trio

from luxe.protocol import events as ev
from tests.fakes import LSP_SERVER as FAKE
from tests.luxe.lsp.edit_diagnostics import Frames, edit_session, only
from tests.luxe.rpc_driver import make_env, processes_with_marker, wait_until

BIN = Path(sys.executable).parent
needs_ruff = pytest.mark.skipif(
    shutil.which("ruff", path=str(BIN)) is None, reason="ruff comes with the test extra"
)
needs_basedpyright = pytest.mark.skipif(
    shutil.which("basedpyright-langserver", path=str(BIN)) is None,
    reason="basedpyright comes with the test extra",
)


def fake(mode: str, *ext: str) -> dict[str, Any]:
    return {"ext": list(ext), "command": [sys.executable, FAKE, mode]}


async def until_ended(frames: Frames, name: str, timeout_s: float = 30) -> None:
    """Wait until server `name`'s last state says it ended (failed or stopped)."""
    with trio.fail_after(timeout_s):
        while states(frames, name)[-1:] not in (["failed"], ["stopped"]):
            await frames.changed.wait()


def states(frames: list[ev.DiagnosticsServers], name: str) -> list[str]:
    """The successive states of server `name` (repeats folded)."""
    seen: list[str] = []
    for frame in frames:
        for server in frame.servers:
            if server.name == name and (not seen or seen[-1] != server.state):
                seen.append(server.state)
    return seen


async def running(frames: Frames, *names: str) -> None:
    """Wait (at most a minute) until every server of `names` has run."""
    with trio.fail_after(60):
        while not all("running" in states(frames, name) for name in names):
            await frames.changed.wait()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return make_env(tmp_path, FAKE_LSP_STARTS=str(tmp_path / "starts"))


def starts(env: Mapping[str, str]) -> int:
    path = Path(env["FAKE_LSP_STARTS"])
    return len(path.read_text().splitlines()) if path.exists() else 0


def survivors(env: Mapping[str, str]) -> list[int]:
    return processes_with_marker("", scope=env)


@needs_ruff
async def test_fresh_diagnostics_after_each_edit_and_servers_end_with_the_session(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = tmp_path / "app.py"
    async with edit_session(tmp_path, only("ruff"), env) as (diagnostics, frames):
        source.write_text("import os\nvalue = undefined_name\n")
        found = await diagnostics.after_edit(str(source))
        assert found is not None
        assert (
            found.splitlines()[1] == "app.py:2:9: error [Ruff F821] Undefined name `undefined_name`"
        )
        assert "F401" in found
        source.write_text("value = 1\n")
        assert await diagnostics.after_edit(str(source)) is None  # not stale
        assert await diagnostics.after_edit(str(tmp_path / "notes.md")) is None  # no server for it
        assert survivors(env)
        assert states(frames, "ruff") == ["starting", "running"]
    assert wait_until(lambda: not survivors(env), what="no server left")


@needs_ruff
async def test_a_file_named_like_an_option_is_only_ever_a_uri(
    tmp_path: Path, env: dict[str, str]
) -> None:
    async with edit_session(tmp_path, only("ruff"), env) as (diagnostics, _):
        for name in ("--version.py", "-rf.py", "--config=x.py"):
            source = tmp_path / name
            source.write_text("print(undefined_name)\n")
            found = await diagnostics.after_edit(str(source))
            assert found is not None and f"{name}:1:7: error [Ruff F821]" in found, name


@needs_ruff
@needs_basedpyright
async def test_ruff_and_basedpyright_merge_on_one_file(tmp_path: Path, env: dict[str, str]) -> None:
    source = tmp_path / "app.py"
    async with edit_session(tmp_path, only("ruff", "basedpyright"), env) as (diagnostics, _):
        source.write_text("count: int = 'three'\nprint(missing)\n")
        found = await diagnostics.after_edit(str(source))
        assert found is not None
        lines = found.splitlines()
        assert lines[0].startswith("Diagnostics for app.py (ruff, basedpyright): ")
        assert any("error [basedpyright reportAssignmentType]" in line for line in lines)
        assert "app.py:2:7: error [Ruff F821] Undefined name `missing`" in lines
        # basedpyright reports `missing` too, in its own words.
        assert any("error [basedpyright reportUndefinedVariable]" in line for line in lines)
        source.write_text("count: int = 3\nprint(count)\n")
        assert await diagnostics.after_edit(str(source)) is None


async def test_a_server_added_in_settings_checks_its_extension(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = tmp_path / "main.zz"
    async with edit_session(tmp_path, only(zz=fake("serve", ".zz")), env) as (diagnostics, frames):
        source.write_text("fine\nBAD here\n")
        assert await diagnostics.after_edit(str(source)) == (
            "Diagnostics for main.zz (zz): 1 error(s), 0 warning(s)\n"
            "main.zz:2:1: error [fake F1] bad word"
        )
        source.write_text("fine\n")
        assert await diagnostics.after_edit(str(source)) is None
        assert starts(env) == 1  # warm: one process for both edits
        assert frames[-1].servers == [ev.DiagnosticsServerState("zz", str(tmp_path), "running")]


async def test_a_server_crashing_on_start_is_tried_three_times_then_left_out(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = tmp_path / "main.zz"
    source.write_text("BAD\n")
    settings = only(crashy=fake("crash", ".zz"), zz=fake("serve", ".zz"))
    async with edit_session(tmp_path, settings, env) as (diagnostics, frames):
        found = await diagnostics.after_edit(str(source))
        assert found is not None
        assert found.splitlines() == [
            "Diagnostics for main.zz (zz): 1 error(s), 0 warning(s)",
            "main.zz:1:1: error [fake F1] bad word",
            "crashy stopped; its diagnostics are off for .zz",
        ]
        # Once said, not repeated; and never started again.
        found = await diagnostics.after_edit(str(source))
        assert found is not None and "crashy" not in found
        assert starts(env) == 1 + 3
        assert states(frames, "crashy") == [
            "starting",
            "failed",
            "starting",
            "failed",
            "starting",
            "stopped",
        ]
        stopped = next(s for s in frames[-1].servers if s.name == "crashy")
        assert stopped.detail == "exited with status 3: fake server crashed on start"


async def test_a_server_crashing_in_use_is_restarted_twice_then_left_out(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = tmp_path / "main.zz"
    async with edit_session(tmp_path, only(zz=fake("flaky", ".zz")), env) as (diagnostics, frames):
        for n in range(3):  # each start answers one edit, then dies
            source.write_text(f"{n}\nBAD\n")
            found = await diagnostics.after_edit(str(source))
            assert found is not None and "main.zz:2:1: error [fake F1] bad word" in found, n
            # The next edit is for the restart once the death was seen: on a
            # loaded machine, one sent before is the dying server's to fail.
            await until_ended(frames, "zz")
        source.write_text("BAD\n")
        assert await diagnostics.after_edit(str(source)) == "zz stopped; diagnostics off for .zz"
        assert await diagnostics.after_edit(str(source)) is None  # said once
        assert starts(env) == 3
        assert states(frames, "zz") == ["starting", "running", "failed"] * 2 + [
            "starting",
            "running",
            "stopped",
        ]
    assert wait_until(lambda: not survivors(env), what="no server left")


async def test_a_server_talking_nonsense_costs_only_its_own_diagnostics(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = tmp_path / "main.zz"
    source.write_text("BAD\n")
    settings = only(junk=fake("garbage", ".zz"), zz=fake("serve", ".zz"))
    async with edit_session(tmp_path, settings, env) as (diagnostics, frames):
        found = await diagnostics.after_edit(str(source))
        assert found is not None
        assert found.splitlines() == [
            "Diagnostics for main.zz (zz): 1 error(s), 0 warning(s)",
            "main.zz:1:1: error [fake F1] bad word",
            "junk stopped; its diagnostics are off for .zz",
        ]
        junk = next(s for s in frames[-1].servers if s.name == "junk")
        assert junk.state == "stopped" and junk.detail is not None
        assert junk.detail.startswith("unreadable output: ")
    assert wait_until(lambda: not survivors(env), what="no server left")


async def test_a_server_that_never_answers_costs_the_timeout_and_is_not_restarted(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = tmp_path / "main.zz"
    source.write_text("BAD\n")
    settings = only(mute=fake("silent", ".zz"), deaf=fake("deaf", ".zz"), zz=fake("serve", ".zz"))
    async with edit_session(tmp_path, settings, env, timeout_s=1) as (diagnostics, frames):
        first = await diagnostics.after_edit(str(source))
        assert first is not None and "(mute is still starting; skipped this time)" in first
        await running(frames, "zz", "deaf")  # a loaded machine may take over 1 s to start them
        for _ in range(2):
            found = await diagnostics.after_edit(str(source))
            assert found is not None
            assert found.splitlines() == [
                "Diagnostics for main.zz (zz): 1 error(s), 0 warning(s)",
                "main.zz:1:1: error [fake F1] bad word",
                "(mute is still starting; skipped this time)",
                "(deaf did not answer within 1s; skipped this time)",
            ]
        assert starts(env) == 3  # each once: waited on, never restarted
    assert wait_until(lambda: not survivors(env), what="no server left")


@needs_ruff
async def test_one_server_per_project_root(tmp_path: Path, env: dict[str, str]) -> None:
    for package in ("api", "worker"):
        (tmp_path / package / "src").mkdir(parents=True)
        (tmp_path / package / "pyproject.toml").write_text("")
    async with edit_session(tmp_path, only("ruff"), env) as (diagnostics, frames):
        for package in ("api", "worker", "api"):
            source = tmp_path / package / "src" / "m.py"
            source.write_text("print(nope)\n")
            found = await diagnostics.after_edit(str(source))
            assert found is not None and f"{package}/src/m.py:1:7: error [Ruff F821]" in found
        roots = {(s.name, s.root, s.state) for s in frames[-1].servers}
        assert roots == {
            ("ruff", str(tmp_path / "api"), "running"),
            ("ruff", str(tmp_path / "worker"), "running"),
        }
        cwds = {os.readlink(f"/proc/{pid}/cwd") for pid in processes_with_marker("ruff", scope=env)}
        assert cwds == {str(tmp_path / "api"), str(tmp_path / "worker")}


async def test_the_same_text_again_is_answered_without_waiting_for_a_publish(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = tmp_path / "main.zz"
    source.write_text("BAD\n")
    settings = only(zz=fake("serve", ".zz"))
    async with edit_session(tmp_path, settings, env, timeout_s=10) as (diagnostics, _):
        first = await diagnostics.after_edit(str(source))
        assert first is not None and "bad word" in first
        # Written again unchanged: this server stays silent; the answer stands.
        assert await diagnostics.after_edit(str(source)) == first


async def test_a_server_runs_with_no_relative_path_entry(
    tmp_path: Path, env: dict[str, str]
) -> None:
    # The server runs in the project: `.` or `bin` on its PATH would let the
    # repository supply the programs it starts.
    env = {**env, "PATH": f".:bin:{env['PATH']}"}
    source = tmp_path / "main.zz"
    source.write_text("ok\n")
    async with edit_session(tmp_path, only(zz=fake("serve", ".zz")), env) as (diagnostics, _):
        assert await diagnostics.after_edit(str(source)) is None
        (pid,) = processes_with_marker(FAKE, scope=env)
        raw = await trio.Path(f"/proc/{pid}/environ").read_bytes()
    environ = dict(entry.split(b"=", 1) for entry in raw.split(b"\0") if b"=" in entry)
    entries = environ[b"PATH"].decode().split(":")
    assert entries and all(entry.startswith("/") for entry in entries)
    assert str(BIN) in entries
