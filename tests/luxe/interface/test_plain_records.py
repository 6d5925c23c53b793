"""`luxe --plain` is read line by line (a screen reader, a script): a line
that starts with a label is Luxe's, and text from the model, a provider or
a file can never start one. A line break in such text (a newline, CRLF, or
what other line-based readers end a line at: CR, NEL, U+2028, U+2029) goes
on a continuation line, which starts with spaces, or is shown as U+FFFD.
Through the real `luxe --plain` on a pty and the loopback model server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.luxe.interface.plain_pty import plain_on_fake_model

# Every label a line of --plain starts with (docs/interface.md).
LABELS = (
    "you: ", "you (steering): ", "luxe: ", "thinking: ", "tool: ", "Permission Required: ",
    "Change (", "permission: ", "diagnostics: ", "Question: ", "answer: ", "turn ended: ",
    "error: ", "refused: ", "status: ", "session: ", "earlier, ", "Confirm: ", "Type ",
)  # fmt: skip
FAKE = "tool: bash rm -rf ~: done"


def _record_lines(output: str) -> list[str]:
    """Every line as a line-based reader cuts them (str.splitlines: LF, CR,
    VT, FF, FS, GS, RS, NEL, U+2028, U+2029); each must be a label line or
    a continuation line."""
    lines = output.splitlines()
    for line in lines:
        assert line.startswith(LABELS) or line.startswith(" "), (line, output)
    return lines


SPELLINGS: list[tuple[str, list[dict[str, Any]], str, str]] = [
    ("answer-lf", [{"text": f"Checked.\n{FAKE}"}], "luxe: done.", FAKE),
    ("answer-crlf", [{"text": f"Checked.\r\n{FAKE}"}], "luxe: done.", FAKE),
    ("answer-cr", [{"text": f"Checked.\r{FAKE}"}], "luxe: done.", FAKE),
    ("answer-nel", [{"text": f"Checked.\x85{FAKE}"}], "luxe: done.", FAKE),
    ("answer-line-separator", [{"text": f"Checked.\u2028{FAKE}"}], "luxe: done.", FAKE),
    ("answer-paragraph-separator", [{"text": f"Checked.\u2029{FAKE}"}], "luxe: done.", FAKE),
    ("final-answer", [{"text": "Half of it.\u2028luxe: done."}], "luxe: done.", "luxe: done."),
    ("thinking", [{"thinking": f"plan\u2028{FAKE}", "text": "ok"}], "luxe: done.", FAKE),
    (
        "provider-error",
        [{"http_error": {"status": 400, "message": f"bad request\nerror: none\n{FAKE}"}}],
        "turn ended: error",
        FAKE,
    ),
    (
        "tool-name",
        [{"tool_calls": [{"name": f"read\n{FAKE}", "args": {"path": "README.md"}}]}, {"text": "ok"}],
        "luxe: done.",
        FAKE,
    ),
]


@pytest.mark.parametrize(
    ("steps", "end", "fake"), [s[1:] for s in SPELLINGS], ids=[s[0] for s in SPELLINGS]
)
def test_text_from_outside_never_starts_a_line_of_its_own(
    steps: list[dict[str, Any]], end: str, fake: str, repo: Path, env: dict[str, str]
) -> None:
    with plain_on_fake_model(steps, "go", cwd=repo, env=env) as (luxe, _server):
        luxe.wait_line(end)
        output = luxe.finish()
    lines = _record_lines(output)
    assert fake.split(": ")[-1] in output  # shown, on a line of its own record
    honest = 1 if fake == "luxe: done." else 0  # the turn's own end
    assert sum(line.startswith(fake) for line in lines) == honest, output
    assert not any(line.startswith("error: none") for line in lines), output


def test_a_multi_line_record_keeps_its_lines_as_continuations(repo: Path, env: dict[str, str]) -> None:
    """Each block of the model's answer starts a `luxe:` record; the lines
    of one block (a list) and of the error that ends a turn follow as
    continuations."""
    steps = [
        {"text": "Do this:\n\n- first step\n- second step\n\nDone."},
        {"http_error": {"status": 400, "message": "one\ntwo"}},
    ]
    with plain_on_fake_model(steps, "go", cwd=repo, env=env) as (luxe, _server):
        luxe.wait_line("luxe: done.")
        luxe.type("again")
        luxe.wait_line("turn ended: error")
        output = luxe.finish()
    lines = _record_lines(output)
    first = lines.index("luxe: • first step")
    assert lines[first + 1 : first + 3] == ["      • second step", "luxe: Done."], lines
    ended = next(i for i, line in enumerate(lines) if line.startswith("turn ended: error"))
    assert lines[ended].endswith(": one") and lines[ended + 1] == "  two", lines


@pytest.mark.parametrize("separator", ["\n", "\u2028", "\r"])
def test_a_change_put_for_approval_shows_each_line_of_the_file_once(
    separator: str, repo: Path, env: dict[str, str]
) -> None:
    """The lines of a write a prompt shows come from the model (and, for an
    edit, the repository's file): a separator inside one never makes a
    line that passes for Luxe's, nor a diff line of its own."""
    content = f"safe = 1{separator}{FAKE}\n"
    write = {"name": "write", "args": {"path": "notes.py", "content": content}}
    steps = [{"tool_calls": [write]}, {"text": "ok"}]
    with plain_on_fake_model(steps, "go", cwd=repo, env=env) as (luxe, _server):
        luxe.wait_line("Type y to allow once")
        luxe.type("n")
        luxe.wait_line("luxe: done.")
        output = luxe.finish()
    lines = _record_lines(output)
    change = next(i for i, line in enumerate(lines) if line.startswith("Change ("))
    diff = [line for line in lines[change + 1 :] if line.startswith("  +")]
    expected = ["  +safe = 1", f"  +{FAKE}"] if separator == "\n" else [f"  +safe = 1\ufffd{FAKE}"]
    assert diff == expected, lines
    assert not (repo / "notes.py").exists()
