"""A pure, incremental Server-Sent Events parser (no I/O).

Feed it bytes exactly as they came off the wire, in chunks of any size; it
returns the events completed so far. It follows the WHATWG event-stream rules
the provider APIs rely on: lines end in `\\r\\n`, `\\r` or `\\n` (a `\\r\\n`
split across two chunks is still one line end), `:` starts a comment, one
space after the field's colon is dropped, several `data:` lines join with
`\\n`, a blank line dispatches, a blank line with no data dispatches nothing.
UTF-8 is decoded incrementally, so a character split between chunks is
reassembled; invalid bytes become U+FFFD rather than an exception.

An endpoint may stream without end: one line of gigabytes, or one event of
as many data lines. An event (its lines so far and its data) is held to
MAX_EVENT_CHARS (luxe.providers.bounds, with the other bounds on a stream),
past which `feed` raises EventTooLarge; the text of an unfinished line is
kept in pieces, so its growth costs no copying.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

from luxe.providers.bounds import MAX_EVENT_CHARS

_LINE_END = re.compile(r"\r\n|\r|\n")


class EventTooLarge(ValueError):
    """The stream's current event (or line) passed MAX_EVENT_CHARS."""


class ServerSentEvent(NamedTuple):
    # A NamedTuple rather than an attrs class: one is built per streamed
    # token, and tuple construction is several times cheaper.
    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    """Turns a byte stream into ServerSentEvents, one `feed` at a time."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending: list[str] = []  # text of an unfinished line, in pieces
        self._pending_size = 0
        self._data_size = 0  # characters in `_data`
        self._skip_lf = False  # the last chunk ended in "\r": a leading "\n" is its pair
        self._started = False  # a byte-order mark is only stripped at the very start
        self._event = ""
        self._data: list[str] = []
        self._last_id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events completed by `chunk` (possibly none)."""
        return self._feed_text(self._utf8.decode(chunk))

    def finish(self) -> list[ServerSentEvent]:
        """End of stream: flush the decoder. An event without its blank line is
        dropped, as the standard says (the stream was cut before it finished)."""
        events = self._feed_text(self._utf8.decode(b"", final=True))
        if self._pending:
            line = "".join(self._pending)
            self._pending, self._pending_size = [], 0
            self._line(line)
        return events

    @property
    def mid_event(self) -> bool:
        """True when bytes of an undispatched event have been seen."""
        return bool(self._pending or self._data or self._event)

    def _feed_text(self, text: str) -> list[ServerSentEvent]:
        if not text:
            return []
        if not self._started:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        if self._skip_lf:
            self._skip_lf = False
            if text.startswith("\n"):
                text = text[1:]
        if not text:
            return []
        if "\n" not in text and "\r" not in text:
            # The middle of a line: kept as a piece, joined once it ends.
            self._pending.append(text)
            self._pending_size += len(text)
            self._check_size()
            return []
        buffer = "".join(self._pending) + text if self._pending else text
        # str.split is several times faster than the regex; most streams use "\n" only.
        lines = _LINE_END.split(buffer) if "\r" in buffer else buffer.split("\n")
        last = lines.pop()
        self._pending, self._pending_size = ([last], len(last)) if last else ([], 0)
        self._skip_lf = text.endswith("\r")
        events: list[ServerSentEvent] = []
        data = self._data
        for line in lines:
            # Fast paths for the lines every provider stream is made of.
            if line.startswith("data: "):
                data.append(line[6:])
                self._data_size += len(line)
            elif line.startswith("event: "):
                self._event = line[7:]
            elif not line and data:
                events.append(
                    ServerSentEvent(
                        "\n".join(data), self._event or "message", self._last_id, self._retry
                    )
                )
                self._event = ""
                self._retry = None
                data = self._data = []
                self._data_size = 0
            else:
                event = self._line(line)
                if event is not None:
                    events.append(event)
                data = self._data
        self._check_size()
        return events

    def _check_size(self) -> None:
        if self._pending_size + self._data_size > MAX_EVENT_CHARS:
            raise EventTooLarge(
                f"an event over {MAX_EVENT_CHARS >> 20} MiB (a line or an event without end)"
            )

    def _line(self, line: str) -> ServerSentEvent | None:
        if not line:
            return self._dispatch()
        if line[0] == ":":
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_size += len(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        if not self._data:
            self._event = ""
            return None
        event = ServerSentEvent(
            data="\n".join(self._data),
            event=self._event or "message",
            id=self._last_id,
            retry=self._retry,
        )
        self._event = ""
        self._data = []
        self._data_size = 0
        self._retry = None
        return event
