"""The interface's pure parts: the line editor, the live-region differ (its
bytes replayed through a reference emulator), streaming markdown, keys."""

from __future__ import annotations

import re
from datetime import UTC

import blessed
import pyte
import pytest

from luxe.frontends.tui.editor import Editor
from luxe.frontends.tui.keys import Focus, Key, KeyDecoder, Paste
from luxe.frontends.tui.live import LiveRegion
from luxe.frontends.tui.markdown import BlockStream, render_block
from luxe.frontends.tui.text import Palette, plain_text, with_cursor, wrap


def test_editor_readline_and_chips() -> None:
    e = Editor()
    e.insert("hello world")
    e.word_left()
    e.kill_to_end()
    assert e.text == "hello " and e.kill_ring == "world"
    e.home()
    e.yank()
    assert e.text == "worldhello "
    e.clear()
    big = "\n".join(str(i) for i in range(50))
    e.insert("see ")
    e.paste(big)
    assert e.text == "see [pasted 50 lines #1]"
    assert e.expanded() == "see " + big
    e.backspace()  # a chip goes whole
    assert e.text == "see " and not e.chips


def test_editor_moves_between_lines() -> None:
    e = Editor()
    e.insert("ab\ncdef\ng")
    assert e.up() and e.cursor == len("ab\nc")
    assert e.up() and e.cursor == 1
    assert not e.up()
    assert e.down() and e.down() and not e.down()


def _replay(width: int, height: int, chunks: list[str]) -> pyte.HistoryScreen:
    screen = pyte.HistoryScreen(width, height, history=500)
    stream = pyte.ByteStream(screen)
    for chunk in chunks:
        stream.feed(chunk.encode())
    return screen


def test_live_region_commits_once_and_rewrites_only_changed_rows() -> None:
    live = LiveRegion(synchronized=False)
    out = [live.frame(["> ", "status"], (1, 0))]
    out.append(live.frame(["partial", "> ", "status"], (2, 0)))
    grown = live.frame(["partial answer", "> ", "status"], (2, 0))
    assert "status" not in grown and grown.endswith("\r") and " answer" in grown
    out.append(grown)
    for i in range(30):
        out.append(live.frame(["> ", "status"], (1, 0), [f"line {i}"]))
    screen = _replay(40, 10, out)
    rows = ["".join(c.data for c in row.values()).rstrip() for row in screen.history.top]
    rows += [line.rstrip() for line in screen.display]
    assert [r for r in rows if r.startswith("line")] == [f"line {i}" for i in range(30)]
    assert sum(r == "status" for r in rows) == 1
    assert "\x1b[3J" not in "".join(out) and "\x1b[J" not in "".join(out)


def test_live_region_shrinks_and_erases() -> None:
    live = LiveRegion(synchronized=True)
    first = live.frame(["a", "b", "c"], (2, 0))
    assert first.startswith("\x1b[?2026h") and first.endswith("\x1b[?2026l")
    screen = _replay(20, 6, [first, live.frame(["x"], (0, 0)), live.erase()])
    assert all(not line.strip() for line in screen.display)


def test_block_stream_commits_complete_blocks_only() -> None:
    s = BlockStream()
    assert s.feed("para one\nstill one") == []
    assert s.feed("\n\n```py\nx = 1\n") == ["para one\nstill one"]
    assert s.tail == "```py\nx = 1"
    assert s.feed("```\n# Head\n") == ["```py\nx = 1\n```", "# Head"]
    assert s.feed("last") == [] and s.finish() == ["last"]


def test_code_is_highlighted_and_keeps_indentation() -> None:
    lines = render_block("```python\ndef f():\n    return 1\n```", 40)
    assert plain_text(lines[2]) == "      return 1"
    assert ("return", "kw") in lines[2]


def test_wrap_and_cursor_and_palettes() -> None:
    rows = wrap([("the quick brown fox jumps", "")], 10)
    assert [plain_text(r) for r in rows] == ["the quick", "brown fox", "jumps"]
    assert with_cursor([("ab", "")], 1) == [("a", ""), ("b", "cursor")]
    assert with_cursor([("ab", "")], 2)[-1] == (" ", "cursor")
    assert Palette("mono").render([("x", "tool")]) == "x"  # NO_COLOR: no colour role
    assert Palette("plain").render([("x", "bold")]) == "x"
    assert "\x1b[1;38;5;117m" in Palette("256").render([("x", "heading")])


def test_keys_paste_focus_enter_and_newline() -> None:
    decoder = KeyDecoder(blessed.Terminal(kind="xterm-256color", force_styling=True))
    assert decoder.feed(b"\x1b[200~a\rb") == []
    assert decoder.feed(b"\x1b[201~\r") == [Paste("a\rb"), Key("KEY_ENTER")]
    assert decoder.feed(b"\n\x1b[I") == [Key("KEY_NEWLINE"), Focus(True)]
    assert decoder.feed(b"\x1b[27;2;13~") == [Key("KEY_SHIFT_ENTER")]
    assert decoder.feed(b"\x1b") == [] and decoder.flush() == [Key("KEY_ESCAPE", "\x1b")]
    assert [k.name for k in decoder.feed(b"\x1bb\x01\x1b[Z")] == ["KEY_ALT_B", "KEY_CTRL_A", "KEY_BTAB"]


def test_a_paste_split_anywhere_across_reads_is_one_event() -> None:
    data = b"x\x1b[200~" + "line ✓\r".encode() * 50 + b"\x1b[201~\r"
    for split in range(1, len(data), 7):
        decoder = KeyDecoder(blessed.Terminal(kind="xterm-256color", force_styling=True))
        events = decoder.feed(data[:split]) + decoder.feed(data[split:])
        assert events == [Key(None, "x"), Paste("line ✓\r" * 50), Key("KEY_ENTER")], split


def test_links_are_osc8_only_where_the_terminal_shows_them() -> None:
    from luxe.frontends.tui.markdown import inline
    from luxe.frontends.tui.text import hyperlinks

    spans = inline("see [the docs](https://example.org/a)")
    linked = Palette("256", links=True).render(spans)
    assert "\x1b]8;;https://example.org/a\x1b\\" in linked and linked.count("\x1b]8;;\x1b\\") == 1
    assert "\x1b]8" not in Palette("256").render(spans)
    assert "\x1b" not in Palette("plain", links=True).render(spans)
    assert hyperlinks({"TERM_PROGRAM": "WezTerm"}) and not hyperlinks({"TERM_PROGRAM": "WezTerm", "TMUX": "x"})
    for line in render_block("[x](https://e.org/\x1b]0;pwned\x07)", 80):
        assert "\x1b]0;" not in Palette("256", links=True).render(line)


def test_the_first_frame_needs_no_trio_blessed_or_converter() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, luxe.frontends.tui.frontend, luxe.frontends.tui.entry;"
        "print(sorted(m for m in ('trio', 'blessed', 'cattrs', 'httpx', 'pygments', 'wcwidth')"
        " if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_text_measured_without_wcwidth_is_measured_as_wcwidth_would() -> None:
    """The interface's own glyphs and ASCII skip wcwidth (the first frame
    does not load it); every one of them is one cell there too, and mixed
    text (wide, combining, emoji) still goes to wcwidth."""
    from wcwidth import wcswidth, wcwidth

    from luxe.frontends.tui.text import NARROW, cell_width, char_width

    for ch in NARROW:
        assert wcwidth(ch) == 1 and char_width(ch) == 1, repr(ch)
    for text in ("› ask  model  ctx 0%  ⎇ main", "日本語 › x", "e\u0301", "👍🏽 ok"):
        expected = wcswidth(text)
        if expected < 0:
            expected = sum(max(wcwidth(ch), 0) for ch in text)
        assert cell_width(text) == expected, text


def test_a_control_is_drawn_as_a_visible_cell_and_measured_as_drawn() -> None:
    """Palette.render cleans every span, whoever built it: a control is
    drawn as `�` (a tab as four spaces) in every palette, and measured as
    drawn, so a row cut or wrapped to a width is drawn no wider."""
    from luxe.frontends.tui.live import visible
    from luxe.frontends.tui.text import cell_width, truncate

    texts = ["a\x1b]0;t\x07b", "\x9b2J", "x\ty", "kept\rGONE", "\x00nul", "日本\x1b語", "\x7f\x85"]
    for kind in ("256", "16", "mono", "plain"):
        palette = Palette(kind, links=True)
        for text in texts:
            drawn = visible(palette.render([(text, "tool"), ("link", "link:u\x1b]0;t\x07")]))
            assert re.search(r"[\x00-\x1f\x7f-\x9f]", drawn) is None, (kind, drawn)
            assert cell_width(drawn) == cell_width(text) + cell_width("link"), (kind, text)
            for width in (3, 5, 8):
                for row in [truncate([("> ", "dim"), (text * 3, "")], width),
                            *wrap([(text * 3, "")], width, floor=1)]:
                    assert cell_width(visible(palette.render(row))) <= max(width, 4), (text, width, row)


def test_a_newline_starts_a_row_when_wrapped_and_is_never_drawn_in_one() -> None:
    """A row holds no newline: `wrap` starts a row at one (a question, a
    reason of several lines), and `render` drops one left in a span, so the
    cursor never leaves the row the live region counts it on."""
    from luxe.frontends.tui.live import visible
    from luxe.frontends.tui.text import cell_width, truncate

    rows = wrap([("? ", "warn"), ("Which one?\nFirst  line.\n\nLast", "bold")], 40, None, [("  ", "")])
    assert [plain_text(row) for row in rows] == ["? Which one?", "  First  line.", "  ", "  Last"]
    for kind in ("256", "plain"):
        palette = Palette(kind, links=False)
        for line in ([("1. alpha\nbeta", "")], truncate([("x\n" * 30, "dim")], 10), [("\n", ""), ("a\r\nb", "")]):
            drawn = palette.render(line)
            assert "\n" not in drawn, (kind, drawn)
            assert cell_width(visible(drawn)) == sum(cell_width(text) for text, _ in line)


def test_colour_fallbacks_from_the_environment() -> None:
    from luxe.frontends.tui.frontend import _colours
    from luxe.frontends.tui.text import palette_for

    assert _colours({"TERM": "xterm-256color"}) == 256
    assert _colours({"TERM": "xterm", "COLORTERM": "truecolor"}) == 256
    assert _colours({"TERM": "screen"}) == 16
    assert _colours({"TERM": "dumb"}) == 0
    assert palette_for({}, False, 256).kind == "256"
    assert palette_for({}, False, 16).kind == "16"
    assert palette_for({}, False, 0).kind == "mono"
    assert palette_for({"NO_COLOR": "1"}, False, 256).kind == "mono"
    assert palette_for({"NO_COLOR": ""}, False, 256).kind == "256"  # empty means unset
    assert "\x1b[33m" in Palette("16").render([("x", "tool")])


def test_the_dock_shows_the_pull_request_and_its_checks() -> None:
    from luxe.frontends.tui.github import dock
    from luxe.protocol import github as gh

    checks = [gh.Check("ci", "completed", "success", None), gh.Check("lint", "completed", "failure", None),
              gh.Check("e2e", "in_progress", None, None)]
    pr = gh.PullRequestInfo(7, "https://x/7", "Retry", "open", False, "main", "fix", None, None, checks)
    assert dock(pr) == "PR #7 open ✓1 ✗1 …1"
    assert dock(None) == ""


def test_subcommand_completion_and_when_enter_takes_it() -> None:
    from pathlib import Path

    from luxe.frontends.tui import commands

    assert [c.split("  ")[0] for c in commands.complete("/pr re", Path("."))] == [
        "/pr reply", "/pr resolve", "/pr ready", "/pr restack"]
    assert [c.split("  ")[0] for c in commands.complete("/review po", Path("."))] == ["/review post"]
    assert commands.complete("/pr 7", Path(".")) == []
    assert commands.completable("/pr") and commands.completable("/pr me")
    assert not commands.completable("/pr merge #1") and not commands.completable("/model x")
    assert not commands.completable("/pr me\nmore") and not commands.completable("hello")
    # `/pr ` lists them all, but Enter then runs `/pr` itself.
    assert commands.completes_on_enter("/pr me") and not commands.completes_on_enter("/pr ")


def test_a_confirmation_keeps_its_keys_and_shows_an_edited_title() -> None:
    from luxe.frontends.tui.github_writes import Confirmation, prompt_rows, retitle
    from luxe.protocol import github as gh

    asked = Confirmation(heading=[("◆ open pull request: ", "warn"), ("Old", "bold"), ("  main ← fix", "dim")],
                         rows=[], yes="open", action=gh.OpenPullRequest("p"), declined="", doing="",
                         title="Old")
    keys = plain_text(prompt_rows(asked, 80)[-1])
    assert keys == "  y open   e edit the title   n cancel (nothing is written)"
    retitle(asked, "New \x1b[31mtitle")
    assert plain_text(prompt_rows(asked, 80)[0]) == "◆ open pull request: New \ufffd[31mtitle  main ← fix"
    assert plain_text(prompt_rows(asked, 80)[-1]) == keys


def test_path_completion_matches_in_order_and_ranks_whole_matches_first() -> None:
    from luxe.frontends.tui.path_completion import fuzzy

    names = ["docs/guide.md", "x/g_u_i.txt", "GUIDE", "src/app.py", "a.b[c]-d^e\\f"]
    assert fuzzy("gui", names) == ["GUIDE", "docs/guide.md", "x/g_u_i.txt"]
    assert fuzzy("ap", names) == ["src/app.py"]
    assert fuzzy("[c]-d^e\\", names) == ["a.b[c]-d^e\\f"]  # regex characters are literal
    assert fuzzy("", names)[:2] == ["GUIDE", "src/app.py"]
    assert fuzzy("zz", names) == []


def test_path_completion_over_names_built_to_backtrack_stays_linear() -> None:
    """File names are a repository's to choose: ones that would make a naive
    subsequence regex try every way to place the query (hours) are matched
    in one pass; the suite's timeout is the bound."""
    from luxe.frontends.tui.path_completion import fuzzy

    names = ["a" * 5000, "b/" + "a" * 5000 + "/c", *(f"d{n}/" + "a" * 300 for n in range(2000))]
    assert fuzzy("a" * 40 + "z", names) == []
    assert fuzzy("a" * 40 + "c", names) == ["b/" + "a" * 5000 + "/c"]


def test_rules_and_underlined_headings() -> None:
    from luxe.frontends.tui.markdown import render_block

    for rule in ("---", "***", "_ _ _", "  * * *"):
        assert render_block(rule, 80) == [[("─" * 40, "dim")]], rule
    assert render_block("---", 10) == [[("─" * 10, "dim")]]
    assert render_block("Title\n=====", 80) == [[("Title", "heading")]]
    assert render_block("Sub\n---", 80) == [[("Sub", "heading")]]
    # a list item followed by dashes stays a list; two dashes are text
    assert render_block("- a\n---", 80)[0][0] == ("• ", "dim")
    assert render_block("--", 80) == [[("--", "")]]


def test_help_wraps_long_descriptions_under_their_own_column() -> None:
    from luxe.frontends.tui.commands import help_rows
    from luxe.frontends.tui.text import cell_width, plain_text

    for width in (50, 60, 80, 120):
        rows = [plain_text(row) for row in help_rows(width)]
        assert all(cell_width(row) <= width for row in rows), width
    rows = [plain_text(row) for row in help_rows(60)]
    at = rows.index("    commit    [SHA]: review a commit; alone, with a review")
    assert rows[at + 1] == "              open: commit it chapter by chapter"


def test_session_times_are_shown_in_the_local_zone() -> None:
    from datetime import timedelta, timezone

    from luxe.frontends.tui.text import local_time

    stamp = "2026-12-01T23:41:09+00:00"
    assert local_time(stamp, UTC) == "2026-12-01 23:41"
    assert local_time(stamp, timezone(timedelta(hours=5, minutes=30))) == "2026-12-02 05:11"
    assert local_time(stamp, timezone(timedelta(hours=-8))) == "2026-12-01 15:41"
    assert local_time("2026-12-01T23:41:09", timezone(timedelta(hours=1))) == "2026-12-02 00:41"
    assert local_time("yesterday-ish", UTC) == "yesterday-ish"


@pytest.mark.timing
def test_a_long_word_wraps_in_time_linear_in_its_length() -> None:
    """A base64 blob or a data URI in an answer: split by cells in one walk
    (copying the rest per row took 10 s for 400 KB, on every frame of the
    streaming tail), measured against ordinary words in the same run."""
    from luxe.frontends.tui.text import wrap
    from tests.helpers.timing import best_times

    word = "A" * 400_000
    words = ("abcdefgh " * 50_000)[:400_000]

    def wrapped(text: str) -> list[list[tuple[str, str]]]:
        return wrap([(text, "")], 80, [("> ", "dim")], [("  ", "")])

    long_s, words_s = best_times(lambda: wrapped(word), lambda: wrapped(words))
    assert long_s < 3 * words_s + 0.05, (long_s, words_s)
    rows = wrapped(word)
    assert rows[0] == [("> ", "dim"), ("A" * 78, "")] and rows[1] == [("  ", ""), ("A" * 78, "")]
    assert "".join(text for row in rows for text, role in row if not role and text != "  ") == word
