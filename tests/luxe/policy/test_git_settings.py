"""luxe.policy.git_settings: the settings reach real git as command-line
configuration, after the person's own, once however often they are applied."""

from __future__ import annotations

import os
import subprocess

from luxe.policy.git_settings import apply_git_settings


def _command_config(environ: dict[str, str]) -> list[str]:
    """What git itself reads as command-line configuration under `environ`."""
    done = subprocess.run(
        ["git", "config", "--show-scope", "--list"], env=environ, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [line.split("\t", 1)[1] for line in done.stdout.splitlines() if line.startswith("command\t")]


def _base() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG")}
    return {**env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def test_the_setting_is_command_line_configuration_and_applied_once() -> None:
    env = _base()
    apply_git_settings(env)
    apply_git_settings(env)
    assert _command_config(env) == ["safe.barerepository=explicit", "diff.autorefreshindex=false"]
    assert env["GIT_OPTIONAL_LOCKS"] == "0"


def test_the_persons_own_settings_stay_and_theirs_cannot_come_after() -> None:
    env = {**_base(), "GIT_CONFIG_COUNT": "2",
           "GIT_CONFIG_KEY_0": "safe.bareRepository", "GIT_CONFIG_VALUE_0": "all",
           "GIT_CONFIG_KEY_1": "core.quotePath", "GIT_CONFIG_VALUE_1": "off"}  # fmt: skip
    apply_git_settings(env)
    assert _command_config(env) == [
        "safe.barerepository=all", "core.quotepath=off", "safe.barerepository=explicit",
        "diff.autorefreshindex=false",
    ]  # fmt: skip


def test_a_bogus_count_is_replaced_so_git_still_runs() -> None:
    for bogus in ("many", "-3", ""):
        env = {**_base(), "GIT_CONFIG_COUNT": bogus}
        apply_git_settings(env)
        assert _command_config(env) == [
            "safe.barerepository=explicit", "diff.autorefreshindex=false"
        ], bogus


def test_a_persons_later_opposite_setting_is_overridden_once() -> None:
    env = {**_base(), "GIT_CONFIG_COUNT": "1",
           "GIT_CONFIG_KEY_0": "diff.autoRefreshIndex", "GIT_CONFIG_VALUE_0": "true"}  # fmt: skip
    apply_git_settings(env)
    apply_git_settings(env)
    assert _command_config(env) == [
        "diff.autorefreshindex=true", "safe.barerepository=explicit", "diff.autorefreshindex=false",
    ]  # fmt: skip
