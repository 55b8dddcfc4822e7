"""Keep the search index in step with page writes made outside a build: every ``put``, ``mkdir``,
``delete``, ``move`` and ``redirect`` of a kb opened through :func:`wikikv.open_store` (the
library, the CLI, the HTTP API) reaches the index through :class:`SearchUpkeep`. Builds write
pages through the bulk writer and index them themselves."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from wikikv.search.index import IndexWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileRecord
from wikikv.store.store import Store

# One lock per (store, kb): every index write rewrites the kb's one stats key, so writers of one
# process (the HTTP API's worker threads) would otherwise spend their conflict retries on each
# other. Writers in other processes still meet as conflicts, retried with backoff.
_locks: weakref.WeakKeyDictionary[Store, dict[str, threading.Lock]] = weakref.WeakKeyDictionary()
_locks_guard = threading.Lock()


def _lock_of(kb: KnowledgeBase) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(kb.store, {}).setdefault(kb.name, threading.Lock())


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
        with _lock_of(kb):
            reindex(kb, removed, added)


def keep_current(kb: KnowledgeBase) -> None:
    """A store hook (``Store.on_kb``): page writes through ``kb`` keep its search index current."""
    kb.observers.append(SearchUpkeep())
