"""KnowledgeBase: one kb's tree on a backend — the reads of :mod:`wikikv.store.reads` (Q1 get,
Q2 ls, Q4 prefix) and the write protocol of :mod:`wikikv.store.writes` (parent-after-child with
optimistic concurrency, fenced by the bulk-job lease), over one :class:`~wikikv.store.store.Store`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wikikv.store.audit import default_actor
from wikikv.store.keys import KBKeys
from wikikv.store.lease import Lease, WaitFn
from wikikv.store.reads import AccessSink, KBReads, Listing, NameHit
from wikikv.store.writes import KBWrites, WriteObserver, check_aliases, names_of, retry

if TYPE_CHECKING:
    from wikikv.store.store import Store


class KnowledgeBase(KBWrites):
    """One kb of a :class:`~wikikv.store.store.Store`: its reads and its write protocol."""

    def __init__(self, store: Store, name: str) -> None:
        self.store = store
        self.name = name
        self.backend = store.backend
        self.keys = KBKeys(name)
        self.settings = store.settings
        self.actor = default_actor()
        self._lease: Lease | None = None
        # How long lease() waits for another job's live lease, and what it calls meanwhile.
        self.lease_wait = 0.0
        self.lease_countdown: WaitFn | None = None
        # Access statistics (wikikv.store.access_stats): an in-memory recorder, never a write per read.
        self.recorder: AccessSink | None = None
        # With the cache tiers on, pinned records (root, dimensions) come decoded from L1.
        self._pinned: Callable[[bytes], object] | None = getattr(
            self.backend, "pinned_record", None
        )
        # Told of each page write through this object (the layers above hook in: Store.on_kb).
        self.observers: list[WriteObserver] = []
        for hook in store.on_kb:
            hook(self)

    def __repr__(self) -> str:
        return f"KnowledgeBase({self.name!r} on {self.backend.describe()})"


__all__ = [
    "AccessSink",
    "KBReads",
    "KBWrites",
    "KnowledgeBase",
    "Listing",
    "NameHit",
    "WriteObserver",
    "check_aliases",
    "names_of",
    "retry",
]
