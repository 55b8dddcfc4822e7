"""The server-side engines of the scale-out benchmark, behind the storage benchmark's interface.

* :class:`StoreEngine` — WikiKV through :func:`~wikikv.library.open_store` on any backend URL
  (LMDB, Redis, Redis Cluster, PostgreSQL), optionally behind the cache tiers; it is the storage
  benchmark's :class:`~wikikv.bench.engines.WikiKVEngine` with the URL and cache settings free.
* :class:`LtreeEngine` — the WikiKV paper's relational baseline: PostgreSQL with the ``ltree``
  extension and a normalized parent-child schema. A node row holds its record (the same msgpack
  codec as every engine), an integer ``parent_id`` (listings: an index on ``(parent_id, seq)``)
  and its path as an ``ltree`` (point lookups on a B-tree, ancestors and prefix patterns on a
  GiST index). ltree labels before PostgreSQL 16 allow only ``[A-Za-z0-9_]``, so each path
  segment is stored as the hex of its UTF-8 bytes: a textual prefix of a segment is then a prefix
  of its label, and Q4 becomes one ``lquery`` (``<dir labels>.<hex>*.*``).

Each server engine works in a private namespace (a Redis key prefix, a PostgreSQL schema) that
:func:`cleanup` removes, so runs never see each other's data on the shared test servers.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import msgspec

from wikikv.bench.engines import Descent, DirBuilder, WikiKVEngine, page_record
from wikikv.bench.servers import with_option
from wikikv.bench.wikigen import Node
from wikikv.config import CacheSettings
from wikikv.errors import BackendError
from wikikv.library import open_store, wire
from wikikv.store.backends.base import Backend
from wikikv.store.listing import Listing
from wikikv.store.paths import ROOT, basename, parent
from wikikv.store.records import DirRecord, NodeRecord, decode

_enc = msgspec.msgpack.Encoder()
SERVER_BACKENDS = ("redis", "cluster", "postgres")


# ====================================================================== WikiKV
class StoreEngine(WikiKVEngine):
    """WikiKV on any store URL, with or without the cache tiers (same reads as WikiKVEngine)."""

    def __init__(
        self,
        name: str,
        url: str,
        kb_name: str = "bench",
        cache: CacheSettings | None = None,
        backend: Backend | None = None,
    ) -> None:
        """Open ``url``, or wrap an already open ``backend`` (an LMDB environment can be open
        only once per process, so the cached LMDB engine shares the plain one's)."""
        # Not calling WikiKVEngine.__init__: it opens an LMDB directory; everything else is shared.
        self.name = name
        self.url = url
        self.store = (
            wire(backend, cache=cache, search=False)
            if backend
            else open_store(url, cache=cache, search=False)
        )
        self.kb = self.store.create_kb(kb_name, exist_ok=True)
        self.loader = "BulkWriter"  # WikiKVEngine.load falls back to kb.put when it is missing

    def finish_load(self) -> None:
        self.store.backend.sync()


def private_url(kind: str, base: str, tag: str) -> str:
    """``base`` (a server URL) with a namespace (Redis) or schema (PostgreSQL) of its own."""
    if kind == "postgres":
        return with_option(base, "schema", f"bench_{tag}")
    return with_option(base, "namespace", f"bench-{tag}")


def new_tag() -> str:
    return uuid.uuid4().hex[:10]


def cleanup(url: str) -> int:
    """Remove what a benchmark wrote under a private URL (its Redis keys or PostgreSQL schema);
    returns the number of Redis keys deleted (0 for PostgreSQL)."""
    parts = urlsplit(url)
    opts = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    if parts.scheme.startswith("postgres"):
        schema = opts.get("schema", "")
        if not schema.startswith("bench_"):
            raise BackendError(f"refusing to drop schema {schema!r}: not a benchmark schema")
        import psycopg

        with psycopg.connect(_pg_conninfo(url), autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        return 0
    namespace = opts.get("namespace", "")
    if not namespace.startswith("bench-"):
        raise BackendError(f"refusing to delete namespace {namespace!r}: not a benchmark one")
    return delete_redis_pattern(_redis_base(url), f"{namespace}:*")


def delete_redis_pattern(url: str, pattern: str) -> int:
    """Delete the keys matching ``pattern`` on a Redis or on every primary of a Redis Cluster."""
    from wikikv.cache.l2 import connect

    client = connect(url)
    deleted = 0
    try:
        nodes = [client]
        if hasattr(client, "get_primaries"):
            nodes = [client.get_redis_connection(n) for n in client.get_primaries()]
        for node in nodes:
            batch: list[bytes] = []
            for key in node.scan_iter(match=pattern, count=2000):
                batch.append(key)
                if len(batch) >= 500:
                    deleted += sum(node.delete(k) for k in batch)
                    batch = []
            deleted += sum(node.delete(k) for k in batch)
    finally:
        client.close()
    return deleted


def _redis_base(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def _pg_conninfo(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(("postgresql", parts.netloc, parts.path, "", ""))


def redis_value_key(engine: StoreEngine, key: bytes) -> bytes:
    """The Redis key under which the Redis backend keeps ``key``'s value (for the bare GET)."""
    backend = engine.store.backend
    inner: Any = getattr(backend, "inner", backend)  # under the cache tiers, or bare
    value_key: bytes = inner._value_key(key)
    return value_key


# ===================================================================== ltree
def label(segment: str) -> str:
    """An ltree label for a path segment: the hex of its UTF-8 bytes (prefix-preserving)."""
    return segment.encode("utf-8").hex()


def to_ltree(path: str) -> str:
    return "" if path == ROOT else ".".join(label(s) for s in path[1:].split("/"))


def prefix_lquery(text: str) -> tuple[str, str]:
    """The lquery selecting the paths under a textual prefix, and the directory it scans."""
    cut = text.rfind("/")
    dir_path, partial = (text[:cut] or ROOT), text[cut + 1 :]
    head = to_ltree(dir_path)
    tail = f"{label(partial)}*.*" if partial else "*{1,}"
    return (f"{head}.{tail}" if head else tail), dir_path


class LtreeEngine:
    """PostgreSQL + ltree with a parent-child schema (the paper's relational baseline)."""

    name = "pg-ltree"

    def __init__(self, url: str, schema: str | None = None) -> None:
        import psycopg

        self.schema = schema or f"bench_{new_tag()}"
        self.t = f"{self.schema}.nodes"
        self.db: Any = psycopg.connect(_pg_conninfo(url), autocommit=True, prepare_threshold=0)
        self.db.execute("CREATE EXTENSION IF NOT EXISTS ltree")
        self.db.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
        self.db.execute(
            f"CREATE TABLE IF NOT EXISTS {self.t} (id integer PRIMARY KEY,"
            f" parent_id integer REFERENCES {self.t} (id), seq integer NOT NULL,"
            " name text NOT NULL, is_dir boolean NOT NULL, path ltree NOT NULL,"
            ' ptext text COLLATE "C" NOT NULL, data bytea NOT NULL)'
        )
        self._ids: dict[str, int] = {}
        self._dirs = DirBuilder()  # only to validate the load order (parents first)
        # One round trip per record: the children arrays are empty (an index probe) for pages.
        self._get_sql = (
            f"SELECT n.path::text, n.is_dir, n.data,"
            f" ARRAY(SELECT c.name FROM {self.t} c WHERE c.parent_id = n.id AND c.is_dir"
            f" ORDER BY c.seq),"
            f" ARRAY(SELECT c.name FROM {self.t} c WHERE c.parent_id = n.id AND NOT c.is_dir"
            f" ORDER BY c.seq) FROM {self.t} n"
        )

    def load(self, nodes: Iterable[Node]) -> None:
        rows: list[tuple[object, ...]] = []
        for node in nodes:
            self._dirs.add(node)
            ident = len(self._ids) + 1
            self._ids[node.path] = ident
            par = None if node.path == ROOT else self._ids[parent(node.path)]
            if node.is_dir:
                rec: object = self._dirs.dirs[node.path]
                data = _enc.encode(
                    msgspec.structs.replace(self._dirs.dirs[node.path], sub_dirs=[], files=[])
                )
            else:
                rec = page_record(node)
                data = _enc.encode(rec)
            rows.append(
                (ident, par, ident, basename(node.path), node.is_dir, to_ltree(node.path),
                 node.path, data)
            )  # fmt: skip
        with self.db.transaction(), self.db.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {self.t} VALUES (%s, %s, %s, %s, %s, %s::ltree, %s, %s)", rows
            )

    def finish_load(self) -> None:
        self.db.execute(f"CREATE UNIQUE INDEX IF NOT EXISTS nodes_path ON {self.t} (path)")
        self.db.execute(f"CREATE INDEX IF NOT EXISTS nodes_path_gist ON {self.t} USING gist (path)")
        self.db.execute(f"CREATE INDEX IF NOT EXISTS nodes_parent ON {self.t} (parent_id, seq)")
        self.db.execute(f"ANALYZE {self.t}")
        self._dirs = DirBuilder()

    @staticmethod
    def _record(row: Sequence[Any]) -> NodeRecord:
        rec = decode(bytes(row[2]))
        if isinstance(rec, DirRecord):
            rec.sub_dirs = list(row[3])
            rec.files = list(row[4])
            rec.meta.entry_count = len(rec.sub_dirs) + len(rec.files)
        return rec  # type: ignore[return-value]

    def get(self, path: str) -> NodeRecord | None:
        row = self.db.execute(self._get_sql + " WHERE n.path = %s::ltree", (to_ltree(path),))
        found = row.fetchone()
        return None if found is None else self._record(found)

    def ls(self, path: str) -> Listing:
        rec = self.get(path)
        if not isinstance(rec, DirRecord):
            raise BackendError(f"pg-ltree: no directory at {path!r}")
        return Listing(rec.path, rec, 0, 1, rec.sub_dirs, rec.files)

    def descend(self, chain: Sequence[str], page: str) -> Descent:
        """The whole descent in one statement: the chain's listings and the page."""
        wanted = [to_ltree(p) for p in (*chain, page)]
        rows = self.db.execute(self._get_sql + " WHERE n.path = ANY(%s::ltree[])", (wanted,))
        found = {r[0]: self._record(r) for r in rows.fetchall()}
        listings: list[Listing] = []
        for d in chain:
            rec = found.get(to_ltree(d))
            if not isinstance(rec, DirRecord):
                raise BackendError(f"pg-ltree: no directory at {d!r}")
            listings.append(Listing(rec.path, rec, 0, 1, rec.sub_dirs, rec.files))
        return listings, found.get(to_ltree(page))

    def prefix(self, text: str) -> list[str]:
        query, dir_path = prefix_lquery(text)
        rows = self.db.execute(
            f"SELECT ptext FROM {self.t} WHERE path ~ %s::lquery ORDER BY ptext", (query,)
        ).fetchall()
        out = [p for (p,) in rows]
        if dir_path.startswith(text):
            out.insert(0, dir_path)
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.db.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")
        self.db.close()
