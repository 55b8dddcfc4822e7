"""The review queue of a kb: things a person must decide that a job would not decide alone.

The compiler files an item when it cannot merge its changes into a page a person edited by
hand (it leaves the page as it is); lint and validators file theirs the same way. Items live in
the kb's system keyspace (``review/item/<key>``, beside the compile state), outside the tree,
so they never appear in ``ls``, ``prefix``, fsck walks or reachability checks.

An item has a **stable key**: by default a hash of ``(kind, path, reason)``, or one the caller
gives. Filing an item whose key was already decided (accepted or rejected) is a no-op, so the
same question is not raised again on every build; filing one that is still open refreshes its
details. API (all of it)::

    queue = ReviewQueue(kb)
    item = queue.file("hand-edit", "/people/Lu Xun", "compiler update not merged", {"…": "…"})
    # -> the open ReviewItem, or None when that key was decided earlier
    queue.get(key) -> ReviewItem | None
    queue.items(status="open", kind=None, path_prefix=None) -> list[ReviewItem]  (oldest first)
    queue.accept(key, note="", by="")  /  queue.reject(key, note="", by="")  -> ReviewItem
    queue.decided(key) -> bool          # was this key accepted or rejected?
    queue.drop(key) -> bool             # forget an item entirely (it may be raised again)
    item_key(kind, path, reason) -> str # the default stable key

Statuses: ``open`` → ``accepted`` | ``rejected``. Deciding an item that does not exist raises
:class:`~wikikv.errors.NotFound`; deciding one already decided the other way raises
:class:`~wikikv.errors.ReviewDecided`. What "accept" means is up to the kind's owner (e.g. for
``hand-edit``: the person takes the compiler's version); the queue only stores the decision.
"""

from __future__ import annotations

import hashlib
import time
from typing import Literal

import msgspec

from wikikv.errors import NotFound, ReviewDecided
from wikikv.store.backends.base import ANY, Delete, Put
from wikikv.store.kb import KnowledgeBase

__all__ = ["ReviewItem", "ReviewQueue", "Status", "item_key"]

Status = Literal["open", "accepted", "rejected"]
PREFIX = "review/item/"
#: Kind used by the compiler for a page a person edited that it could not merge into.
HAND_EDIT = "hand-edit"


class ReviewItem(msgspec.Struct, omit_defaults=True):
    """One thing to decide: ``kind`` (who raised it, e.g. ``hand-edit``, ``lint/E3``), the
    ``path`` it concerns, a one-line ``reason`` and free-form ``details`` (strings)."""

    key: str
    kind: str
    path: str
    reason: str
    details: dict[str, str] = msgspec.field(default_factory=dict)
    status: Status = "open"
    created_at: float = 0.0
    updated_at: float = 0.0
    decided_at: float = 0.0
    decided_by: str = ""
    note: str = ""


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(ReviewItem)


def item_key(kind: str, path: str, reason: str) -> str:
    """The default stable key of an item: the same kind, path and reason give the same key."""
    raw = "\x00".join((kind, path, reason)).encode("utf-8")
    return hashlib.blake2b(raw, digest_size=10).hexdigest()


class ReviewQueue:
    """The review items of one kb (see the module docstring for the whole API)."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    def _key(self, key: str) -> bytes:
        return self.kb.keys.system(PREFIX + key)

    def _load(self, key: str) -> tuple[int, ReviewItem] | None:
        item = self.kb.backend.get(self._key(key))
        return None if item is None else (item.version, _dec.decode(item.value))

    def _store(self, item: ReviewItem, expect: int = ANY) -> None:
        self.kb.backend.batch([Put(self._key(item.key), _enc.encode(item), expect)])

    def file(
        self,
        kind: str,
        path: str,
        reason: str,
        details: dict[str, str] | None = None,
        *,
        key: str | None = None,
    ) -> ReviewItem | None:
        """Raise an item, or refresh the open one with the same key; None (and nothing written)
        when that key was already accepted or rejected."""
        k = key or item_key(kind, path, reason)
        found = self._load(k)
        ts = time.time()
        if found is not None:
            version, old = found
            if old.status != "open":
                return None
            new = msgspec.structs.replace(
                old, kind=kind, path=path, reason=reason, details=dict(details or {}), updated_at=ts
            )
            if new != old:
                self._store(new, version)
            return new
        new = ReviewItem(
            key=k,
            kind=kind,
            path=path,
            reason=reason,
            details=dict(details or {}),
            created_at=ts,
            updated_at=ts,
        )
        self._store(new, 0)
        return new

    def get(self, key: str) -> ReviewItem | None:
        found = self._load(key)
        return None if found is None else found[1]

    def items(
        self,
        status: Status | None = "open",
        kind: str | None = None,
        path_prefix: str | None = None,
    ) -> list[ReviewItem]:
        """Items, oldest first, filtered by status (None: all), kind and path prefix."""
        start = self._key("")
        out = [
            it
            for _, raw in self.kb.backend.scan(start, start + b"\xff")
            for it in (_dec.decode(raw.value),)
            if (status is None or it.status == status)
            and (kind is None or it.kind == kind)
            and (path_prefix is None or it.path.startswith(path_prefix))
        ]
        out.sort(key=lambda it: (it.created_at, it.key))
        return out

    def decided(self, key: str) -> bool:
        item = self.get(key)
        return item is not None and item.status != "open"

    def accept(self, key: str, note: str = "", by: str = "") -> ReviewItem:
        return self._decide(key, "accepted", note, by)

    def reject(self, key: str, note: str = "", by: str = "") -> ReviewItem:
        return self._decide(key, "rejected", note, by)

    def _decide(self, key: str, status: Status, note: str, by: str) -> ReviewItem:
        found = self._load(key)
        if found is None:
            raise NotFound(f"no review item {key!r} in kb {self.kb.name!r}")
        version, old = found
        if old.status == status:
            return old
        if old.status != "open":
            raise ReviewDecided(f"review item {key!r} was already {old.status}")
        ts = time.time()
        new = msgspec.structs.replace(
            old,
            status=status,
            note=note,
            decided_by=by or self.kb.actor,
            decided_at=ts,
            updated_at=ts,
        )
        self._store(new, version)
        return new

    def drop(self, key: str) -> bool:
        """Forget an item (decided or not); it may be raised again later."""
        if self._load(key) is None:
            return False
        self.kb.backend.batch([Delete(self._key(key))])
        return True
