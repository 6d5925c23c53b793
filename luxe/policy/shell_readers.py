"""Programs that read, unless given an option that writes or runs something.

Pure. Each check is an allow-list where practical: only forms known to be
read-only pass; an option it does not know makes the command count as one
that may change files (read-only and plan mode then refuse it).
"""

from __future__ import annotations

import re

from luxe.policy.shell_git import gh_reads_only

# Variables a command may be prefixed with (`LC_ALL=C sort`) that cannot make
# a reader run something else (unlike LESSOPEN, PAGER, GIT_*, LD_PRELOAD...).
HARMLESS_VARIABLES = frozenset({"LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "TERM"})


def harmless_assignment(word: str) -> bool:
    name = word.split("=", 1)[0]
    return name in HARMLESS_VARIABLES or name.startswith("LC_")


def _long_matches(arg: str, *names: str) -> bool:
    """`--out=x` matches `output`: GNU getopt accepts any unambiguous prefix,
    one letter too (`sort --o=F` writes F, `date --s=...` sets the clock)."""
    if not arg.startswith("--"):
        return False
    given = arg[2:].split("=", 1)[0]
    return bool(given) and any(n.startswith(given) for n in names)


def _short_cluster_has(arg: str, letters: str) -> bool:
    return arg.startswith("-") and not arg.startswith("--") and bool(set(arg[1:]) & set(letters))


# -- sed -----------------------------------------------------------------------

_SED_FLAGS_SHORT = frozenset("nErsuz")
_SED_FLAGS_LONG = frozenset(
    {
        "quiet",
        "silent",
        "regexp-extended",
        "separate",
        "unbuffered",
        "null-data",
        "posix",
        "debug",
        "sandbox",
    }
)


def _skip_delimited(script: str, i: int, delim: str) -> int | None:
    """Index just past the next unescaped `delim` from `i`, or None."""
    while i < len(script):
        ch = script[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "\n" and delim != "\n":
            return None
        if ch == delim:
            return i + 1
        i += 1
    return None


def sed_script_may_write(script: str) -> bool:
    """True unless the script surely has no `w`/`W`/`e` command and no `s`
    command with the `w` or `e` flag (when unsure: True)."""
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch in " \t\n;{}!":
            i += 1
            continue
        # Addresses: numbers, `$`, `,`, `~`, `+`, `/re/`, `\cREc`, and I/M after a regex.
        if ch.isdigit() or ch in "$,~+":
            i += 1
            continue
        if ch == "/" or ch == "\\":
            if ch == "\\":
                if i + 1 >= n:
                    return True
                delim, i = script[i + 1], i + 2
            else:
                delim, i = "/", i + 1
            end = _skip_delimited(script, i, delim)
            if end is None:
                return True
            i = end
            while i < n and script[i] in "IM":
                i += 1
            continue
        if ch in "wWe":
            return True
        if ch in "sy":
            if i + 1 >= n or script[i + 1] in "\\\n":
                return True
            delim = script[i + 1]
            mid = _skip_delimited(script, i + 2, delim)
            end = _skip_delimited(script, mid, delim) if mid is not None else None
            if end is None:
                return True
            i = end
            if ch == "s":
                m = re.match(r"[gpiImM0-9we]*", script[i:])
                flags = m.group(0) if m else ""
                if "w" in flags or "e" in flags:
                    return True
                i += len(flags)
            continue
        if ch in "bBtT:v":
            # A label (or `v`'s version): up to `;` or the line's end, so
            # `:a;w F` and `b;w F` still see their `w`.
            stops = [j for j in (script.find(";", i), script.find("\n", i)) if j >= 0]
            i = min(stops) + 1 if stops else n
            continue
        if ch in "aicrR#":
            # Text, a file to read or a comment: up to the line's end (GNU
            # one-liner forms). `r`/`R` read a file, which is fine.
            end = script.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if ch in "pPdDnNgGhHxlLqQz=F":
            i += 1
            continue
        return True  # anything else: unsure
    return False


def sed_reads_only(args: tuple[str, ...]) -> bool:
    scripts: list[str] = []
    operands: list[str] = []
    sandbox = False  # only as an option: `-- --sandbox` is a file name
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands.extend(args[i + 1 :])
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            if name == "expression" or (len(name) >= 2 and "expression".startswith(name)):
                if not eq:
                    i += 1
                    value = args[i] if i < len(args) else ""
                scripts.append(value)
            elif name == "line-length" or (len(name) >= 2 and "line-length".startswith(name)):
                i += 0 if eq else 1
            elif name not in _SED_FLAGS_LONG:
                return False  # --in-place, --file and anything unknown
            elif name == "sandbox":
                sandbox = True
        elif a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                ch = a[j]
                if ch in ("e", "l"):
                    value = a[j + 1 :]
                    if not value:
                        i += 1
                        value = args[i] if i < len(args) else ""
                    if ch == "e":
                        scripts.append(value)
                    break
                if ch not in _SED_FLAGS_SHORT:
                    return False  # -i (in any cluster: -ni, -Ei), -f, unknown
                j += 1
        else:
            operands.append(a)
        i += 1
    if not scripts:
        if not operands:
            return False
        scripts.append(operands[0])
    if sandbox:
        return True  # GNU sed refuses w, e and r itself
    return not any(sed_script_may_write(s) for s in scripts)


# -- the others ----------------------------------------------------------------


def uniq_reads_only(args: tuple[str, ...]) -> bool:
    """`uniq IN OUT` writes OUT: at most one operand."""
    operands = 0
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands += len(args) - i - 1
            break
        if a.startswith("--"):
            name, eq, _ = a[2:].partition("=")
            if not eq and name in (
                "skip-fields",
                "skip-chars",
                "check-chars",
                "group",
                "all-repeated",
            ):
                i += 1 if name in ("skip-fields", "skip-chars", "check-chars") else 0
        elif a.startswith("-") and len(a) > 1:
            last = a[-1]
            if last in "fsw" and not any(c.isdigit() for c in a[2:]):
                i += 1
        else:
            operands += 1
        i += 1
    return operands <= 1


def sort_reads_only(args: tuple[str, ...]) -> bool:
    """`sort -o FILE` writes FILE, `--compress-program` runs one, and
    `-T DIR` puts sort's temporary files (thousands, for a big input and a
    small `-S`) in DIR: the project, or .git."""
    for a in args:
        if _long_matches(a, "output", "compress-program", "temporary-directory"):
            return False
        # `-o FILE` or `-T DIR` in any cluster (`-no x`, `-nT.`); `-t o` is
        # refused too: unsure.
        if _short_cluster_has(a, "oT"):
            return False
    return True


_FIND_WRITES = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}
)


def find_reads_only(args: tuple[str, ...]) -> bool:
    """`find -delete`, `-exec`, `-fprint FILE`... write or run."""
    return not any(a in _FIND_WRITES for a in args)


def test_builtin_reads_only(args: tuple[str, ...]) -> bool:
    """`test -v 'a[$(cmd)]'` evaluates an array subscript (runs `cmd`)."""
    return not any(a in ("-v", "-R") for a in args)


def printf_reads_only(args: tuple[str, ...]) -> bool:
    """`printf -v NAME` assigns (a subscript in NAME runs code)."""
    return not (args and args[0].startswith("-v"))


def ag_reads_only(args: tuple[str, ...]) -> bool:
    """`ag --pager CMD` runs a program."""
    return not any(_long_matches(a, "pager") for a in args)


def rg_reads_only(args: tuple[str, ...]) -> bool:
    """`rg --pre CMD` and `--hostname-bin CMD` run a program."""
    return not any(_long_matches(a, "pre", "hostname-bin") for a in args)


def tree_reads_only(args: tuple[str, ...]) -> bool:
    """`tree -o FILE` writes FILE; `tree -R` (with `-H` and `-L`) runs tree
    again in every directory at the depth limit with `-o 00Tree.html`."""
    return not any(_short_cluster_has(a, "oR") or a.startswith("--output") for a in args)


# date's short options that take a value: the rest of the cluster, else the
# next word (`-I` only takes one attached: `-Iseconds`, a bare `-I`).
_DATE_VALUE_NEXT = frozenset("dfr")


def date_reads_only(args: tuple[str, ...]) -> bool:
    """`date -s STRING` (`--set`) sets the clock. Short options are read as
    getopt reads a cluster, so `-us now` sets it, while the `s` of
    `-Iseconds` or of `-d '-1 sec'`'s value is a value, not an option."""
    words = iter(args)
    for arg in words:
        if arg == "--":
            return True
        if _long_matches(arg, "set"):
            return False
        if not arg.startswith("-") or arg.startswith("--") or arg == "-":
            continue
        for at, letter in enumerate(arg[1:], start=1):
            if letter == "s":
                return False
            if letter == "I":
                break
            if letter in _DATE_VALUE_NEXT:
                if at == len(arg) - 1:
                    next(words, None)  # its value is the next word
                break
    return True


def file_reads_only(args: tuple[str, ...]) -> bool:
    """`file -C` compiles a magic file (writes it)."""
    return not any(_short_cluster_has(a, "C") or _long_matches(a, "compile") for a in args)


def hostname_reads_only(args: tuple[str, ...]) -> bool:
    """`hostname NAME` sets the name; options alone only print."""
    return all(a.startswith("-") for a in args) and not any(
        _short_cluster_has(a, "bF") or _long_matches(a, "boot", "file") for a in args
    )


READER_CHECKS = {
    "find": find_reads_only,
    "test": test_builtin_reads_only,
    "[": test_builtin_reads_only,
    "printf": printf_reads_only,
    "ag": ag_reads_only,
    "gh": gh_reads_only,
    "sed": sed_reads_only,
    "uniq": uniq_reads_only,
    "sort": sort_reads_only,
    "rg": rg_reads_only,
    "tree": tree_reads_only,
    "date": date_reads_only,
    "file": file_reads_only,
    "hostname": hostname_reads_only,
}
