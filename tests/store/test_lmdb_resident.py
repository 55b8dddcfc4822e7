"""The bound on the LMDB map's resident pages (``resident_mb``): reading past it drops the pages
from the process's resident set, never changes what a read returns, also with readers and a
writer running in other threads while the pages go."""

from __future__ import annotations

import mmap
import os
import threading
from pathlib import Path

import pytest

from wikikv.errors import ConfigError
from wikikv.store.backends import open_backend
from wikikv.store.backends.base import Put
from wikikv.store.backends.lmdb import LMDBBackend
from wikikv.store.backends.lmdb_map import CHECK_EVERY, file_mappings

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/smaps").exists(), reason="the bound needs Linux's /proc and madvise"
)

VALUE = 3000  # under a page: a leaf holds one value, so N values take about N pages
N = 4000  # ~16 MB of pages


def _value(i: int) -> bytes:
    return i.to_bytes(4, "big") * (VALUE // 4)


def _resident_of(path: Path) -> int:
    """Bytes of ``path``'s mappings resident in this process (from /proc/self/smaps)."""
    ranges = file_mappings(path)
    total = 0
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(None, 1)[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = (lo, hi) in ranges
            elif inside and head == "Rss:":
                total += int(line.split()[1]) * 1024
    return total


def _filled(tmp_path: Path, resident_mb: int) -> LMDBBackend:
    backend = LMDBBackend(tmp_path / "db", sync=False, resident_mb=resident_mb)
    for start in range(0, N, 500):
        backend.batch([Put(b"k%06d" % i, _value(i)) for i in range(start, start + 500)])
    return backend


def _read_all(backend: LMDBBackend) -> None:
    for i in range(N):
        item = backend.get(b"k%06d" % i)
        assert item is not None
        assert item.value == _value(i)


def test_reads_past_the_budget_leave_at_most_the_budget_resident(tmp_path: Path) -> None:
    unbounded = _filled(tmp_path / "a", 0)
    _read_all(unbounded)
    data = tmp_path / "a" / "db" / "data.mdb"
    assert _resident_of(data) > 10 << 20  # without a bound every page read stays mapped
    unbounded.close()

    bounded = _filled(tmp_path / "b", 2)
    _read_all(bounded)
    assert bounded.resident.released > 0
    # the budget, plus what one check interval can read past it
    slack = CHECK_EVERY * 2 * 4096
    assert _resident_of(tmp_path / "b" / "db" / "data.mdb") <= (2 << 20) + slack
    bounded.close()


def test_one_long_batch_or_multi_get_is_bounded_while_it_runs(tmp_path: Path) -> None:
    # An index run's entries or a bulk flush is one batch of thousands of ops: checked only
    # after it, the pages it read stayed mapped until it was done (~150 MB at 24 MB of text).
    backend = _filled(tmp_path, 2)
    backend.resident.release()
    before = backend.resident.released
    keys = [b"k%06d" % i for i in range(N)]
    items = backend.get_many(keys)
    assert [item.value for item in items if item is not None] == [_value(i) for i in range(N)]
    assert backend.resident.released - before >= 2  # dropped inside the one call
    before = backend.resident.released
    backend.batch([Put(k, _value(i + 1)) for i, k in enumerate(keys)])
    assert backend.resident.released - before >= 2
    assert [item.value for item in backend.get_many(keys) if item is not None] == [
        _value(i + 1) for i in range(N)
    ]
    backend.close()


def test_large_values_count_by_their_size(tmp_path: Path) -> None:
    # A few multi-megabyte values read in one call (posting blocks at 100 MB of corpus) must
    # not wait CHECK_EVERY records for the bound: 8 values of 2 MB with a 2 MB budget.
    backend = LMDBBackend(tmp_path / "db", sync=False, resident_mb=2)
    big = [b"b%d" % i for i in range(8)]
    for i, k in enumerate(big):
        backend.batch([Put(k, bytes([i]) * (2 << 20))])
    backend.resident.release()
    before = backend.resident.released
    assert [len(item.value) for item in backend.get_many(big) if item is not None] == [2 << 20] * 8
    assert backend.resident.released - before >= 2
    before = backend.resident.released
    backend.batch([Put(k, b"x") for k in big])  # each put reads the old value first
    assert backend.resident.released - before >= 2
    backend.close()


def test_a_long_scan_is_bounded_while_it_runs(tmp_path: Path) -> None:
    # a view of the wiki scans the whole path index: at 36 copies ~1.4 GB of the map at once
    backend = _filled(tmp_path, 2)
    backend.resident.release()
    before = backend.resident.released
    values = backend.scan_values(b"k", b"l")
    assert values == [_value(i) for i in range(N)]
    assert backend.resident.released - before >= 2
    assert backend.scan_values(b"k000010", b"k000013") == [_value(i) for i in (10, 11, 12)]
    assert backend.scan_values(b"x", b"y") == []
    before = backend.resident.released
    items = list(backend.scan(b"k", b"l"))  # the item scan the same way
    assert [item.value for _, item in items] == values
    assert backend.resident.released - before >= 2
    assert [k for k, _ in backend.scan(b"k", b"l", limit=3)] == [k for k, _ in items[:3]]
    backend.close()


def test_readers_and_a_writer_see_the_same_bytes_while_the_pages_go(tmp_path: Path) -> None:
    backend = _filled(tmp_path, 0)
    errors: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            for i in range(0, N, 7):
                item = backend.get(b"k%06d" % i)
                if item is None or item.value != _value(i):
                    errors.append(f"k{i}")
            for key, item in backend.scan(b"k000100", b"k000300"):
                if item.value != _value(int(key[1:])):
                    errors.append(key.decode())

    def writer() -> None:
        n = 0
        while not stop.is_set():
            backend.batch([Put(b"w%06d" % (n + j), _value(n + j)) for j in range(50)])
            n += 50

    threads = [threading.Thread(target=reader) for _ in range(2)] + [
        threading.Thread(target=writer)
    ]
    for t in threads:
        t.start()
    try:
        for _ in range(200):
            assert backend.resident.release() > 0
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert errors == []
    _read_all(backend)
    backend.close()


def test_the_bound_is_a_store_url_option(tmp_path: Path) -> None:
    off = open_backend(f"lmdb://{tmp_path / 'a'}?resident_mb=0")
    on = open_backend(f"lmdb://{tmp_path / 'b'}?resident_mb=64")
    assert isinstance(off, LMDBBackend)
    assert isinstance(on, LMDBBackend)
    assert off.resident.budget == 0
    assert on.resident.budget == 64 << 20
    off.close()
    on.close()
    for bad in ("-1", "lots"):  # 0 is allowed, so the message must not ask for a positive one
        with pytest.raises(ConfigError, match=f"resident_mb='{bad}' is not an integer >= 0"):
            open_backend(f"lmdb://{tmp_path / 'c'}?resident_mb={bad}")


def test_a_forked_child_measures_its_own_resident_set(tmp_path: Path) -> None:
    backend = _filled(tmp_path, 1)
    _read_all(backend)  # the parent's look at its own /proc/self/statm
    data = tmp_path / "db" / "data.mdb"
    pid = os.fork()
    if pid == 0:  # pages only the child maps must count, and go
        code = 0
        try:
            rm = backend.resident
            released = rm.released
            rm.tick(CHECK_EVERY)
            with open(data, "rb") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
                sum(m[i] for i in range(0, len(m), 4096))  # every page resident in the child
                rm.tick(CHECK_EVERY)
                code = 0 if rm.released > released and _resident_of(data) < 1 << 20 else 3
        except BaseException:
            code = 4
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    backend.close()
