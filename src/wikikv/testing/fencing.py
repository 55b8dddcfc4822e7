"""The lease-fence scenario, run by the conformance suite on every backend and by the slow-mode
mutation check (which swaps the fence out and must see this scenario catch it).

Job A takes a kb's lease and stalls — its renewals stop, as in a process paused past its lease
(GC pause, SIGSTOP, a VM migration) — until the lease expires; job B then takes the lease. A wakes
up and writes through every path a bulk job uses: a plain ``kb.put``, a BulkWriter flush, a
system record through ``kb.commit`` (how compile state and the search index write). Each must be
refused by the backend, in the same atomic
batch, and leave nothing behind; B must still be able to write.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from wikikv.config import StoreSettings
from wikikv.errors import LeaseHeld
from wikikv.store.backends.base import Backend, Put
from wikikv.store.bulk import BulkWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.lease import Lease
from wikikv.store.store import Store

TTL = 0.5
KB = "fenced"


def _stall(lease: Lease | None) -> None:
    """Stop the lease's renewals without marking it lost (the holder does not know)."""
    assert lease is not None
    lease._stop.set()
    if lease._thread is not None:
        lease._thread.join()


def lapsed_holder_leaks(backend: Backend) -> list[str]:
    """Run the scenario on ``backend``; return the writes of the lapsed holder that got through
    (empty when the fence works)."""
    store = Store(backend, StoreSettings(lease_ttl=TTL))
    store.create_kb(KB, exist_ok=True)
    a, b = KnowledgeBase(store, KB), KnowledgeBase(store, KB)
    bulk = BulkWriter(a, job="job-a", ttl=TTL).__enter__()
    _stall(a.held_lease)
    time.sleep(TTL * 1.5)
    lease_b = b.lease("job-b", TTL)

    def bulk_flush() -> None:
        bulk.put_file("/from-a/bulk", "stale")
        bulk.flush()

    attempts: dict[str, Callable[[], object]] = {
        "kb.put": lambda: a.put("/from-a/put", "stale"),
        "bulk flush": bulk_flush,
        "state record": lambda: a.commit([Put(a.keys.system("from-a-state"), b"stale")]),
    }
    leaks: list[str] = []
    for what, write in attempts.items():
        try:
            write()
        except LeaseHeld:  # the backend refused it (a fence conflict, reported as such)
            continue
        leaks.append(what)
    bulk.__exit__(None, None, None)  # releases nothing of B's: A's lease version is stale
    leaks += [f"stored {p}" for p in ("/from-a/put", "/from-a/bulk") if a.get(p) is not None]
    if backend.get(a.keys.system("from-a-state")) is not None:
        leaks.append("stored the state record")
    b.put("/from-b", "fresh")  # the current holder still writes
    if b.get("/from-b") is None:
        leaks.append("the current holder could not write")
    lease_b.release()
    return leaks
