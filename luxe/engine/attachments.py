"""What the model reads of a file attached to a prompt (`attachments` of
`submit_user_message`, `@path` in the interface).

The client chose the path; the repository decides what is there, and can
change it at any moment, between a look and the read included. So the path
is resolved once, by the kernel (luxe.real_path: a symlink loop, a chain of
links or a NUL in it is answered, not raised), and the file it resolved to
is opened once as luxe.regular_file opens it (non-blocking, the descriptor
checked and read, never a link swapped in as its last component): a FIFO,
a device, a socket or a directory is answered as not a regular file, never
opened for a wait or read without end, and what is read is at most
MAX_ATTACHMENT_BYTES (a larger file's block says `cut_at`).

The gate's check of the path (secret files) comes before, in the turn; the
file opened is judged again here, by the descriptor (`is_secret_opened`:
its identity, the kernel's name for it), before a byte is read, so a name
swapped to a secret file after that check is refused too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from luxe.engine.tooling import secret_opened
from luxe.real_path import real_path
from luxe.regular_file import NotRegularFile, open_regular

MAX_ATTACHMENT_BYTES = 64 * 1024


def attachment_text(cwd: Path, path: str, is_secret_opened: Callable[[int], bool]) -> str:
    """The attachment block for `path` (relative to `cwd`): the file's text,
    or why there is none. `is_secret_opened` judges the open descriptor."""
    try:
        with open_regular(real_path(cwd / path), follow=False) as f:
            if is_secret_opened(f.fileno()):
                return f"<attachment path={path!r}>{secret_opened(f'`{path}`')}</attachment>"
            data = f.read(MAX_ATTACHMENT_BYTES + 1)
    except NotRegularFile:
        return f"<attachment path={path!r}>not a regular file</attachment>"
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"<attachment path={path!r}>could not be read: {why}</attachment>"
    text = data[:MAX_ATTACHMENT_BYTES].decode("utf-8", "replace")
    cut = f" cut_at='{MAX_ATTACHMENT_BYTES >> 10} KiB'" if len(data) > MAX_ATTACHMENT_BYTES else ""
    return f"<attachment path={path!r}{cut}>\n{text}\n</attachment>"
