"""SelectPages (LLM-Wiki §3.1): the existing pages a passage touches, for its page prompt.

Before a batch is compiled by the page role, each passage's title and opening are searched in
the wiki's own index, and at most ``k`` entity pages come back with their one-line summaries.
The page role sees them (as data) and may attach what it finds to them (``existing_path``)
instead of inventing a second page for the same entity. On a kb's first build the wiki is still
empty, so the first sync selects nothing; every later ``add`` / ``update`` / ``build`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikikv.compile.ingest import Document
from wikikv.llm.page_prompt import ExistingPage
from wikikv.store.kb import KnowledgeBase

K = 5
QUERY_CHARS = 400


def select_pages(
    kb: KnowledgeBase, docs: Sequence[Document], k: int = K
) -> dict[str, list[ExistingPage]]:
    """Document id → at most ``k`` existing entity pages its passage touches, best first."""
    from wikikv.search import search

    out: dict[str, list[ExistingPage]] = {}
    for doc in docs:
        query = f"{doc.title} {doc.text[:QUERY_CHARS]}"
        hits = search(kb, query, limit=k, kinds=["entity"])
        chosen = [ExistingPage(h.path, h.title, h.summary) for h in hits[:k]]
        if chosen:
            out[doc.id] = chosen
    return out
