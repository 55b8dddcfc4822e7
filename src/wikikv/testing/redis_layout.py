"""Out-of-band access to the Redis backend's documented layout, for the conformance suite.

The helpers rebuild the layout described in :mod:`wikikv.store.backends.redis` on their own
(hash-tagged value key holding an 8-byte big-endian version then the payload, a score-0 sorted-set
index per shard, the shard registry) and talk to Redis through the backend's redis-py client, so a
backend that agrees with itself but stores the wrong layout fails the suite.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from wikikv.store.backends.base import Backend, shard_of
from wikikv.testing.backend_suite import BackendTests

if TYPE_CHECKING:
    from wikikv.store.backends.redis import RedisBackend

_VERSION = struct.Struct(">Q")
_SAFE = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"


def layout_tag(namespace: str, shard: bytes) -> bytes:
    """``<namespace>:{w:<escaped shard>}``: the prefix of every Redis key of one shard."""
    escaped = b"".join(bytes([c]) if c in _SAFE else b"%%%02X" % c for c in shard)
    return namespace.encode() + b":{w:" + escaped + b"}"


class RedisRawAccess(BackendTests):
    """BackendTests with raw helpers for Redis and Redis Cluster (subclass, add the fixture)."""

    def raw_get(self, backend: Backend, key: bytes) -> tuple[int, bytes] | None:
        client, ns = _client(backend)
        raw = client.get(layout_tag(ns, shard_of(key)) + b"v" + key)
        if raw is None:
            return None
        return _VERSION.unpack_from(raw)[0], bytes(raw[8:])

    def raw_put(self, backend: Backend, key: bytes, value: bytes, version: int) -> None:
        client, ns = _client(backend)
        tag = layout_tag(ns, shard_of(key))
        client.zadd(layout_tag(ns, b"") + b"shards", {shard_of(key): 0})
        client.set(tag + b"v" + key, _VERSION.pack(version) + value)
        client.zadd(tag + b"i", {key: 0})


def _client(backend: Backend) -> tuple[Any, str]:
    from wikikv.store.backends.redis import RedisBackend

    assert isinstance(backend, RedisBackend)
    return backend.client, backend.namespace


def fresh_backend(url: str) -> Iterator[RedisBackend]:
    """A Redis backend in a namespace of its own, cleared and closed afterwards (for fixtures)."""
    from wikikv.store.backends import open_backend
    from wikikv.store.backends.redis import RedisBackend
    from wikikv.testing.services import unique_name, with_option

    backend = open_backend(with_option(url, "namespace", unique_name("test-")))
    assert isinstance(backend, RedisBackend)
    yield backend
    backend.clear()
    backend.close()
