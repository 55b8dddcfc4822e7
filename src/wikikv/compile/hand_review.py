"""Phase B's dealings with the pages people edited: the compiler's version merged into the
person's page, or the page left and a review item filed (see :mod:`wikikv.compile.handedits`)."""

from __future__ import annotations

from wikikv.compile import handedits
from wikikv.review import HAND_EDIT, ReviewQueue, item_key
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta, FileRecord


class HandEditReview:
    """What phase B writes over hand-edited pages; ``counts`` (CompileReport.hand_edits) counts
    the pages taken, merged and kept."""

    def __init__(self, kb: KnowledgeBase, counts: dict[str, int]) -> None:
        self.kb = kb
        self.counts = counts
        self.queue = ReviewQueue(kb)

    def _count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def merge(self, path: str, text: str, meta: FileMeta, sig: str) -> tuple[str, FileMeta] | None:
        """What to write over the hand-edited page at ``path`` (the compiler's version merged
        into the person's), or None to leave it (a review item is filed)."""
        cur = self.kb.get(path, follow_redirects=False)
        if not isinstance(cur, FileRecord) or not cur.meta.edited_by:
            return text, meta
        reason = "the compiler's update could not be merged into a page edited by hand"
        key = item_key(HAND_EDIT, path, reason + sig)
        decided = self.queue.get(key)
        if decided is not None and decided.status == "accepted":
            handedits.unmark_edited(self.kb, {path})
            self._count("taken")
            return text, meta
        merged = handedits.merge(cur.text, cur.meta, text, meta)
        if merged is not None:
            self._count("merged")
            return merged
        self.queue.file(
            HAND_EDIT,
            path,
            reason,
            {
                "edited_by": cur.meta.edited_by,
                "why": "the person changed sections the compiler writes (facts, links, sources)",
                "accept": "the next build writes the compiler's version over the person's",
                "reject": "the person's page stays as it is",
            },
            key=key,
        )
        self._count("kept")
        return None

    def keep_orphan(self, path: str) -> None:
        self.queue.file(
            HAND_EDIT,
            path,
            "the compiler no longer produces this page (its sources are gone); it was kept "
            "because a person edited it",
        )
        self._count("kept")
