"""CachedBackend: L1 in-process + optional L2 Redis in front of any backend (L3).

It is itself a :class:`~wikikv.store.backends.base.Backend`, so it passes the same conformance
suite as what it wraps. Tiers, by the paper's §V-C:

* **L1** holds the pinned keys — a kb's root and dimension directory records — pre-warmed by
  :meth:`pin_kb`, never expired, refreshed (re-read) when an invalidation names them. Its size is
  bounded by the number of dimensions, not by the corpus.
* **L2** (when a Redis URL is given) holds other records read through the cache — in practice
  the hot entity pages — with LRU order, a TTL and a per-kb capacity cap.
* **L3** is the wrapped backend; scans always go there.

Every committed write through this wrapper invalidates its keys locally at once, clears them from
L2 and publishes them; other processes learn of writes through :mod:`wikikv.cache.invalidation`.
A read racing an invalidation sees either the old or the new complete record — the records are
immutable values — so the race can cost a round trip to L3, never a partial read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from wikikv.cache.l2 import L2Cache
from wikikv.store.backends.base import ANY, Backend, Check, Delete, Item, Op, Put
from wikikv.store.keys import KBKeys
from wikikv.store.paths import join
from wikikv.store.records import AnyRecord, DirRecord, decode

MISS = object()
# Keys outside every kb (the format record, the kb registry): an empty shard before the NUL.
STORE_GLOBAL = b"\x00"


@dataclass
class CacheStats:
    l1_hits: int = 0
    l1_misses: int = 0
    l2_hits: int = 0
    l2_misses: int = 0
    l3_reads: int = 0
    refreshes: int = 0
    refresh_times: list[float] = field(default_factory=list)

    def rates(self) -> dict[str, float]:
        def rate(h: int, m: int) -> float:
            return h / (h + m) if h + m else 0.0

        return {"l1": rate(self.l1_hits, self.l1_misses), "l2": rate(self.l2_hits, self.l2_misses)}

    def to_dict(self) -> dict[str, object]:
        return {
            "l1_hits": self.l1_hits,
            "l1_misses": self.l1_misses,
            "l2_hits": self.l2_hits,
            "l2_misses": self.l2_misses,
            "l3_reads": self.l3_reads,
            "refreshes": self.refreshes,
            "hit_rates": self.rates(),
        }


class CachedBackend(Backend):
    shared_across_processes = True

    def __init__(self, inner: Backend, *, l2: L2Cache | None = None, l1: bool = True) -> None:
        self.inner = inner
        self.scheme = inner.scheme
        self.shared_across_processes = inner.shared_across_processes
        self.l2 = l2
        self.l1_enabled = l1
        self.stats = CacheStats()
        self._l1: dict[bytes, Item | None] = {}
        # The same pinned entries decoded once, so a root or dimension lookup costs a dict hit
        # instead of decoding a record of ~200 names on every read. Shared objects: the kb
        # hands them out read-only and rewrites records only from freshly decoded copies.
        self._decoded: dict[bytes, AnyRecord | None] = {}
        self._roots: dict[bytes, str] = {}  # root node key -> kb, to re-pin new dimensions
        self._lock = threading.Lock()
        self.on_refresh: Callable[[bytes, float], None] | None = None

    def describe(self) -> str:
        tiers = ("L1+" if self.l1_enabled else "") + ("L2+" if self.l2 else "")
        return f"{tiers}{self.inner.describe()}"

    # ------------------------------------------------------------------ L1
    def pin_kb(self, kb: str) -> int:
        """Pre-warm L1 with a kb's root and dimension records; returns how many are pinned."""
        if not self.l1_enabled:
            return 0
        keys = KBKeys(kb)
        root_key = keys.node("/")
        self._roots[root_key] = kb
        return self._pin_tree(root_key, kb)

    def _pin_tree(self, root_key: bytes, kb: str) -> int:
        keys = KBKeys(kb)
        root = self.inner.get(root_key)
        pinned = {root_key: root}
        if root is not None:
            rec = decode(root.value)
            if isinstance(rec, DirRecord):
                for name in rec.sub_dirs:
                    k = keys.node(join("/", name))
                    pinned[k] = self.inner.get(k)
        decoded = {k: (decode(v.value) if v is not None else None) for k, v in pinned.items()}
        with self._lock:
            self._l1.update(pinned)
            self._decoded.update(decoded)
        return len(pinned)

    def pinned(self) -> int:
        return len(self._l1)

    def refresh(self, keys: Sequence[bytes]) -> int:
        """Re-read pinned entries that equal a key or start with it (a kb prefix drops a kb)."""
        done = 0
        for key in keys:
            hits = [key] if key in self._l1 else [k for k in self._l1 if k.startswith(key)]
            for k in hits:
                item = self.inner.get(k)
                rec = decode(item.value) if item is not None else None
                with self._lock:
                    self._l1[k] = item
                    self._decoded[k] = rec
                done += 1
                if k in self._roots:
                    self._pin_tree(k, self._roots[k])
                stamp = time.time()  # wall clock: comparable across processes, for Δ
                self.stats.refreshes += 1
                if self.on_refresh is not None:
                    self.on_refresh(k, stamp)
        return done

    # ---------------------------------------------------------------- reads
    def pinned_record(self, key: bytes) -> AnyRecord | None | object:
        """The decoded L1 record at ``key`` (None: pinned and absent), or ``MISS`` when the key
        is not pinned. Used by the kb's read path to skip decoding."""
        rec = self._decoded.get(key, MISS)
        if rec is not MISS:
            self.stats.l1_hits += 1
        return rec

    # docstring inherited
    def get(self, key: bytes) -> Item | None:
        if key in self._l1:
            self.stats.l1_hits += 1
            return self._l1[key]
        self.stats.l1_misses += 1
        if self.l2 is None or key.startswith(STORE_GLOBAL):
            # Store-wide records (format, kb registry) never go to L2: its entries are shared by
            # every store on one Redis namespace, and these differ from store to store.
            self.stats.l3_reads += 1
            return self.inner.get(key)
        now_ms = int(time.time() * 1000)
        item, gen = self.l2.get(key, now_ms)
        if item is not None:
            self.stats.l2_hits += 1
            return item
        self.stats.l2_misses += 1
        self.stats.l3_reads += 1
        item = self.inner.get(key)
        if item is not None:
            self.l2.fill(key, item, gen, now_ms)
        return item

    def get_many(self, keys: Sequence[bytes]) -> list[Item | None]:
        if self.l2 is None and not any(k in self._l1 for k in keys):
            self.stats.l1_misses += len(keys)
            self.stats.l3_reads += len(keys)
            return self.inner.get_many(keys)
        return [self.get(k) for k in keys]

    def scan(
        self, start: bytes, end: bytes, limit: int | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, Item]]:
        return self.inner.scan(start, end, limit, reverse)

    # --------------------------------------------------------------- writes
    def put_if(self, key: bytes, value: bytes, expect: int = ANY) -> int:
        return self.batch([Put(key, value, expect)])[0]

    def delete_if(self, key: bytes, expect: int = ANY) -> bool:
        existed = self.inner.get(key) is not None
        self.batch([Delete(key, expect)])
        return existed

    def batch(self, ops: Sequence[Op]) -> list[int]:
        out = self.inner.batch(ops)
        self.written([op.key for op in ops if not isinstance(op, Check)])
        return out

    def written(self, keys: Sequence[bytes]) -> None:
        """Invalidate after a commit: L1 refresh here, L2 entries cleared, the keys published."""
        if not keys:
            return
        self.refresh(keys)
        if self.l2 is not None:
            self.l2.invalidate(keys)
            self.l2.publish(keys)

    # ------------------------------------------------------------ operation
    def sync(self) -> None:
        self.inner.sync()

    def close(self) -> None:
        if self.l2 is not None:
            self.l2.close()
        self.inner.close()

    def __getattr__(self, name: str) -> object:
        # Engine-specific operations (backup, reader_check, map_size) pass through to L3.
        return getattr(self.inner, name)
