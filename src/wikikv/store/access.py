"""ACCESS records (ADR-030): who read or wrote which path of a kb, through which route, and how
it ended — one record per request of the serving layer (HTTP API, MCP).

They live in their own keyspace (``X``), apart from the change trail (``L``): the cache tiers
follow the change trail to refresh what changed, and reads change nothing. Records are
buffered and written in batches by a background thread (at most ``flush_interval`` late), so a
read costs no write transaction on its own path; :meth:`AccessLog.flush` writes what is pending
at once (on shutdown, and before the audit route answers).
"""

from __future__ import annotations

import random
import struct
import threading
import time
from collections.abc import Iterator

import msgspec

from wikikv.store.backends.base import Backend, Op, Put
from wikikv.store.keys import KBKeys
from wikikv.store.logscan import scan_log

_TS = struct.Struct(">Q")
SPACE = "X"


class AccessEntry(msgspec.Struct, omit_defaults=True):
    ts: float
    who: str
    route: str
    path: str
    result: str
    detail: str = ""


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(AccessEntry)


def access_key(kb: str, when_ns: int) -> bytes:
    return KBKeys(kb).space(SPACE) + _TS.pack(when_ns) + random.randbytes(4)


def read_access(
    backend: Backend,
    kb: str,
    limit: int | None = 50,
    path_prefix: str | None = None,
) -> Iterator[AccessEntry]:
    """ACCESS records of ``kb``, newest first."""
    span = KBKeys(kb).space_range(SPACE)
    return scan_log(backend, span, _dec.decode, limit, path_prefix=path_prefix)


class AccessLog:
    """Buffers ACCESS records and writes them in batches from a daemon thread."""

    def __init__(self, backend: Backend, flush_interval: float = 0.2, max_pending: int = 512):
        self.backend = backend
        self.flush_interval = flush_interval
        self.max_pending = max_pending
        self._pending: list[Op] = []
        self._lock = threading.Lock()
        # Held for a whole flush: a flush that finds nothing pending still waits for one in
        # progress, so "flush, then read" sees every record made before it.
        self._flushing = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.written = 0
        self.failed = 0

    def start(self) -> AccessLog:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="wikikv-access", daemon=True)
            self._thread.start()
        return self

    def record(
        self, kb: str, who: str, route: str, path: str, result: str, detail: str = ""
    ) -> None:
        entry = AccessEntry(time.time(), who, route, path, result, detail)
        op = Put(access_key(kb, time.time_ns()), _enc.encode(entry))
        with self._lock:
            self._pending.append(op)
            full = len(self._pending) >= self.max_pending
        if full:
            self._wake.set()

    def flush(self) -> int:
        """Write every pending record now; returns how many were written."""
        with self._flushing:
            with self._lock:
                ops, self._pending = self._pending, []
            if not ops:
                return 0
            try:
                self.backend.batch(ops)
            except Exception:
                # An engine failure must not take the server down with it; it is counted and
                # shown in the metrics (wikikv_access_records_failed).
                self.failed += len(ops)
                return 0
            self.written += len(ops)
            return len(ops)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.flush_interval)
            self._wake.clear()
            self.flush()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self.flush()


__all__ = ["AccessEntry", "AccessLog", "read_access"]
