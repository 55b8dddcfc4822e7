"""Keep the search index in step with page edits made outside a build (CLI put / rm / mv)."""

from __future__ import annotations

from wikikv.search.index import IndexWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileRecord


def subtree(kb: KnowledgeBase, path: str) -> list[str]:
    """``path`` and every indexed path under it, by the ordered path index."""
    p = kb.norm(path)
    below = kb.prefix(p.rstrip("/") + "/") if p != "/" else kb.prefix("/")
    return [p, *below]


def reindex(kb: KnowledgeBase, removed: list[str], added: list[str]) -> None:
    """Drop ``removed`` paths from the index, then index the records now at ``added``."""
    with IndexWriter(kb) as writer:
        for p in removed:
            writer.remove(p)
        for p in added:
            rec = kb.get(p, follow_redirects=False)
            if isinstance(rec, (FileRecord, DirRecord)) and p != "/":
                writer.add(rec)
