"""Git opens no repository that a checkout planted: Luxe and every process
it starts run git with `safe.bareRepository=explicit`.

A bare repository is only files (HEAD, config, objects/, refs/), so a
repository can carry one in any folder and a clone brings it along. Git run
in or below that folder takes it for the repository and obeys its config,
whose `core.fsmonitor`, `core.worktree`, `diff.external`... run commands of
its author's: a `git status` by the agent (a reader, even in read-only
mode), the system prompt's, a review's. Git's own guard opens a bare
repository only when it is named (`--git-dir`, `GIT_DIR`); git reads that
setting only from protected configuration, so it is given as command-line
configuration through GIT_CONFIG_COUNT/KEY_n/VALUE_n, which every child
inherits and no repository's config can undo. See docs/permissions.md.
"""

from __future__ import annotations

from collections.abc import MutableMapping

KEY, VALUE = "safe.bareRepository", "explicit"


def only_named_bare_repositories(environ: MutableMapping[str, str]) -> None:
    """Add KEY=VALUE to `environ`'s command-line git configuration, after
    whatever the person put there (the last one wins); once only."""
    try:
        count = max(int(environ.get("GIT_CONFIG_COUNT", "0") or "0"), 0)
    except ValueError:
        count = 0  # git refuses to run at all with a bogus count
    last = count - 1
    if (count and environ.get(f"GIT_CONFIG_KEY_{last}", "").lower() == KEY.lower()
            and environ.get(f"GIT_CONFIG_VALUE_{last}") == VALUE):
        return
    environ[f"GIT_CONFIG_KEY_{count}"] = KEY
    environ[f"GIT_CONFIG_VALUE_{count}"] = VALUE
    environ["GIT_CONFIG_COUNT"] = str(count + 1)
