"""The pure diff parser, on text git writes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.git_quoting import unquote_path
from luxe.review.commit import _quote
from luxe.review.diffparse import DiffParseError, parse_diff

TWO_HUNKS = """\
diff --git a/pkg/mod.py b/pkg/mod.py
index 1111111..2222222 100644
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -1,4 +1,5 @@ import os
 import os
+import sys
\x20
 def f():
     pass
@@ -20,3 +21,2 @@ def g():
 a
-b
 c
diff --git "a/caf\\303\\251 menu.txt" "b/caf\\303\\251 menu.txt"
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ "b/caf\\303\\251 menu.txt"
@@ -0,0 +1 @@
+no newline
\\ No newline at end of file
"""


def test_files_hunks_and_line_numbers() -> None:
    parsed = parse_diff(TWO_HUNKS)
    mod, menu = parsed.files
    assert (mod.path, mod.status, mod.additions, mod.deletions, mod.language) == (
        "pkg/mod.py",
        "modified",
        1,
        1,
        "python",
    )
    assert (menu.path, menu.status, menu.old_path) == ("café menu.txt", "added", None)
    first, second, third = parsed.hunks
    assert first.header == "@@ -1,4 +1,5 @@ import os"
    assert [(line.kind, line.old_line, line.new_line, line.text) for line in first.lines] == [
        ("context", 1, 1, "import os"),
        ("add", None, 2, "import sys"),
        ("context", 2, 3, ""),
        ("context", 3, 4, "def f():"),
        ("context", 4, 5, "    pass"),
    ]
    assert [(line.kind, line.old_line, line.new_line) for line in second.lines] == [
        ("context", 20, 21),
        ("del", 21, None),
        ("context", 22, 22),
    ]
    assert third.lines[0].text == "no newline" and len(third.lines) == 1
    assert {h.file_id for h in parsed.hunks[:2]} == {mod.id}


def test_a_hunk_body_that_looks_like_a_header_is_read_by_count() -> None:
    tricky = (
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n"
        "--- a/x\n+diff --git a/y b/y\n context\n"
    )
    (file,) = parse_diff(tricky).files
    (hunk,) = parse_diff(tricky).hunks
    assert [line.text for line in hunk.lines] == ["-- a/x", "diff --git a/y b/y", "context"]
    assert file.additions == 1 and file.deletions == 1


def test_same_body_twice_in_a_file_gets_two_ids() -> None:
    body = " a\n-b\n+c\n d\n"
    text = f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n{body}@@ -10,3 +10,3 @@\n{body}"
    first, second = parse_diff(text).hunks
    assert first.id != second.id


def test_ids_ignore_positions_and_the_revision_does_not() -> None:
    text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -5,2 +5,2 @@\n-a\n+b\n keep\n"
    moved = text.replace("@@ -5,2 +5,2 @@", "@@ -9,2 +9,2 @@")
    one, two = parse_diff(text), parse_diff(moved)
    assert one.hunks[0].id == two.hunks[0].id
    assert one.files[0].id == two.files[0].id
    assert one.revision_id != two.revision_id


@pytest.mark.parametrize(
    "text",
    [
        "not a diff\n",
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n",
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n?what\n",
    ],
)
def test_text_git_would_not_write_is_refused(text: str) -> None:
    with pytest.raises(DiffParseError, match="line"):
        parse_diff(text)


def test_an_empty_diff_is_empty() -> None:
    parsed = parse_diff("")
    assert parsed.files == () and parsed.hunks == ()


def test_lineless_changes_get_one_hunk_each() -> None:
    text = (
        "diff --git a/old name b/new name\nsimilarity index 100%\n"
        "rename from old name\nrename to new name\n"
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
        "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n"
    )
    renamed, mode, logo = parse_diff(text).files
    assert (renamed.path, renamed.old_path, renamed.status) == ("new name", "old name", "renamed")
    assert (mode.path, mode.status) == ("run.sh", "modified")
    assert logo.binary and logo.status == "modified"
    assert [h.header for h in parse_diff(text).hunks] == [
        "Renamed without changes",
        "File mode changed",
        "Binary file changed",
    ]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=30))
def test_quoting_round_trips(path: str) -> None:
    assert unquote_path(_quote(path)) == path
