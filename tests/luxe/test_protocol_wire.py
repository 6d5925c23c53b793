"""The wire in isolation: decoding never raises, encoding is one valid line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.protocol import ACTION_TYPES, Rejection, decode_action, encode_event
from luxe.protocol import events as ev

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_decode_to_an_action_or_a_rejection(line: bytes) -> None:
    result = decode_action(line)
    assert isinstance(result, Rejection) or type(result).KIND in ACTION_TYPES


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(ACTION_TYPES)), json_values)
def test_any_content_for_a_known_kind_is_decided(kind: str, content: object) -> None:
    result = decode_action(json.dumps({"kind": kind, "content": content}).encode())
    if isinstance(result, Rejection):
        assert result.kind == kind and result.reason.startswith(f"{kind}:")
    else:
        assert kind == result.KIND


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_encoded_frames_are_one_line_of_valid_utf8_json(text: str) -> None:
    data = encode_event(ev.TokenDelta(0, text))
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    frame = json.loads(data.decode("utf-8"))
    assert frame["kind"] == "token_delta"


def test_content_is_left_out_when_empty_and_unknown_fields_are_ignored() -> None:
    assert decode_action(b'{"kind":"close","content":{"extra":1}}') == ACTION_TYPES["close"]()
    assert decode_action(b'{"kind":"steer_turn","content":{"text":"x","future":true}}') == ACTION_TYPES[
        "steer_turn"
    ]("x")


def test_the_protocol_package_imports_neither_trio_nor_the_rest_of_luxe() -> None:
    # luxe.record (how frames are declared) is a leaf: it imports only attrs.
    code = (
        "import sys, luxe.protocol; "
        "bad = [m for m in sys.modules if m == 'trio' or (m.startswith('luxe.') "
        "and not m.startswith('luxe.protocol') and m != 'luxe.record')]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_handshake_path_does_not_import_httpx() -> None:
    code = "import sys, luxe.app; print([m for m in sys.modules if m.startswith(('httpx', 'luxe.providers.anthropic', 'luxe.providers.openai'))])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_handshake_path_does_not_import_guided_review() -> None:
    code = "import sys, luxe.app; print([m for m in sys.modules if m.startswith('luxe.review')])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_handshake_path_does_not_import_github() -> None:
    # Neither the GitHub layer nor its frames: both load after ready.
    code = "import sys, luxe.app, luxe.cli; print([m for m in sys.modules if m.startswith(('luxe.github', 'luxe.protocol.github'))])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_first_frame_defines_only_the_handshake_frames() -> None:
    # The interface's prompt, --rpc's ready and -p's first request wait for
    # neither the events after the handshake nor Guided Review's frames.
    code = (
        "import sys, luxe.app, luxe.cli, luxe.frontends.tui.frontend; "
        "print([m for m in ('luxe.protocol.session_events', 'luxe.protocol.review') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_event_is_reached_through_the_events_module() -> None:
    from luxe.protocol import events as ev
    from luxe.protocol import session_events

    later = [name for name, value in vars(session_events).items()
             if isinstance(value, type) and value.__module__ == session_events.__name__]
    assert len(later) > 25
    for name in later:
        assert getattr(ev, name) is getattr(session_events, name)
    assert ev.EVENT_TYPES["turn_started"] is ev.TurnStarted
    assert ev.EVENT_TYPES["ready"] is ev.Ready
    namespace: dict[str, object] = {}
    exec("from luxe.protocol.events import TokenDelta", namespace)
    assert namespace["TokenDelta"] is session_events.TokenDelta
    with pytest.raises(AttributeError, match="no attribute 'TurnBegun'"):
        ev.TurnBegun  # noqa: B018
    with pytest.raises(ImportError):
        exec("from luxe.protocol.events import TurnBegun", {})


def test_the_handshake_is_written_before_trio_loads() -> None:
    # luxe.app writes ready/state_changed itself, then imports trio for the loop.
    code = "import sys, luxe.app; print('trio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_handshake_encoder_writes_what_the_converter_writes() -> None:
    from luxe.protocol.plain import encode_plain_event

    frames: list[ev.Event] = [
        ev.Ready(
            2, "0.1.0", "20261129-x", "/tmp/caf\u00e9 \ud800", False, ["steer", "queue"], True,
            [ev.DiagnosticsServerFound("ruff", [".py"], ["/usr/bin/ruff", "server"])],
        ),
        ev.StateChanged(ev.ModelState("m", "scripted", 1000, "script x"), False, "build", "off", "ask", False),
        ev.StateChanged(ev.ModelState("m", "anthropic", 200_000), True, "plan", "high", "yolo", True),
        ev.SessionInfo("20261129-x", "title \u2603", 4, "2026-11-29T00:00:00+00:00", "2026-11-29T00:00:01+00:00"),
    ]
    for frame in frames:
        assert encode_plain_event(frame) == encode_event(frame)
    assert b"\\ud800" not in encode_event(frames[0])


def test_a_lone_surrogate_escape_in_an_action_becomes_a_replacement_character() -> None:
    line = b'{"kind":"steer_turn","content":{"text":"cut \\ud83d and pair \\ud83d\\ude00"}}'
    action = decode_action(line)
    assert not isinstance(action, Rejection)
    assert action.text == "cut \ufffd and pair \U0001f600"  # type: ignore[union-attr]
