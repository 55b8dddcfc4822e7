"""The backend interface: a small ordered key-value contract every engine implements.

Keys and values are bytes. Every stored value carries a version, a positive integer the backend
assigns: a put sets it to the previous version plus one (1 for a new key). Conditional writes
name the version they expect:

* ``ANY`` (-1): no condition;
* ``ABSENT`` (0): the key must not exist;
* ``n`` > 0: the key must exist at version ``n``.

A failed condition raises :class:`~wikikv.errors.ConflictError` and changes nothing.

**Shards.** The bytes of a key before its first NUL are its *shard prefix* (the kb name; empty for
store-wide keys). Every key of one :meth:`Backend.batch` and one :meth:`Backend.scan` range shares a
shard prefix, so a clustered engine can keep a kb on one shard and stay single-shard atomic.

Note for implementers: only the primitives below are abstract. Moves, recursive deletes, listings
with skip-on-miss and the audit trail are written once, in :mod:`wikikv.store.kb`, on top of them.
"""

from __future__ import annotations

import contextlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import NamedTuple

ANY = -1
ABSENT = 0


class Item(NamedTuple):
    """A stored value and its version."""

    version: int
    value: bytes


class Put(NamedTuple):
    key: bytes
    value: bytes
    expect: int = ANY


class Delete(NamedTuple):
    key: bytes
    expect: int = ANY


class Check(NamedTuple):
    """Assert a key's version inside a batch without writing it (used for leases)."""

    key: bytes
    expect: int


Op = Put | Delete | Check


def shard_of(key: bytes) -> bytes:
    cut = key.find(b"\x00")
    return key if cut < 0 else key[:cut]


def check_expect(key: bytes, expect: int, current: int | None) -> None:
    """Raise ConflictError when ``current`` (None: absent) does not satisfy ``expect``."""
    if expect == ANY:
        return
    actual = 0 if current is None else current
    if expect != actual:
        from wikikv.errors import ConflictError

        raise ConflictError(key.hex() if not key.isascii() else repr(key), expect, actual)


_bulk_depth = threading.local()  # per backend, how deep this thread is in its bulk() contexts


class Backend(ABC):
    """Ordered, versioned key-value storage. Implementations must be safe to share across threads
    of one process; ``shared_across_processes`` says whether several processes may open it."""

    #: The URL scheme of this backend (``lmdb``, ``memory``, ``redis``, ``postgresql``).
    scheme: str = ""
    #: True when several processes may open the same store at once.
    shared_across_processes: bool = False

    @abstractmethod
    def get(self, key: bytes) -> Item | None:
        """Point lookup: the item at ``key`` or None."""

    @abstractmethod
    def get_many(self, keys: Sequence[bytes]) -> list[Item | None]:
        """Lookups of several keys, in order, from one consistent snapshot where the engine has
        snapshots."""

    @abstractmethod
    def put_if(self, key: bytes, value: bytes, expect: int = ANY) -> int:
        """Store ``value`` if the condition holds; return the new version."""

    @abstractmethod
    def delete_if(self, key: bytes, expect: int = ANY) -> bool:
        """Delete ``key`` if the condition holds; return whether a value was deleted."""

    @abstractmethod
    def scan(
        self, start: bytes, end: bytes, limit: int | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, Item]]:
        """Items with ``start <= key < end`` in key order (descending when ``reverse``)."""

    @abstractmethod
    def batch(self, ops: Sequence[Op]) -> list[int]:
        """Apply ``ops`` atomically: every condition is checked before anything is written, and a
        failed one raises ConflictError with nothing changed. Returns, per op, the new version for
        a Put and 0 for a Delete or Check."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the engine's resources."""

    def sync(self) -> None:  # noqa: B027 - optional hook
        """Force what was written to durable storage (for engines with a non-durable mode)."""

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """A context in which the engine may trade per-commit durability for speed; what was
        written is durable when the context exits — the outermost one, when contexts nest in a
        thread (a build's index flushes run inside its page writer's context: one sync per
        job, not one per flush; on a busy disk each sync is a wait). The default does nothing
        else special."""
        depths: dict[int, int] = _bulk_depth.__dict__.setdefault("of", {})
        depth = depths[id(self)] = depths.get(id(self), 0) + 1
        try:
            yield
        finally:
            if depth == 1:
                del depths[id(self)]
            else:
                depths[id(self)] = depth - 1
        if depth == 1:
            self.sync()

    def describe(self) -> str:
        return self.scheme


def prefix_end(prefix: bytes) -> bytes:
    """The smallest key greater than every key starting with ``prefix``."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return b"\xff" * (len(prefix) + 1)
    return stripped[:-1] + bytes([stripped[-1] + 1])
