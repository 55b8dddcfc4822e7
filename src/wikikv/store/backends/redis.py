"""Redis and Redis Cluster backend: each kb on one shard, conditional writes as Lua scripts.

URLs: ``redis://host:port/db``, ``rediss://...`` (TLS) and ``redis+cluster://host:port`` (any node
of the cluster). Option: ``?namespace=NAME`` (default ``wikikv``) prefixes every Redis key, so
several stores (or test runs) can share one server.

**Layout.** A key ``<kb>\\x00rest`` lives on the shard of its kb: every Redis key of a shard carries
the hash tag ``{w:<kb>}`` (the kb escaped: bytes outside ``[A-Za-z0-9_.-]`` become ``%XX``), so a
Redis Cluster keeps one kb in one hash slot and a kb's scans, multi-gets and batches are
single-slot. Store-wide keys (empty shard prefix) get the tag ``{w:}``. Per shard:

* ``<ns>{w:<kb>}v<key>`` — a string: the 8-byte big-endian version, then the payload;
* ``<ns>{w:<kb>}i`` — a sorted set of the shard's keys, all with score 0, so ``ZRANGEBYLEX`` gives
  the ordered range scans (Redis compares members with ``memcmp``, the order of Python bytes);
* ``<ns>{w:}shards`` — the set of shards ever written, for the rare scans that cross shards
  (registered *before* a shard's first write, so it is a superset of the non-empty shards).

Writes are one Lua script (EVALSHA; redis-py reloads it after ``NOSCRIPT``): it checks every
condition of a batch against the versions as the batch's earlier ops leave them, returns the
first failure without writing anything, and only then writes values and index entries. Redis runs
a script atomically, so readers see all of a batch or none of it. A range scan is a script too
(one consistent page of up to 512 items per call); a multi-get of one shard is one ``MGET``.

**Durability (configure the server).** Run Redis with ``appendonly yes`` and ``appendfsync
everysec`` (at most about one second of acknowledged writes lost on a power cut; a process crash
loses nothing) or ``appendfsync always`` (nothing acknowledged is lost, every write waits for an
fsync). Without AOF, RDB snapshots alone lose everything since the last snapshot.
``scripts/services.sh`` starts every node with AOF and ``everysec``.

**Failover (Redis Cluster).** Replication is asynchronous. When a primary dies, its replica is
promoted after ``cluster-node-timeout``; writes the dead primary acknowledged in its last moments
that had not reached the replica are lost. What a failover cannot do: split a batch (a script is
replicated as one unit, so a replica holds all of a batch or none of it) or show a listing with
a dangling child. The store writes children before parents (parent-after-child) and a replica
always holds a *prefix* of its primary's history, so a parent that survived implies its children
survived. During the failover window (node timeout plus an election, a few seconds) calls fail
with :class:`~wikikv.errors.BackendUnavailable`; callers retry. Multi-gets across kbs are atomic
per kb only. See docs/backends.md.
"""

from __future__ import annotations

import contextlib
import struct
import threading
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import redis
import redis.cluster
import redis.exceptions as rexc

from wikikv.errors import BackendError, BackendUnavailable, ConfigError
from wikikv.store.backends.base import (
    ANY,
    Backend,
    Check,
    Delete,
    Item,
    Op,
    Put,
    check_expect,
    shard_of,
)

__all__ = ["RedisBackend", "map_errors"]

_VERSION = struct.Struct(">Q")
SCAN_PAGE = 512
DEFAULT_NAMESPACE = "wikikv"
_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_NAMESPACE_OK = _SAFE | frozenset(b":/")

# KEYS: per op, the value key then the shard's index key. ARGV: per op, 4 fields:
# kind ('p' put, 'd' delete, 'c' check), expected version, index member (our key), payload.
# Returns {1, r1, r2, ...} (new version for a put, version before for a delete, 0 for a check)
# or {0, i, actual} when the condition of op i fails (nothing written).
_BATCH_LUA = """
local n = #KEYS / 2
local cur = {}
local function version(k)
  local v = cur[k]
  if v ~= nil then return v end
  local raw = redis.call('GETRANGE', k, 0, 7)
  if raw == '' then
    v = 0
  else
    local hi, lo = struct.unpack('>I4I4', raw)
    v = hi * 4294967296 + lo
  end
  cur[k] = v
  return v
end
local out = {1}
for i = 1, n do
  local k = KEYS[2 * i - 1]
  local kind = ARGV[4 * i - 3]
  local expect = tonumber(ARGV[4 * i - 2])
  local v = version(k)
  if expect ~= -1 and expect ~= v then
    return {0, i, v}
  end
  if kind == 'p' then
    cur[k] = v + 1
    out[i + 1] = v + 1
  elseif kind == 'd' then
    cur[k] = 0
    out[i + 1] = v
  else
    out[i + 1] = 0
  end
end
for i = 1, n do
  local k = KEYS[2 * i - 1]
  local kind = ARGV[4 * i - 3]
  if kind == 'p' then
    local v = out[i + 1]
    local hi = math.floor(v / 4294967296)
    redis.call('SET', k, struct.pack('>I4I4', hi, v - hi * 4294967296) .. ARGV[4 * i])
    redis.call('ZADD', KEYS[2 * i], 0, ARGV[4 * i - 1])
  elseif kind == 'd' then
    if redis.call('DEL', k) == 1 then
      redis.call('ZREM', KEYS[2 * i], ARGV[4 * i - 1])
    end
  end
end
return out
"""

# KEYS[1]: the shard's index. ARGV: value-key prefix, lex min, lex max, count, '1' for reverse.
# Returns {member1, value1, member2, value2, ...} from one atomic read.
_SCAN_LUA = """
local members
if ARGV[5] == '1' then
  members = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[3], ARGV[2], 'LIMIT', 0, ARGV[4])
else
  members = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[2], ARGV[3], 'LIMIT', 0, ARGV[4])
end
local out = {}
for _, m in ipairs(members) do
  local raw = redis.call('GET', ARGV[1] .. m)
  out[#out + 1] = m
  out[#out + 1] = raw or ''
end
return out
"""

_UNAVAILABLE: tuple[type[Exception], ...] = (
    rexc.ConnectionError,
    rexc.TimeoutError,
    rexc.BusyLoadingError,
    rexc.ReadOnlyError,
    rexc.ClusterDownError,
    rexc.TryAgainError,
    rexc.MasterDownError,
    rexc.ClusterError,
    rexc.RedisClusterException,
)


@contextlib.contextmanager
def map_errors() -> Iterator[None]:
    """Turn redis-py exceptions into WikiKV errors at the adapter edge."""
    try:
        yield
    except _UNAVAILABLE as exc:
        raise BackendUnavailable(f"redis: {type(exc).__name__}: {exc}") from exc
    except rexc.RedisError as exc:
        raise BackendError(f"redis: {type(exc).__name__}: {exc}") from exc


def _escape(shard: bytes) -> bytes:
    return b"".join(bytes([c]) if c in _SAFE else b"%%%02X" % c for c in shard)


def _item(raw: bytes | None) -> Item | None:
    if raw is None or len(raw) < 8:
        return None
    return Item(_VERSION.unpack_from(raw)[0], raw[8:])


class RedisBackend(Backend):
    scheme = "redis"
    shared_across_processes = True

    def __init__(self, client: Any, *, namespace: str = DEFAULT_NAMESPACE, url: str = "") -> None:
        if not namespace or not set(namespace.encode()) <= _NAMESPACE_OK:
            raise ConfigError(f"redis namespace {namespace!r}: use letters, digits, _ . - : /")
        self.client = client
        self.cluster = isinstance(client, redis.cluster.RedisCluster)
        self.namespace = namespace
        self._ns = namespace.encode() + b":"
        self._tags: dict[bytes, bytes] = {}
        self._url = url
        self._batch_script = client.register_script(_BATCH_LUA)
        self._scan_script = client.register_script(_SCAN_LUA)
        self._registered: set[bytes] = set()
        self._lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str) -> RedisBackend:
        """Open ``redis://``, ``rediss://`` or ``redis+cluster://`` (see the module docstring)."""
        parts = urlsplit(url)
        opts = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        namespace = opts.pop("namespace", DEFAULT_NAMESPACE)
        if opts:
            raise ConfigError(f"unknown redis store option(s): {', '.join(sorted(opts))}")
        scheme = parts.scheme.lower()
        kwargs: dict[str, Any] = {"socket_timeout": 10.0, "socket_connect_timeout": 5.0}
        with map_errors():
            if scheme == "redis+cluster":
                # Not RedisCluster.from_url: its node pools are not closed by close().
                client: Any = redis.cluster.RedisCluster(
                    host=parts.hostname or "127.0.0.1",
                    port=parts.port or 6379,
                    username=parts.username,
                    password=parts.password,
                    **kwargs,
                )
            elif scheme in ("redis", "rediss"):
                plain = urlunsplit((scheme, parts.netloc, parts.path, "", ""))
                client = redis.Redis.from_url(plain, **kwargs)
            else:
                raise ConfigError(f"not a redis URL: {url!r}")
        safe_netloc = parts.netloc.rsplit("@", 1)[-1]
        shown = urlunsplit((scheme, safe_netloc, parts.path, parts.query, ""))
        return cls(client, namespace=namespace, url=shown)

    # ------------------------------------------------------------------ keys
    def _tag(self, shard: bytes) -> bytes:
        # Memoized: the tag is rebuilt on every call otherwise, a few microseconds of a point get.
        tag = self._tags.get(shard)
        if tag is None:
            tag = self._tags[shard] = self._ns + b"{w:" + _escape(shard) + b"}"
        return tag

    def _value_key(self, key: bytes) -> bytes:
        return self._tag(shard_of(key)) + b"v" + key

    def redis_key(self, key: bytes) -> bytes:
        """The Redis key that holds ``key``'s value (8-byte version + payload), e.g. for a bare
        ``GET`` in benchmarks."""
        return self._value_key(key)

    def _index_key(self, shard: bytes) -> bytes:
        return self._tag(shard) + b"i"

    @property
    def _registry(self) -> bytes:
        return self._tag(b"") + b"shards"

    def _register(self, shards: set[bytes]) -> None:
        """Record shards in the store-wide registry before their first write."""
        new = shards - self._registered
        if new:
            self.client.zadd(self._registry, dict.fromkeys(new, 0))
            with self._lock:
                self._registered |= new

    # ------------------------------------------------------------------ reads
    # docstring inherited
    def get(self, key: bytes) -> Item | None:
        try:  # inline rather than map_errors(): a context manager costs ~1 us on this hot path
            raw = self.client.get(self._value_key(key))
        except rexc.RedisError:
            with map_errors():
                raise
        return _item(raw)

    def get_many(self, keys: Sequence[bytes]) -> list[Item | None]:
        if not keys:
            return []
        if not self.cluster:
            with map_errors():
                raws = self.client.mget([self._value_key(k) for k in keys])
            return [_item(r) for r in raws]
        # One MGET per shard: atomic within a kb, which is all the store asks of a cluster.
        groups: dict[bytes, list[int]] = {}
        for i, k in enumerate(keys):
            groups.setdefault(shard_of(k), []).append(i)
        out: list[Item | None] = [None] * len(keys)
        with map_errors():
            for idxs in groups.values():
                raws = self.client.execute_command(
                    "MGET", *[self._value_key(keys[i]) for i in idxs]
                )
                for i, raw in zip(idxs, raws, strict=True):
                    out[i] = _item(raw)
        return out

    def scan(
        self, start: bytes, end: bytes, limit: int | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, Item]]:
        if start >= end or (limit is not None and limit <= 0):
            return
        remaining = limit
        for shard in self._shards_for(start, end, reverse):
            for pair in self._scan_shard(shard, start, end, remaining, reverse):
                yield pair
                if remaining is not None:
                    remaining -= 1
                    if remaining <= 0:
                        return

    def _shards_for(self, start: bytes, end: bytes, reverse: bool) -> list[bytes]:
        """The shards whose keys can fall in [start, end), in key order (a shard's keys lie in
        ``[shard, shard + b"\\x01")``, and shards in byte order hold keys in byte order)."""
        first = shard_of(start)
        if b"\x00" in start and end <= first + b"\x01":
            return [first]
        with map_errors():
            shards = sorted(self.client.zrange(self._registry, 0, -1))
        hits = [s for s in shards if s < end and s + b"\x01" > start]
        return hits[::-1] if reverse else hits

    def _scan_shard(
        self, shard: bytes, start: bytes, end: bytes, limit: int | None, reverse: bool
    ) -> Iterator[tuple[bytes, Item]]:
        lo, hi = b"[" + start, b"(" + end
        index, prefix = self._index_key(shard), self._tag(shard) + b"v"
        got = 0
        while True:
            count = SCAN_PAGE if limit is None else min(SCAN_PAGE, limit - got)
            with map_errors():
                flat = self._scan_script(
                    keys=[index], args=[prefix, lo, hi, count, "1" if reverse else "0"]
                )
            for i in range(0, len(flat), 2):
                item = _item(flat[i + 1])
                if item is not None:
                    yield bytes(flat[i]), item
            n = len(flat) // 2
            got += n
            if n < count or (limit is not None and got >= limit):
                return
            last = bytes(flat[-2])
            if reverse:
                hi = b"(" + last
            else:
                lo = b"(" + last

    # ----------------------------------------------------------------- writes
    def put_if(self, key: bytes, value: bytes, expect: int = ANY) -> int:
        return self._run([Put(key, value, expect)])[0]

    def delete_if(self, key: bytes, expect: int = ANY) -> bool:
        return self._run([Delete(key, expect)])[0] > 0

    def batch(self, ops: Sequence[Op]) -> list[int]:
        results = self._run(ops)
        return [r if isinstance(op, Put) else 0 for op, r in zip(ops, results, strict=True)]

    def _run(self, ops: Sequence[Op]) -> list[int]:
        if not ops:
            return []
        shards = {shard_of(op.key) for op in ops}
        if self.cluster and len(shards) > 1:
            raise BackendError(
                "a batch on Redis Cluster must stay within one shard (kb); got "
                + ", ".join(repr(s) for s in sorted(shards))
            )
        keys: list[bytes] = []
        args: list[bytes | int | str] = []
        for op in ops:
            shard = shard_of(op.key)
            keys += [self._value_key(op.key), self._index_key(shard)]
            if isinstance(op, Put):
                args += ["p", op.expect, op.key, op.value]
            elif isinstance(op, Delete):
                args += ["d", op.expect, op.key, b""]
            elif isinstance(op, Check):
                args += ["c", op.expect, op.key, b""]
            else:
                raise TypeError(f"not a batch op: {op!r}")
        with map_errors():
            self._register(shards)
            reply = self._batch_script(keys=keys, args=args)
        if int(reply[0]) == 0:
            op = ops[int(reply[1]) - 1]
            actual = int(reply[2])
            check_expect(op.key, op.expect, actual or None)
            raise BackendError(f"redis batch script reported a conflict it cannot explain: {reply}")
        return [int(r) for r in reply[1:]]

    # -------------------------------------------------------------- operation
    def clear(self) -> int:
        """Delete every key of this namespace (tests and ``drop`` tooling); returns how many
        stored values were removed."""
        removed = 0
        with map_errors():
            for shard in self.client.zrange(self._registry, 0, -1):
                index, prefix = self._index_key(bytes(shard)), self._tag(bytes(shard)) + b"v"
                while True:
                    members = self.client.zrange(index, 0, SCAN_PAGE - 1)
                    if not members:
                        break
                    self.client.execute_command("DEL", *[prefix + bytes(m) for m in members])
                    self.client.zrem(index, *members)
                    removed += len(members)
                self.client.delete(index)
            self.client.delete(self._registry)
        with self._lock:
            self._registered.clear()
        return removed

    def close(self) -> None:
        with contextlib.suppress(rexc.RedisError):
            if self.cluster:
                for node in self.client.get_nodes():
                    if node.redis_connection is not None:
                        node.redis_connection.connection_pool.disconnect()
            self.client.close()

    def describe(self) -> str:
        return self._url or f"redis (namespace {self.namespace})"
