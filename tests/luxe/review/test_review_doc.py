"""docs/rpc.md documents every Guided Review frame: fields and an example."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs

from luxe.protocol import Rejection, decode_action
from luxe.protocol import review as rv
from luxe.protocol.wire import converter

DOC = Path(__file__).resolve().parents[3] / "docs" / "rpc.md"


def sections() -> dict[str, str]:
    parts = re.split(r"^### `([a-z_]+)`\s*$", DOC.read_text(), flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def example(kind: str, body: str) -> dict[str, Any]:
    match = re.search(r"```json\n(.*?)\n```", body, flags=re.S)
    assert match, f"{kind}: no JSON example"
    frame: dict[str, Any] = json.loads(match.group(1))
    assert frame["kind"] == kind
    return frame


def test_every_review_frame_has_its_fields_and_an_example() -> None:
    found = sections()
    for cls in (*rv.REVIEW_ACTIONS, *rv.REVIEW_EVENTS):
        assert cls.KIND in found, f"docs/rpc.md lacks {cls.KIND}"
        for field in attrs.fields(cls):
            assert f"| `{field.name}` |" in found[cls.KIND], f"{cls.KIND}.{field.name}"
    for cls in rv.REVIEW_ACTIONS:
        decoded = decode_action(json.dumps(example(cls.KIND, found[cls.KIND])).encode())
        assert not isinstance(decoded, Rejection), decoded
    for cls in rv.REVIEW_EVENTS:
        content = example(cls.KIND, found[cls.KIND])["content"]
        assert set(content) == {f.name for f in attrs.fields(cls)}, cls.KIND
        assert converter.unstructure(converter.structure(content, cls)) == content


def test_the_examples_are_real_reviews_and_sessions() -> None:
    from luxe.review.model import Review, ReviewSession, from_wire, to_wire

    found = sections()
    loaded = re.findall(r"```json\n(.*?)\n```", found["guided_review_loaded"], flags=re.S)
    reviews = [json.loads(frame)["content"]["review"] for frame in loaded]
    assert [r["empty"] for r in reviews] == [False, True]  # one with files, one empty
    for review in reviews:
        # The code writes these exactly (`empty` and `note` included).
        assert to_wire(from_wire(review, Review)) == review
    for kind in ("review_session_restored", "review_session_saved"):
        from_wire(example(kind, found[kind])["content"]["session"], ReviewSession)


def test_the_failure_answer_of_a_malformed_action_is_documented() -> None:
    intro = DOC.read_text().split("## Guided Review", 1)[1].split("### ", 1)[0]
    for kind, event in rv.FAILURE_EVENTS.items():
        failed = event("r", "why")
        assert f"`{kind}`" in intro and f"`{failed.KIND}`" in intro, kind
    decoded = decode_action(b'{"kind": "edit_review", "content": {"request_id": "f5", "edit": "bogus"}}')
    assert isinstance(decoded, Rejection) and decoded.request_id == "f5"
    assert rv.failure_for(decoded.kind, decoded.request_id, decoded.reason) == (
        rv.ReviewSessionSaveFailed("f5", decoded.reason)
    )
    assert rv.failure_for("edit_review", None, "x") is None
    assert rv.failure_for("submit_user_message", "f5", "x") is None
