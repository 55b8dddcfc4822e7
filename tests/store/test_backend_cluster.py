"""The conformance suite on a Redis Cluster (three primaries, three replicas), plus the checks that
only a cluster can fail: a kb's keys share one hash slot, batches may not cross kbs, and scans and
multi-gets that span kbs on different nodes still come back whole and in order.

The cluster comes from ``WIKIKV_TEST_CLUSTER`` or is started by ``scripts/services.sh start``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wikikv.errors import BackendError
from wikikv.store.backends.base import Backend, Item, Put
from wikikv.store.backends.redis import RedisBackend
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store
from wikikv.testing.redis_layout import RedisRawAccess, fresh_backend
from wikikv.testing.services import service_url, unique_name, with_option

pytestmark = pytest.mark.cluster


@pytest.fixture
def cluster_url() -> str:
    return service_url("cluster")


class TestClusterBackend(RedisRawAccess):
    @pytest.fixture
    def backend(self, cluster_url: str) -> Iterator[Backend]:
        yield from fresh_backend(cluster_url)


@pytest.fixture
def cluster_backend(cluster_url: str) -> Iterator[RedisBackend]:
    yield from fresh_backend(cluster_url)


def _slot(backend: RedisBackend, key: bytes) -> int:
    return int(backend.client.keyslot(key))


def _kbs_on_distinct_slots(backend: RedisBackend, count: int) -> list[str]:
    """Kb names whose tags hash to slots owned by different primaries (when possible)."""
    names: list[str] = []
    owners: set[str] = set()
    for i in range(200):
        name = f"kb{i}"
        tag = backend.namespace.encode() + b":{w:" + name.encode() + b"}i"
        node = backend.client.get_node_from_key(tag)
        if node.name not in owners:
            owners.add(node.name)
            names.append(name)
        if len(names) == count:
            break
    return names


def test_a_kb_is_one_slot(cluster_backend: RedisBackend) -> None:
    cluster_backend.batch([Put(b"kb\x00%d" % i, b"x") for i in range(50)])
    ns = cluster_backend.namespace.encode()
    index = ns + b":{w:kb}i"
    slots = {_slot(cluster_backend, ns + b":{w:kb}vkb\x00%d" % i) for i in range(50)}
    assert slots == {_slot(cluster_backend, index)}


def test_batch_across_kbs_is_refused(cluster_backend: RedisBackend) -> None:
    with pytest.raises(BackendError, match="one shard"):
        cluster_backend.batch([Put(b"a\x00x", b"1"), Put(b"b\x00x", b"2")])
    assert cluster_backend.get(b"a\x00x") is None


def test_scans_and_gets_across_nodes(cluster_backend: RedisBackend) -> None:
    kbs = _kbs_on_distinct_slots(cluster_backend, 3)
    assert len(kbs) == 3  # three primaries: each kb on a different node
    for name in kbs:
        cluster_backend.batch([Put(name.encode() + b"\x00%d" % i, b"v") for i in range(3)])
    every = [k for k, _ in cluster_backend.scan(b"", b"\xff")]
    assert every == sorted(every)
    assert len(every) == 9
    assert [k for k, _ in cluster_backend.scan(b"", b"\xff", reverse=True)] == every[::-1]
    assert [k for k, _ in cluster_backend.scan(b"", b"\xff", limit=4)] == every[:4]
    keys = [kbs[2].encode() + b"\x001", b"nope\x00x", kbs[0].encode() + b"\x000"]
    assert cluster_backend.get_many(keys) == [Item(1, b"v"), None, Item(1, b"v")]


def test_store_with_kbs_on_several_nodes(cluster_url: str) -> None:
    url = with_option(cluster_url, "namespace", unique_name("test-"))
    store = open_store(url)
    try:
        backend = store.backend
        assert isinstance(backend, RedisBackend)
        names = _kbs_on_distinct_slots(backend, 3)
        for name in names:
            kb = store.create_kb(name)
            kb.put("/topics/redis", f"page of {name}")
        assert store.kbs() == sorted(names)
        for name in names:
            record = store.kb(name).get("/topics/redis")
            assert isinstance(record, FileRecord)
            assert record.text == f"page of {name}"
        assert store.drop_kb(names[0]) > 0
        assert store.kbs() == sorted(names[1:])
    finally:
        backend = store.backend
        assert isinstance(backend, RedisBackend)
        backend.clear()
        store.close()
