"""The wire: defaults for short frames, exact shapes, clear errors for bad frames."""

from __future__ import annotations

import json

import pytest

from laura import protocol
from laura.protocol import ProtocolError, decode_request, encode_request


def test_minimal_frames_take_the_defaults() -> None:
    assert decode_request(b'{"type":"open","path":"x"}') == protocol.Open(
        path="x", split=None, dir=None, ratio=None, side=None, focus=True, follow=False,
        dry_run=False, highlight=None, diff=False, panel=None, edit=False,
    )
    assert decode_request(b'{"type":"comment","line":7}') == protocol.Comment(line=7)
    assert decode_request(b'{"type":"close"}') == protocol.Close(pane=None, all=False)
    assert decode_request(b'{"type":"layout","extra":1}') == protocol.Layout()


def test_the_spec_frames_parse() -> None:
    frames = [
        '{"type":"open","path":"spec.md","split":null,"dir":"horizontal","ratio":50,"side":"second","focus":true,"dry_run":false,"highlight":null,"diff":false}',
        '{"type":"close","pane":null,"all":false}',
        '{"type":"focus","pane":1}',
        '{"type":"highlight","pane":null,"start":40,"end":52}',
        '{"type":"diffview","pane":null,"on":null}',
        '{"type":"layout"}',
        '{"type":"ready"}',
        '{"type":"update","path":"spec.md"}',
    ]
    decoded = [decode_request(frame) for frame in frames]
    assert decoded[3] == protocol.Highlight(pane=None, range=(40, 52))


def test_highlight_accepts_start_only_range_and_clear() -> None:
    assert decode_request('{"type":"highlight","start":5}').range == (5, 5)
    assert decode_request('{"type":"highlight","range":[2,4]}').range == (2, 4)
    assert decode_request('{"type":"highlight","range":null}').range is None
    assert decode_request('{"type":"highlight"}').range is None


def test_requests_encode_every_field_in_order() -> None:
    line = encode_request(protocol.Open(path="docs/spec.md", dir="horizontal", ratio=40, side="second"))
    assert line == (
        b'{"type":"open","path":"docs/spec.md","split":null,"dir":"horizontal","ratio":40,'
        b'"side":"second","focus":true,"follow":false,"dry_run":false,"highlight":null,'
        b'"diff":false,"panel":null,"edit":false,"spool":false}\n'
    )
    assert decode_request(line) == protocol.Open(path="docs/spec.md", dir="horizontal", ratio=40, side="second")


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ("{not json", "not JSON"),
        ("[1]", "expected a JSON object, got array"),
        ('{"path":"x"}', "missing field `type`"),
        ('{"type":"frobnicate"}', 'unknown type "frobnicate"'),
        ('{"type":7}', "unknown type 7"),
        ('{"type":"open"}', "`open` needs field `path`"),
        ('{"type":"focus"}', "`focus` needs field `pane`"),
        ('{"type":"update"}', "`update` needs field `path`"),
        ('{"type":"update","path":null}', "`update` field `path` must be a string, got null"),
        ('{"type":"open","path":3}', "`open` field `path` must be a string, got 3"),
        ('{"type":"open","path":"x","ratio":0}', "`ratio` must be a percent from 1 to 99"),
        ('{"type":"open","path":"x","dir":"sideways"}', '`dir` must be "horizontal" or "vertical"'),
        ('{"type":"open","path":"x","focus":"yes"}', "`focus` must be true or false"),
        ('{"type":"focus","pane":-1}', "must be a pane id"),
        ('{"type":"highlight","range":[5,2]}', "start <= end"),
        ('{"type":"comment","line":0}', "1-based line number"),
    ],
)
def test_malformed_frames_say_what_is_wrong(frame: str, message: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_request(frame)
    assert message in str(caught.value)
    assert str(caught.value).startswith("malformed request: ")


def test_responses_are_tagged_and_ordered() -> None:
    rect = protocol.Rect(0, 1, 60, 38)
    report = protocol.Report(rect, [protocol.PaneReport(0, "pty", None, rect, None, 36, 0, False)])
    frame = json.loads(protocol.encode_response(report))
    assert list(frame) == ["type", "area", "panes"]
    assert list(frame["panes"][0]) == [
        "id", "kind", "path", "rect", "content_rows", "visible_rows", "overflow_rows", "clipped",
    ]
    assert json.loads(protocol.encode_response(protocol.Opened(3, ["w"]))) == {"type": "opened", "pane": 3, "warnings": ["w"]}
    assert json.loads(protocol.encode_response(protocol.Error("no pane #7"))) == {"type": "error", "message": "no pane #7"}
