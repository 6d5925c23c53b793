"""Luxe on GitHub, through the user's own gh: the workspace (the branch's
pull request in `workspace_updated`), reads, previewed writes, restack and
starting a session from an issue or pull request.

Nothing here is imported before `ready` is written: `luxe.github.face` is
the cheap entry the composition root holds, and it imports the rest on first
use, after the handshake.
"""
