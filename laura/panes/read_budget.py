"""How much of their files all file panes may read, together.

`max_file_bytes` bounds one pane; a hostile repository can still have an
agent open one big file in forty panes (a screen holds that many), each
costing a few times what it read. A `ReadBudget` is shared by every tab of
a host: a pane's load reads at most what the budget has left beside the
other panes' shares (never less than MIN_SHARE, so a file always shows its
start), and a closed pane gives its share back. Pure bookkeeping: no I/O.
"""

from __future__ import annotations

from laura.filecheck import DEFAULT_MAX_FILE_BYTES

DEFAULT_MAX_OPEN_BYTES = 4 * DEFAULT_MAX_FILE_BYTES
# A pane may always read this much, whatever the others hold.
MIN_SHARE = 1 << 20


class ReadBudget:
    """The bytes all panes may read together, and each pane's share."""

    def __init__(self, total: int = DEFAULT_MAX_OPEN_BYTES) -> None:
        self.total = total
        self._shares: dict[object, int] = {}

    def share(self, pane: object, cap: int, size: int, *, keep: bool = True) -> int:
        """The most `pane` may read of a file of `size` bytes under the
        per-file `cap`: what the other panes leave (at least MIN_SHARE).
        With `keep`, the bytes it will read are its share from now on (a
        dry run's pane measures without keeping any)."""
        held = sum(bytes_ for owner, bytes_ in self._shares.items() if owner is not pane)
        allowed = min(cap, max(self.total - held, MIN_SHARE))
        if keep:
            self._shares[pane] = min(size, allowed)
        return allowed

    def release(self, pane: object) -> None:
        """`pane` is closed: its share is free."""
        self._shares.pop(pane, None)

    @property
    def held(self) -> int:
        """The bytes all panes' shares add up to."""
        return sum(self._shares.values())
