"""The cache tiers: conformance of the wrapper, L1 pinning and refresh, L2 LRU/TTL/cap, tenant
isolation, the fill race, and invalidation across processes."""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Iterator, Sequence

import pytest

from wikikv.cache.invalidation import AuditFollower
from wikikv.cache.l2 import L2Cache
from wikikv.cache.tiers import CachedBackend
from wikikv.config import CacheSettings
from wikikv.library import open_store as open_library_store
from wikikv.library import wire
from wikikv.store.backends.base import Backend, Item
from wikikv.store.backends.memory import MemoryBackend
from wikikv.store.records import DirRecord
from wikikv.store.store import Store, open_store
from wikikv.testing import BackendTests
from wikikv.testing.services import service_url, unique_name


class Counting(MemoryBackend):
    """A memory backend that counts point reads, so tests can see which tier answered."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get(self, key: bytes) -> Item | None:
        self.reads += 1
        return super().get(key)

    def get_many(self, keys: Sequence[bytes]) -> list[Item | None]:
        self.reads += len(keys)
        return super().get_many(keys)


class TestCachedBackendL1(BackendTests):
    """The L1 wrapper passes the conformance suite unchanged."""

    @pytest.fixture
    def backend(self) -> Iterator[Backend]:
        return CachedBackend(MemoryBackend())

    def raw_get(self, backend: Backend, key: bytes) -> tuple[int, bytes] | None:
        assert isinstance(backend, CachedBackend)
        item = backend.inner._data.get(key)  # type: ignore[attr-defined]
        return None if item is None else (item.version, item.value)

    def raw_put(self, backend: Backend, key: bytes, value: bytes, version: int) -> None:
        assert isinstance(backend, CachedBackend)
        inner = backend.inner
        assert isinstance(inner, MemoryBackend)
        import bisect

        if key not in inner._data:
            bisect.insort(inner._keys, key)
        inner._data[key] = Item(version, value)


def _cached_store(inner: Backend, l2_url: str | None = None) -> Store:
    return wire(inner, cache=CacheSettings(l2_url=l2_url, follow=False))


def test_root_and_dimensions_are_pinned_and_served_without_backend_reads() -> None:
    inner = Counting()
    plain = Store(inner)
    kb = plain.create_kb("k")
    kb.put("/people/ada", "Ada")
    kb.put("/places/paris", "Paris")
    store = _cached_store(inner)
    ckb = store.kb("k")
    before = inner.reads
    for _ in range(5):
        assert ckb.ls("/").sub_dirs == ["people", "places"]
        assert ckb.ls("/people").files == ["ada"]
    assert inner.reads == before  # all from L1
    assert store.backend.stats.l1_hits >= 10  # type: ignore[attr-defined]
    ckb.get("/people/ada")
    assert inner.reads == before + 1  # entity pages are not pinned in L1


def test_a_write_refreshes_l1_and_new_dimensions_get_pinned() -> None:
    store = _cached_store(MemoryBackend())
    kb = store.create_kb("k")
    kb.put("/people/ada", "Ada")
    assert kb.ls("/people").files == ["ada"]
    kb.put("/people/alan", "Alan")
    assert kb.ls("/people").files == ["ada", "alan"]
    kb.put("/works/engine", "Analytical engine")
    cache = store.backend
    assert isinstance(cache, CachedBackend)
    assert cache.inner.get(kb.keys.node("/works")) == cache._l1[kb.keys.node("/works")]
    kb.set_dir_text("/works", "Machines and papers")
    listing = kb.ls("/works")
    assert listing.text == "Machines and papers"


def test_cache_never_serves_one_tenants_page_to_another() -> None:
    store = _cached_store(MemoryBackend())
    a, b = store.create_kb("tenant-a"), store.create_kb("tenant-b")
    a.put("/notes/secret", "A's secret")
    b.put("/notes/secret", "B's note")
    assert a.keys.node("/notes/secret") != b.keys.node("/notes/secret")
    for _ in range(3):
        ra, rb = a.get("/notes/secret"), b.get("/notes/secret")
        assert ra is not None
        assert rb is not None
        assert (ra.text, rb.text) == ("A's secret", "B's note")
        assert a.ls("/notes").record.path == b.ls("/notes").record.path == "/notes"


def _write_dim_text(url: str, text: str) -> None:
    store = open_store(url)
    store.kb("k").set_dir_text("/people", text)
    store.close()


def test_l1_learns_of_another_processes_writes_through_the_audit_trail(tmp_path: object) -> None:
    url = f"lmdb://{tmp_path}/store"
    seed = open_store(url)
    seed.create_kb("k").put("/people/ada", "Ada")
    seed.close()
    store = open_library_store(url, cache=CacheSettings(follow=False))
    kb = store.kb("k")
    cache = store.backend
    assert isinstance(cache, CachedBackend)
    follower = AuditFollower(cache, ["k"])
    assert kb.ls("/people").text == ""
    proc = mp.get_context("spawn").Process(target=_write_dim_text, args=(url, "People of note"))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    assert kb.ls("/people").text == ""  # not yet: nothing told this process
    assert follower.poll_once() >= 1
    assert kb.ls("/people").text == "People of note"
    assert follower.poll_once() == 0  # an entry is applied once
    store.close()


# ---------------------------------------------------------------- L2 (Redis)
@pytest.fixture
def l2() -> Iterator[L2Cache]:
    cache = L2Cache(service_url("redis"), namespace=unique_name("l2-"), capacity=5, ttl_ms=60_000)
    yield cache
    cache.clear()
    cache.close()


class TestCachedBackendL2(TestCachedBackendL1):
    """L1 + L2 over memory still passes the conformance suite."""

    pytestmark = pytest.mark.redis

    @pytest.fixture
    def backend(self) -> Iterator[Backend]:
        cache = L2Cache(service_url("redis"), namespace=unique_name("l2-"))
        yield CachedBackend(MemoryBackend(), l2=cache)
        cache.clear()
        cache.close()


@pytest.mark.redis
def test_l2_serves_hot_pages_and_keeps_its_capacity_cap(l2: L2Cache) -> None:
    inner = Counting()
    cache = CachedBackend(inner, l2=l2)
    store = Store(cache)
    kb = store.create_kb("k")
    for i in range(10):
        kb.put(f"/e/p{i}", f"page {i}")
    kb.get("/e/p1")
    reads = inner.reads
    assert kb.get("/e/p1") is not None
    assert inner.reads == reads  # second read came from L2
    assert cache.stats.l2_hits >= 1
    for i in range(10):
        kb.get(f"/e/p{i}")
    assert l2.size("k") <= 5


@pytest.mark.redis
def test_l2_fill_after_a_racing_invalidation_does_not_land(l2: L2Cache) -> None:
    key = b"k\x00Nsomething"
    item, gen = l2.get(key, 1)
    assert item is None
    l2.invalidate([key])  # a writer commits between our miss and our fill
    assert not l2.fill(key, Item(1, b"old"), gen, 2)
    assert l2.get(key, 3)[0] is None
    _, gen2 = l2.get(key, 4)
    assert l2.fill(key, Item(2, b"new"), gen2, 5)
    assert l2.get(key, 6)[0] == Item(2, b"new")


@pytest.mark.redis
def test_l2_writes_invalidate_so_readers_see_the_new_page(l2: L2Cache) -> None:
    store = Store(CachedBackend(MemoryBackend(), l2=l2))
    kb = store.create_kb("k")
    kb.put("/e/p", "one")
    assert kb.get("/e/p").text == "one"  # type: ignore[union-attr]
    kb.put("/e/p", "two")
    assert kb.get("/e/p").text == "two"  # type: ignore[union-attr]


def test_dir_records_served_from_l1_are_complete_records() -> None:
    store = _cached_store(MemoryBackend())
    kb = store.create_kb("k")
    for i in range(50):
        kb.put(f"/d/p{i}", "x")
    rec = kb.get("/d")
    assert isinstance(rec, DirRecord)
    assert len(rec.files) == 50


@pytest.mark.redis
def test_store_wide_records_are_never_served_from_a_shared_l2() -> None:
    """Two stores on one L2 namespace: the kb registry (and the format record) one of them
    wrote is not what the other reads."""
    settings = CacheSettings(l2_url=service_url("redis"), follow=False)
    name = unique_name("k")
    first = wire(MemoryBackend(), cache=settings, search=False)
    first.create_kb(name)
    assert first.has_kb(name)
    second = wire(MemoryBackend(), cache=settings, search=False)
    assert not second.has_kb(name)
    assert second.kbs() == []
    first.close()
    second.close()
