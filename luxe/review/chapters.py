"""Chapters: the review's reading order, every hunk in exactly one chapter.

Two sources, one validator:

- `fallback_chapters` is deterministic and cheap: hunks grouped by
  directory, files that define names before the files that use them (when a
  regex can tell), tests last.
- The model may propose chapters in one call with the `propose_chapters`
  tool (`chapter_request` builds that call, `parse_proposal` reads and
  validates its answer). Any invalid answer is refused with a reason, and the
  caller falls back.

Everything here is pure.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from luxe.engine.model import ModelRequest, TextBlock, ToolSpec, UserMessage
from luxe.review.diffparse import short_hash
from luxe.review.model import Chapter, Hunk, Review, ReviewFile
from luxe.wording import counted


class ChaptersInvalid(ValueError):
    """Chapters that do not cover every hunk exactly once, or are malformed."""


def chapter_id(hunk_ids: Iterable[str]) -> str:
    return "chapter:" + short_hash("chapter", *hunk_ids)


def validate_chapters(chapters: Sequence[Chapter], hunks: Sequence[Hunk]) -> None:
    """Raise ChaptersInvalid unless every hunk is in exactly one chapter and
    every chapter has a title and at least one hunk."""
    known = {hunk.id for hunk in hunks}
    seen: set[str] = set()
    for index, chapter in enumerate(chapters, 1):
        if not chapter.title.strip():
            raise ChaptersInvalid(f"chapter {index} has no title")
        if not chapter.hunk_ids:
            raise ChaptersInvalid(f"chapter {index} ({chapter.title}) has no hunks")
        for hunk_id in chapter.hunk_ids:
            if hunk_id not in known:
                raise ChaptersInvalid(f"chapter {index} names unknown hunk {hunk_id}")
            if hunk_id in seen:
                raise ChaptersInvalid(f"hunk {hunk_id} is in more than one chapter")
            seen.add(hunk_id)
    missing = [hunk.id for hunk in hunks if hunk.id not in seen]
    if missing:
        raise ChaptersInvalid(f"{len(missing)} hunk(s) in no chapter, first {missing[0]}")


# -- the fallback ------------------------------------------------------------------

_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "testdata"})
_TEST_NAME = re.compile(r"(^test_.*|.*_test\.\w+$|.*\.(test|spec)\.\w+$|^conftest\.py$)")
# Cheap definition sites in common languages: def/class/fn/func/function,
# type/interface/struct/enum/trait and top-level const/let/var assignments.
_DEFINITION = re.compile(
    r"^\s*(?:export\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:default\s+)?"
    r"(?:def|class|fn|func|function|type|interface|struct|enum|trait|const|let|var)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_]\w*)"
)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w{2,}")
# The order by definitions is a hint, so it is bounded: a name defined in
# more files than this orders nothing (`main`, `setup`), and past this many
# dependencies the rest keep their sorted order. Unbounded, a change of
# 12,000 one-line files, half defining `foo` and half calling it (a pack of
# a few kilobytes), made 36 million dependencies: 35 s and 3 GB, with the
# event loop held.
MAX_DEFINERS = 4
MAX_DEPENDENCIES = 100_000


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    return bool(_TEST_DIRS.intersection(parts[:-1])) or bool(_TEST_NAME.match(parts[-1]))


def fallback_chapters(files: Sequence[ReviewFile], hunks: Sequence[Hunk]) -> tuple[Chapter, ...]:
    """One chapter per directory (tests in their own chapters), ordered so
    definitions come before their uses and tests come last."""
    hunks_by_file: dict[str, list[Hunk]] = defaultdict(list)
    for hunk in hunks:
        hunks_by_file[hunk.file_id].append(hunk)
    ordered = _order_files([f for f in files if hunks_by_file[f.id]], hunks_by_file)

    groups: dict[tuple[bool, str], list[ReviewFile]] = {}
    for file in ordered:
        directory = file.path.rsplit("/", 1)[0] if "/" in file.path else ""
        groups.setdefault((is_test_path(file.path), directory), []).append(file)
    # Groups in the order of their first file; tests after everything else.
    keys = sorted(groups, key=lambda key: key[0])  # stable: keeps first-file order
    chapters = []
    for is_test, directory in keys:
        group = groups[(is_test, directory)]
        hunk_ids = tuple(h.id for f in group for h in hunks_by_file[f.id])
        chapters.append(
            Chapter(
                chapter_id(hunk_ids),
                _title(group, directory, is_test),
                _summary(group),
                hunk_ids,
            )
        )
    return tuple(chapters)


def _order_files(
    files: Sequence[ReviewFile], hunks_by_file: Mapping[str, Sequence[Hunk]]
) -> list[ReviewFile]:
    """Files sorted by (tests last, directory, path), then moved so a file
    defining a name comes before the files whose added lines use it. A cycle
    is broken where the depth-first walk meets it, so the same files always
    come out in the same order."""
    base = sorted(
        files,
        key=lambda f: (
            is_test_path(f.path),
            f.path.rsplit("/", 1)[0] if "/" in f.path else "",
            f.path,
        ),
    )
    defines: dict[str, set[str]] = {}
    uses: dict[str, set[str]] = {}
    for file in base:
        defined: set[str] = set()
        used: set[str] = set()
        for hunk in hunks_by_file[file.id]:
            for line in hunk.lines:
                if line.kind != "add":
                    continue
                match = _DEFINITION.match(line.text)
                if match:
                    defined.add(match.group(1))
                used.update(_IDENTIFIER.findall(line.text))
        defines[file.id] = defined
        uses[file.id] = used - defined
    definers: dict[str, list[str]] = defaultdict(list)
    for file in base:
        for name in defines[file.id]:
            definers[name].append(file.id)
    depends: dict[str, set[str]] = {file.id: set() for file in base}
    budget = MAX_DEPENDENCIES
    for file in base:
        if budget <= 0:
            break
        for name in sorted(uses[file.id]):  # sorted: the same dependencies on every run
            found = definers.get(name, ())
            if len(found) > MAX_DEFINERS:
                continue
            for definer in found:
                if definer != file.id and definer not in depends[file.id]:
                    depends[file.id].add(definer)
                    budget -= 1

    # Depth-first in sorted order: each file after what it depends on.
    placed: list[ReviewFile] = []
    state: dict[str, int] = {}  # 1 visiting, 2 placed
    by_id = {file.id: file for file in base}
    rank = {file.id: index for index, file in enumerate(base)}

    def after(file_id: str) -> list[str]:
        """What `file_id` depends on, the first in sorted order last (popped first)."""
        return sorted(depends[file_id], key=rank.__getitem__, reverse=True)

    def visit(file_id: str) -> None:
        stack: list[tuple[str, list[str]]] = [(file_id, after(file_id))]
        state[file_id] = 1
        while stack:
            current, pending = stack[-1]
            while pending and state.get(pending[-1]):
                pending.pop()  # placed, or on the stack: a cycle, keep sorted order
            if pending:
                nxt = pending.pop()
                state[nxt] = 1
                stack.append((nxt, after(nxt)))
                continue
            stack.pop()
            state[current] = 2
            placed.append(by_id[current])

    for file in base:
        if file.id not in state:
            visit(file.id)
    # Tests stay last even when production code "uses" a test helper name.
    return [f for f in placed if not is_test_path(f.path)] + [
        f for f in placed if is_test_path(f.path)
    ]


def _title(group: Sequence[ReviewFile], directory: str, is_test: bool) -> str:
    if len(group) == 1:
        file = group[0]
        verb = {"added": "Add", "deleted": "Delete", "renamed": "Rename", "copied": "Copy"}
        return f"{verb.get(file.status, 'Update')} {file.path}"
    where = directory or "the top level"
    return f"Tests in {where}" if is_test else f"Changes in {where}"


def _summary(group: Sequence[ReviewFile]) -> str:
    additions = sum(f.additions for f in group)
    deletions = sum(f.deletions for f in group)
    names = [f.path.rsplit("/", 1)[-1] for f in group]
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    count = counted(len(group), "file")
    return f"{count}, +{additions} -{deletions}: {shown}"


# -- the model's proposal ------------------------------------------------------------

PROPOSE_CHAPTERS = ToolSpec(
    name="propose_chapters",
    description=(
        "Split the change into chapters a reviewer reads in order. Every hunk id must be "
        "in exactly one chapter. Put definitions before their uses and tests last."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "chapters": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string", "description": "a short imperative title"},
                        "summary": {"type": "string", "description": "one line"},
                        "hunk_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    },
                    "required": ["title", "summary", "hunk_ids"],
                },
            }
        },
        "required": ["chapters"],
    },
)

CHAPTER_SYSTEM = (
    "You organise a code change for a human reviewer. Call propose_chapters exactly once. "
    "Group related hunks into chapters with a short title and a one-line summary. Order the "
    "chapters so that definitions come before their uses and tests come last. Every hunk id "
    "listed must appear in exactly one chapter."
)
_PREVIEW_LINES = 6


def chapter_request(review: Review, model: str) -> ModelRequest:
    """The one model call that asks for chapters: each hunk by id, its file,
    its header and its first changed lines."""
    files = {file.id: file for file in review.files}
    parts = [f"The change has {len(review.hunks)} hunks in {len(review.files)} files.\n"]
    for hunk in review.hunks:
        file = files[hunk.file_id]
        parts.append(f"\n{hunk.id} {file.path} ({file.status}) {hunk.header}")
        changed = [line for line in hunk.lines if line.kind != "context"][:_PREVIEW_LINES]
        parts.extend(
            f"\n  {'+' if line.kind == 'add' else '-'}{line.text[:120]}" for line in changed
        )
    return ModelRequest(
        model=model,
        system=CHAPTER_SYSTEM,
        messages=(UserMessage((TextBlock("".join(parts)),)),),
        tools=(PROPOSE_CHAPTERS,),
        max_tokens=4096,
    )


def parse_proposal(arguments: Mapping[str, Any], hunks: Sequence[Hunk]) -> tuple[Chapter, ...]:
    """Chapters from the tool call's arguments; ChaptersInvalid says why not."""
    raw = arguments.get("chapters")
    if not isinstance(raw, list) or not raw:
        raise ChaptersInvalid("no chapters")
    chapters = []
    for index, item in enumerate(raw, 1):
        if not isinstance(item, Mapping):
            raise ChaptersInvalid(f"chapter {index} is not an object")
        title, summary, hunk_ids = item.get("title"), item.get("summary", ""), item.get("hunk_ids")
        if not isinstance(title, str) or not isinstance(summary, str):
            raise ChaptersInvalid(f"chapter {index} needs a title and a summary")
        if not isinstance(hunk_ids, list) or not all(isinstance(h, str) for h in hunk_ids):
            raise ChaptersInvalid(f"chapter {index} needs a list of hunk ids")
        ids = tuple(hunk_ids)
        chapters.append(Chapter(chapter_id(ids), title.strip(), summary.strip(), ids))
    validate_chapters(chapters, hunks)
    return tuple(chapters)
