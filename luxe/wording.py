"""How Luxe counts things in words, for a person or the model:
`counted(1, "line")` is "1 line", `counted(3, "branch", "branches")` is
"3 branches"."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and `noun`, in the plural (`plural`, else noun + "s") unless
    the count is one."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
