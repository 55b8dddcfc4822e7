"""Keep the search index in step with page writes made outside a build: every ``put``, ``mkdir``,
``delete``, ``move`` and ``redirect`` of a kb opened through :func:`wikikv.open_store` (the
library, the CLI, the HTTP API) reaches the index through :class:`SearchUpkeep`. Builds write
pages through the bulk writer and index them themselves."""

from __future__ import annotations

from collections.abc import Sequence

from wikikv.search.index import IndexWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileRecord


def subtree(kb: KnowledgeBase, path: str) -> list[str]:
    """``path`` and every indexed path under it, by the ordered path index."""
    p = kb.norm(path)
    below = kb.prefix(p.rstrip("/") + "/") if p != "/" else kb.prefix("/")
    return [p, *below]


def reindex(kb: KnowledgeBase, removed: Sequence[str], added: Sequence[str]) -> None:
    """Drop ``removed`` paths from the index, then index the records now at ``added``."""
    with IndexWriter(kb) as writer:
        for p in removed:
            writer.remove(p)
        for p in added:
            rec = kb.get(p, follow_redirects=False)
            if isinstance(rec, (FileRecord, DirRecord)) and p != "/":
                writer.add(rec)


class SearchUpkeep:
    """A kb write observer (:class:`wikikv.store.kb.WriteObserver`) that re-indexes what a
    write touched, right after it committed."""

    def written(self, kb: KnowledgeBase, removed: Sequence[str], added: Sequence[str]) -> None:
        reindex(kb, removed, added)


def keep_current(kb: KnowledgeBase) -> None:
    """A store hook (``Store.on_kb``): page writes through ``kb`` keep its search index current."""
    kb.observers.append(SearchUpkeep())
