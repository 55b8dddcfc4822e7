"""A small validator for the subset of JSON Schema our prompts use.

Why not the ``jsonschema`` package: we validate model output against schemas we write ourselves,
and they use a dozen keywords. Pulling in ``jsonschema`` (with ``referencing``, ``rpds-py`` and
``attrs``) for that is a heavy dependency for little; instead this module supports exactly

    type (a name or a list of names), properties, required, additionalProperties (bool),
    items, enum, minItems, maxItems, minLength, maxLength, minimum, maximum, description

and :func:`check_schema` rejects a schema that uses anything else, so a prompt cannot silently
rely on a keyword that is not enforced. The same subset is what OpenAI's strict structured
output accepts, which :func:`strict_compatible` checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


def _is_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    raise ValueError(f"unknown JSON Schema type {name!r}")


def validate(instance: Any, schema: Mapping[str, Any], max_errors: int = 20) -> list[str]:
    """Every way ``instance`` breaks ``schema`` (at most ``max_errors``), each naming the JSON
    path where it happened, e.g. ``$.entities[2].quote: expected string, got null``. An empty
    list means valid."""
    errors: list[str] = []
    _validate(instance, schema, "$", errors, max_errors)
    return errors


def _validate(
    value: Any, schema: Mapping[str, Any], where: str, errors: list[str], cap: int
) -> None:
    if len(errors) >= cap:
        return
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is_type(value, name) for name in names):
            errors.append(f"{where}: expected {' or '.join(names)}, got {_describe(value)}")
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} is not one of {schema['enum']!r}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{where}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{where}: longer than {schema['maxLength']} characters")
    if _is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}: {value} is above the maximum {schema['maximum']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{where}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{where}: more than {schema['maxItems']} items")
        item_schema = schema.get("items")
        if isinstance(item_schema, Mapping):
            for i, item in enumerate(value):
                _validate(item, item_schema, f"{where}[{i}]", errors, cap)
    if isinstance(value, dict):
        props: Mapping[str, Any] = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                errors.append(f"{where}: missing required property {key!r}")
        if schema.get("additionalProperties", True) is False:
            for key in value:
                if key not in props:
                    errors.append(f"{where}: unexpected property {key!r}")
        for key, sub in props.items():
            if key in value:
                _validate(value[key], sub, f"{where}.{key}", errors, cap)
    del errors[cap:]


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def check_schema(schema: Mapping[str, Any], where: str = "$") -> None:
    """Raise ValueError when ``schema`` uses a keyword or type this validator does not enforce."""
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
        check_schema(sub, f"{where}.{key}")
    items = schema.get("items")
    if isinstance(items, Mapping):
        check_schema(items, f"{where}[]")
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
