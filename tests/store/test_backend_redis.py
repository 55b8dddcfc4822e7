"""The conformance suite on a single Redis, checked against redis-py directly.

The raw helpers (``wikikv.testing.redis_layout``) rebuild the documented layout on their own, so a
backend that agrees with itself but stores the wrong layout fails. Each test gets
a fresh namespace, removed afterwards. The server comes from ``WIKIKV_TEST_REDIS`` or is started by
``scripts/services.sh start``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from wikikv.errors import BackendError, BackendUnavailable, ConfigError, ConflictError
from wikikv.store.backends.base import ABSENT, Backend, Check, Delete, Put, shard_of
from wikikv.store.backends.redis import RedisBackend, map_errors
from wikikv.store.store import open_store
from wikikv.testing.redis_layout import RedisRawAccess, fresh_backend, layout_tag
from wikikv.testing.services import service_url, unique_name, with_option

pytestmark = pytest.mark.redis


@pytest.fixture
def redis_url() -> str:
    return service_url("redis")


class TestRedisBackend(RedisRawAccess):
    @pytest.fixture
    def backend(self, redis_url: str) -> Iterator[Backend]:
        yield from fresh_backend(redis_url)


@pytest.fixture
def redis_backend(redis_url: str) -> Iterator[RedisBackend]:
    yield from fresh_backend(redis_url)


def test_a_kb_lives_under_one_hash_tag(redis_backend: RedisBackend) -> None:
    redis_backend.batch([Put(b"kb\x00a", b"1"), Put(b"kb\x00b", b"2"), Put(b"\x00!x", b"3")])
    ns = redis_backend.namespace.encode()
    keys = sorted(bytes(k) for k in redis_backend.client.scan_iter(match=ns + b":*"))
    assert keys == [
        ns + b":{w:kb}i",
        ns + b":{w:kb}vkb\x00a",
        ns + b":{w:kb}vkb\x00b",
        ns + b":{w:}i",
        ns + b":{w:}shards",
        ns + b":{w:}v\x00!x",
    ]


def test_awkward_shard_bytes_are_escaped(redis_backend: RedisBackend) -> None:
    key = b"a}{b%\xff\x00rest"
    redis_backend.put_if(key, b"v")
    tag = layout_tag(redis_backend.namespace, shard_of(key))
    assert tag.count(b"{") == 1
    assert tag.count(b"}") == 1
    assert redis_backend.client.exists(tag + b"v" + key) == 1
    assert [k for k, _ in redis_backend.scan(b"a}{b%\xff\x00", b"a}{b%\xff\x01")] == [key]


def test_clear_removes_every_key(redis_backend: RedisBackend) -> None:
    redis_backend.batch([Put(b"kb\x00%03d" % i, b"x") for i in range(700)])
    redis_backend.put_if(b"other\x00a", b"x")
    assert redis_backend.clear() == 701
    ns = redis_backend.namespace.encode()
    assert list(redis_backend.client.scan_iter(match=ns + b":*")) == []


def test_batch_with_repeated_keys(redis_backend: RedisBackend) -> None:
    out = redis_backend.batch(
        [Put(b"kb\x00a", b"1", ABSENT), Put(b"kb\x00a", b"2", 1), Delete(b"kb\x00a", 2)]
    )
    assert out == [1, 2, 0]
    assert redis_backend.get(b"kb\x00a") is None
    assert list(redis_backend.scan(b"kb\x00", b"kb\x01")) == []
    assert redis_backend.batch([Delete(b"kb\x00a"), Put(b"kb\x00a", b"3", ABSENT)]) == [0, 1]
    with pytest.raises(ConflictError):
        redis_backend.batch([Put(b"kb\x00a", b"4", 1), Check(b"kb\x00a", 1)])
    assert redis_backend.get(b"kb\x00a") == (1, b"3")


def test_scan_pages_past_the_script_page(redis_backend: RedisBackend) -> None:
    redis_backend.batch([Put(b"kb\x00%05d" % i, b"x") for i in range(1300)])
    keys = [k for k, _ in redis_backend.scan(b"kb\x00", b"kb\x01")]
    assert keys == [b"kb\x00%05d" % i for i in range(1300)]
    back = [k for k, _ in redis_backend.scan(b"kb\x00", b"kb\x01", reverse=True, limit=1100)]
    assert back == [b"kb\x00%05d" % i for i in range(1299, 199, -1)]


def test_store_on_redis(redis_url: str) -> None:
    url = with_option(redis_url, "namespace", unique_name("test-"))
    store = open_store(url)
    try:
        kb = store.create_kb("alpha")
        kb.put("/people/ada", "Ada Lovelace")
        kb.put("/people/alan", "Alan Turing")
        assert store.kbs() == ["alpha"]
        assert kb.prefix("/people/a") == ["/people/ada", "/people/alan"]
        assert kb.ls("/people").child_paths() == ["/people/ada", "/people/alan"]
        again = open_store(url)  # the format record is found, not rewritten
        assert again.kb("alpha").get("/people/ada") is not None
        again.close()
    finally:
        backend = store.backend
        assert isinstance(backend, RedisBackend)
        backend.clear()
        store.close()


def test_bad_urls_and_unreachable_server() -> None:
    with pytest.raises(ConfigError):
        RedisBackend.from_url("redis://127.0.0.1:6390/0?bogus=1")
    with pytest.raises(ConfigError):
        RedisBackend.from_url("redis://127.0.0.1:6390/0?namespace=a{b}")
    backend = RedisBackend.from_url("redis://127.0.0.1:1/0")  # nothing listens on port 1
    with pytest.raises(BackendUnavailable):
        backend.get(b"kb\x00a")


def test_map_errors_wraps_redis_errors() -> None:
    import redis.exceptions as rexc

    def raise_(exc: Exception) -> Any:
        with map_errors():
            raise exc

    with pytest.raises(BackendUnavailable):
        raise_(rexc.ConnectionError("down"))
    with pytest.raises(BackendError) as info:
        raise_(rexc.ResponseError("WRONGTYPE"))
    assert not isinstance(info.value, BackendUnavailable)
