"""L2: a shared Redis cache of hot records — LRU order, a TTL, and a capacity cap per kb.

Cache keys are derived from the store key, which begins with the kb name, so one tenant's entry
can never be served for another's key. Each kb's entries share a hash tag, so on a Redis Cluster
every script below touches one shard.

The fill race. A reader that missed L2 reads L3 and then fills L2; if a writer commits and
invalidates in between, a plain fill would plant the old value. Every key therefore has a
generation counter that invalidation bumps: the reader notes the generation at its miss and the
fill only lands if the generation is unchanged (one Lua script, atomic on the server).
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator, Sequence
from typing import Any

from wikikv.errors import BackendError, BackendUnavailable
from wikikv.store.backends.base import Item, shard_of

_VERSION = struct.Struct(">Q")

# KEYS: value key, generation key, lru zset. ARGV: now (ms), member.
_HIT = """
local v = redis.call('GET', KEYS[1])
local g = redis.call('GET', KEYS[2]) or '0'
if v then redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2]) end
return {v or false, g}
"""
# KEYS: value key, generation key, lru zset. ARGV: expected generation, value, ttl ms, now, member,
# capacity, value-key prefix (to delete evicted members).
_FILL = """
local g = redis.call('GET', KEYS[2]) or '0'
if g ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[6])
if over > 0 then
  local old = redis.call('ZRANGE', KEYS[3], 0, over - 1)
  for _, m in ipairs(old) do redis.call('DEL', ARGV[7] .. m) end
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, over - 1)
end
return 1
"""
# KEYS: pairs of (value key, generation key) then the zset. ARGV: members.
_INVALIDATE = """
local n = #ARGV
for i = 1, n do
  redis.call('DEL', KEYS[2 * i - 1])
  redis.call('INCR', KEYS[2 * i])
  redis.call('ZREM', KEYS[2 * n + 1], ARGV[i])
end
return n
"""


@contextlib.contextmanager
def map_errors() -> Iterator[None]:
    import redis

    try:
        yield
    except redis.ConnectionError as exc:
        raise BackendUnavailable(f"L2 cache: {exc}") from exc
    except redis.RedisError as exc:
        raise BackendError(f"L2 cache: {exc}") from exc


def connect(url: str) -> Any:
    import redis
    from redis.cluster import RedisCluster

    if url.startswith("redis+cluster://"):
        return RedisCluster.from_url("redis://" + url[len("redis+cluster://") :])
    return redis.Redis.from_url(url)


class L2Cache:
    """Shared record cache in Redis."""

    def __init__(
        self,
        url: str,
        *,
        ttl_ms: int = 300_000,
        capacity: int = 10_000,
        namespace: str = "wikikv:l2",
    ) -> None:
        self.url = url
        self.ttl_ms = ttl_ms
        self.capacity = capacity
        self.namespace = namespace
        # Invalidations are published per namespace: another store's writes are not news here.
        self.channel = f"{namespace}:invalidate"
        with map_errors():
            self.client = connect(url)
            self._hit = self.client.register_script(_HIT)
            self._fill = self.client.register_script(_FILL)
            self._inval = self.client.register_script(_INVALIDATE)

    def _tag(self, key: bytes) -> bytes:
        # The kb name is restricted to [a-z0-9_.-], so it is safe inside a hash tag.
        shard = shard_of(key) if b"\x00" in key else b"!"
        return self.namespace.encode() + b":{" + (shard or b"!") + b"}:"

    def _keys(self, key: bytes) -> tuple[bytes, bytes, bytes, bytes]:
        tag = self._tag(key)
        member = key.hex().encode()
        return tag + b"v:" + member, tag + b"g:" + member, tag + b"lru", member

    def get(self, key: bytes, now_ms: int) -> tuple[Item | None, bytes]:
        """The cached item (None on a miss) and the generation to pass to :meth:`fill`."""
        vkey, gkey, zkey, member = self._keys(key)
        with map_errors():
            raw, gen = self._hit(keys=[vkey, gkey, zkey], args=[now_ms, member])
        if not raw:
            return None, gen if isinstance(gen, bytes) else str(gen).encode()
        return Item(_VERSION.unpack_from(raw)[0], raw[8:]), gen

    def fill(self, key: bytes, item: Item, generation: bytes, now_ms: int) -> bool:
        vkey, gkey, zkey, member = self._keys(key)
        prefix = self._tag(key) + b"v:"
        with map_errors():
            landed = self._fill(
                keys=[vkey, gkey, zkey],
                args=[
                    generation,
                    _VERSION.pack(item.version) + item.value,
                    self.ttl_ms,
                    now_ms,
                    member,
                    self.capacity,
                    prefix,
                ],
            )
        return bool(landed)

    def invalidate(self, keys: Sequence[bytes]) -> None:
        by_tag: dict[bytes, list[bytes]] = {}
        for k in keys:
            by_tag.setdefault(self._tag(k), []).append(k)
        with map_errors():
            for tag, group in by_tag.items():
                flat: list[bytes] = []
                members: list[bytes] = []
                for k in group:
                    vkey, gkey, _, member = self._keys(k)
                    flat += [vkey, gkey]
                    members.append(member)
                self._inval(keys=[*flat, tag + b"lru"], args=members)

    def publish(self, keys: Sequence[bytes]) -> None:
        if keys:
            with map_errors():
                self.client.publish(self.channel, b"\n".join(k.hex().encode() for k in keys))

    def size(self, kb: str) -> int:
        with map_errors():
            return int(self.client.zcard(self._tag(kb.encode() + b"\x00") + b"lru"))

    def clear(self) -> None:
        """Drop every entry of this namespace (tests and benchmarks)."""
        with map_errors():
            nodes = [self.client]
            if hasattr(self.client, "get_primaries"):
                nodes = [self.client.get_redis_connection(n) for n in self.client.get_primaries()]
            for node in nodes:
                for k in node.scan_iter(match=self.namespace + ":*", count=1000):
                    node.delete(k)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
