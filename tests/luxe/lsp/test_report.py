"""The block the model sees: merged, de-duplicated, errors first, capped,
each line naming its source."""

from __future__ import annotations

from typing import Any

from luxe.lsp.report import MAX_DIAGNOSTICS, format_report


def diag(line: int, severity: int, code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {
        "range": {
            "start": {"line": line, "character": 0},
            "end": {"line": line, "character": 4},
        },
        "severity": severity,
        "code": code,
        "message": message,
        **extra,
    }


def test_errors_first_then_position_hints_left_out_sources_named() -> None:
    report = format_report(
        "x.py",
        {
            "ruff": [diag(1, 2, "W1", "a warning"), diag(3, 4, "H", "a hint")],
            "basedpyright": [diag(9, 1, "E1", "an error", source="basedpyright")],
        },
    )
    assert report == (
        "Diagnostics for x.py (ruff, basedpyright): 1 error(s), 1 warning(s)\n"
        "x.py:10:1: error [basedpyright E1] an error\n"
        "x.py:2:1: warning [ruff W1] a warning"
    )


def test_same_range_and_message_from_two_servers_is_shown_once() -> None:
    report = format_report(
        "x.py",
        {
            "a": [diag(0, 1, "X", "same", source="a")],
            "b": [diag(0, 1, "Y", "same", source="b"), diag(0, 1, "Z", "other", source="b")],
        },
    )
    assert report is not None
    assert report.splitlines()[1:] == ["x.py:1:1: error [a X] same", "x.py:1:1: error [b Z] other"]


def test_clean_is_none_but_notes_still_show() -> None:
    assert format_report("x.py", {"ruff": [diag(0, 4, "H", "hint")]}) is None
    assert format_report("x.py", {"ruff": []}, ["zls stopped; diagnostics off for .zig"]) == (
        "zls stopped; diagnostics off for .zig"
    )


def test_capped_with_a_count_of_the_rest_and_long_messages_cut() -> None:
    items = [diag(i, 1, "E", f"e{i}") for i in range(MAX_DIAGNOSTICS + 5)]
    report = format_report("x.py", {"s": items})
    assert report is not None
    assert len(report.splitlines()) == 1 + MAX_DIAGNOSTICS + 1
    assert report.endswith("(and 5 more)")
    long = format_report("x.py", {"s": [diag(0, 1, "E", "one\ntwo\nthree\nfour\nfive")]})
    assert long == (
        "Diagnostics for x.py (s): 1 error(s), 0 warning(s)\n"
        "x.py:1:1: error [s E] one\n    two\n    three …"
    )


def test_malformed_items_from_a_server_do_not_break_the_report() -> None:
    report = format_report("x.py", {"s": [{"message": "no range"}, {"range": "nonsense"}]})
    assert report is not None
    assert "x.py:1:1: error [s] no range" in report
