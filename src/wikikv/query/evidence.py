"""Which source documents answer a question best: rankings of documents from different kinds of
evidence, fused into one.

Two kinds of evidence name documents:

* the search over the documents' full texts (articles), ranked by BM25F — it finds the texts
  that discuss the question's terms;
* the entity pages the question names, each citing the documents its sentences were read from —
  a page citing a document often (many of its key facts and mentions come from there) says that
  document is about the entity, even when the text spells the name another way (an alias).

An entity cited by almost every document (the corpus's author, its country) says little about
any one of them, so a page's ranking weighs by its specificity, an inverse document frequency.
The rankings are fused by weighted reciprocal rank (Cormack et al., 2009): a document high in
several lists beats one at the top of a single list, and no score scales need to agree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

# Reciprocal-rank fusion constant: small, so the first few ranks of a list weigh most (the lists
# here are short — tens of documents, not thousands).
RRF_K = 10.0
_FOOTNOTE = re.compile(r"^\[\^\w+\]:\s*\[\[([^\]|#]+)", re.M)


def cited_counts(text: str) -> dict[str, int]:
    """Per cited source (as the footnotes write it), how many of the page's footnotes cite it —
    the page's quoted sentences read from that source."""
    counts: dict[str, int] = {}
    for m in _FOOTNOTE.finditer(text):
        src = m.group(1).strip()
        counts[src] = counts.get(src, 0) + 1
    return counts


def by_citations(counts: dict[str, int], order: dict[str, int]) -> list[str]:
    """Sources most cited first; ties by ``order`` (e.g. the text search's rank), then name."""
    unranked = len(order)
    return sorted(counts, key=lambda s: (-counts[s], order.get(s, unranked), s))


def specificity(cited: int, documents: int) -> float:
    """How much citing a document says when a page cites ``cited`` of ``documents``: the page's
    inverse document frequency scaled to [0, 1] (1: it cites a single document; 0: all)."""
    if documents <= 1 or cited <= 0:
        return 1.0 if cited > 0 else 0.0
    return max(0.0, min(1.0, math.log(documents / cited) / math.log(documents)))


def fuse(rankings: Sequence[tuple[float, Sequence[str]]], k: float = RRF_K) -> list[str]:
    """Weighted reciprocal-rank fusion of ``(weight, ranked items)`` lists; ties keep the order
    in which items were first seen."""
    score: dict[str, float] = {}
    first: dict[str, int] = {}
    for weight, ranked in rankings:
        for rank, item in enumerate(ranked):
            first.setdefault(item, len(first))
            score[item] = score.get(item, 0.0) + weight / (k + rank + 1)
    return sorted(score, key=lambda item: (-score[item], first[item]))
