"""Pure analysis of a bash command line for the permission engine.

This is not a shell parser. It answers three questions conservatively:
which simple commands a line runs (for `bash(...)` rules), which words it
mentions (to refuse commands that name a secret file), and whether it may
change anything (read-only mode). When in doubt, the answers are the
restrictive ones: an unparseable line "may mutate" and no allow rule
matches it.
"""

from __future__ import annotations

import re
import shlex

import attrs

from luxe.policy.shell_readers import READER_CHECKS, git_grep_reads_only, harmless_assignment

_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "{", "}"})
# Constructs whose effect we do not analyse: command/process substitution and
# here-strings that feed other commands. An allow rule never matches them.
_OPAQUE = re.compile(r"\$\(|`|<\(|>\(")
_WORDS = re.compile(r"[^\s'\"`;&|<>()$={},]+")


@attrs.frozen
class SimpleCommand:
    words: tuple[str, ...]  # program and arguments, quotes removed
    writes_file: bool  # has an output redirection to something other than /dev/null or a fd

    @property
    def text(self) -> str:
        return " ".join(self.words)


@attrs.frozen
class ShellLine:
    commands: tuple[SimpleCommand, ...]
    opaque: bool  # command substitution, backticks, or a line shlex could not split
    mentioned: tuple[str, ...]  # every word, both dequoted and as written


def _tokens(line: str) -> list[str] | None:
    lexer = shlex.shlex(line.replace("\n", " ; "), posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


def _is_redirect(token: str) -> bool:
    return bool(token) and set(token) <= set("<>&|") and ("<" in token or ">" in token)


def analyse(line: str) -> ShellLine:
    """Split a command line into simple commands and the words it mentions."""
    tokens = _tokens(line)
    raw_words = _WORDS.findall(line)
    if tokens is None:
        return ShellLine((), True, tuple(raw_words))
    commands: list[SimpleCommand] = []
    words: list[str] = []
    writes = False
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _SEPARATORS:
            if words:
                commands.append(SimpleCommand(tuple(words), writes))
            words, writes = [], False
        elif _is_redirect(tok):
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            if ">" in tok:
                # `2>&1`, `>&2`: the target is a fd, not a file.
                to_fd = tok.endswith("&") and target.isdigit()
                if not to_fd and target != "/dev/null":
                    writes = True
            # A digit just before the operator (`2>`) names the fd, not a word.
            if words and words[-1].isdigit():
                words.pop()
            i += 1  # the target is part of the redirection
            if i < len(tokens):
                raw_words.append(tokens[i])
        else:
            words.append(tok)
        i += 1
    if words:
        commands.append(SimpleCommand(tuple(words), writes))
    mentioned = tuple(dict.fromkeys([*tokens, *raw_words]))
    return ShellLine(tuple(commands), bool(_OPAQUE.search(line)), mentioned)


# -- may it change anything? -------------------------------------------------

# Programs that only read, whatever their arguments (beyond the exceptions
# checked in `_reads_only`).
READ_ONLY_PROGRAMS = frozenset(
    [
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "ls",
        "pwd",
        "echo",
        "printf",
        "wc",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "find",
        "tree",
        "stat",
        "file",
        "du",
        "df",
        "which",
        "type",
        "whereis",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "sort",
        "uniq",
        "cut",
        "tr",
        "diff",
        "cmp",
        "comm",
        "nl",
        "od",
        "hexdump",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "date",
        "true",
        "false",
        "test",
        "[",
        "uname",
        "whoami",
        "id",
        "hostname",
        "jq",
        "column",
        "sed",
        "cd",
        "printenv",
        "nproc",
    ]
)
READ_ONLY_GIT = frozenset(
    [
        "status",
        "log",
        "diff",
        "show",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "blame",
        "grep",
        "describe",
        "shortlog",
        "cat-file",
        "merge-base",
        "reflog",
        "whatchanged",
        "name-rev",
        "for-each-ref",
        "show-ref",
        "count-objects",
    ]
)
READ_ONLY_GH = {
    "pr": {"view", "list", "status", "diff", "checks"},
    "issue": {"view", "list", "status"},
    "repo": {"view"},
    "run": {"view", "list"},
}
_FIND_WRITES = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}
)


def _long_output(arg: str) -> bool:
    """`--output=F` or an abbreviation of it (`--out=F`, `--outp F`)."""
    name = arg[2:].split("=", 1)[0] if arg.startswith("--") else ""
    return len(name) >= 3 and "output".startswith(name)


def _strip_assignments(words: tuple[str, ...]) -> tuple[str, ...]:
    i = 0
    while i < len(words) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[i]):
        i += 1
    return words[i:]


def _reads_only(words: tuple[str, ...]) -> bool:
    stripped = _strip_assignments(words)
    # `LESSOPEN='|cmd %s' less x`, `GIT_PAGER=cmd git log`: a variable can make
    # a reader run something; only a few known-harmless ones are allowed.
    if not all(harmless_assignment(w) for w in words[: len(words) - len(stripped)]):
        return False
    words = stripped
    if not words:
        return True
    prog, args = words[0].rsplit("/", 1)[-1], words[1:]
    if prog == "git":
        sub = next((a for a in args if not a.startswith("-")), "")
        if any(
            a in ("-c", "--config-env") or a.startswith("--config-env=")
            for a in (args[: args.index(sub)] if sub else args)
        ):
            return False  # `git -c core.fsmonitor=CMD status` runs CMD
        if sub == "grep" and not git_grep_reads_only(args):
            return False
        if sub in READ_ONLY_GIT:
            return not any(_long_output(a) for a in args)
        if sub == "branch":
            return all(
                a in {"-a", "-r", "--list", "-v", "-vv", "--all", "--show-current"}
                for a in args[1:]
            )
        if sub == "tag":
            return all(a in {"-l", "--list"} for a in args[1:])
        if sub == "remote":
            return len(args) == 1 or args[1] in {"-v", "show", "get-url"}
        if sub == "stash":
            return len(args) >= 2 and args[1] in {"list", "show"}
        if sub == "config":
            return any(a in {"--get", "--list", "-l", "--get-all"} for a in args)
        return False
    if prog == "gh":
        return len(args) >= 2 and args[1] in READ_ONLY_GH.get(args[0], set())
    if prog not in READ_ONLY_PROGRAMS:
        return False
    check = READER_CHECKS.get(prog)
    if check is not None:
        return check(args)
    if prog == "find":
        return not any(a in _FIND_WRITES for a in args)
    return True


def may_mutate(line: str) -> bool:
    """False only when every command on the line is a known reader and
    nothing is redirected into a file."""
    parsed = analyse(line)
    if parsed.opaque:
        return True
    return any(cmd.writes_file or not _reads_only(cmd.words) for cmd in parsed.commands)
