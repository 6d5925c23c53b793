"""Luxe's interactive interface: one more front end on the session, in process.

It dispatches the same actions and renders the same events as `luxe --rpc`
(see docs/interface.md). Modules, one job each:

    text.py      styled spans, cell widths, word wrap, SGR output (palette)
    editor.py    the pure line editor (buffer, cursor, readline keys)
    history.py   prompt history persisted per project
    keys.py      terminal input bytes -> key and paste events (blessed)
    live.py      the pure live-region differ (rows -> escape bytes)
    markdown.py  streaming markdown: complete blocks -> lines
    view.py      the UI state and what events do to it
    draw.py      the projection: state -> live rows
    terminal.py  the tty: modes on, restored on every exit
    frontend.py  the front end that ties them together
"""
