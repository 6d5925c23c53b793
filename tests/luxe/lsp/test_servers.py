"""The server table, settings.json `lsp`, lookup on this machine and
project roots."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from luxe.config import SettingsError, load_settings
from luxe.lsp.servers import (
    LspSettings,
    configured_servers,
    find_servers,
    lsp_enabled,
    parse_lsp_settings,
    project_root,
    servers_for,
    timeout_from,
)


def program(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def names(specs: list) -> list[str]:  # type: ignore[type-arg]
    return [spec.name for spec in specs]


def test_the_first_installed_type_checker_is_the_one_that_runs(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    for name in ("ruff", "pyright-langserver", "ty"):
        program(bin_dir, name)
    env = {"PATH": str(bin_dir)}
    # (Luxe's own venv may hold basedpyright: turned off, pyright is next.)
    no_based = parse_lsp_settings({"basedpyright": {"disabled": True}})
    found = servers_for(find_servers(no_based, env), "pkg/mod.py")
    assert names(found) == ["ruff", "pyright"]
    assert found[0].command == (str(bin_dir / "ruff"), "server")
    program(bin_dir, "basedpyright-langserver")
    found = servers_for(find_servers(LspSettings(), env), "pkg/mod.py")
    assert names(found) == ["ruff", "basedpyright"]


def test_each_language_has_its_servers_in_the_table() -> None:
    table = configured_servers(LspSettings())
    expected = {
        "a.py": {"ruff", "basedpyright", "pyright", "ty"},
        "a.tsx": {"typescript-language-server"},
        "a.mjs": {"typescript-language-server"},
        "a.go": {"gopls"},
        "a.rs": {"rust-analyzer"},
        "a.cpp": {"clangd"},
        "a.h": {"clangd"},
        "a.sh": {"bash-language-server"},
        "a.md": set(),
    }
    for path, servers in expected.items():
        assert set(names(servers_for(table, path))) == servers, path


def test_a_relative_path_entry_cannot_plant_a_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A hostile repository ships its own `ruff`; a PATH with `.` or `bin` in it
    # must not make Luxe run it.
    repo = tmp_path / "repo"
    program(repo, "gopls")
    program(repo / "bin", "gopls")
    monkeypatch.chdir(repo)
    found = find_servers(LspSettings(), {"PATH": f".:bin:{tmp_path / 'nothing'}"})
    assert "gopls" not in names(found)
    settings = parse_lsp_settings({"mine": {"ext": [".x"], "command": ["bin/gopls"]}})
    assert "mine" not in names(find_servers(settings, {"PATH": "/usr/bin"}))


def test_only_an_executable_file_counts_and_the_first_on_path_wins(tmp_path: Path) -> None:
    # Earlier entries hold a `gopls` that is not a program: a file without
    # the execute bit, a directory, a FIFO; the real one comes after them,
    # and a later copy is not taken.
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "gopls").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "dir" / "gopls").mkdir(parents=True)
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / "gopls", 0o755)
    real = program(tmp_path / "real", "gopls")
    program(tmp_path / "later", "gopls")
    entries = ("plain", "dir", "fifo", "real", "later")
    env = {"PATH": os.pathsep.join(str(tmp_path / entry) for entry in entries)}
    found = [spec for spec in find_servers(LspSettings(), env) if spec.name == "gopls"]
    assert [spec.command[0] for spec in found] == [str(real)]
    env = {"PATH": os.pathsep.join(str(tmp_path / entry) for entry in entries[:3])}
    assert "gopls" not in names(find_servers(LspSettings(), env))


def test_beside_luxes_interpreter_counts_as_installed() -> None:
    found = find_servers(LspSettings(), {"PATH": ""})
    beside = Path(sys.executable).parent
    assert all(Path(spec.command[0]).parent == beside for spec in found)
    if (beside / "ruff").exists():
        assert "ruff" in names(found)


def test_settings_add_replace_and_turn_off(tmp_path: Path) -> None:
    zls = program(tmp_path / "bin", "zls")
    other_ruff = program(tmp_path / "opt", "my-ruff")
    program(tmp_path / "bin", "basedpyright-langserver")
    settings = parse_lsp_settings(
        {
            "zls": {"ext": [".zig", ".ZON"], "command": ["zls"]},
            "ruff": {"command": [str(other_ruff), "server", "--preview"]},
            "basedpyright": {"disabled": True},
        }
    )
    found = {s.name: s for s in find_servers(settings, {"PATH": str(tmp_path / "bin")})}
    assert found["zls"].command == (str(zls),)
    assert found["zls"].extensions == (".zig", ".zon")
    assert found["ruff"].command == (str(other_ruff), "server", "--preview")
    assert "basedpyright" not in found


@pytest.mark.parametrize(
    ("lsp", "problem"),
    [
        ("ruff", "`lsp` must be false or an object"),
        ({"zls": {"command": ["zls"]}}, "`lsp.zls` is a new server: it needs `command` and `ext`"),
        ({"zls": {"ext": ["zig"], "command": ["zls"]}}, 'extensions like ".zig"'),
        ({"ruff": {"command": []}}, "`lsp.ruff.command` must be a non-empty list of strings"),
        ({"ruff": {"disabled": "yes"}}, "`lsp.ruff.disabled` must be true or false"),
        ({"ruff": {"cmd": ["x"]}}, "`lsp.ruff`: unknown key(s) cmd"),
    ],
)
def test_a_bad_lsp_setting_is_refused_naming_the_file(
    tmp_path: Path, lsp: object, problem: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"lsp": lsp}))
    with pytest.raises(SettingsError) as caught:
        load_settings(path)
    assert str(path) in str(caught.value) and problem in str(caught.value)


def test_turned_off_by_settings_or_environment() -> None:
    assert load_settings(Path("/nonexistent/settings.json")).lsp == LspSettings()
    assert lsp_enabled({}, LspSettings())
    assert not lsp_enabled({"LUXE_LSP_ON_EDIT": "0"}, LspSettings())
    assert not lsp_enabled({}, parse_lsp_settings(False))
    assert configured_servers(parse_lsp_settings(False)) == []
    assert timeout_from({}) == 5.0
    assert timeout_from({"LUXE_LSP_TIMEOUT_S": "1.5"}) == 1.5
    assert timeout_from({"LUXE_LSP_TIMEOUT_S": "-1"}) == 5.0
    assert timeout_from({"LUXE_LSP_TIMEOUT_S": "nan"}) == 5.0


def test_the_nearest_marker_is_the_root_never_above_the_session(tmp_path: Path) -> None:
    session = tmp_path / "mono"
    (session / "api" / "src").mkdir(parents=True)
    (session / "web" / "src").mkdir(parents=True)
    (session / "api" / "pyproject.toml").write_text("")
    (session / "web" / "package.json").write_text("{}")
    (tmp_path / "pyproject.toml").write_text("")  # above the session: not ours
    markers = ("pyproject.toml",)
    assert project_root(session / "api" / "src" / "m.py", markers, session) == session / "api"
    assert project_root(session / "web" / "src" / "m.py", markers, session) == session
    assert project_root(session / "top.py", markers, session) == session
    assert project_root(tmp_path / "elsewhere" / "x.py", markers, session) == session
