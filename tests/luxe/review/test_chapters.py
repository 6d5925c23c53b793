"""Chapters: the fallback, the validator and the model's proposal."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.review.chapters import (
    PROPOSE_CHAPTERS,
    ChaptersInvalid,
    chapter_request,
    fallback_chapters,
    is_test_path,
    parse_proposal,
    validate_chapters,
)
from luxe.review.diffparse import parse_diff
from luxe.review.load import read_review
from luxe.review.model import Chapter, Review, WorkingTreeTarget
from tests.helpers.gitrepo import Repo


def new_file(path: str, lines: list[str]) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def titles_and_paths(text: str) -> list[tuple[str, list[str]]]:
    parsed = parse_diff(text)
    path_of = {f.id: f.path for f in parsed.files}
    hunk_file = {h.id: h.file_id for h in parsed.hunks}
    chapters = fallback_chapters(parsed.files, parsed.hunks)
    validate_chapters(chapters, parsed.hunks)
    return [(c.title, [path_of[hunk_file[h]] for h in c.hunk_ids]) for c in chapters]


def test_definitions_come_before_uses_and_tests_last() -> None:
    text = (
        new_file("tests/test_api.py", ["from app.api import serve", "def test_serve(): serve()"])
        + new_file("app/api.py", ["from core.store import Store", "def serve():", "    Store()"])
        + new_file("app/cli.py", ["from app.api import serve", "serve()"])
        + new_file("core/store.py", ["class Store:", "    pass"])
    )
    assert titles_and_paths(text) == [
        ("Add core/store.py", ["core/store.py"]),
        ("Changes in app", ["app/api.py", "app/cli.py"]),
        ("Add tests/test_api.py", ["tests/test_api.py"]),
    ]


def test_cycles_are_broken_the_same_way_whatever_the_diff_order() -> None:
    a, b = new_file("a.py", ["def sea(): bee()"]), new_file("b.py", ["def bee(): sea()"])
    assert titles_and_paths(a + b) == titles_and_paths(b + a)
    ((_, paths),) = titles_and_paths(a + b)
    assert sorted(paths) == ["a.py", "b.py"]


@pytest.mark.parametrize(
    ("path", "is_test"),
    [
        ("tests/luxe/test_x.py", True),
        ("pkg/x_test.go", True),
        ("web/button.spec.ts", True),
        ("src/__tests__/a.js", True),
        ("conftest.py", True),
        ("src/testing_utils.py", False),
        ("src/contest.py", False),
    ],
)
def test_test_paths(path: str, is_test: bool) -> None:
    assert is_test_path(path) is is_test


async def test_fallback_on_a_real_change_covers_every_hunk(repo: Repo) -> None:
    repo.write("src/a.py", "".join(f"a{n}\n" for n in range(30)))
    repo.commit("init")
    repo.write("src/a.py", "".join(f"a{n}\n" if n not in (2, 25) else "x\n" for n in range(30)))
    repo.write("src/img.png", bytes(range(256)))
    repo.write("docs/guide.md", "# Guide\n")
    review, _ = await read_review(repo.path, WorkingTreeTarget())
    assert len(review.hunks) == 4
    validate_chapters(review.chapters, review.hunks)
    assert sum(len(c.hunk_ids) for c in review.chapters) == 4


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["src", "src/deep", "tests", "lib", ""]),
            st.text(alphabet="abcxyz_", min_size=1, max_size=6),
            st.lists(
                st.sampled_from(["def foo():", "foo()", "class Bar:", "Bar()", "x = 1"]),
                min_size=1,
                max_size=4,
            ),
        ),
        min_size=1,
        max_size=12,
        unique_by=lambda t: (t[0], t[1]),
    )
)
def test_fallback_always_validates(files: list[tuple[str, str, list[str]]]) -> None:
    text = "".join(new_file(f"{d}/{n}.py" if d else f"{n}.py", lines) for d, n, lines in files)
    parsed = parse_diff(text)
    chapters = fallback_chapters(parsed.files, parsed.hunks)
    validate_chapters(chapters, parsed.hunks)
    # Tests never come before production code.
    seen_test = False
    for chapter in chapters:
        is_test = chapter.title.startswith("Tests") or "tests/" in chapter.title
        assert not (seen_test and not is_test)
        seen_test = seen_test or is_test


def two_file_review() -> Review:
    parsed = parse_diff(new_file("a.py", ["A = 1"]) + new_file("b.py", ["B = 2"]))
    return Review(
        "review:1",
        parsed.revision_id,
        WorkingTreeTarget(),
        None,
        None,
        parsed.files,
        parsed.hunks,
        (),
    )


def test_a_valid_proposal_is_taken_in_its_order() -> None:
    review = two_file_review()
    a, b = (h.id for h in review.hunks)
    chapters = parse_proposal(
        {"chapters": [
            {"title": " B first ", "summary": "b", "hunk_ids": [b]},
            {"title": "Then A", "summary": "a", "hunk_ids": [a]},
        ]},
        review.hunks,
    )  # fmt: skip
    assert [(c.title, c.hunk_ids) for c in chapters] == [("B first", (b,)), ("Then A", (a,))]
    assert chapters[0].id.startswith("chapter:") and chapters[0].id != chapters[1].id


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({}, "no chapters"),
        ({"chapters": "x"}, "no chapters"),
        ({"chapters": [1]}, "chapter 1 is not an object"),
        ({"chapters": [{"title": "t", "summary": "s", "hunk_ids": "A"}]}, "list of hunk ids"),
        (
            {"chapters": [{"title": "t", "summary": "s", "hunk_ids": ["A"]}]},
            "hunk\\(s\\) in no chapter",
        ),
        (
            {"chapters": [{"title": "t", "summary": "s", "hunk_ids": ["A", "B", "hunk:zz"]}]},
            "unknown hunk hunk:zz",
        ),
        (
            {"chapters": [{"title": "t", "summary": "s", "hunk_ids": ["A", "B", "A"]}]},
            "more than one chapter",
        ),
        ({"chapters": [{"title": " ", "summary": "s", "hunk_ids": ["A", "B"]}]}, "has no title"),
        (
            {
                "chapters": [
                    {"title": "t", "summary": "s", "hunk_ids": ["A", "B"]},
                    {"title": "u", "summary": "", "hunk_ids": []},
                ]
            },
            "has no hunks",
        ),
    ],
)
def test_invalid_proposals_say_why(answer: dict[str, object], reason: str) -> None:
    review = two_file_review()
    a, b = (h.id for h in review.hunks)
    fixed = _named(answer, {"A": a, "B": b})
    with pytest.raises(ChaptersInvalid, match=reason):
        parse_proposal(fixed, review.hunks)


def _named(value: object, ids: dict[str, str]) -> Any:
    """The answer with placeholder hunk names replaced by the real ids."""
    if isinstance(value, dict):
        return {key: _named(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_named(item, ids) for item in value]
    return ids.get(value, value) if isinstance(value, str) else value


def test_the_request_lists_every_hunk_with_the_tool() -> None:
    review = two_file_review()
    request = chapter_request(review, "some-model")
    assert request.tools == (PROPOSE_CHAPTERS,)
    (message,) = request.messages
    text = message.content[0].text  # type: ignore[union-attr]
    for hunk in review.hunks:
        assert hunk.id in text
    assert "+A = 1" in text and "b.py (added)" in text


def test_validate_rejects_a_chapter_list_missing_a_hunk() -> None:
    review = two_file_review()
    with pytest.raises(ChaptersInvalid, match="in no chapter"):
        validate_chapters([Chapter("chapter:x", "t", "", (review.hunks[0].id,))], review.hunks)
