"""A markdown file made to freeze a viewer, in the real `laura`: keys keep
echoing in the shell while the file is laid out to its last line. Each file
is one block that runs on (a list, a nested list, a paragraph, a quote, a
table, a fence, a line of inline markup), 400 KB of it, the kind a cloned
repository can hold. Before, such a block was parsed, rendered and laid out
in one step of the UI loop: seconds with no key echoed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.laura.echo_probe import assert_keys_echoed, keys_while_cli
from tests.laura.other_names import SPELLINGS, reached_by
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]

SIZE = 400_000
HEAD = "# Hostile\n\n"
LAST = "\n\nFAR_AWAY is here.\n"

SHAPES = {
    "a list": lambda: "- a\n" * (SIZE // 4),
    "a nested list": lambda: "- a\n  - b\n" * (SIZE // 10),
    "a paragraph": lambda: "word word\n" * (SIZE // 10),
    "a quote": lambda: "> a\n" * (SIZE // 4),
    "a table": lambda: "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * (SIZE // 10),
    "a table of 60,000 columns": lambda: "".join("|" + f"{cell}|" * (SIZE // 6) + "\n" for cell in "a-1"),
    "a table of a hundred columns": lambda: "|" + "a|" * 100 + "\n|" + "-|" * 100 + "\n" + ("|" + "1|" * 100 + "\n") * 990,
    "a fence": lambda: "```\n" + "x\n" * (SIZE // 2),
    "inline markup on one line": lambda: "*a* **b** `c` " * (SIZE // 14),
    "a list whose links are defined below it": lambda: "[x]\n\n" + "- [x]\n" * (SIZE // 6) + "\n[x]: http://e.invalid\n",
}


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("shape", list(SHAPES))
def test_keys_echo_while_a_block_that_runs_on_is_laid_out(laura_session: Make, tmp_path: Path, shape: str) -> None:
    path = tmp_path / "README.md"
    path.write_text(HEAD + SHAPES[shape]() + LAST)
    last = path.read_text().count("\n")
    session = laura_session(command=["cat"])
    # Keys while the file opens (its first screen is laid out) ...
    idle, opening = keys_while_cli(session, "open", str(path), "--no-focus")
    session.wait_for("# Hostile", timeout=60)
    pane = str(max(entry["id"] for entry in json.loads(session.cli("layout").stdout)["panes"]))
    # ... and while it is laid out to its last line.
    more_idle, reaching = keys_while_cli(session, "highlight", "--pane", pane, str(last))
    session.wait_for("FAR_AWAY is here.", timeout=90)
    assert_keys_echoed(idle + more_idle, opening + reaching, f"while {shape} of {SIZE:,} bytes was laid out")


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize(("shape", "unit"), [("list items", "- [x]\n"), ("nested list items", "- a\n  - [x]\n"), ("list items with markup", "- **[x]** `c`\n")])
def test_keys_echo_while_a_smaller_file_with_link_definitions_opens(
    laura_session: Make, tmp_path: Path, shape: str, unit: str
) -> None:
    """Links may use definitions at the end of the file, so the whole file
    is parsed before its first block is shown. A file loaded at once did
    that on the UI loop: 120 KB of list items held keys 0.24-0.44 s."""
    path = tmp_path / "README.md"
    path.write_text("# Hostile\n\n" + unit * (120_000 // len(unit)) + "\n[x]: http://e.invalid\n")
    session = laura_session(command=["cat"])
    idle, opening = keys_while_cli(session, "open", str(path), "--no-focus")
    session.wait_for("# Hostile", timeout=60)
    assert_keys_echoed(idle, opening, f"while 120 KB of {shape} with a link definition opened")


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_keys_echo_however_such_a_file_is_named(laura_session: Make, tmp_path: Path, spelling: str) -> None:
    """The list of 100,000 items reached by a symlink named README.md, a
    hard link named as `.markdown`, or a name `laura open` could take for
    an option: the name says markdown, and it is made in pieces all the same."""
    real = tmp_path / "real.md"
    real.write_text(HEAD + SHAPES["a list"]() + LAST)
    names = {"symlink": "README.md", "hard link": "guide.markdown", "option-looking name": "--highlight=1.md"}
    path = reached_by(real, spelling, names[spelling])
    last = path.read_text().count("\n")
    session = laura_session(command=["cat"])
    idle, opening = keys_while_cli(session, "open", "--no-focus", "--", str(path))
    session.wait_for("# Hostile", timeout=60)
    pane = str(max(entry["id"] for entry in json.loads(session.cli("layout").stdout)["panes"]))
    more_idle, reaching = keys_while_cli(session, "highlight", "--pane", pane, str(last))
    session.wait_for("FAR_AWAY is here.", timeout=90)
    assert_keys_echoed(idle + more_idle, opening + reaching, f"while a list opened by {spelling} was laid out")
