"""A person's review as Laura types it into the agent (docs/laura.md, "The
payload"): one bracketed paste whose first line starts `[laura review · `,
then a carriage return. The engine redacts a prompt holding one (it quotes
file lines); the interface sends one as a prompt of its own.
"""

from __future__ import annotations

REVIEW_HEADER = "[laura review · "


def is_review(text: str) -> bool:
    """Whether pasted text is a Laura review (its first line is the header)."""
    return text.startswith(REVIEW_HEADER)
