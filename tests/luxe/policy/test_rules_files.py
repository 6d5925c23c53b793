"""Permission rules files: where they are read from, validation, the mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from luxe.policy.rules_files import (
    PermissionsFileError,
    effective_mode,
    load_permissions,
    parse_permissions,
)


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path / "home")}


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))


def test_global_always_project_only_when_trusted(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    repo = tmp_path / "repo"
    write(tmp_path / "config/luxe/permissions.json", {"deny": ["bash(rm *)"]})
    write(repo / ".luxe/permissions.json", {"allow": ["bash"], "deny": ["edit(**/*.lock)"]})
    untrusted = load_permissions(project_root=str(repo), trust_project=False, env=env)
    assert [str(r) for r in untrusted.rules.deny] == ["bash(rm *)"]
    assert untrusted.rules.allow == ()
    trusted = load_permissions(project_root=str(repo), trust_project=True, env=env)
    assert [str(r) for r in trusted.rules.deny] == ["bash(rm *)", "edit(**/*.lock)"]
    assert [str(r) for r in trusted.rules.allow] == ["bash"]
    assert trusted.rules.deny[1].source.endswith(".luxe/permissions.json")


def test_missing_files_are_fine(tmp_path: Path) -> None:
    loaded = load_permissions(project_root=str(tmp_path), trust_project=True, env=env_for(tmp_path))
    assert loaded.files == () and effective_mode(None, loaded) == "ask"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ('{\n  "allow": ["bash(git status*)",\n}', 3, "not valid JSON"),
        ('{\n  "allow": [\n    "read",\n    "bash(git status*"\n  ]\n}', 4, "missing `)`"),
        ('{\n  "deny": "bash"\n}', 2, "must be a list"),
        ('{\n  "allow": [],\n  "mode": "sometimes"\n}', 3, "mode must be one of"),
        ('{\n  "alow": []\n}', 2, "unknown key 'alow'"),
        ('{\n  "ask": [\n    42\n  ]\n}', 2, "must be a string"),
        ("[]", 1, "expected a JSON object"),
    ],
)
def test_invalid_files_name_file_line_and_reason(text: str, line: int, reason: str) -> None:
    with pytest.raises(PermissionsFileError) as err:
        parse_permissions("/x/permissions.json", text)
    assert err.value.line == line
    assert reason in err.value.reason
    assert str(err.value).startswith(f"/x/permissions.json:{line}: ")


def test_invalid_project_file_is_ignored_without_trust(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / ".luxe/permissions.json", "{broken")
    load_permissions(project_root=str(repo), trust_project=False, env=env_for(tmp_path))
    with pytest.raises(PermissionsFileError):
        load_permissions(project_root=str(repo), trust_project=True, env=env_for(tmp_path))


@pytest.mark.parametrize(
    ("flag", "global_mode", "project_mode", "expected"),
    [
        (None, None, None, "ask"),
        ("yolo", None, None, "yolo"),
        ("yolo", "read-only", None, "read-only"),  # read-only in a file wins over flags
        ("accept-edits", None, "read-only", "read-only"),
        ("yolo", "ask", None, "yolo"),  # otherwise flags win
        (None, "accept-edits", None, "accept-edits"),
        (None, None, "yolo", "ask"),  # a project cannot loosen
        ("yolo", None, "ask", "ask"),  # ...but may tighten
    ],
)
def test_effective_mode(
    tmp_path: Path,
    flag: str | None,
    global_mode: str | None,
    project_mode: str | None,
    expected: str,
) -> None:
    repo = tmp_path / "repo"
    if global_mode:
        write(tmp_path / "config/luxe/permissions.json", {"mode": global_mode})
    if project_mode:
        write(repo / ".luxe/permissions.json", {"mode": project_mode})
    loaded = load_permissions(project_root=str(repo), trust_project=True, env=env_for(tmp_path))
    assert effective_mode(flag, loaded) == expected
