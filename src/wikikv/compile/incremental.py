"""Which entity pages an incremental sync may have changed.

A page is rendered from its entity's own fields, its facts (documents and offsets), its links
(the neighbours' paths and names), the titles and summaries of its source documents, and the
count of documents mentioning it. When a set C of documents is added, updated or removed, an
entity's page can change only if

1. a document of C is about it or mentions it (old or new analysis) — facts, links, aliases,
   counts and summaries all come from those documents;
2. its name relates to a title of C (its name, its base without a qualifier, or the head before
   a comma): a title that arrives or leaves can make a bare name an alias or a homonym;
3. it is a neighbour of an entity that appeared, moved or disappeared: its link names the
   neighbour's path. New neighbours come from the new model, old ones from the links stored on
   the pages of entities that moved or vanished.

A path or display-name change always shows as a new path (the path is derived from the name),
and a routing change re-renders everything. Everything else keeps the signature recorded when it
was last written. ``CompileOptions(full_render=True)`` recomputes every signature instead; the
tests use it to prove an incremental sync left nothing stale.
"""

from __future__ import annotations

from collections.abc import Iterable

from wikikv.compile.model import DocAnalysis, Model
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.text import entities as ents


def _name_keys(name: str) -> set[str]:
    base = ents.split_qualifier(name)[0]
    return {ents.fold(name), ents.fold(base), ents.fold(name.split(",")[0])}


def affected_keys(
    kb: KnowledgeBase, model: Model, touched: Iterable[DocAnalysis], known: dict[str, str]
) -> set[str]:
    """Keys of the entities whose pages may differ from what ``known`` records."""
    out: set[str] = set()
    titles: set[str] = set()
    for d in touched:
        out.add(model.about.get(d.id, ents.fold(d.title)))
        titles |= _name_keys(d.title)
        if d.group:
            titles |= _name_keys(f"{d.title}（{d.group}）") | _name_keys(f"{d.title} ({d.group})")
        for m in d.mentions:
            out.add(m.key)
            out.add(model.variants.get(m.key, m.key))
    by_path = {e.path: e.key for e in model.entities.values()}
    for ent in model.entities.values():
        if _name_keys(ent.name) & titles:
            out.add(ent.key)
        if ent.path not in known:  # new or moved: its neighbours' links change
            out.add(ent.key)
            out.update(ent.links)
    gone = [p for p, sig in known.items() if sig.startswith("e:") and p not in by_path]
    for i in range(0, len(gone), 500):
        for rec in kb.get_many(gone[i : i + 500]):
            if isinstance(rec, FileRecord):
                out.update(by_path[p] for p in rec.meta.links if p in by_path)
    return {k for k in out if k in model.entities}
