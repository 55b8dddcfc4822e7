"""Model-output validation (the jsonschema package) and our schema policy, by one table of cases."""

from __future__ import annotations

from typing import Any

import pytest

from wikikv.llm.schema import check_schema, strict_compatible, validate, wire_schema

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 5},
        "kind": {"type": "string", "enum": ["a", "b"]},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "count": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
        "note": {"type": ["string", "null"]},
        "flag": {"type": "boolean"},
    },
    "required": ["name", "kind"],
    "additionalProperties": False,
}
GOOD = {"name": "ab", "kind": "a"}

CASES: list[tuple[dict[str, Any], str | None]] = [
    (GOOD, None),
    ({**GOOD, "score": 0.5, "count": 3, "tags": ["x"], "note": None, "flag": True}, None),
    ({"kind": "a"}, "$: 'name' is a required property"),
    ({**GOOD, "extra": 1}, "$: Additional properties are not allowed ('extra' was unexpected)"),
    ({**GOOD, "name": ""}, "$.name: '' should be non-empty"),
    ({**GOOD, "name": "abcdef"}, "$.name: 'abcdef' is too long"),
    ({**GOOD, "kind": "c"}, "$.kind: 'c' is not one of ['a', 'b']"),
    ({**GOOD, "score": 2}, "$.score: 2 is greater than the maximum of 1"),
    ({**GOOD, "score": -1}, "$.score: -1 is less than the minimum of 0"),
    ({**GOOD, "score": True}, "$.score: True is not of type 'number'"),
    ({**GOOD, "count": 1.5}, "$.count: 1.5 is not of type 'integer'"),
    ({**GOOD, "tags": []}, "$.tags: [] should be non-empty"),
    ({**GOOD, "tags": ["a", "b", "c"]}, "$.tags: ['a', 'b', 'c'] is too long"),
    ({**GOOD, "tags": ["a", 3]}, "$.tags[1]: 3 is not of type 'string'"),
    ({**GOOD, "note": 3}, "$.note: 3 is not of type 'string', 'null'"),
    ({**GOOD, "flag": "yes"}, "$.flag: 'yes' is not of type 'boolean'"),
]


@pytest.mark.parametrize(("instance", "error"), CASES)
def test_validate(instance: dict[str, Any], error: str | None) -> None:
    errors = validate(instance, SCHEMA)
    if error is None:
        assert errors == []
    else:
        assert any(e.startswith(error) for e in errors), errors


def test_not_an_object() -> None:
    assert validate([], SCHEMA) == ["$: [] is not of type 'object'"]


def test_max_errors() -> None:
    many = {"type": "array", "items": {"type": "string"}}
    assert len(validate(list(range(100)), many, max_errors=5)) == 5


def test_check_schema_rejects_unenforced_keywords() -> None:
    check_schema(SCHEMA)
    with pytest.raises(ValueError, match="unsupported schema keywords"):
        check_schema({"type": "string", "pattern": "^a"})
    with pytest.raises(ValueError, match=r"\$\.x: unknown types"):
        check_schema({"type": "object", "properties": {"x": {"type": "str"}}})
    with pytest.raises(ValueError, match="invalid JSON Schema"):
        check_schema({"type": "array", "minItems": -1})
    with pytest.raises(ValueError, match="required names unknown"):
        check_schema({"type": "object", "properties": {}, "required": ["a"]})


def test_strict_compatible_and_wire_schema() -> None:
    problems = strict_compatible(SCHEMA)
    assert problems == ["$: every property must be required"]
    wire = wire_schema(SCHEMA)
    assert "maxLength" not in wire["properties"]["name"]
    assert "minItems" not in wire["properties"]["tags"]
    assert wire["properties"]["kind"]["enum"] == ["a", "b"]
    assert wire["additionalProperties"] is False
