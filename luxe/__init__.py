"""Luxe: a terminal coding agent whose whole surface is `luxe --rpc`."""

import os as _os
import sys as _sys

__version__ = "0.1.0"


def _guard_import_path() -> None:
    """Nothing Luxe imports comes from the directory it was started in.

    A stray colon in the person's PYTHONPATH (`PYTHONPATH=$PYTHONPATH:/x`
    with it unset gives `:/x`) or a relative entry puts that directory
    before site-packages, and `python -m luxe` puts it first: a clone that
    ships `attrs.py` or `trio.py` ran it inside Luxe. Runs before Luxe
    imports anything (so it imports nothing of its own); keeps the
    directory Luxe itself is in (a checkout run in place)."""
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
