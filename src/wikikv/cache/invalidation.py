"""Cross-process invalidation: how a reader's L1 learns of another process's commits.

* With Redis configured, writers publish the keys of every committed batch on one channel and
  :class:`RedisSubscriber` refreshes the matching L1 entries.
* On the embedded default there is no server to publish through, so :class:`AuditFollower`
  follows the kb's audit trail — written in the same atomic batch as every change it records —
  polling it every few milliseconds (one empty range scan when nothing changed) and refreshing the
  node keys of the paths it names. Entries are keyed by the writer's clock; the follower re-reads
  a short window behind its position so a commit that was slow to land is not skipped.

The staleness bound Δ is the delay from commit to refresh: the poll interval here, the pub/sub
delivery time with Redis. `wikikv bench storage --cache` measures it.
"""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Sequence

import msgspec

from wikikv.cache.l2 import L2Cache
from wikikv.cache.tiers import CachedBackend
from wikikv.store.audit import AuditEntry
from wikikv.store.keys import KBKeys

_audit = msgspec.msgpack.Decoder(AuditEntry)
WINDOW_NS = 2_000_000_000


class AuditFollower:
    """Polls the audit trails of some kbs and refreshes L1 entries for the paths they name."""

    def __init__(self, cache: CachedBackend, kbs: Sequence[str], interval: float = 0.005) -> None:
        self.cache = cache
        self.keys = [KBKeys(k) for k in kbs]
        self.interval = interval
        self._stop = threading.Event()
        now = time.time_ns()
        self._pos = {k.kb: now for k in self.keys}
        self._seen: dict[str, dict[bytes, int]] = {k.kb: {} for k in self.keys}
        self._thread = threading.Thread(target=self._run, name="wikikv-l1-follow", daemon=True)

    def start(self) -> AuditFollower:
        self._thread.start()
        return self

    def poll_once(self) -> int:
        refreshed = 0
        for keys in self.keys:
            pos = self._pos[keys.kb]
            seen = self._seen[keys.kb]
            start = keys.space("L") + struct.pack(">Q", max(0, pos - WINDOW_NS))
            _, end = keys.space_range("L")
            fresh: list[bytes] = []
            for key, item in self.cache.inner.scan(start, end):
                if key in seen:
                    continue
                ts = struct.unpack_from(">Q", key, len(keys.space("L")))[0]
                seen[key] = ts
                self._pos[keys.kb] = max(self._pos[keys.kb], ts)
                fresh.append(keys.node(_audit.decode(item.value).path))
            if fresh:
                refreshed += self.cache.refresh(fresh)
            horizon = self._pos[keys.kb] - WINDOW_NS
            for k in [k for k, ts in seen.items() if ts < horizon]:
                del seen[k]
        return refreshed

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.poll_once()
            except Exception:  # noqa: BLE001 - keep following; a transient read error is retried
                time.sleep(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


class RedisSubscriber:
    """Refreshes L1 entries named by writers' pub/sub invalidation messages."""

    def __init__(self, cache: CachedBackend, l2: L2Cache) -> None:
        self.cache = cache
        self.pubsub = l2.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.subscribe(l2.channel)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wikikv-l1-sub", daemon=True)

    def start(self) -> RedisSubscriber:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self.pubsub.get_message(timeout=0.05)
            except Exception:  # noqa: BLE001 - connection blips: retry until stopped
                time.sleep(0.05)
                continue
            if msg and msg.get("type") == "message":
                data = msg["data"]
                keys = [bytes.fromhex(h.decode()) for h in data.split(b"\n") if h]
                self.cache.refresh(keys)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        try:
            self.pubsub.close()
        except Exception:  # noqa: BLE001 - closing a dead connection
            pass
