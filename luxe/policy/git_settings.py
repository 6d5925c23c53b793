"""The settings every git Luxe runs or starts obeys, whatever a repository's
config says: it opens no repository a checkout planted, and it writes
nothing while it only reads.

- `safe.bareRepository=explicit`. A bare repository is only files (HEAD,
  config, objects/, refs/), so a repository can carry one in any folder and
  a clone brings it along. Git run in or below that folder takes it for the
  repository and obeys its config, whose `core.fsmonitor`, `core.worktree`,
  `diff.external`... run commands of its author's: a `git status` by the
  agent (a reader, even in read-only mode), the system prompt's, a review's.
  Git's own guard opens a bare repository only when it is named
  (`--git-dir`, `GIT_DIR`).
- `diff.autoRefreshIndex=false` and `GIT_OPTIONAL_LOCKS=0`. A file whose
  times changed but not its content (a `touch`, a branch switched and back)
  made a read-only `git status` or `git diff HEAD` rewrite .git/index, and
  hold index.lock while the person's own `git commit` wanted it. The first
  stops the refresh after a diff (which ignores the second), the second
  `git status`'s.

Git reads `safe.bareRepository` only from protected configuration, so both
settings are given as command-line configuration through
GIT_CONFIG_COUNT/KEY_n/VALUE_n, after the person's own (the last one wins),
which every child inherits and no repository's config can undo. See
docs/permissions.md.
"""

from __future__ import annotations

from collections.abc import MutableMapping

SETTINGS = (("safe.bareRepository", "explicit"), ("diff.autoRefreshIndex", "false"))


def apply_git_settings(environ: MutableMapping[str, str]) -> None:
    """Add SETTINGS to `environ`'s command-line git configuration, each
    after whatever the person put there; once only, however often applied."""
    try:
        count = max(int(environ.get("GIT_CONFIG_COUNT", "0") or "0"), 0)
    except ValueError:
        count = 0  # git refuses to run at all with a bogus count
    for key, value in SETTINGS:
        if _last_value(environ, count, key) == value:
            continue
        environ[f"GIT_CONFIG_KEY_{count}"] = key
        environ[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    environ["GIT_CONFIG_COUNT"] = str(count)
    environ["GIT_OPTIONAL_LOCKS"] = "0"


def _last_value(environ: MutableMapping[str, str], count: int, key: str) -> str | None:
    """The value the last of the first `count` entries naming `key` gives."""
    for n in reversed(range(count)):
        if environ.get(f"GIT_CONFIG_KEY_{n}", "").lower() == key.lower():
            return environ.get(f"GIT_CONFIG_VALUE_{n}")
    return None
