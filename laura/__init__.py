"""Laura: a terminal workspace that hosts a shell or an agent beside file panes."""

import os as _os
import sys as _sys

__version__ = "0.1.0"


def _guard_import_path() -> None:
    """Nothing Laura imports comes from the directory it was started in: a
    relative or empty PYTHONPATH entry, or `python -m laura`, put it before
    site-packages, and a clone's `trio.py` ran inside Laura. As luxe's
    (luxe/__init__.py: neither package may import the other, or anything,
    before this has run)."""
    here = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    try:
        cwd = _os.getcwd()
    except OSError:
        cwd = ""
    # Python made PYTHONPATH's relative entries absolute, from this directory.
    planted = {cwd} | {
        _os.path.join(cwd, p) if p else cwd
        for p in _os.environ.get("PYTHONPATH", "").split(_os.pathsep)
        if not _os.path.isabs(p)
    }
    planted = {_os.path.normpath(p) for p in planted if p} - {here}
    _sys.path[:] = [p for p in _sys.path if _os.path.isabs(p) and _os.path.normpath(p) not in planted]


_guard_import_path()
