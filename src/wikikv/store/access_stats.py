"""Access statistics with the read path untouched (WikiKV paper §III-D, DESIGN "Records").

A reader never writes. An :class:`AccessRecorder` attached to a
:class:`~wikikv.store.kb.KnowledgeBase` (``kb.recorder``) counts, in memory, every path read
through ``get`` / ``get_many`` / ``ls`` (and so ``read``, ``nav``, ``ask``, search hits), and per
query (:func:`query_scope`) which directories the query descended into and which pairs of
sibling directories it used together. The buffer is merged into the kb's stats record (a system
record, outside the tree) in one compare-and-swap write every ``flush_every`` events, on
:meth:`AccessRecorder.flush` and at interpreter exit: a crash loses at most the unflushed buffer.
"""

from __future__ import annotations

import atexit
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import msgspec

from wikikv.config import DEFAULT_RETRIES
from wikikv.errors import ConflictError
from wikikv.store.backends.base import ABSENT
from wikikv.store.paths import ROOT, parent

if TYPE_CHECKING:
    from wikikv.store.kb import KnowledgeBase

STATS = "evolve/stats"
FLUSH_EVERY = 2000
_enc = msgspec.msgpack.Encoder()


class AccessStats(msgspec.Struct):
    """What the evolution operators read: reads per path, queries per directory (a descent
    into it), queries using two sibling directories together, and the number of queries."""

    queries: int = 0
    access: dict[str, int] = msgspec.field(default_factory=dict)
    visits: dict[str, int] = msgspec.field(default_factory=dict)
    co: dict[str, int] = msgspec.field(default_factory=dict)  # "a\tb" (a < b, siblings)
    flushes: int = 0

    def pair(self, a: str, b: str) -> int:
        return self.co.get(pair_key(a, b), 0)


_dec = msgspec.msgpack.Decoder(AccessStats)


def pair_key(a: str, b: str) -> str:
    return f"{a}\t{b}" if a < b else f"{b}\t{a}"


def load_stats(kb: KnowledgeBase) -> AccessStats:
    item = kb.backend.get(kb.keys.system(STATS))
    return AccessStats() if item is None else _dec.decode(item.value)


def save_stats(kb: KnowledgeBase, stats: AccessStats) -> None:
    """Replace the stats record (the evolution commit re-keys it after moving pages)."""
    key = kb.keys.system(STATS)
    for _ in range(DEFAULT_RETRIES):
        item = kb.backend.get(key)
        try:
            kb.backend.put_if(key, _enc.encode(stats), ABSENT if item is None else item.version)
            return
        except ConflictError:
            continue
    raise ConflictError(STATS, None, None)


def merge_into(base: AccessStats, more: AccessStats) -> AccessStats:
    for field, theirs in (("access", more.access), ("visits", more.visits), ("co", more.co)):
        mine: dict[str, int] = getattr(base, field)
        for k, n in theirs.items():
            mine[k] = mine.get(k, 0) + n
    base.queries += more.queries
    base.flushes += 1
    return base


def _dirs_of(path: str) -> list[str]:
    """The directories a reader descends through to reach ``path`` (root and /sources out)."""
    out: list[str] = []
    p = path
    while p != ROOT:
        p = parent(p)
        if p == ROOT or p == "/sources" or p.startswith("/sources/"):
            break
        out.append(p)
    return out


class AccessRecorder:
    """The in-memory buffer of one process's reads of one kb (see the module docstring)."""

    def __init__(self, kb: KnowledgeBase, flush_every: int = FLUSH_EVERY) -> None:
        self.kb = kb
        self.flush_every = flush_every
        self._lock = threading.Lock()
        self._buf = AccessStats()
        self._events = 0
        self._local = threading.local()
        self.flushed = 0

    def touch(self, path: str) -> None:
        with self._lock:
            acc = self._buf.access
            acc[path] = acc.get(path, 0) + 1
            self._events += 1
            due = self._events >= self.flush_every
        scope: set[str] | None = getattr(self._local, "scope", None)
        if scope is not None:
            scope.add(path)
        if due:
            self.flush()

    def touch_many(self, paths: Iterable[str]) -> None:
        for p in paths:
            self.touch(p)

    @contextmanager
    def query(self) -> Iterator[None]:
        """Group the reads of one query: on exit the directories it descended into count one
        visit each, and each pair of sibling directories it used counts one co-access."""
        outer: set[str] | None = getattr(self._local, "scope", None)
        if outer is not None:  # nested (ask → nav): the outer query owns the reads
            yield
            return
        scope: set[str] = set()
        self._local.scope = scope
        try:
            yield
        finally:
            self._local.scope = None
            self._end_query(scope)

    def _end_query(self, touched: set[str]) -> None:
        dirs: set[str] = set()
        for p in touched:
            dirs.update(_dirs_of(p))
        by_parent: dict[str, list[str]] = {}
        for d in dirs:
            by_parent.setdefault(parent(d), []).append(d)
        with self._lock:
            buf = self._buf
            buf.queries += 1
            for d in dirs:
                buf.visits[d] = buf.visits.get(d, 0) + 1
            for sibs in by_parent.values():
                sibs.sort()
                for i, a in enumerate(sibs):
                    for b in sibs[i + 1 :]:
                        k = pair_key(a, b)
                        buf.co[k] = buf.co.get(k, 0) + 1
            self._events += 1

    def pending(self) -> int:
        with self._lock:
            return self._events

    def flush(self) -> None:
        """Merge the buffer into the stored record (one CAS write, retried on a race)."""
        with self._lock:
            buf, self._buf, n = self._buf, AccessStats(), self._events
            self._events = 0
        if n == 0:
            return
        key = self.kb.keys.system(STATS)
        for _ in range(DEFAULT_RETRIES):
            item = self.kb.backend.get(key)
            base = AccessStats() if item is None else _dec.decode(item.value)
            merged = merge_into(base, buf)
            try:
                self.kb.backend.put_if(
                    key, _enc.encode(merged), ABSENT if item is None else item.version
                )
                self.flushed += 1
                return
            except ConflictError:
                continue
        raise ConflictError(STATS, None, None)


def attach(kb: KnowledgeBase, flush_every: int = FLUSH_EVERY) -> AccessRecorder:
    """Start recording the reads of ``kb`` (idempotent); flushed at exit too."""
    rec = kb.recorder
    if isinstance(rec, AccessRecorder):
        return rec
    rec = AccessRecorder(kb, flush_every)
    kb.recorder = rec
    atexit.register(_flush_quietly, rec)
    return rec


def _flush_quietly(rec: AccessRecorder) -> None:
    try:
        rec.flush()
    except Exception:  # noqa: BLE001 - at exit the store may be closed; the buffer is lost
        pass


@contextmanager
def query_scope(kb: KnowledgeBase) -> Iterator[None]:
    """One query's reads, when a recorder is attached (a no-op otherwise)."""
    rec = kb.recorder
    if isinstance(rec, AccessRecorder):
        with rec.query():
            yield
    else:
        yield


@contextmanager
def paused(kb: KnowledgeBase) -> Iterator[None]:
    """Stop recording while a writer (an evolution pass) reads the kb for its own purposes."""
    rec, kb.recorder = kb.recorder, None
    try:
        yield
    finally:
        kb.recorder = rec


def record_hits(kb: KnowledgeBase, paths: Iterable[str]) -> None:
    """Search hits count as accesses of the pages they name."""
    rec = kb.recorder
    if isinstance(rec, AccessRecorder):
        rec.touch_many(paths)


def rekey(stats: AccessStats, renames: dict[str, str]) -> AccessStats:
    """The statistics of moved pages and merged directories under their new paths (counts of
    two directories merged into one are summed)."""
    out = AccessStats(queries=stats.queries, flushes=stats.flushes)
    for field_name in ("access", "visits"):
        src: dict[str, int] = getattr(stats, field_name)
        dst: dict[str, int] = getattr(out, field_name)
        for p, n in src.items():
            q = renames.get(p, p)
            dst[q] = dst.get(q, 0) + n
    for k, n in stats.co.items():
        a, b = k.split("\t", 1)
        a, b = renames.get(a, a), renames.get(b, b)
        if a != b:
            pk = pair_key(a, b)
            out.co[pk] = out.co.get(pk, 0) + n
    return out


def entity_access(stats: AccessStats) -> Counter[str]:
    return Counter({p: n for p, n in stats.access.items() if not p.startswith("/sources")})
