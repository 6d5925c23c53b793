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
from collections.abc import Mapping

from luxe.policy.shell_git import git_reads_only
from luxe.policy.shell_readers import READER_CHECKS, harmless_assignment
from luxe.policy.shell_words import SEPARATORS, Operator, Word, lex
from luxe.record import record

_SEPARATORS = frozenset({*SEPARATORS, "{", "}"})
_WRITING_REDIRECTIONS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
# Raw words of the line as written: a last net for names in heredoc bodies.
_WORDS = re.compile(r"[^\s'\"`;&|<>()$={},\\]+")
# Words that start a compound command or negate one: not the program.
_KEYWORDS = frozenset({"!", "if", "then", "else", "elif", "do", "while", "until", "time", "{"})
MAX_NESTING = 8


@record
class SimpleCommand:
    words: tuple[str, ...]  # program and arguments: quotes removed, braces expanded
    writes_file: bool  # has an output redirection to something other than /dev/null or a fd
    # Globs of the words that hold an expansion Luxe cannot evaluate
    # (`$F`, `$(cmd)`, `${x}nv`): each unknown part is `*`.
    unresolved: tuple[str, ...] = ()
    program_unresolved: bool = False  # `$EDITOR x`: the program itself is unknown
    globbed: bool = False  # a word with an unquoted glob: its expansion is not known

    @property
    def text(self) -> str:
        return " ".join(self.words)


@record
class ShellLine:
    commands: tuple[SimpleCommand, ...]  # those of substitutions too
    opaque: bool  # command substitution, backticks, or a line that does not parse
    mentioned: tuple[str, ...]  # every word, normalised, and as written
    # An expansion that may run text as code: arithmetic, `${x@P}`, `(( ))`.
    evaluates: bool = False


def _commands(tokens: tuple[Word | Operator, ...]) -> tuple[list[SimpleCommand], list[str]]:
    commands: list[SimpleCommand] = []
    mentioned: list[str] = []
    words: list[str] = []
    known: list[bool] = []  # per word: resolved?
    unresolved: list[str] = []
    writes = globbed = False
    i = 0
    while i <= len(tokens):
        tok = tokens[i] if i < len(tokens) else Operator(";")
        if isinstance(tok, Operator) and tok.text in _SEPARATORS:
            while words and words[0] in _KEYWORDS:
                words.pop(0)
                known.pop(0)
            start = next((j for j, w in enumerate(words) if not _ASSIGNMENT.match(w)), len(words))
            if words:
                commands.append(
                    SimpleCommand(
                        tuple(words),
                        writes,
                        tuple(unresolved),
                        start < len(words) and not known[start],
                        globbed,
                    )
                )
            elif writes:
                # A redirection of no simple command (`> f` alone, `{ …; } > f`,
                # `(…) > f`): bash still opens the file, so it is a command of
                # no words that writes (it was dropped, and read-only ran it).
                commands.append(SimpleCommand((), True, tuple(unresolved)))
            words, known, unresolved, writes, globbed = [], [], [], False, False
        elif isinstance(tok, Operator):  # a redirection and its target
            target = tokens[i + 1] if i + 1 < len(tokens) else None
            forms = target.forms() if isinstance(target, Word) else []
            if isinstance(target, Word):
                mentioned.extend(forms)
                if not target.resolved:
                    unresolved.extend(target.patterns())
                i += 1
            if tok.text in _WRITING_REDIRECTIONS:
                to_fd = tok.text == ">&" and all(f.isdigit() or f == "-" for f in forms)
                if not to_fd and forms != ["/dev/null"]:
                    writes = True
        else:
            forms = tok.forms()
            globbed = globbed or tok.globs
            words.extend(forms)
            known.extend([tok.resolved] * len(forms))
            mentioned.extend(forms)
            if not tok.resolved:
                unresolved.extend(tok.patterns())
        i += 1
    return commands, mentioned


def analyse(
    line: str, variables: Mapping[str, str] | None = None, _depth: int = 0
) -> ShellLine:
    """Split a command line into simple commands (also those inside command
    substitutions) and the words it mentions, normalised as bash would.
    `variables` are known values of the environment (`HOME`, `PWD`)."""
    lexed = lex(line, dict(variables or {}))
    commands, mentioned = _commands(lexed.tokens)
    opaque = lexed.substitutes or not lexed.complete
    evaluates = lexed.evaluates
    for inner in lexed.nested:
        if _depth >= MAX_NESTING:
            opaque = True
            break
        nested = analyse(inner, variables, _depth + 1)
        commands.extend(nested.commands)
        mentioned.extend(nested.mentioned)
        evaluates = evaluates or nested.evaluates
    mentioned.extend(_WORDS.findall(line))
    return ShellLine(tuple(commands), opaque, tuple(dict.fromkeys(mentioned)), evaluates)


# -- may it change anything? -------------------------------------------------
#
# An allow-list: a command counts as read-only only when its program is
# listed here and every option it is given is known to be safe. Programs in
# READ_ONLY_PROGRAMS have no option that writes a file or runs a program, so
# any option is safe for them; the others are judged option by option by
# their check in READER_CHECKS (luxe/policy/shell_readers.py), and git by
# `git_reads_only`. Anything else may change something.

READ_ONLY_PROGRAMS = frozenset(
    [
        "cat", "head", "tail", "ls", "pwd", "echo", "wc", "grep", "egrep", "fgrep",
        "stat", "du", "df", "which", "type", "whereis", "basename", "dirname",
        "realpath", "readlink", "cut", "tr", "diff", "cmp", "comm", "nl", "od",
        "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum", "true", "false",
        "uname", "whoami", "id", "jq", "column", "cd", "printenv", "nproc",
    ]
)
# Shell variables a line may set on their own (`n=3; head -n $n f`): lower
# case by convention, so never PATH, IFS, BASH_ENV, LD_PRELOAD and the like.
_SHELL_VARIABLE = re.compile(r"^[a-z_][a-z0-9_]*=")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SYSTEM_BIN_DIRS = ("/bin/", "/usr/bin/", "/usr/local/bin/")


def _reads_only(words: tuple[str, ...]) -> bool:
    i = 0
    while i < len(words) and _ASSIGNMENT.match(words[i]):
        i += 1
    assignments, words = words[:i], words[i:]
    if not words:
        # `x=1` on its own sets a shell variable: harmless if it is one.
        return all(_SHELL_VARIABLE.match(a) or harmless_assignment(a) for a in assignments)
    # `LESSOPEN='|cmd %s' less x`, `GIT_PAGER=cmd git log`: a variable can make
    # a reader run something; only a few known-harmless ones are allowed.
    if not all(harmless_assignment(a) for a in assignments):
        return False
    prog, args = words[0], words[1:]
    if prog.startswith(SYSTEM_BIN_DIRS):
        prog = prog.rsplit("/", 1)[1]
    if "/" in prog:
        return False  # `./cat`, `/tmp/x/ls`: not the reader its name says
    if prog == "git":
        return git_reads_only(args)
    if prog in READ_ONLY_PROGRAMS:
        return True
    check = READER_CHECKS.get(prog)
    return check is not None and check(args)


def may_mutate(line: str) -> bool:
    """False only when every command on the line is a known reader with
    known-safe options, nothing is redirected into a file, and no expansion
    can run code (command substitution, arithmetic, `${x@P}`)."""
    parsed = analyse(line)
    if parsed.opaque or parsed.evaluates:
        return True
    return any(
        cmd.writes_file
        or not _reads_only(cmd.words)
        or (cmd.globbed and _judged_by_arguments(cmd.words))
        for cmd in parsed.commands
    )


def _judged_by_arguments(words: tuple[str, ...]) -> bool:
    """A reader judged option by option (or by its operands: `uniq IN OUT`):
    a glob could expand to what its check never saw (`sort *` next to a file
    named `-oF` writes F; `uniq *.txt` overwrites the second file)."""
    i = 0
    while i < len(words) and _ASSIGNMENT.match(words[i]):
        i += 1
    prog = words[i].rsplit("/", 1)[-1] if i < len(words) else ""
    return prog == "git" or prog in READER_CHECKS
