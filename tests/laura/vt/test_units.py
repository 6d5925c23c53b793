"""laura.vt, feature by feature: what a program's output must look like."""

from __future__ import annotations

from laura.render.style import PLAIN, Span, Style
from laura.vt import VirtualTerminal
from laura.vt.screen import HISTORY_LIMIT


def vt_after(data: str | bytes, lines: int = 5, columns: int = 20) -> VirtualTerminal:
    vt = VirtualTerminal(lines, columns)
    vt.feed(data.encode() if isinstance(data, str) else data)
    assert vt.errors == 0
    return vt


# -- C0 controls ---------------------------------------------------------------

def test_cr_lf_bs_tab() -> None:
    vt = vt_after("abc\rX\nY\x08Z\tT")
    assert vt.display()[:2] == ["Xbc", " Z      T"]
    assert vt.cursor == (9, 1)


def test_bell_nul_and_del_draw_nothing() -> None:
    assert vt_after("a\x07b\x00c\x7fd").display()[0] == "abcd"


def test_lf_at_the_bottom_scrolls_into_history() -> None:
    vt = vt_after("1\r\n2\r\n3\r\n4\r\n5\r\n6", lines=3)
    assert vt.display() == ["4", "5", "6"]
    assert vt.history_size == 3
    assert [vt.row(y, scroll=3)[0].text for y in range(3)] == ["1", "2", "3"]
    assert [vt.row(y, scroll=1)[0].text for y in range(3)] == ["3", "4", "5"]


def test_scrollback_keeps_ten_thousand_lines() -> None:
    vt = vt_after("".join(f"{i}\r\n" for i in range(HISTORY_LIMIT + 500)), lines=3)
    assert vt.history_size == HISTORY_LIMIT
    assert vt.row(0, scroll=HISTORY_LIMIT)[0].text == "498"


# -- cursor movement and erasing -------------------------------------------------

def test_cup_and_relative_moves_clamp_to_the_screen() -> None:
    vt = vt_after("\x1b[3;5Hx\x1b[99;99Hy\x1b[Hz\x1b[2B\x1b[3Cw\x1b[A\x1b[9Dv")
    assert vt.display() == ["z", "v", "    w", "", "                   y"]
    assert vt.cursor == (1, 1)


def test_cnl_cpl_cha_vpa_hpr() -> None:
    vt = vt_after("\x1b[2Ea\x1b[Fb\x1b[10Gc\x1b[4dd\x1b[2ae")
    assert vt.display()[:4] == ["", "b        c", "a", "          d  e"]


def test_erase_in_line_and_display() -> None:
    vt = vt_after("aaaaa\r\nbbbbb\r\nccccc\x1b[2;3H\x1b[K")
    assert vt.display()[:3] == ["aaaaa", "bb", "ccccc"]
    vt.feed(b"\x1b[1K")
    assert vt.display()[1] == ""
    vt.feed(b"\x1b[J")
    assert vt.display()[2] == ""
    vt.feed(b"\x1b[1;3H\x1b[1J")
    assert vt.display()[0] == "   aa"
    vt.feed(b"\x1b[2J")
    assert vt.display() == [""] * 5


def test_ed3_clears_the_scrollback() -> None:
    vt = vt_after("1\r\n2\r\n3\r\n4", lines=2)
    assert vt.history_size == 2
    vt.feed(b"\x1b[3J")
    assert vt.history_size == 0
    assert vt.display() == ["3", "4"]


def test_erase_keeps_the_background_only() -> None:
    vt = vt_after("\x1b[1;31;44m\x1b[K")
    assert vt.row(0) == (Span(" " * 20, Style(bg=4)),)


def test_ech_ich_dch() -> None:
    vt = vt_after("0123456789\x1b[1;3H\x1b[2X")
    assert vt.display()[0] == "01  456789"
    vt.feed(b"\x1b[3@")
    assert vt.display()[0] == "01     456789"
    vt.feed(b"\x1b[4P")
    assert vt.display()[0] == "01 456789"


def test_insert_chars_on_a_full_line() -> None:
    # tmux 3.3a leaves stale cells here ("0123456789012  56734").
    vt = vt_after("01234567890123456789\x1b[1;14H\x1b[5@")
    assert vt.display()[0] == "0123456789012     34"


def test_il_dl_within_the_scroll_region() -> None:
    vt = vt_after("a\r\nb\r\nc\r\nd\r\ne\x1b[2;4r\x1b[3;2H\x1b[L")
    assert vt.display() == ["a", "b", "", "c", "e"]
    assert vt.cursor == (1, 2)  # the column stays, as in tmux
    vt.feed(b"\x1b[2M")
    assert vt.display() == ["a", "b", "", "", "e"]
    vt.feed(b"\x1b[5;1H\x1b[L")  # outside the region: ignored (xterm)
    assert vt.display() == ["a", "b", "", "", "e"]


def test_su_sd() -> None:
    vt = vt_after("a\r\nb\r\nc\x1b[S")
    assert vt.display()[:3] == ["b", "c", ""]
    vt.feed(b"\x1b[2T")
    assert vt.display()[:4] == ["", "", "b", "c"]


def test_ind_ri_nel() -> None:
    vt = vt_after("\x1bMa\x1bDb\x1bEc")
    assert vt.display()[:3] == ["a", " b", "c"]
    vt.feed(b"\x1b[H\x1bM")
    assert vt.display()[:4] == ["", "a", " b", "c"]


def test_scroll_region_and_origin_mode() -> None:
    vt = vt_after("\x1b[2;3r\x1b[?6h\x1b[Htop\x1b[9;1Hbottom\r\nnext")
    assert vt.display()[:4] == ["", "bottom", "next", ""]
    vt.feed(b"\x1b[6n")
    replies: list[bytes] = []
    vt2 = VirtualTerminal(5, 20, replies.append)
    vt2.feed(b"\x1b[2;4r\x1b[?6h\x1b[2;3H\x1b[6n")
    assert replies == [b"\x1b[2;3R"]
    assert vt2.cursor == (2, 2)


def test_lines_leaving_a_partial_region_do_not_enter_history() -> None:
    vt = vt_after("\x1b[1;2r\x1b[2;1H\n\n\n", lines=3)
    assert vt.history_size == 0


# -- SGR -----------------------------------------------------------------------------

def test_sgr_attributes_and_resets() -> None:
    vt = vt_after("\x1b[1;2;3;4;5;7;9mA\x1b[22;23;24;25;27;29mB\x1b[0mC")
    assert vt.row(0) == (
        Span("A", Style(bold=True, dim=True, italic=True, underline=True, blink=True,
                        reverse=True, strike=True)),
        Span("BC", PLAIN),
    )


def test_sgr_colours() -> None:
    vt = vt_after("\x1b[31;42ma\x1b[91;103mb\x1b[38;5;208;48;5;17mc"
                  "\x1b[38;2;1;2;3mr\x1b[38:2::4:5:6md\x1b[39;49me")
    spans = vt.row(0)
    assert [s.style.fg for s in spans] == [1, 9, 208, (1, 2, 3), (4, 5, 6), None]
    assert [s.style.bg for s in spans] == [2, 11, 17, 17, 17, None]


def test_sgr_empty_is_reset_and_junk_is_ignored() -> None:
    vt = vt_after("\x1b[1mA\x1b[mB\x1b[38;5mC\x1b[38;2;999;1;1mD")
    assert [s.text for s in vt.row(0)] == ["A", "BCD"]


def test_private_sgr_forms_are_not_sgr() -> None:
    vt = vt_after("\x1b[>4;2mA\x1b[?1mB")
    assert vt.row(0) == (Span("AB"),)


# -- wrapping --------------------------------------------------------------------------

def test_pending_wrap() -> None:
    vt = vt_after("x" * 20)
    assert vt.cursor == (19, 0)
    vt.feed(b"\r\n")  # the pending wrap does not add an empty line
    assert vt.display()[:2] == ["x" * 20, ""]
    vt.feed(b"y" * 21)
    assert vt.display()[1:3] == ["y" * 20, "y"]


def test_lf_keeps_a_pending_wrap() -> None:
    vt = vt_after("x" * 20 + "\ny")
    assert vt.display()[:3] == ["x" * 20, "", "y"]


def test_no_autowrap_overwrites_the_last_column() -> None:
    vt = vt_after("\x1b[?7l" + "abcdefghijklmnopqrstuvwxyz")
    assert vt.display()[:2] == ["abcdefghijklmnopqrsz", ""]
    vt.feed(b"\x1b[P")  # the cursor is on the last column, not past it
    assert vt.display()[0] == "abcdefghijklmnopqrs"


def test_decawm_reset_while_a_wrap_is_pending_writes_the_last_column() -> None:
    # tmux drops the characters instead; xterm writes the last column.
    vt = vt_after("x" * 20 + "\x1b[?7lab")
    assert vt.display()[:2] == ["x" * 19 + "b", ""]


# -- tabs, insert mode, save/restore -----------------------------------------------------

def test_tab_stops() -> None:
    vt = vt_after("\x1b[3g\x1b[5GX\x1bH\r\tA\x1b[2I")
    assert vt.cursor == (19, 0)
    vt.feed(b"\x1b[Z")
    assert vt.cursor == (5, 0)
    vt.feed(b"\x1b[g\r\t")
    assert vt.cursor == (19, 0)


def test_cht_moves_by_tab_stops() -> None:
    # tmux 3.3a ignores CHT (CSI I); xterm and we move.
    assert vt_after("a\x1b[2I").cursor == (16, 0)


def test_tab_from_a_pending_wrap_stays() -> None:
    # pyte moves the cursor back to the last column; tmux and we keep the
    # pending wrap, so the next character starts the next line.
    vt = vt_after("x" * 20 + "\ty")
    assert vt.display()[:2] == ["x" * 20, "y"]


def test_insert_mode() -> None:
    vt = vt_after("abcdef\r\x1b[4hXY\x1b[4lZ")
    assert vt.display()[0] == "XYZbcdef"


def test_insert_mode_pushes_cells_off_the_edge() -> None:
    vt = vt_after("0123456789012345678\r\x1b[4hab")
    assert vt.display()[0] == "ab012345678901234567"


def test_decsc_decrc_and_csi_s_u() -> None:
    vt = vt_after("\x1b[2;3H\x1b[31m\x1b7\x1b[0m\x1b[5;5H\x1b8x")
    assert vt.cursor == (3, 1)
    assert vt.row(1) == (Span("  "), Span("x", Style(fg=1)))
    vt.feed(b"\x1b[4;4H\x1b[s\x1b[H\x1b[uy")
    assert vt.display()[3] == "   y"


def test_restore_does_not_restore_a_pending_wrap() -> None:
    vt = vt_after("x" * 20 + "\x1b7\x1b8y")
    assert vt.display()[:2] == ["x" * 19 + "y", ""]


def test_restore_without_save_homes_the_cursor() -> None:
    assert vt_after("\x1b[3;3H\x1b8").cursor == (0, 0)


# -- modes and state flags ---------------------------------------------------------------

def test_alternate_screen_1049() -> None:
    vt = vt_after("main\r\n1\r\n2\r\n3\r\n4\r\n5\x1b[2;2H\x1b[?1049h")
    assert vt.alt_screen and vt.display() == [""] * 5
    assert vt.history_size == 0
    vt.feed(b"alt text\x1b[3;1H\x1b[?1049l")
    assert not vt.alt_screen
    assert vt.display() == ["1", "2", "3", "4", "5"]
    assert vt.cursor == (1, 1)
    assert vt.history_size == 1


def test_alternate_screen_47_and_1047() -> None:
    for mode in (b"47", b"1047"):
        vt = vt_after(b"main\x1b[?" + mode + b"halt")
        assert vt.display()[0] == "    alt"
        vt.feed(b"\x1b[?" + mode + b"l")
        assert vt.display()[0] == "main"
        vt.feed(b"\x1b[?" + mode + b"h")
        assert vt.display()[0] == ""  # a fresh alternate screen every time


def test_mode_flags() -> None:
    vt = vt_after("")
    assert (vt.cursor_visible, vt.bracketed_paste, vt.app_cursor_keys) == (True, False, False)
    vt.feed(b"\x1b[?25l\x1b[?2004h\x1b[?1h\x1b[?1002h\x1b[?1006h")
    assert (vt.cursor_visible, vt.bracketed_paste, vt.app_cursor_keys) == (False, True, True)
    assert (vt.mouse_tracking, vt.sgr_mouse) == (1002, True)
    vt.feed(b"\x1b[?1003h")
    assert vt.mouse_tracking == 1003
    vt.feed(b"\x1b[?1000l\x1b[?1006l\x1b[?25h\x1b[?2004l\x1b[?1l")
    assert (vt.mouse_tracking, vt.sgr_mouse, vt.cursor_visible) == (0, False, True)
    assert (vt.bracketed_paste, vt.app_cursor_keys) == (False, False)


def test_titles_and_hyperlinks() -> None:
    vt = vt_after("\x1b]0;first\x07\x1b]2;second\x1b\\\x1b]1;icon\x07"
                  "\x1b]8;;http://example.invalid\x1b\\link\x1b]8;;\x1b\\ text")
    assert vt.title == "second"
    assert vt.display()[0] == "link text"


def test_replies_to_dsr_and_da() -> None:
    replies: list[bytes] = []
    vt = VirtualTerminal(5, 20, replies.append)
    vt.feed(b"\x1b[3;7H\x1b[6n\x1b[5n\x1b[c\x1b[0c\x1b[>c")
    assert replies == [b"\x1b[3;7R", b"\x1b[0n", b"\x1b[?1;2c", b"\x1b[?1;2c", b"\x1b[>1;10;0c"]
    assert vt.display() == [""] * 5


def test_unknown_sequences_are_consumed() -> None:
    vt = vt_after("a\x1b[?9999h\x1b[1;2;3zb\x1bPq#0;2;0;0;0\x1b\\c\x1b_apc\x1b\\d"
                  "\x1b[2 qe\x1b(Bf\x1b#3g\x1b[0%mh\x1b]777;notify\x07i\x1bZj")
    assert vt.display()[0] == "abcdefghij"


def test_dec_line_drawing() -> None:
    vt = vt_after("\x1b(0lqqk\x1b(B x\x0e\x1b)0q\x0fq")
    assert vt.display()[0] == "┌──┐ x─q"


def test_rep_repeats_the_last_character() -> None:
    assert vt_after("ab\x1b[3b").display()[0] == "abbbb"


def test_decaln_and_reset() -> None:
    vt = vt_after("\x1b#8", lines=2, columns=3)
    assert vt.display() == ["EEE", "EEE"]
    vt.feed(b"\x1b[?25l\x1b]2;t\x07\x1bc")
    assert vt.display() == ["", ""] and vt.cursor_visible and vt.title == ""


# -- wide and combining characters ----------------------------------------------------------

def test_wide_characters_take_two_cells() -> None:
    vt = vt_after("漢字x")
    assert vt.cursor == (5, 0)
    assert vt.row(0) == (Span("漢字x"),)


def test_wide_character_wraps_whole() -> None:
    vt = vt_after("x" * 19 + "漢")
    assert vt.display()[:2] == ["x" * 19, "漢"]
    assert vt.cursor == (2, 1)


def test_overwriting_half_a_wide_character_blanks_the_other_half() -> None:
    vt = vt_after("漢字\x1b[1;2Hx")
    assert vt.display()[0] == " x字"
    vt = vt_after("漢字\x1b[1;3Hx")
    assert vt.display()[0] == "漢x"


def test_erasing_half_a_wide_character_erases_all_of_it() -> None:
    # tmux keeps the other half visible in these cases.
    assert vt_after("ａｂｃ\x1b[1;4H\x1b[K").display()[0] == "ａ"
    assert vt_after("ａｂｃ\x1b[1;3H\x1b[1K").display()[0] == "    ｃ"


def test_combining_characters_join_the_previous_cell() -> None:
    vt = vt_after("e\u0301a\u0308x")
    assert vt.display()[0] == "e\u0301a\u0308x"
    assert vt.cursor == (3, 0)


def test_utf8_split_across_reads() -> None:
    vt = VirtualTerminal(2, 10)
    data = "é漢\x1b[31mx".encode()
    for i in range(len(data)):
        vt.feed(data[i : i + 1])
    assert vt.row(0) == (Span("é漢"), Span("x", Style(fg=1)))


def test_invalid_utf8_becomes_replacement_characters() -> None:
    assert vt_after(b"a\xffb\xc3").display()[0] == "a\ufffdb"


# -- dirty rows, resize ----------------------------------------------------------------------

def test_take_dirty_reports_changed_rows() -> None:
    vt = VirtualTerminal(5, 10)
    assert vt.take_dirty() == set(range(5))
    assert vt.take_dirty() == set()
    vt.feed(b"\x1b[3;1Hx\x1b[5;1H\x1b[K")
    assert vt.take_dirty() == {2, 4}
    vt.feed(b"\r\n")  # scrolls
    assert vt.take_dirty() == set(range(5))


def test_resize_narrower_clips_the_alternate_screen() -> None:
    vt = vt_after("\x1b[?1049h0123456789\r\nab漢字", columns=10)
    vt.resize(5, 5)
    assert vt.display()[:2] == ["01234", "ab漢"]
    vt.resize(5, 3)  # half a wide character is not kept
    assert vt.display()[1] == "ab"
    assert vt.cursor[0] <= 2


def test_resize_rewraps_the_main_screen_and_history() -> None:
    # As in tmux, the cursor keeps its screen row; rows above it move into
    # or out of the scrollback.
    vt = vt_after("0123456789abcdef\r\nxy\x1b[31m12345678901\x1b[0mq", columns=10)
    assert vt.display()[:4] == ["0123456789", "abcdef", "xy12345678", "901q"]
    vt.resize(5, 20)
    assert vt.display()[:3] == ["0123456789abcdef", "xy12345678901q", ""]
    assert vt.cursor == (14, 1)
    assert vt.row(1) == (Span("xy"), Span("12345678901", Style(fg=1)), Span("q"))
    vt.resize(5, 6)
    assert vt.display() == ["567890", "1q", "", "", ""]
    assert vt.cursor == (2, 1)
    assert [vt.row(y, scroll=4)[0].text for y in range(4)] == ["012345", "6789ab", "cdef", "xy"]
    vt.resize(5, 20)  # the cursor's row stays 1, so a row comes back
    assert vt.display()[:3] == ["0123456789abcdef", "xy12345678901q", ""]
    assert (vt.history_size, vt.cursor) == (0, (14, 1))


def test_resize_rewrap_keeps_wide_characters_whole() -> None:
    vt = vt_after("abc漢字def", columns=20)
    vt.resize(5, 4)
    assert [vt.row(y, scroll=2) for y in range(3)] == [(Span("abc"),), (Span("漢字"),), (Span("def"),)]
    vt.resize(5, 20)
    assert vt.display()[0] == "abc漢字def"
    assert vt.history_size == 0


def test_resize_rewrap_leaves_a_cleared_screen_in_place() -> None:
    vt = vt_after("".join(f"line {i}\r\n" for i in range(10)) + "\x1b[H\x1b[2Jprompt$ ")
    vt.resize(5, 30)
    assert vt.display()[0] == "prompt$"
    assert vt.cursor == (8, 0)


def test_resize_shorter_pushes_lines_into_history_and_back() -> None:
    vt = vt_after("1\r\n2\r\n3\r\n4\r\n5")
    vt.resize(3, 20)
    assert vt.display() == ["3", "4", "5"]
    assert vt.cursor == (1, 2)
    assert vt.history_size == 2
    vt.resize(5, 20)
    assert vt.display() == ["1", "2", "3", "4", "5"]
    assert vt.cursor == (1, 4)


def test_resize_drops_blank_rows_below_the_cursor_first() -> None:
    vt = vt_after("1\r\n2")
    vt.resize(2, 20)
    assert vt.display() == ["1", "2"]
    assert vt.history_size == 0


def test_resize_keeps_writing_correctly() -> None:
    vt = vt_after("x" * 20)
    vt.resize(5, 30)
    vt.feed(b"\r\n" + b"y" * 31)
    assert vt.display()[1:3] == ["y" * 30, "y"]


def test_bulk_line_paths_match_one_byte_at_a_time() -> None:
    # Whole reads of plain or SGR-only lines take the bulk paths; one byte
    # per read never does. Both must agree, history included.
    lines = []
    for i in range(400):
        kind = i % 5
        if kind == 0:
            lines.append(f"plain line {i}")
        elif kind == 1:
            lines.append(f"\x1b[1;3{i % 8}mbold {i}\x1b[0m and \x1b[38;5;{i % 256}mmore")
        elif kind == 2:
            lines.append("x" * (15 + i % 10))  # some wrap at 20 columns
        elif kind == 3:
            lines.append("")
        else:
            lines.append(f"\x1b[4{i % 8}m{i}" if i % 3 else "漢字 wide")
    data = ("\r\n".join(lines) + "\r\n").encode()
    whole = vt_after(data)
    slow = VirtualTerminal(5, 20)
    for i in range(len(data)):
        slow.feed(data[i : i + 1])
    assert whole.history_size == slow.history_size > 400  # wrapped lines add rows
    for scroll in (0, 7, 100, 400):
        assert [whole.row(y, scroll) for y in range(5)] == [slow.row(y, scroll) for y in range(5)]
    assert whole.cursor == slow.cursor and whole.style == slow.style


def test_pathological_input_stays_sane() -> None:
    vt = vt_after(b"".join(b"\x1b[99999999999" + bytes([c]) + b"x" for c in b"ABCDEFGIZLMPSTX@b`adeg")
                  + b"\x1b[" + b"9" * 5000 + b"A" + b"\x1b]0;" + b"t" * 100_000 + b"\x07")
    assert vt.title == "t" * 1024 and "t" not in "".join(vt.display())
    assert vt.cursor[1] < 5
    unterminated = VirtualTerminal(3, 10)
    unterminated.feed(b"\x1b]2;")
    for _ in range(20):  # past the 64 KiB the emulator holds back
        unterminated.feed(b"t" * 4096)
    unterminated.feed(b"\x07x")
    assert unterminated.display()[0] == "x" and unterminated.errors == 0
    long_line = vt_after(b"\x1b[31mab\x1b[0mcd" * 20_000, lines=3, columns=7)
    assert long_line.display()[-1] == "abcd"  # 80,000 cells: 11,428 full rows and 4
    marks = vt_after("e" + "\u0301" * 1000)
    assert marks.display()[0] == "e" + "\u0301" * 8
