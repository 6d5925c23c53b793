"""program_path: the environment every child of Luxe and Laura gets. Each
search path a child resolves against its working directory keeps only its
absolute entries, in every spelling of a relative one; and an empty result
never names the directory itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import program_path

SPELLINGS = [":/usr/bin", "/usr/bin:", "/usr/bin::/bin", ".:/usr/bin", "bin:/usr/bin", "../x:/usr/bin"]


@pytest.mark.parametrize("name", program_path.SEARCH_PATHS)
@pytest.mark.parametrize("value", SPELLINGS)
def test_each_search_path_keeps_only_its_absolute_entries(name: str, value: str) -> None:
    cut = program_path.environment({name: value, "OTHER": ".:x"})[name]
    assert cut.split(os.pathsep) == [p for p in value.split(os.pathsep) if p.startswith("/")]


@pytest.mark.parametrize("value", ["", ".", "bin:lib", ":"])
def test_nothing_left_is_never_the_working_directory(value: str) -> None:
    env = program_path.environment({"PATH": value, "PYTHONPATH": value, "LD_LIBRARY_PATH": value})
    assert env["PATH"] == os.defpath
    assert "PYTHONPATH" not in env and "LD_LIBRARY_PATH" not in env


def test_other_variables_and_a_missing_path_are_left_alone() -> None:
    assert program_path.environment({"OTHER": ".:x"}) == {"OTHER": ".:x"}


def test_which_looks_in_absolute_entries_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planted = tmp_path / "git"
    planted.write_text("#!/bin/sh\n")
    planted.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert program_path.which("git", {"PATH": ":."}) is None
    found = program_path.which("git", {"PATH": f".:{os.defpath}"})
    assert found is None or (os.path.isabs(found) and not found.startswith(str(tmp_path)))
