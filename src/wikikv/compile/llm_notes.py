"""LLM mode, derive step: the grounded page answers of the documents become page content.

For a document the page role compiled (``DocAnalysis.llm``), the key facts of its entities are
the model's grounded facts (:mod:`wikikv.llm.grounding`) instead of the extractive sentence
facts, so a page shows exactly the facts the model stated *and* quoted; the links the model gave
join the pages' links with its reasons; the model's summaries and tags are used. An item whose
entity has no page in the derived wiki (a name seen in one document only, say) is dropped and
counted — nothing is attached to a page it was not about.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from wikikv.text import entities as ents

if TYPE_CHECKING:
    from wikikv.compile.model import DocAnalysis, Entity

LLM_REASON = "llm:"
MAX_FACTS = 150
MAX_TAGS = 8


def _resolve(name: str, entities: dict[str, Entity], variants: dict[str, str]) -> str | None:
    key = ents.fold(name)
    key = variants.get(key, key)
    return key if key in entities else None


def apply_page_notes(
    entities: dict[str, Entity], docs: dict[str, DocAnalysis], variants: dict[str, str]
) -> dict[str, int]:
    """Attach the grounded notes of every LLM-compiled document (see the module docstring);
    returns the counts of items dropped because their entity has no page."""
    from wikikv.compile.model import Fact

    compiled = {doc_id for doc_id, d in docs.items() if d.llm is not None}
    dropped: Counter[str] = Counter()
    if not compiled:
        return {}
    for ent in entities.values():
        if any(f.doc in compiled for f in ent.facts):
            ent.facts = [f for f in ent.facts if f.doc not in compiled]
    for doc_id in sorted(compiled):
        notes = docs[doc_id].llm
        assert notes is not None
        for fact in notes.facts:
            key = _resolve(fact.entity, entities, variants)
            if key is None:
                dropped["facts: entity has no page"] += 1
                continue
            ent = entities[key]
            if len(ent.facts) < MAX_FACTS:
                ent.facts.append(Fact(doc_id, fact.start, fact.end))
        for link in notes.links:
            a = _resolve(link.source, entities, variants)
            b = _resolve(link.target, entities, variants)
            if a is None or b is None or a == b:
                dropped["links: end has no page"] += 1
                continue
            reason = LLM_REASON + link.reason
            entities[a].links.setdefault(b, set()).add(reason)
            entities[b].links.setdefault(a, set()).add(reason)
        for note in notes.entities:
            key = _resolve(note.name, entities, variants)
            if key is None:
                continue
            ent = entities[key]
            if note.summary and not ent.summary:
                ent.summary = note.summary
            ent.tags = list(dict.fromkeys([*ent.tags, *note.tags]))[:MAX_TAGS]
    return dict(dropped)
