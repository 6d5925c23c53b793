"""The SSE parser gives the same events however the bytes are chunked."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.providers.sse import ServerSentEvent, SSEDecoder

# A data line may hold any text except line ends (they would start a new line).
line_text = st.text(
    alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
    max_size=12,
)
event_name = st.sampled_from(["message_start", "content_block_delta", "ping", "error", ""])
events_st = st.lists(
    st.tuples(event_name, st.lists(line_text, min_size=1, max_size=3)), min_size=1, max_size=6
)
line_end = st.sampled_from(["\n", "\r\n", "\r"])


def encode(events: list[tuple[str, list[str]]], end: str, comments: bool) -> bytes:
    out = []
    for name, lines in events:
        if comments:
            out.append(": keep-alive" + end)
        if name:
            out.append(f"event: {name}{end}")
        out.extend(f"data: {line}{end}" for line in lines)
        out.append(end)
    return "".join(out).encode("utf-8")


def expected(events: list[tuple[str, list[str]]]) -> list[ServerSentEvent]:
    return [
        ServerSentEvent(data="\n".join(lines), event=name or "message") for name, lines in events
    ]


def feed_all(chunks: list[bytes]) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    out: list[ServerSentEvent] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.finish())
    return out


@settings(max_examples=150, deadline=None)
@given(
    events=events_st,
    end=line_end,
    comments=st.booleans(),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_any_chunking_gives_the_same_events(
    events: list[tuple[str, list[str]]], end: str, comments: bool, cuts: list[int]
) -> None:
    raw = encode(events, end, comments)
    points = sorted({c % (len(raw) + 1) for c in cuts})
    chunks = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    assert feed_all(chunks) == expected(events)


@settings(max_examples=50, deadline=None)
@given(events=events_st, end=line_end)
def test_byte_at_a_time_splits_inside_utf8_characters_and_crlf(
    events: list[tuple[str, list[str]]], end: str
) -> None:
    raw = encode(events, end, comments=False)
    assert feed_all([raw[i : i + 1] for i in range(len(raw))]) == expected(events)


def test_multibyte_character_split_between_chunks() -> None:
    raw = "data: é€😀\n\n".encode()
    cut = raw.index("€".encode()) + 1
    assert feed_all([raw[:cut], raw[cut:]]) == [ServerSentEvent(data="é€😀")]


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    assert feed_all([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [
        ServerSentEvent(data="a\nb")
    ]


def test_fields_follow_the_standard() -> None:
    raw = b"\xef\xbb\xbfevent: x\ndata:no-space\ndata:  two\nid: 7\nretry: 30\nunknown: y\n\n"
    assert feed_all([raw]) == [ServerSentEvent(data="no-space\n two", event="x", id="7", retry=30)]


def test_blank_line_without_data_dispatches_nothing_and_resets_the_name() -> None:
    assert feed_all([b"event: ping\n\ndata: d\n\n"]) == [ServerSentEvent(data="d")]


def test_an_unfinished_event_at_the_end_is_dropped() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: complete\n\ndata: cut") == [ServerSentEvent(data="complete")]
    assert decoder.mid_event
    assert decoder.finish() == []


def test_invalid_utf8_becomes_replacement_characters() -> None:
    assert feed_all([b"data: \xff\xfe\n\n"]) == [ServerSentEvent(data="\ufffd\ufffd")]


@settings(max_examples=100, deadline=None)
@given(
    events=events_st,
    ends=st.lists(line_end, min_size=1, max_size=8),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_mixed_line_ends_in_one_stream(
    events: list[tuple[str, list[str]]], ends: list[str], cuts: list[int]
) -> None:
    # Each event uses its own line end, so "\n"-only and "\r" stretches meet
    # inside one chunk and across chunk boundaries.
    raw = b"".join(
        encode([event], ends[i % len(ends)], comments=False) for i, event in enumerate(events)
    )
    points = sorted({c % (len(raw) + 1) for c in cuts})
    chunks = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    assert feed_all(chunks) == expected(events)
