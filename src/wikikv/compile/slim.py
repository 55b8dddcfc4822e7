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

from wikikv.compile.model import DocAnalysis, Model


def for_render(docs: dict[str, DocAnalysis]) -> dict[str, DocAnalysis]:
    """The analyses without the fields only the derive reads (new records: the originals may
    still be held elsewhere, e.g. by an incremental sync's list of touched documents)."""
    drop = msgspec.structs.replace
    return {i: drop(d, mentions=[], roles=[], informative=[]) for i, d in docs.items()}


def compact(model: Model) -> None:
    """Shrink a derived model in place for the render: surfaces go (aliases were chosen from
    them), and equal link reasons become one shared frozenset. Call it only once the model is
    stored and nothing will change it again (a frozenset refuses ``add``)."""
    shared: dict[frozenset[str], frozenset[str]] = {}
    for ent in model.entities.values():
        ent.surfaces = {}
        links = ent.links
        for other, reasons in links.items():
            key = frozenset(reasons)
            # the field is typed as the derive builds it (a set it adds to); read-only from here
            links[other] = cast(set[str], shared.setdefault(key, key))
