"""What a full build's render keeps of the derive's inputs and outputs.

Once :func:`~wikikv.compile.persisted.write_full` has stored the model, phase B only renders:
it reads each analysis's title, summary, fingerprint, group, language, digest and sentences,
and each entity's page fields. What only the derive read — every mention of every document
(two thirds of an analysis), the sentence roles, the informative sentences, the surfaces
aliases were chosen from — would otherwise be held through the whole render, and the reasons
of each link are a set per link (~200 bytes) over a handful of distinct values.
"""

from __future__ import annotations

from typing import cast

import msgspec

from wikikv.compile.model import DocAnalysis, Entity, Model
from wikikv.compile.shown_links import bound_links
from wikikv.llm.base import SentenceSpan
from wikikv.text import entities as ents
from wikikv.text import lead


def for_render(docs: dict[str, DocAnalysis]) -> dict[str, DocAnalysis]:
    """The analyses without the fields only the derive reads (new records: the originals may
    still be held elsewhere, e.g. by an incremental sync's list of touched documents)."""
    drop = msgspec.structs.replace
    return {
        i: drop(d, mentions=[], roles=[], informative=[], sentences=digest_sentences(d))
        for i, d in docs.items()
    }


def digest_sentences(d: DocAnalysis) -> list[SentenceSpan]:
    """``d``'s sentences with only those its digest cites kept in place (the digest indexes
    them, and its signature is taken from the indexes: they must not move); the others are
    None, so a reader of a dropped sentence fails instead of quoting a wrong span."""
    cited = set(d.digest)
    if cited and min(cited) < 0:
        return d.sentences
    spans = d.sentences[: max(cited) + 1] if cited else []
    # None in a list typed as spans: nothing after the render reads these analyses
    return cast(list[SentenceSpan], [s if i in cited else None for i, s in enumerate(spans)])


def compact(model: Model) -> None:
    """Shrink a derived model in place for the render: surfaces go (aliases were chosen from
    them), the links a page does not show go (:mod:`wikikv.compile.shown_links`, which reads
    the counts this trims), and equal link reasons become one shared frozenset. Call it only
    once the model is stored and nothing will change it again (a frozenset refuses ``add``)."""
    shared: dict[frozenset[str], frozenset[str]] = {}
    model.variants = {}
    for ent in model.entities.values():
        ent.surfaces = {}
        bound_links(ent, model.about)
        ent.times_named = fact_counts(ent)
        links = ent.links
        for other, reasons in links.items():
            key = frozenset(reasons)
            # the field is typed as the derive builds it (a set it adds to); read-only from here
            links[other] = cast(set[str], shared.setdefault(key, key))


def fact_counts(ent: Entity) -> dict[str, int]:
    """How often each document of ``ent``'s key facts names it: the counts the render reads
    (:func:`wikikv.compile.pages.definition` walks them in count order and looks only at the
    key facts of each document). Kept whole when no key fact's document has one, since an
    empty count makes the render count the key facts instead."""
    docs = {f.doc for f in ent.facts}
    kept = {d: n for d, n in ent.times_named.items() if d in docs}
    return kept if kept or not ent.times_named else ent.times_named


def drop_analysis_caches() -> None:
    """Empty the caches the analysis and the derive fill: every name folded (up to 2^18 of
    them, ~45 MB at 4 copies of 2Wiki 6k) and the lead sentences read (16k). The render looks
    few of them up again, and what they hold is room its own objects can take instead."""
    ents.fold.cache_clear()
    lead.normalized.cache_clear()
