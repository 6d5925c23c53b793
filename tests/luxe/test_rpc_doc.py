"""docs/rpc.md documents every frame the code has: kind, fields, an example."""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs

from luxe.protocol import ACTION_TYPES, EVENT_TYPES, Rejection, decode_action
from luxe.protocol.wire import converter

DOC = Path(__file__).resolve().parents[2] / "docs" / "rpc.md"


def _sections() -> dict[str, str]:
    text = DOC.read_text()
    parts = re.split(r"^### `([a-z_]+)`\s*$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def _example(kind: str, body: str) -> dict:  # type: ignore[type-arg]
    match = re.search(r"```json\n(.*?)\n```", body, flags=re.S)
    assert match, f"{kind}: no JSON example"
    frame = json.loads(match.group(1))
    assert frame["kind"] == kind
    return frame  # type: ignore[no-any-return]


def test_every_kind_in_the_code_is_documented_and_nothing_else() -> None:
    sections = _sections()
    missing = (set(ACTION_TYPES) | set(EVENT_TYPES)) - set(sections)
    assert not missing, f"docs/rpc.md lacks: {sorted(missing)}"
    extra = set(sections) - set(ACTION_TYPES) - set(EVENT_TYPES)
    assert not extra, f"docs/rpc.md documents kinds the code lacks: {sorted(extra)}"


def test_every_field_has_a_row() -> None:
    sections = _sections()
    for kind, cls in {**ACTION_TYPES, **EVENT_TYPES}.items():
        for field in attrs.fields(cls):
            assert f"| `{field.name}` |" in sections[kind], f"{kind}.{field.name} is not documented"


def test_action_examples_decode() -> None:
    sections = _sections()
    for kind in ACTION_TYPES:
        line = json.dumps(_example(kind, sections[kind])).encode()
        decoded = decode_action(line)
        assert not isinstance(decoded, Rejection), (kind, decoded)


def test_event_examples_have_exactly_the_fields_of_the_code() -> None:
    sections = _sections()
    for kind, cls in EVENT_TYPES.items():
        frame = _example(kind, sections[kind])
        content = frame.get("content", {})
        assert set(content) == {f.name for f in attrs.fields(cls)}, kind
        event = converter.structure(content, cls)
        assert converter.unstructure(event) == content, kind
