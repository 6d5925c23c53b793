"""Git's C-style quoting of path names, undone: git writes a name holding a
byte outside printable ASCII, a tab, a newline, a quote or a backslash as
`"d\\303\\251/a\\tb"`. Pure; shared by the review's diff parser and the
search for secret values in git's history, which must both read the name
git means, not the quoted text."""

from __future__ import annotations

_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_path(text: str) -> str:
    """Undo git's C-style quoting ("a/caf\\303\\251" -> a/café); other text as is."""
    text = text.rstrip("\t")  # GNU diff puts a tab after names with spaces
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    raw = bytearray()
    body = text[1:-1]
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            nxt = body[index + 1]
            if nxt in "01234567" and index + 3 < len(body) + 1:
                raw.append(int(body[index + 1 : index + 4], 8))
                index += 4
                continue
            raw.append(_ESCAPES.get(nxt, ord(nxt)))
            index += 2
            continue
        raw.extend(char.encode("utf-8", "surrogateescape"))
        index += 1
    return raw.decode("utf-8", "surrogateescape")
