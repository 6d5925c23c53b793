"""How much of a model's stream Luxe keeps: every bound a provider's answer
meets, in one place, and the bookkeeping that enforces the per-answer ones.

An endpoint (hostile, or broken) may stream without end, in one event
(MAX_EVENT_CHARS, luxe.providers.sse) or in valid deltas that never stop:
text, thinking, a thinking block's signature or a tool call's arguments.
One assistant message holds at most MAX_MESSAGE_CHARS of them together, in
at most MAX_MESSAGE_BLOCKS blocks; past that the request fails for good
(a ProviderError naming the bound), after the deltas that fit were sent
on. A legitimate answer is far smaller: even 128k output tokens are some
500k characters.

Pure: no I/O, no trio.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import NoReturn

from luxe.engine.model import ProviderError

# The most of one SSE event kept: a model's event is a few tokens, a whole
# tool call's arguments at most a few hundred kilobytes.
MAX_EVENT_CHARS = 16 << 20
# The most of one assistant message kept: its text, thinking, signatures and
# tool calls (ids, names, arguments) together.
MAX_MESSAGE_CHARS = 4 << 20
# The most content blocks of one assistant message (a block costs memory
# even when empty); a real answer has a few, or some dozens of tool calls.
MAX_MESSAGE_BLOCKS = 1024
# Deeper tool arguments are refused as malformed: no tool takes more than a
# few levels, and Luxe's own walks of a value (redaction, the session file)
# recurse, so 600 levels ended the turn with an internal RecursionError.
MAX_ARGUMENT_DEPTH = 64


class Pieces:
    """The text of one block, as it streams: each piece appended to an
    io.StringIO, read once at the end. Only ever appended to, it gathers
    the pieces in C (CPython 3.11 joins them in runs, 3.12 writes them into
    one string), so a stream of one-character deltas costs about its
    characters, not an object each, and an append is one C call."""

    __slots__ = ("_buffer", "add")

    def __init__(self, first: str = "") -> None:
        self._buffer = io.StringIO()
        self.add: Callable[[str], int] = self._buffer.write
        self.add(first)

    def text(self) -> str:
        return self._buffer.getvalue()


class MessageBudget:
    """What is left of one assistant message's bounds. A provider's stream
    reader counts every piece it keeps: a piece it emits by `fits` (the one
    call a streamed token costs); when that says no, it emits what `cut`
    leaves of the piece, then `over` raises. A piece kept but not emitted
    goes by `keep`, which raises at once."""

    __slots__ = ("_what", "blocks", "left")

    def __init__(self, what: str) -> None:
        self._what = what  # "Anthropic stream from URL", for the message
        self.left = MAX_MESSAGE_CHARS
        self.blocks = 0

    def fits(self, piece: str) -> bool:
        """Whether `piece` fits whole; if so, it is counted."""
        left = self.left - len(piece)
        if left < 0:
            return False
        self.left = left
        return True

    def cut(self, piece: str) -> str:
        """As much of the start of `piece` (one that did not fit) as the
        bound leaves room for; nothing fits after it."""
        fit, self.left = piece[: max(self.left, 0)], -1
        return fit

    def over(self) -> NoReturn:
        """The bound was reached: raise ProviderError naming it."""
        raise ProviderError(
            f"{self._what} sent an answer over {MAX_MESSAGE_CHARS >> 20} MiB (its text, "
            "thinking and tool calls together); it was cut off there"
        )

    def keep(self, piece: str) -> str:
        """`piece`, counted, for a piece kept but not emitted; `over` if it
        does not fit whole."""
        left = self.left - len(piece)  # `fits` written out: one call a piece
        if left < 0:
            self.over()
        self.left = left
        return piece

    def new_block(self) -> None:
        """Count a block; raise ProviderError past MAX_MESSAGE_BLOCKS."""
        self.blocks += 1
        if self.blocks > MAX_MESSAGE_BLOCKS:
            raise ProviderError(
                f"{self._what} sent an answer of over {MAX_MESSAGE_BLOCKS} content blocks; "
                "it was cut off there"
            )
