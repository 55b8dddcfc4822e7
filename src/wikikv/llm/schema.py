"""JSON Schema for model output: validation by the maintained ``jsonschema`` package, plus the
policy our prompts' schemas follow.

:func:`validate` runs ``jsonschema``'s Draft 2020-12 validator and reports every error with the
JSON path where it happened (``$.entities[2].quote: None is not of type 'string'``). The rest is
policy, not validation: :func:`check_schema` keeps our schemas to the keywords OpenAI's strict
structured output accepts (so a prompt cannot rely on a keyword a server would drop),
:func:`strict_compatible` says why a schema would be refused in strict mode, and
:func:`wire_schema` is the reduced schema we send (answers are still validated in full).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

SUPPORTED_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "description",
        "title",
    }
)
_TYPE_NAMES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})


def _where(path: Any) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def validate(instance: Any, schema: Mapping[str, Any], max_errors: int = 20) -> list[str]:
    """Every way ``instance`` breaks ``schema`` (at most ``max_errors``), each naming the JSON
    path where it happened, in document order. An empty list means valid."""
    errors = sorted(
        Draft202012Validator(schema).iter_errors(instance),
        key=lambda e: (list(map(str, e.absolute_path)), e.message),
    )
    return [f"{_where(e.absolute_path)}: {e.message}" for e in errors[:max_errors]]


def check_schema(schema: Mapping[str, Any]) -> None:
    """Raise ValueError when ``schema`` uses a keyword or type outside the strict
    structured-output subset our prompts keep to, or is not a valid JSON Schema."""
    _check_policy(schema, "$")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ValueError(f"$: invalid JSON Schema: {exc.message}") from exc


def _check_policy(schema: Mapping[str, Any], where: str) -> None:
    unknown = set(schema) - SUPPORTED_KEYWORDS
    if unknown:
        raise ValueError(f"{where}: unsupported schema keywords {sorted(unknown)}")
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        bad = [name for name in names if name not in _TYPE_NAMES]
        if bad:
            raise ValueError(f"{where}: unknown types {bad}")
    for key, sub in schema.get("properties", {}).items():
        _check_policy(sub, f"{where}.{key}")
    items = schema.get("items")
    if isinstance(items, Mapping):
        _check_policy(items, f"{where}[]")
    missing = set(schema.get("required", ())) - set(schema.get("properties", {}))
    if missing:
        raise ValueError(f"{where}: required names unknown properties {sorted(missing)}")


def strict_compatible(schema: Mapping[str, Any], where: str = "$") -> list[str]:
    """Why ``schema`` would be refused by OpenAI's strict structured-output mode (every object
    lists all its properties as required and forbids additional ones); empty when accepted."""
    problems: list[str] = []
    types = schema.get("type")
    names = [types] if isinstance(types, str) else list(types or ())
    if "object" in names:
        props = schema.get("properties", {})
        if set(schema.get("required", ())) != set(props):
            problems.append(f"{where}: every property must be required")
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        for key, sub in props.items():
            problems.extend(strict_compatible(sub, f"{where}.{key}"))
    items = schema.get("items")
    if isinstance(items, Mapping):
        problems.extend(strict_compatible(items, f"{where}[]"))
    return problems


_WIRE_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "description"}
)


def wire_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` reduced to the keywords every structured-output server accepts (length and
    count bounds dropped). We send this one and still validate the answer against the full
    schema, so a server that ignores a bound cannot slip an invalid answer through."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _WIRE_KEYWORDS:
            continue
        if key == "properties":
            out[key] = {name: wire_schema(sub) for name, sub in value.items()}
        elif key == "items" and isinstance(value, Mapping):
            out[key] = wire_schema(value)
        else:
            out[key] = value
    return out
