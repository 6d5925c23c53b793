"""Which bash command lines publish to GitHub (or push): `gh pr
create|merge|comment|review|edit|close|ready|reopen`, `gh issue
create|comment|close|edit` (and the other issue writes), `gh release …`,
`gh api` with a writing method or `-f`/`-F` fields, any other gh command
that is not a known reader (`gh repo edit --visibility public`, `gh repo
delete`, `gh gist create`, `gh secret set`, `gh auth token`…), and `git push`.

The permission engine (luxe.policy.permissions) makes such a call ask in
every mode but yolo, even when an allow rule or an `always` answer covers
it, and refuses it in read-only (docs/permissions.md, "Publishing"). Pure:
it reads the command line only.
"""

from __future__ import annotations

PR_WRITES = frozenset({"create", "merge", "comment", "review", "edit", "close", "ready", "reopen"})
ISSUE_WRITES = frozenset(
    {"create", "comment", "close", "edit", "reopen", "delete", "transfer", "lock", "unlock",
     "pin", "unpin", "develop"}
)
# gh commands that only read (any group: `gh pr view`, `gh label list`,
# `gh auth status`), and groups that only read or only help. Every other gh
# command may change GitHub, or hand out gh's token (`gh auth token`).
_GH_READ_VERBS = frozenset({"view", "list", "status", "diff", "checks", "watch", "get"})
_GH_READ_GROUPS = frozenset({"", "search", "status", "help", "version", "completion"})
# Wrappers that run the rest of the line as a command, with their options
# that take the next word as their value (`timeout -k 1 5s git push`).
_WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(),
    "time": frozenset(),  # the shell's keyword: -p only
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt",
                       "-C", "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type",
                       "-T", "--command-timeout", "-U", "--other-user"}),
    "xargs": frozenset({"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n",
                        "--max-args", "-P", "--max-procs", "-s", "--max-chars"}),
    "timeout": frozenset({"-k", "--kill-after", "-s", "--signal"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid",
                         "-u", "--uid"}),
    "setsid": frozenset(),
    "stdbuf": frozenset({"-i", "--input", "-o", "--output", "-e", "--error"}),
}  # fmt: skip
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
_GIT_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_GH_OPTIONS_WITH_VALUE = frozenset({"-R", "--repo", "--hostname"})
_API_FIELDS = ("-f", "-F", "--field", "--raw-field", "--input")


def _program_words(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words from the program on: assignments and wrappers dropped."""
    i = 0
    while i < len(words):
        word = words[i]
        name = word.rsplit("/", 1)[-1]
        if "=" in word and not word.startswith("-") and name == word:
            i += 1  # VAR=value
        elif name in _WRAPPERS:
            i += 1
            # The wrapper's own options, and the values of those that take one.
            while i < len(words) and words[i].startswith("-") and words[i] != "--":
                i += 2 if words[i] in _WRAPPERS[name] else 1
            if i < len(words) and words[i] == "--":
                i += 1
            if name == "timeout" and i < len(words):
                i += 1  # its duration
        else:
            break
    return words[i:]


def _positionals(args: tuple[str, ...], with_value: frozenset[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in with_value:
            skip = True
        elif not arg.startswith("-"):
            out.append(arg)
    return out


def _gh_api_writes(args: tuple[str, ...]) -> str | None:
    for index, arg in enumerate(args):
        method = None
        if arg in ("-X", "--method") and index + 1 < len(args):
            method = args[index + 1]
        elif arg.startswith("--method="):
            method = arg.split("=", 1)[1]
        elif arg.startswith("-X") and len(arg) > 2:
            method = arg[2:]
        if method is not None and method.upper() not in ("GET", "HEAD"):
            return f"gh api -X {method.upper()}"
    for arg in args:
        if arg in _API_FIELDS or arg.startswith(tuple(f"{f}=" for f in _API_FIELDS if f[1] == "-")):
            return "gh api with fields (a POST)"
        if len(arg) > 2 and arg[:2] in ("-f", "-F") and not arg.startswith("--"):
            return "gh api with fields (a POST)"
    return None


def _command_publishes(words: tuple[str, ...]) -> str | None:
    words = _program_words(words)
    if not words:
        return None
    prog, args = words[0].rsplit("/", 1)[-1], words[1:]
    if prog in _SHELLS and "-c" in args and args.index("-c") + 1 < len(args):
        return publishes(args[args.index("-c") + 1])  # `bash -c "gh pr merge 1"`
    if prog == "eval":
        return publishes(" ".join(args))
    if prog == "git":
        rest = _positionals(args, _GIT_OPTIONS_WITH_VALUE)
        return "git push" if rest[:1] == ["push"] else None
    if prog != "gh":
        return None
    rest = _positionals(args, _GH_OPTIONS_WITH_VALUE)
    group, sub = [*rest, "", ""][:2]
    if group == "pr" and sub in PR_WRITES:
        return f"gh pr {sub}"
    if group == "issue" and sub in ISSUE_WRITES:
        return f"gh issue {sub}"
    if group == "release":
        return f"gh release {sub}".strip()
    if group == "api":
        return _gh_api_writes(args)
    if group in _GH_READ_GROUPS or sub in _GH_READ_VERBS:
        return None
    return f"gh {group} {sub}".strip()


def publishes(line: str) -> str | None:
    """The publishing command on `line` (e.g. "gh pr merge"), or None. A
    line whose commands cannot be told apart (command substitution) that
    mentions gh or git is taken as publishing."""
    from luxe.policy.shell import analyse  # loaded with the first bash call

    parsed = analyse(line)
    for command in parsed.commands:
        found = _command_publishes(command.words)
        if found is not None:
            return found
    if parsed.opaque:
        mentioned = {w.rsplit("/", 1)[-1] for w in parsed.mentioned}
        if mentioned & {"gh", "git"}:
            return "a command line that may run gh or git"
    return None
