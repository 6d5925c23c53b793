"""What the model reads of a file attached to a prompt (`attachments` of
`submit_user_message`, `@path` in the interface).

The client chose the path; the repository decides what is there, and can
change it at any moment, between a look and the read included. So the path
is resolved once (a symlink loop or a NUL in it is answered, not raised),
and the file it resolved to is opened once as luxe.regular_file opens it
(non-blocking, the descriptor checked and read, never a link swapped in
as its last component): a FIFO, a device, a socket or a directory is
answered as not a regular file, never opened for a wait or read without
end, and what is read is at most MAX_ATTACHMENT_BYTES (a larger file's
block says `cut_at`). The gate's check (secret files) comes before, in the
turn.
"""

from __future__ import annotations

from pathlib import Path

from luxe.real_path import real_path
from luxe.regular_file import NotRegularFile, read_capped

MAX_ATTACHMENT_BYTES = 64 * 1024


def attachment_text(cwd: Path, path: str) -> str:
    """The attachment block for `path` (relative to `cwd`): the file's text,
    or why there is none."""
    try:
        full = real_path(cwd / path)
        data, more = read_capped(full, MAX_ATTACHMENT_BYTES, follow=False)
    except NotRegularFile:
        return f"<attachment path={path!r}>not a regular file</attachment>"
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"<attachment path={path!r}>could not be read: {why}</attachment>"
    text = data.decode("utf-8", "replace")
    cut = f" cut_at='{MAX_ATTACHMENT_BYTES >> 10} KiB'" if more else ""
    return f"<attachment path={path!r}{cut}>\n{text}\n</attachment>"
