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

# Small pieces joined into one, so a stream of one-character deltas costs
# its characters and not an object (some 50 bytes) for each.
_JOIN_EVERY = 256


class Pieces:
    """The text of one block, as it streams: appended piece by piece,
    joined once at the end."""

    __slots__ = ("_joined", "_recent")

    def __init__(self, first: str = "") -> None:
        self._joined: list[str] = []
        self._recent: list[str] = [first] if first else []

    def add(self, piece: str) -> None:
        recent = self._recent
        recent.append(piece)
        if len(recent) >= _JOIN_EVERY:
            self._joined.append("".join(recent))
            recent.clear()

    def text(self) -> str:
        return "".join(self._joined) + "".join(self._recent)


class MessageBudget:
    """What is left of one assistant message's bounds. A provider's stream
    reader passes every piece it keeps through `take`, emits what it
    returns, then calls `check`, which raises once the bound is reached
    (`keep` does both, for what is not emitted)."""

    __slots__ = ("_what", "blocks", "left")

    def __init__(self, what: str) -> None:
        self._what = what  # "Anthropic stream from URL", for the message
        self.left = MAX_MESSAGE_CHARS
        self.blocks = 0

    def take(self, piece: str) -> str:
        """`piece`, or as much of its start as the bound leaves room for."""
        if len(piece) <= self.left:
            self.left -= len(piece)
            return piece
        fit, self.left = piece[: max(self.left, 0)], -1
        return fit

    def keep(self, piece: str) -> str:
        """`take` and `check` for a piece that is kept but not emitted."""
        piece = self.take(piece)
        self.check()
        return piece

    def check(self) -> None:
        """Raise ProviderError when a piece did not fit whole."""
        if self.left < 0:
            raise ProviderError(
                f"{self._what} sent an answer over {MAX_MESSAGE_CHARS >> 20} MiB (its text, "
                "thinking and tool calls together); it was cut off there"
            )

    def new_block(self) -> None:
        """Count a block; raise ProviderError past MAX_MESSAGE_BLOCKS."""
        self.blocks += 1
        if self.blocks > MAX_MESSAGE_BLOCKS:
            raise ProviderError(
                f"{self._what} sent an answer of over {MAX_MESSAGE_BLOCKS} content blocks; "
                "it was cut off there"
            )
