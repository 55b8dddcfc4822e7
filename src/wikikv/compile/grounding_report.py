"""LLM mode: the build report's account of what the model proposed and what was kept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from wikikv.compile.model import DocAnalysis


def grounding_counts(
    analysed: Iterable[DocAnalysis], unplaced: Mapping[str, int]
) -> dict[str, Any]:
    """Facts and links the page role proposed for the kb's documents (all of them, so the counts
    match the wiki as derived), how many were kept, and the dropped ones by reason
    (``unplaced``: grounded items whose entity has no page, counted when the wiki was derived).
    Empty when no document was compiled by a model."""
    proposed: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    documents = 0
    selected = 0
    for a in analysed:
        if a.llm is None:
            continue
        documents += 1
        proposed.update(a.llm.proposed)
        dropped.update(a.llm.dropped)
        selected += len(a.llm.selected)
    if not documents:
        return {}
    dropped.update(unplaced)
    out: dict[str, Any] = {"documents": documents, "selected_pages": selected}
    for item in ("facts", "links"):
        lost = sum(n for reason, n in dropped.items() if reason.startswith(item + ":"))
        out[item] = {
            "proposed": proposed[item],
            "kept": proposed[item] - lost,
            "dropped": {r: n for r, n in sorted(dropped.items()) if r.startswith(item + ":")},
        }
    facts = out["facts"]
    out["facts_kept_share"] = (
        round(facts["kept"] / facts["proposed"], 4) if facts["proposed"] else None
    )
    return out
