"""Pages a person deleted by hand: found before a sync, so the sync writes them again.

A sync skips what its signature map says is written and unchanged. A page deleted behind its
back (``wikikv rm -r /sources``) stays in that map, so without this check every later build
would skip the deleted articles and leave the entity pages' links to them broken. Checking costs
one batched existence lookup per written path (``get_many`` in chunks).
"""

from __future__ import annotations

from wikikv.compile.state import PageMap
from wikikv.store.kb import KnowledgeBase

CHUNK = 1000


def forget_missing(kb: KnowledgeBase, pages: PageMap) -> set[str]:
    """Drop from ``pages`` the paths it records as written that no longer exist; return them."""
    paths = sorted(pages.sigs)
    missing: set[str] = set()
    for i in range(0, len(paths), CHUNK):
        chunk = paths[i : i + CHUNK]
        found = kb.backend.get_many([kb.keys.node(p) for p in chunk])
        missing.update(p for p, item in zip(chunk, found, strict=True) if item is None)
    for p in missing:
        del pages.sigs[p]
    return missing
