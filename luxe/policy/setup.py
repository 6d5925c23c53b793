"""Building the session's policy from flags and files (used by luxe.app).

`build_gate` raises `PermissionsFileError` for an invalid rules file: the
session must refuse to start rather than run with a policy the user did not
write. `build_hook_config` never raises: broken hook definitions are skipped
and listed in `HookConfig.errors` for the client to see.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from luxe.policy.hooks_config import HookConfig, load_hooks
from luxe.policy.permissions import PolicyGate
from luxe.policy.rules_files import effective_mode, load_permissions
from luxe.policy.secret_sources import environment_credentials, relocated_secret_files
from luxe.policy.secrets import SecretFiles
from luxe.policy.stored_tokens import StoredTokens


def project_root(cwd: Path) -> Path:
    """The repository holding `cwd` (where `.luxe/` lives), else `cwd`."""
    for candidate in (cwd, *cwd.parents):
        if (candidate / ".git").exists():
            return candidate
    return cwd


def build_gate(
    *, cwd: Path, flag_mode: str | None, trust_project: bool, env: Mapping[str, str]
) -> PolicyGate:
    root = project_root(cwd)
    home = env.get("HOME") or os.path.expanduser("~")
    secret_files = SecretFiles(
        str(root),
        home=home,
        elsewhere=tuple(relocated_secret_files(env, str(cwd))),
        extra_values=tuple(environment_credentials(env)),
        stored=StoredTokens(env, home),
    )
    loaded = load_permissions(project_root=str(root), trust_project=trust_project, env=env)
    return PolicyGate(
        root=str(root),
        cwd=str(cwd),
        permission_mode=effective_mode(flag_mode, loaded),
        rules=loaded.rules,
        redactor=secret_files.redactor,
        secret_files=secret_files,
        home=home,
    )


def build_hook_config(*, cwd: Path, trust_project: bool, env: Mapping[str, str]) -> HookConfig:
    return load_hooks(project_root=str(project_root(cwd)), trust_project=trust_project, env=env)
