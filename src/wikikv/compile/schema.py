"""IASI cold start (WikiKV paper §III-C) and the routing level that keeps the bounds.

On a fixed-size sample of the *filtered* corpus, the provider writes the positioning descriptor
(what the corpus is about, for whom, its bias), then the dimension scaffold from it. The scaffold
meets the fan-out bound by construction (one dimension per entity kind, a handful at most) and the
depth bound (``/<dim>/<entity>``, or ``/<dim>/<range>/<entity>`` once routed: depth 3 of 5).

When a dimension holds more entities than the fan-out bound allows, it gets a *routing level*:
its entities are cut into contiguous name ranges ("A", "B–C", "Ma–Me", ...) of at most
``ROUTE_FILL`` of the bound each, so later additions have room. The plan is part of the schema
record, so an entity's path does not depend on the order documents arrived in; a range that
overflows later is re-planned (the schema-evolution operators refine this further).
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Sequence

import msgspec

from wikikv.config import FANOUT_BOUND, MAX_DEPTH
from wikikv.llm.base import CompileProvider, Descriptor, DimensionSpec, DocInput

SAMPLE_SIZE = 64
ROUTE_FILL = 0.75


class RoutingPlan(msgspec.Struct):
    """Contiguous name ranges of one dimension: ``los[i]`` is the smallest key of range i."""

    los: list[str]
    labels: list[str]

    def bucket(self, key: str) -> str:
        i = bisect.bisect_right(self.los, key) - 1
        return self.labels[max(i, 0)]


class Schema(msgspec.Struct):
    """The scaffold of one kb, stored as a system record beside the descriptor."""

    language: str
    fanout: int
    max_depth: int
    dimensions: list[DimensionSpec]
    fallback: str
    routing: dict[str, RoutingPlan] = msgspec.field(default_factory=dict)
    sample_ids: list[str] = msgspec.field(default_factory=list)
    folder_corpus: bool = False

    def dimension_of(self, kind: str) -> str:
        for d in self.dimensions:
            if kind in d.kinds:
                return d.name
        return self.fallback

    def describe(self, name: str) -> str:
        for d in self.dimensions:
            if d.name == name:
                return d.description
        return ""


def sample_documents(docs: Sequence[DocInput], size: int = SAMPLE_SIZE) -> list[DocInput]:
    """A fixed-size sample, the same for the same corpus: the documents with the smallest hash of
    their id (spread across the corpus, independent of its order)."""
    ranked = sorted(docs, key=lambda d: hashlib.blake2b(d.id.encode(), digest_size=8).digest())
    return ranked[:size]


def cold_start(
    provider: CompileProvider,
    sample: Sequence[DocInput],
    kinds: dict[str, int],
    top_entities: Sequence[str],
    documents: int,
    fanout: int = FANOUT_BOUND,
    max_depth: int = MAX_DEPTH,
    folder_corpus: bool = False,
) -> tuple[Descriptor, Schema]:
    """Descriptor first, then the scaffold from it (IASI). ``kinds`` counts the entity kinds seen
    in the sample."""
    descriptor = provider.descriptor(sample, kinds, top_entities, documents)
    scaffold = provider.schema(descriptor, kinds)
    dims = [d for d in scaffold.dimensions if d.name != "sources"][: max(1, fanout - 1)]
    names = {d.name for d in dims}
    fallback = scaffold.fallback if scaffold.fallback in names else dims[-1].name
    schema = Schema(
        language=descriptor.language,
        fanout=fanout,
        max_depth=max_depth,
        dimensions=dims,
        fallback=fallback,
        sample_ids=[d.id for d in sample],
        folder_corpus=folder_corpus,
    )
    return descriptor, schema


def _first(key: str) -> str:
    c = key[:1]
    return "0-9" if c.isdigit() else (c if c.isalnum() else "#")


def plan_routing(keys: Sequence[str], fanout: int) -> RoutingPlan:
    """Cut sorted ``keys`` into ranges of at most ``ROUTE_FILL * fanout``, preferring cuts where
    the first character changes; every range gets a readable label."""
    cap = max(2, int(fanout * ROUTE_FILL))
    ordered = sorted(set(keys))
    groups: list[list[str]] = []
    for k in ordered:
        if groups and _first(groups[-1][-1]) == _first(k):
            groups[-1].append(k)
        else:
            groups.append([k])
    chunks: list[list[str]] = []
    for g in groups:
        for i in range(0, len(g), cap):
            part = g[i : i + cap]
            if chunks and len(chunks[-1]) + len(part) <= cap and len(g) <= cap:
                chunks[-1].extend(part)
            else:
                chunks.append(list(part))
    los: list[str] = []
    labels: list[str] = []
    for i, chunk in enumerate(chunks):
        prev_last = chunks[i - 1][-1] if i else ""
        next_first = chunks[i + 1][0] if i + 1 < len(chunks) else ""
        lo = _distinguish(chunk[0], prev_last)
        hi = _distinguish(chunk[-1], next_first)
        los.append(lo if i else "")
        short_lo, short_hi = _label(lo[:3]), _label(hi[:3])
        label = short_lo if short_lo == short_hi else f"{short_lo}–{short_hi}"
        labels.append(_unique(label, labels))
    if not los:
        los, labels = [""], ["all"]
    return RoutingPlan(los=los, labels=labels)


def _distinguish(key: str, other: str) -> str:
    """The shortest prefix of ``key`` that differs from ``other``'s prefix of the same length."""
    for n in range(1, len(key) + 1):
        if key[:n] != other[:n]:
            return key[:n].strip() or key[:n]
    return key


def _label(text: str) -> str:
    text = text.strip(" ,.;:") or text
    return text[:1].upper() + text[1:] if text.isascii() else text


def _unique(label: str, taken: list[str]) -> str:
    out, n = label, 2
    while out in taken:
        out = f"{label} {n}"
        n += 1
    return out
