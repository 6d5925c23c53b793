"""Commit a review chapter by chapter: each chapter's hunks become one commit.

The commits are built in a temporary index (`git apply --cached` of each
chapter's hunk patches, `git write-tree`, `git commit-tree`; a binary file,
which the review's diff carries as one line, is staged by its blob: the
person's staged one for a staged review, else written from the working
tree, and checked against the blob id the review saw), so the working
tree is never touched and nothing is committed unless every chapter applies:
the branch moves once, at the end, with `git update-ref` checking it still
points where the review started. Refused (nothing committed) when the diff
on disk is no longer the review's revision.

For a working-tree review the user's index then follows the new commits for
the paths they touched; for a staged review it is left as it is, so what
stays staged is exactly what was not committed.

Cancelling kills the git process running; before the final update-ref,
nothing is changed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from luxe.record import record
from luxe.review.diff import ReviewLoadError, git, parse_read, read_diff
from luxe.review.diffparse import FilePatch, HunkPatch
from luxe.review.model import Chapter, Review, StagedTarget, WorkingTreeTarget

ZERO_OID = "0" * 40


class CommitRefused(Exception):
    """Nothing was committed; `reason` says why, for a person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@record
class ChapterCommit:
    chapter_id: str
    sha: str
    message: str


def chapter_message(chapter: Chapter) -> str:
    title = chapter.title.strip().splitlines()[0] if chapter.title.strip() else "Review chapter"
    summary = chapter.summary.strip()
    return f"{title}\n\n{summary}\n" if summary else f"{title}\n"


def select_chapters(review: Review, chapter_ids: Sequence[str] | None) -> list[Chapter]:
    """The chapters to commit, in the review's order; all when None."""
    if chapter_ids is None:
        return list(review.chapters)
    known = {chapter.id for chapter in review.chapters}
    unknown = [cid for cid in chapter_ids if cid not in known]
    if unknown:
        raise CommitRefused(f"unknown chapter {unknown[0]}")
    if not chapter_ids:
        raise CommitRefused("no chapters to commit")
    wanted = set(chapter_ids)
    return [chapter for chapter in review.chapters if chapter.id in wanted]


async def commit_chapters(
    cwd: Path, review: Review, chapter_ids: Sequence[str] | None = None
) -> tuple[ChapterCommit, ...]:
    """Commit the chosen chapters (see the module doc). Raises CommitRefused."""
    if not isinstance(review.target, WorkingTreeTarget | StagedTarget):
        raise CommitRefused(
            f"a {review.target.kind} review is already committed; only working_tree and "
            "staged reviews can be committed by chapter"
        )
    chapters = select_chapters(review, chapter_ids)
    try:
        read = await read_diff(cwd, review.target)
        parsed = parse_read(read)
    except ReviewLoadError as error:
        raise CommitRefused(error.reason) from None
    if parsed.revision_id != review.revision_id or read.base != review.base:
        raise CommitRefused(
            "the changes on disk are no longer the reviewed revision; reload the review"
        )
    root = read.root
    patches = {patch.file_id: patch for patch in parsed.patches}
    files = {file.id: file for file in parsed.files}
    staged = isinstance(review.target, StagedTarget)  # binary files come from the index
    order = {file.id: index for index, file in enumerate(parsed.files)}
    hunk_file = {hunk.id: hunk.file_id for hunk in parsed.hunks}

    commits: list[ChapterCommit] = []
    touched: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="luxe-review-commit-") as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch, "index")), "GIT_LITERAL_PATHSPECS": "1"}
        await _git(root, env, "read-tree", *((review.base,) if review.base else ("--empty",)))
        applied: dict[str, list[HunkPatch]] = {}
        parent = review.base
        for chapter in chapters:
            by_file: dict[str, list[str]] = {}
            for hunk_id in chapter.hunk_ids:
                by_file.setdefault(hunk_file[hunk_id], []).append(hunk_id)
            text = ""
            binaries: list[FilePatch] = []
            for file_id in sorted(by_file, key=order.__getitem__):
                patch = patches[file_id]
                chosen = [h for h in patch.hunks if h.hunk_id in by_file[file_id]]
                if files[file_id].binary:
                    binaries.append(patch)
                else:
                    text += file_patch(patch, chosen, applied.get(file_id, []))
                applied.setdefault(file_id, []).extend(chosen)
                touched.update(p for p in (patch.old_path, patch.new_path) if p is not None)
            if text:
                await _git(
                    root, env, "apply", "--cached", "--whitespace=nowarn", "-", stdin=_bytes(text)
                )
            for patch in binaries:
                await _stage_binary(root, env, patch, files[patch.file_id].status, staged)
            tree = (await _git(root, env, "write-tree")).strip()
            message = chapter_message(chapter)
            parents = ("-p", parent) if parent else ()
            sha = (
                await _git(
                    root, env, "commit-tree", tree, *parents, "-F", "-", stdin=_bytes(message)
                )
            ).strip()
            commits.append(ChapterCommit(chapter.id, sha, message))
            parent = sha
    if not commits:
        return ()
    await _git(
        root,
        {},
        "update-ref",
        "-m",
        "luxe: commit review chapters",
        "HEAD",
        commits[-1].sha,
        review.base or ZERO_OID,
    )
    if isinstance(review.target, WorkingTreeTarget) and touched:
        paths = "\0".join(sorted(touched))
        await _git(
            root, {"GIT_LITERAL_PATHSPECS": "1"}, "reset", "-q", commits[-1].sha,
            "--pathspec-from-file=-", "--pathspec-file-nul", stdin=_bytes(paths),
        )  # fmt: skip
    return tuple(commits)


def file_patch(patch: FilePatch, chosen: Sequence[HunkPatch], before: Sequence[HunkPatch]) -> str:
    """The patch of `chosen` hunks of one file, against the file with the
    `before` hunks already applied: the file's own header the first time,
    a plain modification header after, hunk positions shifted to match."""
    if not patch.text_hunks:
        return _lines(patch.header)
    if not before:
        header = list(patch.header)
    else:
        path = _quote("b/" + (patch.new_path or ""))
        old = _quote("a/" + (patch.new_path or ""))
        header = [f"diff --git {old} {path}", f"--- {old}", f"+++ {path}"]
    out = list(header)
    shift_in_patch = 0
    for hunk in sorted(chosen, key=lambda h: h.old_start):
        shift = sum(p.new_lines - p.old_lines for p in before if p.old_start < hunk.old_start)
        old_start = hunk.old_start + shift
        # Unified diff counts an empty side from the line before it.
        new_start = old_start + shift_in_patch + (hunk.old_lines == 0) - (hunk.new_lines == 0)
        header_line = f"@@ -{old_start},{hunk.old_lines} +{new_start},{hunk.new_lines} @@"
        out.append(f"{header_line} {hunk.section}".rstrip())
        out.extend(hunk.body)
        shift_in_patch += hunk.new_lines - hunk.old_lines
    return _lines(out)


def new_blob(header: Sequence[str]) -> tuple[str, str]:
    """(mode, abbreviated blob id) of a file's new side, from its patch
    header's `new file mode` / `new mode` and `index OLD..NEW [MODE]` lines."""
    mode = blob = None
    for line in header:
        if line.startswith(("new file mode ", "new mode ")):
            mode = line.rsplit(" ", 1)[1]
        elif line.startswith("index "):
            ids, _, rest = line[len("index ") :].partition(" ")
            blob = ids.partition("..")[2]
            mode = mode or rest.strip() or None
    if mode is None or not blob:
        raise CommitRefused(f"cannot tell the new content of a binary file from: {' / '.join(header)}")
    return mode, blob


async def _stage_binary(
    root: Path, env: dict[str, str], patch: FilePatch, status: str, staged: bool
) -> None:
    """Put a binary file's change into the temporary index by blob: its old
    path out when deleted or renamed, its new content in, taken from the
    person's index for a staged review and written from the working tree
    otherwise, and refused unless it is the blob the review saw."""
    if patch.old_path is not None and (patch.new_path is None or status == "renamed"):
        await _git(root, env, "update-index", "--force-remove", "--", patch.old_path)
    if patch.new_path is None:
        return
    mode, seen = new_blob(patch.header)
    if staged:
        entry = await _git(root, {"GIT_LITERAL_PATHSPECS": "1"}, "ls-files", "-s", "--", patch.new_path)
        blob = entry.split()[1] if entry.strip() else ""
    else:
        blob = (await _git(root, env, "hash-object", "-w", "--", patch.new_path)).strip()
    if not blob.startswith(seen):
        raise CommitRefused("the changes on disk are no longer the reviewed revision; reload the review")
    await _git(root, env, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{patch.new_path}")


def _lines(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _quote(path: str) -> str:
    """git's C-style quoting, for paths with characters it would quote."""
    needs = any(ord(c) < 0x20 or c in '"\\' or ord(c) == 0x7F or ord(c) > 0x7E for c in path)
    if not needs:
        return path
    out = []
    for byte in path.encode("utf-8", "surrogateescape"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif byte == 9:
            out.append("\\t")
        elif byte == 10:
            out.append("\\n")
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


async def _git(root: Path, env: dict[str, str], *args: str, stdin: bytes | None = None) -> str:
    result = await git(root, *args, env=env, stdin=stdin)
    if result.returncode != 0:
        raise CommitRefused(f"git {args[0]}: {result.error_line}")
    return result.text
