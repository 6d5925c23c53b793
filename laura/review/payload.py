"""The review payload: the exact text an agent reads when the person submits.

This is the contract with the agent (the spec's "Review payload"), so every
byte is pinned by tests. For a pane showing `/repo/app.py` with a comment on
line 3 and an overall body, `assemble_review` gives:

    [laura review · /repo/app.py]
    <blank>
    overall body                      (this line and the blank above it only when the body is not blank)
    <blank>
    L3  <raw source line 3>
          > the person's comment     (six spaces, `> `)
          > [claude] the agent's reply

A folded markdown block's thread is headed `L<a>-<b>` with line a's text; a
thread whose line is past the end of the snapshot gets the bare header. A
frozen pane adds the banner line right under the first line. The block ends
with a newline. `bracketed_paste` wraps it for the PTY.
"""

from __future__ import annotations

from collections.abc import Sequence

from laura.controls import pictured
from laura.review.threads import Note, Thread

PASTE_OPEN = b"\x1b[200~"
PASTE_CLOSE = b"\x1b[201~"
SUBMIT = b"\r"

# Six spaces then `> `: the quote column every comment line starts at.
QUOTE = "      > "

FROZEN_BANNER = (
    "⚠ file changed on disk since this inline review — line numbers are against the snapshot"
)


def defuse_controls(text: str) -> str:
    """`text` with every control character but tab and newline replaced by a
    visible stand-in (laura.controls), so nothing in a comment or a file
    line can end the paste early or send keys to the agent's REPL (an
    `ESC[201~` followed by a carriage return inside a file would otherwise
    run as typed input)."""
    return pictured(text, keep="\t\n")


def thread_header(thread: Thread, source_lines: Sequence[str]) -> str:
    """`L<n>  <line n>` (or `L<a>-<b>  <line a>`); bare when the snapshot
    has no such line."""
    line = thread.line
    if 1 <= line <= len(source_lines):
        return f"{thread.header}  {source_lines[line - 1]}"
    return thread.header


def quote_note(note: Note) -> str:
    """One comment under its header. The agent's own notes carry their label
    so the agent can tell its remarks from the person's. A multi-line comment
    keeps its later lines raw, as typed, under the first."""
    label = "" if note.by_person else f"[{note.agent}] "
    return f"{QUOTE}{label}{note.body}"


def assemble_review(
    path: str,
    threads: Sequence[Thread],
    body: str = "",
    source_lines: Sequence[str] = (),
    *,
    frozen: bool = False,
) -> str:
    """The review block for the pane showing `path` (as it was opened), its
    threads (any order: they are emitted in line order), the overall `body`
    and the pane's snapshot of the file as `source_lines`."""
    parts = [f"[laura review · {path}]\n"]
    if frozen:
        parts.append(FROZEN_BANNER + "\n")
    if body.strip():
        parts.append(f"\n{body}\n")
    for thread in sorted(threads, key=lambda each: each.anchor):
        parts.append("\n" + thread_header(thread, source_lines) + "\n")
        parts.extend(quote_note(note) + "\n" for note in thread.notes)
    return defuse_controls("".join(parts))


def bracketed_paste(block: str, *, submit: bool = True) -> bytes:
    """The bytes written to the agent's PTY: the block inside the paste
    markers, so its newlines do not submit line by line, then one carriage
    return outside the close marker so it submits once (`submit=False` for a
    plain paste of what the person pasted)."""
    wrapped = PASTE_OPEN + defuse_controls(block).encode("utf-8") + PASTE_CLOSE
    return wrapped + SUBMIT if submit else wrapped


def review_bytes(
    path: str,
    threads: Sequence[Thread],
    body: str = "",
    source_lines: Sequence[str] = (),
    *,
    frozen: bool = False,
) -> bytes:
    """`assemble_review` wrapped by `bracketed_paste`: what `S` writes."""
    return bracketed_paste(assemble_review(path, threads, body, source_lines, frozen=frozen))
