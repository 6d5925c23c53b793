"""Which git (and gh) command lines only read. Pure.

Git's global options are skipped first (`git -C dir --no-pager log`), so the
subcommand judged is the one git will run (`git --work-tree x reset` is a
reset). Then an allow-list: a subcommand that only reads, with none of the
options that write a file or run a program; for subcommands that also write
(`reflog`, `remote`, `stash`, `config`, `branch`, `tag`, `worktree`), only
their reading forms.
"""

from __future__ import annotations

# Global options that take a value (as the next word, or after `=`).
_GLOBAL_WITH_VALUE = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
_GLOBAL_FLAGS = frozenset(
    {
        "-p", "--paginate", "-P", "--no-pager", "--bare", "--no-replace-objects",
        "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
        "--icase-pathspecs", "--no-optional-locks", "--no-advice", "--version", "--help",
    }
)
# Subcommands that only read (beyond the options in _WRITING_OPTIONS).
READ_ONLY_GIT = frozenset(
    {
        "status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "blame",
        "grep", "describe", "shortlog", "cat-file", "merge-base", "whatchanged",
        "name-rev", "for-each-ref", "show-ref", "count-objects", "rev-list",
        "diff-tree", "diff-files", "diff-index", "check-ignore", "check-attr",
        "show-branch", "cherry", "version", "var",
    }
)
# Long options (any unambiguous abbreviation of them) that write a file or
# run a program in some reading subcommand: `--show-signature` runs gpg (which
# creates ~/.gnupg and its keyring).
_WRITING_LONG = (
    "output", "open-files-in-pager", "ext-diff", "textconv", "exec", "show-signature",
)
# Format placeholders that verify a signature (run gpg): `%G?`, `%GS`, `%GK`...
# in `--format`/`--pretty`, and `%(signature...)` of for-each-ref.
_VERIFYING_PLACEHOLDERS = ("%G", "%(signature")
# `git describe --dirty` (and `--broken`) refreshes the index and writes it
# back, whatever GIT_OPTIONAL_LOCKS says.
_DESCRIBE_WRITING = ("dirty", "broken")
# `git cat-file --filters` runs the filter drivers a repository's
# .gitattributes names for a path: the person's own, such as git-lfs's smudge,
# which downloads into .git/lfs. (`rev-list --filter=` is only a reader.)
_CAT_FILE_WRITING = ("filters",)
# Global options that name a repository: git opens it even where it would
# not find one by itself, so a repository a checkout planted in a folder
# would run its config's commands (luxe/policy/git_settings.py).
_NAMES_A_REPOSITORY = frozenset({"--git-dir", "--bare"})
_REFLOG_READS = frozenset({"show", "exists"})
_REMOTE_FLAGS = frozenset({"-v", "--verbose"})
_BRANCH_FLAGS = frozenset(
    {"-a", "-r", "--list", "-l", "-v", "-vv", "--all", "--show-current", "--remotes", "--verbose"}
)
_TAG_FLAGS = frozenset({"-l", "--list", "-n"})
_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list", "--show-origin",
     "--show-scope", "--global", "--local", "--system", "-z", "--null", "--name-only",
     "--includes", "--no-includes", "--type", "--bool", "--int", "--path"}
)


def _names(arg: str, options: tuple[str, ...]) -> bool:
    """`arg` is one of the long `options`, by any prefix GNU getopt takes."""
    given = arg[2:].split("=", 1)[0] if arg.startswith("--") else ""
    return bool(given) and any(name.startswith(given) for name in options)


def _writes(arg: str) -> bool:
    if any(p in arg for p in _VERIFYING_PLACEHOLDERS):
        return True
    # Any prefix, one letter too: `git cat-file --t` is `--textconv`.
    if arg.startswith("--") and len(arg) > 2:
        return _names(arg, _WRITING_LONG)
    # `git grep -O`: short clusters with O.
    return arg.startswith("-") and not arg.startswith("--") and "O" in arg[1:]


def split_global(args: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """(subcommand, its arguments) after git's global options, or None when
    an option is unknown or may run a program (`-c`, `--config-env`,
    `--exec-path=DIR`)."""
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("-"):
            return a, args[i + 1 :]
        name = a.split("=", 1)[0]
        if name in _GLOBAL_WITH_VALUE:
            i += 1 if "=" in a or (a.startswith("-C") and len(a) > 2) else 2
            continue
        if a.startswith("-C") and len(a) > 2:
            i += 1
            continue
        if a in _GLOBAL_FLAGS:
            i += 1
            continue
        return None  # -c, --config-env, --exec-path=..., anything unknown
    return None


def git_reads_only(args: tuple[str, ...]) -> bool:
    split = split_global(args)
    if split is None:
        return False
    sub, rest = split
    if any(_writes(a) for a in rest):
        return False
    if any(a.split("=", 1)[0] in _NAMES_A_REPOSITORY for a in args[: len(args) - len(rest) - 1]):
        return False
    if sub == "describe" and any(_names(a, _DESCRIBE_WRITING) for a in rest):
        return False
    if sub == "cat-file" and any(_names(a, _CAT_FILE_WRITING) for a in rest):
        return False
    if sub in READ_ONLY_GIT:
        return True
    words = [a for a in rest if not a.startswith("-")]
    if sub == "reflog":
        return not words or words[0] in _REFLOG_READS
    if sub == "remote":
        if not words:
            return all(a in _REMOTE_FLAGS for a in rest)
        # `remote show NAME` asks the remote (the network, or the
        # `git-remote-*` helper a `helper::address` names); `-n` does not.
        before_dashes = rest[: rest.index("--")] if "--" in rest else rest
        return words[0] == "get-url" or (words[0] == "show" and "-n" in before_dashes)
    if sub == "stash":
        # The subcommand must come first: `git stash -m list` is a
        # `stash push` with the message "list".
        return rest[:1] in (("list",), ("show",))
    if sub == "branch":
        return all(a in _BRANCH_FLAGS for a in rest)
    if sub == "tag":
        return all(a in _TAG_FLAGS for a in rest)
    if sub == "worktree":
        return words[:1] == ["list"]
    if sub == "config":
        options = [a.split("=", 1)[0] for a in rest if a.startswith("-")]
        return (
            any(a in ("--get", "--get-all", "--get-regexp", "--list", "-l") for a in options)
            or words[:1] in (["get"], ["list"])
        ) and all(o in _CONFIG_READS for o in options)
    return False


READ_ONLY_GH = {
    "pr": {"view", "list", "status", "diff", "checks"},
    "issue": {"view", "list", "status"},
    "repo": {"view"},
    "run": {"view", "list"},
}


def _opens_browser(arg: str) -> bool:
    """`--web`, `--web=true`, and `-w` alone or in a cluster (`-cw`): gh
    parses flags with pflag, which takes a bool's value after `=` and joins
    short flags."""
    if arg.startswith("--"):
        return arg[2:].split("=", 1)[0] == "web"
    return arg.startswith("-") and "w" in arg[1:]


def gh_reads_only(args: tuple[str, ...]) -> bool:
    """`gh pr view`, `gh issue list`...: never `--web` (starts a browser)."""
    if len(args) < 2 or args[1] not in READ_ONLY_GH.get(args[0], set()):
        return False
    words = args[: args.index("--")] if "--" in args else args
    return not any(_opens_browser(a) for a in words)
