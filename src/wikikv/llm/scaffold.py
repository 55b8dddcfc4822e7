"""IASI with the model: the ``schema`` role's answer turned into a dimension scaffold, checked.

The model proposes the top-level dimensions of the wiki (WikiKV §III-C); an answer becomes a
:class:`~wikikv.llm.base.Scaffold` only when it keeps the bounds and can route every page:

* between 1 and ``fanout - 1`` dimensions (``/sources`` takes the last slot of the root);
* each name a lowercase slug (one path segment, so pages sit at depth 2, or 3 once a routing
  level is planned — within ``max_depth``), unique, and never ``sources``;
* each entity kind in at most one dimension (mutually exclusive), and the fallback kind
  ``topic`` in one of them, so every entity has exactly one dimension.

:func:`scaffold_problems` lists what is wrong, in words the model can act on: the provider
sends them back once as feedback (one retry) before giving up.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from wikikv.llm.base import DimensionSpec, Scaffold

# The entity kinds of the compile pipeline (wikikv.text.entities.KINDS; a test keeps the two
# equal): llm/ does not import compile/.
KINDS = ("person", "place", "org", "work", "event", "topic")
FALLBACK_KIND = "topic"
MIN_DEPTH = 3  # /<dimension>/<routing range>/<page>
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


def scaffold_problems(value: Mapping[str, Any], fanout: int, max_depth: int) -> list[str]:
    """Everything that keeps ``value`` (a schema-role answer) from being a scaffold."""
    problems: list[str] = []
    dims: Sequence[Mapping[str, Any]] = value.get("dimensions", [])
    limit = max(1, fanout - 1)
    if max_depth < MIN_DEPTH:
        problems.append(f"the depth bound {max_depth} leaves no room for pages (needs {MIN_DEPTH})")
    if not 1 <= len(dims) <= limit:
        problems.append(f"give between 1 and {limit} dimensions, not {len(dims)}")
    seen: set[str] = set()
    owner: dict[str, str] = {}
    for i, dim in enumerate(dims):
        name = str(dim.get("name", ""))
        where = f"dimension {i + 1} ({name!r})"
        if not _SLUG.match(name):
            problems.append(f"{where}: the name must be a lowercase slug (letters, digits, '-')")
        if name == "sources":
            problems.append(f"{where}: 'sources' is reserved")
        if name in seen:
            problems.append(f"{where}: the name is used twice")
        seen.add(name)
        if not str(dim.get("description", "")).strip():
            problems.append(f"{where}: the description is empty")
        kinds = list(dim.get("entity_types", []))
        if not kinds:
            problems.append(f"{where}: list the entity types it holds")
        for kind in kinds:
            if kind not in KINDS:
                problems.append(
                    f"{where}: unknown entity type {kind!r} (known: {', '.join(KINDS)})"
                )
            elif kind in owner:
                problems.append(
                    f"{where}: entity type {kind!r} is already in {owner[kind]!r}; "
                    "dimensions must not overlap"
                )
            else:
                owner[kind] = name
    if dims and FALLBACK_KIND not in owner:
        problems.append(f"one dimension must hold the entity type {FALLBACK_KIND!r} (the fallback)")
    return problems


def to_scaffold(value: Mapping[str, Any]) -> Scaffold:
    """The scaffold of a checked answer (call :func:`scaffold_problems` first)."""
    dims = [
        DimensionSpec(
            str(d["name"]),
            [k for k in d.get("entity_types", []) if k in KINDS],
            " ".join(str(d.get("description", "")).split()),
        )
        for d in value["dimensions"]
    ]
    fallback = next(d.name for d in dims if FALLBACK_KIND in d.kinds)
    return Scaffold(dimensions=dims, fallback=fallback)
