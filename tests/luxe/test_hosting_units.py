"""The pure parts of Luxe's Laura panes: which lines an edit lights."""

from __future__ import annotations

from luxe.hosting.panes import changed_lines


def test_changed_lines_span_every_hunk_on_the_new_side() -> None:
    diff = (
        b"diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n"
        b"@@ -12 +12 @@\n-line 12\n+line twelve\n"
        b"@@ -30,0 +31,3 @@\n+a\n+b\n+c\n"
    )
    assert changed_lines(diff) == (12, 33)


def test_a_pure_deletion_lights_the_line_where_it_was() -> None:
    assert changed_lines(b"@@ -5,2 +4,0 @@\n-x\n-y\n") == (4, 4)
    assert changed_lines(b"@@ -1 +0,0 @@\n-x\n") == (1, 1)


def test_no_hunk_lights_nothing() -> None:
    assert changed_lines(b"") is None
    assert changed_lines(b"Binary files a/x and b/x differ\n") is None
