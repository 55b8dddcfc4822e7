"""Failover: SIGKILL a Redis Cluster primary while readers and a writer run on a kb it serves.

Runs on its own throwaway six-node cluster (ports 7201-7206, node timeout 1 s, data in tmp_path),
so the shared cluster of ``scripts/services.sh`` keeps all its nodes for the other tests.

What must hold: readers never see a partial read (a listing whose child is missing while the
listing is unchanged, or half of a two-key batch) before, during or after the failover, and the
tree has no dangling listing afterwards. What may happen: calls fail with BackendUnavailable
during the failover window (they are retried and counted), and writes the dead primary
acknowledged but had not yet replicated are lost — the test counts and reports them.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

import pytest
import redis

from wikikv.errors import BackendUnavailable, NotFound
from wikikv.store.backends.base import Put
from wikikv.store.backends.redis import RedisBackend
from wikikv.store.fsck import fsck
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store, open_store
from wikikv.testing.services import services_script

pytestmark = pytest.mark.cluster
FIRST_PORT = int(os.environ.get("WIKIKV_FAILOVER_PORT", "7201"))
RECOVERY_BOUND_S = 60.0
T = TypeVar("T")


@dataclass
class FailoverReport:
    acknowledged_writes: int = 0
    acknowledged_writes_lost: int = 0
    writer_errors_during_failover: int = 0
    reader_errors_during_failover: int = 0
    listings_read: int = 0
    pair_reads: int = 0
    partial_listing_reads: int = 0
    partial_pair_reads: int = 0
    dangling_after: int = 0
    recovered_in_s: float = 0.0


@pytest.fixture
def throwaway_cluster(tmp_path: Path) -> Iterator[Path]:
    """A fresh cluster for this test only, stopped by its PID files afterwards."""
    script = str(services_script())
    subprocess.run(
        ["bash", script, "cluster-start", str(FIRST_PORT), str(tmp_path), "1000"],
        check=True,
        timeout=300,
    )
    try:
        yield tmp_path
    finally:
        subprocess.run(["bash", script, "cluster-stop", str(tmp_path)], check=True, timeout=120)


def _retrying(fn: Callable[[], T], errors: list[int], stop: threading.Event) -> T | None:
    """Call ``fn`` until it succeeds, counting BackendUnavailable; None once ``stop`` is set."""
    while True:
        try:
            return fn()
        except BackendUnavailable:
            errors[0] += 1
            if stop.is_set():
                return None
            time.sleep(0.05)


def _cluster_ok(port: int) -> bool:
    try:
        with redis.Redis(port=port, socket_timeout=1) as r:
            info = r.execute_command("CLUSTER", "INFO").decode()
    except redis.RedisError:
        return False
    return "cluster_state:ok" in info


def _slot_owner(port: int, slot: int) -> int | None:
    """The port of the primary that ``port`` believes serves ``slot``."""
    try:
        with redis.Redis(port=port, socket_timeout=1) as r:
            ranges = r.execute_command("CLUSTER", "SLOTS")
    except redis.RedisError:
        return None
    for entry in ranges:
        if int(entry[0]) <= slot <= int(entry[1]):
            return int(entry[2][1])
    return None


class Workload:
    """One writer (new pages under /log, plus a two-key batch) and two readers on kb ``fo``."""

    def __init__(self, store: Store, kb: KnowledgeBase) -> None:
        self.store, self.kb = store, kb
        self.report = FailoverReport()
        self.acked: list[int] = []
        self.stop = threading.Event()
        self.writer_errors = [0]
        self.reader_errors = [0, 0]
        self.threads = [threading.Thread(target=self._writer)] + [
            threading.Thread(target=self._reader, args=(r,)) for r in range(2)
        ]

    def _write_one(self, i: int) -> bool:
        self.kb.put(f"/log/e{i}", f"entry {i}")
        value = b"%d" % i
        self.store.backend.batch([Put(b"fo\x00Xpair-a", value), Put(b"fo\x00Xpair-b", value)])
        return True

    def _writer(self) -> None:
        i = 0
        while not self.stop.is_set():
            write = functools.partial(self._write_one, i)
            if _retrying(write, self.writer_errors, self.stop) is None:
                return
            self.acked.append(i)  # put and batch both returned: acknowledged
            i += 1

    def _read_once(self) -> None:
        listing = self.kb.ls("/log")
        self.report.listings_read += 1
        children = listing.child_paths()
        for child, rec in zip(children, self.kb.get_many(children), strict=True):
            if rec is None and self.kb.get(child) is None:
                again = self.kb.ls("/log")
                stamp = (listing.record.meta.version, listing.record.meta.updated_at)
                if (again.record.meta.version, again.record.meta.updated_at) == stamp:
                    self.report.partial_listing_reads += 1
        a, b = self.store.backend.get_many([b"fo\x00Xpair-a", b"fo\x00Xpair-b"])
        self.report.pair_reads += 1
        if (a is None) != (b is None) or (a is not None and b is not None and a.value != b.value):
            self.report.partial_pair_reads += 1

    def _reader(self, r: int) -> None:
        errors = [0]
        while not self.stop.is_set():
            try:
                _retrying(self._read_once, errors, self.stop)
            except NotFound:
                pass
        self.reader_errors[r] = errors[0]

    def __enter__(self) -> Workload:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=120)


def test_primary_killed_while_readers_run(throwaway_cluster: Path) -> None:
    store = open_store(f"redis+cluster://127.0.0.1:{FIRST_PORT}?namespace=failover")
    backend = store.backend
    assert isinstance(backend, RedisBackend)
    try:
        kb = store.create_kb("fo")
        kb.mkdir("/log")
        node = backend.client.get_node_from_key(b"failover:{w:fo}i")
        victim_port = int(node.port)
        pid = int((throwaway_cluster / str(victim_port) / "redis.pid").read_text().strip())
        survivor = next(
            p for p in range(FIRST_PORT, FIRST_PORT + 6) if p != victim_port and _cluster_ok(p)
        )
        with Workload(store, kb) as work:
            time.sleep(1.0)
            os.kill(pid, signal.SIGKILL)  # the primary that holds kb "fo"
            killed_at = time.monotonic()
            deadline = killed_at + RECOVERY_BOUND_S
            time.sleep(0.5)
            slot = int(backend.client.keyslot(b"failover:{w:fo}i"))
            while not _cluster_ok(survivor) or _slot_owner(survivor, slot) in (None, victim_port):
                assert time.monotonic() < deadline, "no replica took over within the bound"
                time.sleep(0.1)
            # Keep running until the writer has been acknowledged again on the new primary.
            acked_before = len(work.acked)
            while len(work.acked) < acked_before + 20:
                assert time.monotonic() < deadline, "writes did not resume after the failover"
                time.sleep(0.05)
            work.report.recovered_in_s = round(time.monotonic() - killed_at, 2)
            time.sleep(0.5)
        report = work.report
        report.acknowledged_writes = len(work.acked)
        report.writer_errors_during_failover = work.writer_errors[0]
        report.reader_errors_during_failover = sum(work.reader_errors)
        present = kb.get_many([f"/log/e{i}" for i in work.acked])
        report.acknowledged_writes_lost = sum(1 for rec in present if rec is None)
        report.dangling_after = len(fsck(kb).dangling)
    finally:
        backend.clear()
        store.close()

    text = "failover report: " + json.dumps(asdict(report), sort_keys=True)
    print(text)
    assert "acknowledged_writes_lost" in text  # the loss is reported, whatever it is
    assert report.acknowledged_writes > 20
    assert report.listings_read > 0
    assert report.pair_reads > 0
    assert report.partial_listing_reads == 0
    assert report.partial_pair_reads == 0
    assert report.dangling_after == 0
