"""A pure parser from `git diff` text to the review's files and hunks.

It owns no I/O. Ids are content hashes, so the same diff always gives the
same ids:

- `file:` hashes the file's identity in the change (old path, path), so a
  file keeps its id while its content changes between revisions;
- `hunk:` hashes the file id and the hunk's body (its lines, not its line
  numbers), so a hunk keeps its id when edits elsewhere shift it;
- the revision id hashes the whole diff text, so it changes exactly when the
  diff does.

Beside the wire model the parser keeps each file's patch text (`FilePatch`),
which is what chapter commits apply to the index.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from luxe.git_quoting import unquote_path
from luxe.record import record
from luxe.review.model import DiffLine, FileStatus, Hunk, ReviewFile

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_DIFF_GIT = "diff --git "


class DiffParseError(ValueError):
    """The text is not a diff git could have written; names the line."""


@record
class HunkPatch:
    hunk_id: str
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    section: str  # what follows the second "@@" in the header line
    body: tuple[str, ...]  # the lines after the header, as git wrote them


@record
class FilePatch:
    """One file's patch as git wrote it: its header lines and its hunks."""

    file_id: str
    old_path: str | None  # None for an added file
    new_path: str | None  # None for a deleted file
    header: tuple[str, ...]  # from "diff --git" to the first "@@" (binary data included)
    hunks: tuple[HunkPatch, ...]
    text_hunks: bool  # False when the file's one hunk stands for a change with no lines


@record
class ParsedDiff:
    revision_id: str
    files: tuple[ReviewFile, ...]
    hunks: tuple[Hunk, ...]
    patches: tuple[FilePatch, ...]  # in the order of `files`


def short_hash(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def revision_of(diff_text: str) -> str:
    return short_hash("revision", diff_text)


def parse_diff(diff_text: str) -> ParsedDiff:
    """Split `git diff` output into files and hunks (see the module doc).

    Raises DiffParseError on text git would not write (a hunk shorter than
    its header says, a line outside any file).
    """
    lines = diff_text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    files: list[ReviewFile] = []
    hunks: list[Hunk] = []
    patches: list[FilePatch] = []
    for start, hunk_spans in _file_spans(lines):
        file, file_hunks, patch = _parse_file(lines, start, hunk_spans)
        files.append(file)
        hunks.extend(file_hunks)
        patches.append(patch)
    return ParsedDiff(revision_of(diff_text), tuple(files), tuple(hunks), tuple(patches))


_HunkSpan = tuple[int, int, re.Match[str]]  # header line, end, header match


def _file_spans(lines: list[str]) -> Iterator[tuple[int, list[_HunkSpan]]]:
    """Each file's first line and its hunks. A file ends where the next
    "diff --git" starts, but only outside a hunk: hunks are read by count, so
    a hunk line that looks like a header is still a hunk line."""
    index = 0
    while index < len(lines):
        if not lines[index].startswith(_DIFF_GIT):
            raise DiffParseError(f"line {index + 1}: expected 'diff --git', got {lines[index]!r}")
        start = index
        spans: list[_HunkSpan] = []
        index += 1
        while index < len(lines) and not lines[index].startswith(_DIFF_GIT):
            match = _HUNK_HEADER.match(lines[index]) if lines[index].startswith("@@") else None
            if match is None:
                if spans:
                    raise DiffParseError(
                        f"line {index + 1}: expected a hunk header, got {lines[index]!r}"
                    )
                index += 1
                continue
            stop = _hunk_end(lines, index, match)
            spans.append((index, stop, match))
            index = stop
        yield start, spans


def _counts(match: re.Match[str]) -> tuple[int, int, int, int]:
    old_start, old_lines, new_start, new_lines = match.groups()
    return (
        int(old_start),
        1 if old_lines is None else int(old_lines),
        int(new_start),
        1 if new_lines is None else int(new_lines),
    )


def _hunk_end(lines: list[str], header_index: int, match: re.Match[str]) -> int:
    _, old_left, _, new_left = _counts(match)
    index = header_index + 1
    while old_left > 0 or new_left > 0:
        if index >= len(lines):
            raise DiffParseError(f"line {header_index + 1}: hunk ends early")
        tag = lines[index][:1]
        if tag in (" ", ""):  # some tools strip the space of an empty context line
            old_left -= 1
            new_left -= 1
        elif tag == "-":
            old_left -= 1
        elif tag == "+":
            new_left -= 1
        elif tag != "\\":
            raise DiffParseError(f"line {index + 1}: unexpected {lines[index]!r} inside a hunk")
        index += 1
    while index < len(lines) and lines[index].startswith("\\"):
        index += 1  # "\ No newline at end of file" after the last line
    return index


def _parse_file(
    lines: list[str], start: int, hunk_spans: list[_HunkSpan]
) -> tuple[ReviewFile, list[Hunk], FilePatch]:
    if hunk_spans:
        header = lines[start : hunk_spans[0][0]]
    else:
        end = start + 1
        while end < len(lines) and not lines[end].startswith(_DIFF_GIT):
            end += 1
        header = lines[start:end]
    old_path, new_path, status, binary = _read_header(header, start)
    path = new_path if new_path is not None else old_path
    assert path is not None
    shown_old = old_path if status in ("renamed", "copied") else None
    file_id = "file:" + short_hash("file", shown_old or "", path)

    hunks: list[Hunk] = []
    hunk_patches: list[HunkPatch] = []
    seen: dict[str, int] = {}
    additions = deletions = 0
    for index, stop, match in hunk_spans:
        body = tuple(lines[index + 1 : stop])
        old_start, old_count, new_start, new_count = _counts(match)
        content = "\n".join(body)
        occurrence = seen.get(content, 0)  # the same body twice in one file
        seen[content] = occurrence + 1
        hunk_id = "hunk:" + short_hash("hunk", file_id, content, str(occurrence))
        diff_lines = _diff_lines(body, old_start, new_start)
        additions += sum(1 for line in diff_lines if line.kind == "add")
        deletions += sum(1 for line in diff_lines if line.kind == "del")
        section = lines[index][match.end() :].strip()
        hunks.append(
            Hunk(
                hunk_id,
                file_id,
                old_start,
                old_count,
                new_start,
                new_count,
                _display(lines[index]),
                diff_lines,
            )
        )
        hunk_patches.append(
            HunkPatch(hunk_id, old_start, old_count, new_start, new_count, section, body)
        )

    text_hunks = bool(hunks)
    if not hunks:
        # A change with no lines still has to be read and committed.
        hunk_id = "hunk:" + short_hash("hunk", file_id, "\n".join(header))
        hunks.append(
            Hunk(hunk_id, file_id, 0, 0, 0, 0, _lineless_header(status, binary, header), ())
        )
        hunk_patches.append(HunkPatch(hunk_id, 0, 0, 0, 0, "", ()))

    file = ReviewFile(
        file_id,
        _display(path),
        _display(shown_old) if shown_old is not None else None,
        status,
        additions,
        deletions,
        binary,
        language_of(path),
    )
    patch = FilePatch(file_id, old_path, new_path, tuple(header), tuple(hunk_patches), text_hunks)
    return file, hunks, patch


def _diff_lines(body: tuple[str, ...], old_line: int, new_line: int) -> tuple[DiffLine, ...]:
    result: list[DiffLine] = []
    for raw in body:
        tag, text = raw[:1], _display(raw[1:])
        if tag == "+":
            result.append(DiffLine("add", None, new_line, text))
            new_line += 1
        elif tag == "-":
            result.append(DiffLine("del", old_line, None, text))
            old_line += 1
        elif tag in (" ", ""):
            result.append(DiffLine("context", old_line, new_line, text))
            old_line += 1
            new_line += 1
    return tuple(result)


def _read_header(header: list[str], start: int) -> tuple[str | None, str | None, FileStatus, bool]:
    """(old path, new path, status, binary) from a file's header lines."""
    old_path = new_path = None
    status: FileStatus = "modified"
    binary = False
    rename_from = rename_to = None
    for line in header[1:]:
        if line.startswith("new file mode"):
            status = "added"
        elif line.startswith("deleted file mode"):
            status = "deleted"
        elif line.startswith(("rename from ", "copy from ")):
            rename_from = unquote_path(line.split(" ", 2)[2])
            status = "renamed" if line.startswith("rename") else "copied"
        elif line.startswith(("rename to ", "copy to ")):
            rename_to = unquote_path(line.split(" ", 2)[2])
        elif line.startswith("--- "):
            old_path = _strip_prefix(unquote_path(line[4:]))
        elif line.startswith("+++ "):
            new_path = _strip_prefix(unquote_path(line[4:]))
        elif line.startswith("Binary files ") or line == "GIT binary patch":
            binary = True
    if rename_from is not None:
        old_path, new_path = rename_from, rename_to
    elif old_path is None and new_path is None:
        # No ---/+++ lines (binary, empty file, mode change): read "diff --git".
        old_path, new_path = _paths_from_diff_git(header[0], start)
    if status == "added":
        old_path = None
    elif status == "deleted":
        new_path = None
    elif old_path is None or new_path is None:
        # "--- /dev/null" without a "new file mode" line (some diff producers).
        status = "added" if old_path is None else "deleted"
    elif status == "modified" and old_path != new_path:
        status = "renamed"  # different names with no rename lines (diff --no-index)
    return old_path, new_path, status, binary


def _paths_from_diff_git(line: str, start: int) -> tuple[str | None, str | None]:
    rest = line[len(_DIFF_GIT) :]
    if rest.startswith('"'):
        first, _, second = _split_quoted(rest)
        return _strip_prefix(first), _strip_prefix(unquote_path(second))
    # Unquoted "a/X b/Y" with X == Y (no rename here): split in the middle.
    half = (len(rest) - 1) // 2
    if rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
        return _strip_prefix(rest[:half]), _strip_prefix(rest[half + 1 :])
    parts = rest.split(" b/", 1)
    if len(parts) != 2:
        raise DiffParseError(f"line {start + 1}: cannot read the paths of {line!r}")
    return _strip_prefix(parts[0]), parts[1].rstrip()


def _split_quoted(text: str) -> tuple[str, str, str]:
    index = 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            break
        index += 1
    return unquote_path(text[: index + 1]), " ", text[index + 2 :]


def _strip_prefix(path: str) -> str | None:
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def _display(text: str) -> str:
    """Text safe for JSON: bytes that were not UTF-8 become U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


def _lineless_header(status: FileStatus, binary: bool, header: list[str]) -> str:
    if binary:
        return "Binary file " + {"added": "added", "deleted": "deleted"}.get(status, "changed")
    if status == "renamed":
        return "Renamed without changes"
    if status == "copied":
        return "Copied without changes"
    if status == "added":
        return "Empty file added"
    if status == "deleted":
        return "Empty file deleted"
    if any(line.startswith("new mode") for line in header):
        return "File mode changed"
    return "Changed without text changes"


_LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript",
    ".go": "go", ".rs": "rust", ".rb": "ruby", ".java": "java", ".kt": "kotlin",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp",
    ".swift": "swift", ".php": "php", ".sh": "shell", ".bash": "shell", ".zsh": "shell",
    ".md": "markdown", ".rst": "rst", ".txt": "text", ".json": "json", ".toml": "toml",
    ".yaml": "yaml", ".yml": "yaml", ".html": "html", ".css": "css", ".scss": "scss",
    ".sql": "sql", ".lua": "lua", ".ex": "elixir", ".exs": "elixir", ".hs": "haskell",
    ".ml": "ocaml", ".scala": "scala", ".vue": "vue", ".svelte": "svelte", ".xml": "xml",
}  # fmt: skip
_LANGUAGE_NAMES = {"Makefile": "make", "Dockerfile": "dockerfile", "CMakeLists.txt": "cmake"}


def language_of(path: str) -> str | None:
    """A language name from the file name; None when unknown (cheap on purpose:
    a review of hundreds of files must not wait on a lexer lookup)."""
    name = path.rsplit("/", 1)[-1]
    if name in _LANGUAGE_NAMES:
        return _LANGUAGE_NAMES[name]
    dot = name.rfind(".")
    return _LANGUAGE_NAMES.get(name) if dot <= 0 else _LANGUAGES.get(name[dot:].lower())
