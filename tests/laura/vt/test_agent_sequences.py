"""What an agent's interface asks of its terminal: synchronized output (2026),
focus reporting (1004), BEL and OSC 9 notifications, OSC 8 hyperlinks, and
DECRQM so a program can tell which of them it gets."""

from __future__ import annotations

from laura.alerts import outer_alerts
from laura.emulator import Alert
from laura.keys import Focus, InputDecoder, Key
from laura.render.canvas import Canvas, frame_diff
from laura.render.style import Style
from laura.vt import VirtualTerminal


def fed(data: str, replies: list[bytes] | None = None) -> VirtualTerminal:
    vt = VirtualTerminal(5, 40, None if replies is None else replies.append)
    vt.feed(data.encode())
    assert vt.errors == 0
    return vt


# -- modes ------------------------------------------------------------------------


def test_synchronized_output_and_focus_reporting_are_modes_a_child_sets_and_resets() -> None:
    vt = fed("\x1b[?2026h\x1b[?1004h")
    assert vt.synchronized and vt.focus_reporting
    vt.feed(b"\x1b[?2026l\x1b[?1004l")
    assert not vt.synchronized and not vt.focus_reporting
    vt.feed(b"\x1b[?2026h\x1b[?1004h\x1bc")  # a full reset ends both
    assert not vt.synchronized and not vt.focus_reporting


def test_decrqm_tells_a_program_which_modes_it_gets() -> None:
    replies: list[bytes] = []
    vt = fed("\x1b[?2026$p\x1b[?1004h\x1b[?1004$p\x1b[?7777$p", replies)
    assert replies == [b"\x1b[?2026;2$y", b"\x1b[?1004;1$y", b"\x1b[?7777;0$y"]
    vt.feed(b"\x1b[?2026h\x1b[?2026$p")
    assert replies[-1] == b"\x1b[?2026;1$y"
    assert vt.display()[0] == ""  # queries draw nothing


# -- alerts -----------------------------------------------------------------------


def test_bel_osc9_and_osc777_become_alerts_in_order_and_draw_nothing() -> None:
    vt = fed("a\x07b\x1b]9;build done\x07\x1b]777;notify;luxe;turn ended\x1b\\c")
    assert vt.take_alerts() == [
        Alert("bell"),
        Alert("notify", "build done"),
        Alert("notify", "luxe: turn ended"),
    ]
    assert vt.take_alerts() == []
    assert vt.display()[0] == "abc"


def test_notification_text_loses_control_characters_and_is_capped() -> None:
    vt = fed("\x1b]9;evil\x1b[31m" + "x" * 5000 + "\x07")
    # The ESC cut the OSC short: no notification from half a sequence; the
    # stray BEL after the x's is a bell of its own.
    assert vt.take_alerts() == [Alert("bell")]
    vt.feed(("\x1b]9;" + "y" * 5000 + "\x07").encode())
    (alert,) = vt.take_alerts()
    assert alert.text == "y" * 512
    vt.feed("\x1b]9;tab\there\u009bnot\x07".encode())
    assert vt.take_alerts() == [Alert("notify", "tabherenot")]


def test_osc9_progress_reports_and_empty_notifications_are_not_alerts() -> None:
    vt = fed("\x1b]9;4;1;50\x07\x1b]9;\x07\x1b]9;   \x07")
    assert vt.take_alerts() == []


def test_a_child_ringing_in_a_loop_cannot_grow_the_alerts_without_bound() -> None:
    vt = fed("\x07" * 10_000)
    assert 0 < len(vt.take_alerts()) <= 16


def test_alerts_reach_the_outer_terminal_as_one_bell_per_frame_and_each_notification() -> None:
    alerts = [Alert("bell"), Alert("notify", "done"), Alert("bell")]
    assert outer_alerts(alerts) == "\x07\x1b]9;done\x1b\\"
    assert outer_alerts([]) == ""


# -- hyperlinks ---------------------------------------------------------------------


def _link_at(vt: VirtualTerminal, column: int) -> str | None:
    x = 0
    for span in vt.row(0):
        if x <= column < x + len(span.text):
            return span.style.link
        x += len(span.text)
    return None


def test_osc8_links_the_cells_written_until_it_is_closed_and_sgr0_keeps_it() -> None:
    vt = fed(
        "a\x1b]8;id=1;https://example.com/x\x1b\\\x1b[1mli\x1b[0mnk\x1b]8;;\x1b\\b"
    )
    assert vt.display()[0] == "alinkb"
    assert [_link_at(vt, x) for x in range(6)] == [
        None,
        "https://example.com/x",
        "https://example.com/x",
        "https://example.com/x",
        "https://example.com/x",
        None,
    ]


def test_an_osc8_target_with_control_characters_or_no_target_links_nothing() -> None:
    for target in ("https://e.com/\x1b[31m", "https://e.com/a b", "", "x" * 3000):
        vt = fed(f"\x1b]8;;{target}\x07t\x1b]8;;\x07")
        assert _link_at(vt, 0) is None, target


def test_a_frame_reopens_links_for_the_outer_terminal_and_always_closes_them() -> None:
    canvas = Canvas(10, 1)
    linked = Style(underline=True, link="https://example.com/")
    canvas.put(0, 0, "go ")
    canvas.put(3, 0, "here", linked)
    canvas.put(7, 0, "!")
    out = frame_diff(None, canvas)
    opened = out.index("\x1b]8;;https://example.com/\x1b\\")
    closed = out.index("\x1b]8;;\x1b\\", opened)
    assert out.index("here") > opened
    assert closed > out.index("here")
    assert closed < out.index("!")
    # Nothing linked: no OSC 8 at all.
    assert "\x1b]8" not in frame_diff(None, Canvas(4, 1))


# -- the user's terminal's focus ---------------------------------------------------


def test_focus_in_and_out_from_the_user_terminal_are_events_not_keys() -> None:
    decoder = InputDecoder()
    assert decoder.feed(b"\x1b[Ia\x1b[O") == [Focus(True), Key("a"), Focus(False)]
