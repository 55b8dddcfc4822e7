"""An add's update of a much-named entity from its new documents alone.

An add recomputes every entity a new (or re-resolved) document names from all the documents
that name it (:mod:`wikikv.compile.persisted`). For a name the corpus uses everywhere — "United
States" is named by ~7,000 documents at ~100 MB — that is reading and resolving thousands of
documents to add one.

An entity whose stored record is still the sum of its old documents can be updated from the
added ones instead, and the result is what the full recomputation gives, when:

* it is no page's subject (no document is about it: its key facts are then the sentences whose
  subject it is, in document order, and its mentions likewise — no digest sentences first);
* none of its old documents is resolved again by this add (their contributions are unchanged);
* its kind is unchanged (a carried sentence — "He …" — counts for a person only).

Its surfaces, naming counts, "mentioned in" and links are sums over documents; its key facts
and mentions are per-document lists in document order cut at a bound, so the old list merged
with the new documents' lists in document order and cut again is the full one.

The directory routing reads where it is named most: sums over the documents naming it
(:class:`~wikikv.compile.categories.NamedIn`). An English entity named by at least
:data:`NAMED_IN_MIN` documents keeps them stored (:func:`keeps_sums`), and an add adds the new
documents' part; for the others the routing reads each naming document's title, summary and
group (:class:`DocLabel`: the analysis decoded into those fields alone).
"""

from __future__ import annotations

from collections.abc import Container

import msgspec

from wikikv.compile.model import MAX_FACTS, MAX_MENTIONS, Entity, Fact
from wikikv.compile.schema import Schema

# Below this many naming documents the labels are read (~20 µs each) rather than kept summed.
NAMED_IN_MIN = 100


class DocLabel(msgspec.Struct):
    """What the routing reads of a stored analysis (:class:`~wikikv.compile.model.DocAnalysis`
    decoded into these fields alone: its mentions and sentences are skipped, not built)."""

    id: str
    title: str
    lang: str
    group: str = ""
    about_kind: str = "topic"
    summary: str = ""
    category: str = ""


def keeps_sums(e: Entity, schema: Schema) -> bool:
    """Whether the model stores ``e``'s :class:`~wikikv.compile.categories.NamedIn` sums: an
    English entity no document is about, named by many, in a dimension routed by category."""
    return (
        schema.language != "zh"
        and not e.about
        and len(e.mentioned_in) >= NAMED_IN_MIN
        and schema.dimension_of(e.kind) in schema.routing
    )


def mergeable(old: Entity, fresh: Entity, resolved: Container[str]) -> bool:
    """Whether ``old`` (the stored record) plus the added documents' part is the full update;
    ``fresh``: the entity as the update starts it (its kind), ``resolved``: the documents this
    add resolves (again)."""
    if old.about or fresh.kind != old.kind:
        return False
    return not any(doc_id in resolved for doc_id in old.mentioned_in)


def blank(fresh: Entity) -> Entity:
    """An entity of ``fresh``'s key and kind with nothing counted: the added documents' part."""
    return Entity(fresh.key, fresh.name, fresh.kind)


def merge(old: Entity, fresh: Entity, added: Entity) -> Entity:
    """``fresh`` with ``old``'s sums and lists and ``added``'s (the part of documents ``old``
    did not count) on top, in the order a full recomputation builds them."""
    fresh.mentioned_in = dict(sorted({**old.mentioned_in, **added.mentioned_in}.items()))
    fresh.times_named = dict(sorted({**old.times_named, **added.times_named}.items()))
    surfaces = dict(old.surfaces)
    for s, n in added.surfaces.items():
        surfaces[s] = surfaces.get(s, 0) + n
    fresh.surfaces = surfaces
    links = {k: set(r) for k, r in old.links.items()}
    for k, reasons in added.links.items():
        links.setdefault(k, set()).update(reasons)
    fresh.links = links
    fresh.facts = _in_document_order(old.facts, added.facts, MAX_FACTS)
    fresh.mentions = _in_document_order(old.mentions, added.mentions, MAX_MENTIONS)
    return fresh


def _in_document_order(old: list[Fact], added: list[Fact], limit: int) -> list[Fact]:
    # stable: each document's own order is kept; no document is in both lists
    return sorted([*old, *added], key=lambda f: f.doc)[:limit]
