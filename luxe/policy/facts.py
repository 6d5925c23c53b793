"""The thin I/O step before the pure matcher: what a tool call names.

`gather_facts` resolves every path a call names (relative, `./`, `..`, `~`,
absolute, symlinks) and, for bash, the words of the command that exist on
disk or expand as globs. It only stats and lists; it never opens a file
for reading (luxe.real_path asks the kernel through an `O_PATH` descriptor).
Everything it returns is plain data that `permissions.decide` judges.
"""

from __future__ import annotations

import fnmatch
import glob as globmod
import itertools
import json
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from luxe.policy.rules import PathName, path_name
from luxe.policy.secret_identity import FileKey, file_key
from luxe.real_path import real_path
from luxe.record import record

if TYPE_CHECKING:
    # The shell analyser loads with the first bash call, not with the gate:
    # the interface's first frame and `ready` come before it.
    from luxe.policy.shell import ShellLine

Category = Literal["read", "edit", "bash", "other"]

DEFAULT_CATEGORIES: Mapping[str, Category] = {
    "read": "read",
    "grep": "read",
    "glob": "read",
    "ls": "read",
    "question": "read",
    "show": "read",  # shows a file to the person (hosted in Laura): a read of its path
    "write": "edit",
    "edit": "edit",
    "delete": "edit",
    "multi_edit": "edit",
    "apply_patch": "edit",
    "bash": "bash",
}

# Argument names that hold a path the tool reads or writes.
PATH_KEYS = ("path", "file_path", "paths")
# The argument other tools are matched on by `tool(glob)` rules.
SUBJECT_KEYS = ("pattern", "url", "query", "question", "repository", "name")

MAX_SHELL_WORDS = 256
MAX_GLOB_EXPANSION = 256


@record
class ResolvedPath:
    given: str  # as the model wrote it
    lexical: PathName  # joined with the cwd, `.`/`..` folded, symlinks kept
    real: PathName  # every symlink followed


@record
class CallFacts:
    tool: str
    category: Category
    paths: tuple[ResolvedPath, ...] = ()  # files the call reads or writes
    command: str | None = None  # bash: the command line
    shell: ShellLine | None = None
    shell_paths: tuple[ResolvedPath, ...] = ()  # bash words that are files on disk
    # Paths (as given) that are hard links to a known secret file.
    secret_links: tuple[str, ...] = ()
    # bash: a recursive search (`grep -r`, `rg`) whose root holds a secret
    # file it does not exclude: (the command, the secret file).
    secret_search: tuple[str, str] | None = None
    names: tuple[str, ...] = ()  # file-name globs the call restricts itself to (grep's glob)
    subject: str | None = None  # other tools: what `tool(glob)` is matched against
    exact_key: str = ""  # identity for a session-scoped `always`
    home: str = "/"


def resolve_path(given: str, *, cwd: str, root: str, home: str) -> ResolvedPath:
    expanded = home + given[1:] if given == "~" or given.startswith("~/") else given
    lexical = os.path.normpath(os.path.join(cwd, expanded))
    # Asked of the kernel: os.path.realpath recursed once per link, and a
    # chain of 1,200 raised RecursionError here, ending the turn. A NUL or
    # a loop resolves no further (the tool refuses such a path).
    real = real_path(lexical)
    return ResolvedPath(given, path_name(lexical, root), path_name(real, root))


# Shell punctuation a file name can hide behind inside one word: `$(<hard)`,
# `"$(cat hard)"`, `{hard,x}`.
_WRAPPERS = re.compile(r"[$()<>`{},;|&\"'=\s]+")


def _candidate_words(words: tuple[str, ...]) -> list[str]:
    """Each word, plus the pieces of it between shell punctuation."""
    out = list(words)
    for word in words:
        if _WRAPPERS.search(word):
            out.extend(p for p in _WRAPPERS.split(word) if p and p not in out)
    return out


def _shell_paths(shell: ShellLine, *, cwd: str, root: str, home: str) -> tuple[ResolvedPath, ...]:
    found: list[ResolvedPath] = []
    for word in _candidate_words(shell.mentioned[:MAX_SHELL_WORDS]):
        if not word or word.startswith("-") or "\0" in word:
            continue
        target = os.path.join(cwd, home + word[1:] if word.startswith("~/") else word)
        if set("*?[") & set(word):
            try:
                # iglob + islice: `ls /*/*/*/*` must not walk the whole disk.
                matches = list(itertools.islice(globmod.iglob(target), MAX_GLOB_EXPANSION))
            except (OSError, ValueError):
                matches = []
            found.extend(resolve_path(m, cwd=cwd, root=root, home=home) for m in matches)
        elif os.path.lexists(target):
            found.append(resolve_path(word, cwd=cwd, root=root, home=home))
    return tuple(found)


def gather_facts(
    tool: str,
    args: Mapping[str, Any],
    *,
    cwd: str,
    root: str,
    home: str,
    categories: Mapping[str, Category] = DEFAULT_CATEGORIES,
    secret_keys: frozenset[FileKey] = frozenset(),
    secret_paths: tuple[str, ...] = (),
) -> CallFacts:
    """Resolve what one tool call names. Never opens a file, never raises for
    odd arguments: a non-string path is ignored here and refused by the tool."""
    category = categories.get(tool, "other")
    if tool == "bash":
        command = args.get("command")
        command = command if isinstance(command, str) else ""
        from luxe.policy.shell import analyse

        # The few variables whose value Luxe knows as bash will see it.
        shell = analyse(command, {"HOME": home, "PWD": cwd})
        shell_paths = _shell_paths(shell, cwd=cwd, root=root, home=home)
        return CallFacts(
            tool,
            category,
            command=command,
            shell=shell,
            shell_paths=shell_paths,
            secret_links=_secret_links(shell_paths, secret_keys),
            secret_search=_secret_search(shell, cwd, secret_paths),
            exact_key=f"bash\0{command}",
            home=home,
        )
    given: list[str] = []
    for key in PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str):
            given.append(value)
        elif isinstance(value, list):
            given.extend(v for v in value if isinstance(v, str))
    # A path with a NUL byte names no file (the OS refuses it); the tool says so.
    given = [g for g in given if "\0" not in g]
    if not given and tool in ("grep", "ls"):
        given.append(".")  # both default to the working directory
    paths = tuple(resolve_path(g, cwd=cwd, root=root, home=home) for g in given)
    names = tuple(v for k in ("glob", "include") if isinstance(v := args.get(k), str))
    subject = next((v for k in SUBJECT_KEYS if isinstance(v := args.get(k), str)), None)
    if paths:
        key = f"{tool}\0" + "\0".join(p.real.absolute for p in paths) + "\0" + "\0".join(names)
    else:
        key = f"{tool}\0" + json.dumps(dict(args), sort_keys=True, default=str)
    return CallFacts(
        tool,
        category,
        paths=paths,
        secret_links=_secret_links(paths, secret_keys),
        names=names,
        subject=subject,
        exact_key=key,
        home=home,
    )


def _secret_search(
    shell: ShellLine, cwd: str, secret_paths: tuple[str, ...]
) -> tuple[str, str] | None:
    """The first recursive search on the line whose root holds a secret file
    that the search does not exclude by name."""
    if not secret_paths:
        return None
    from luxe.policy.shell_search import recursive_search

    for cmd in shell.commands:
        search = recursive_search(cmd.words)
        if search is None:
            continue
        for root in search.roots or (".",):
            real_root = real_path(os.path.join(cwd, root))
            for secret in secret_paths:
                inside = secret == real_root or secret.startswith(real_root.rstrip("/") + "/")
                name = os.path.basename(secret)
                if inside and not any(fnmatch.fnmatchcase(name, ex) for ex in search.excludes):
                    return cmd.text, os.path.relpath(secret, cwd)
    return None


def _secret_links(
    paths: tuple[ResolvedPath, ...], secret_keys: frozenset[FileKey]
) -> tuple[str, ...]:
    """The paths whose file *is* a known secret file (same device and inode):
    a hard link carries no name to recognise, only the identity."""
    if not secret_keys:
        return ()
    return tuple(p.given for p in paths if file_key(p.real.absolute) in secret_keys)
