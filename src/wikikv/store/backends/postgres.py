"""PostgreSQL backend: one table of bytea keys, conditional writes in single statements.

URL: ``postgresql://user:password@host:port/db`` (any libpq connection string works), options in
the query string: ``?schema=NAME`` (default ``wikikv``) and ``?rls=KB`` (row-level security, below).

**Schema.** ``<schema>.kv (k bytea primary key, v integer not null, d bytea not null, shard bytea
generated from k)``, created when missing (under an advisory lock, so concurrent first opens do not
race). bytea compares byte-wise (``memcmp``, no collation), so the primary-key B-tree is the ordered
index the range scans need: ``k >= start AND k < end ORDER BY k``. Every statement is prepared on
first use (``prepare_threshold=0``).

**Writes.** ``put_if`` and ``delete_if`` are one statement each: an upsert for ANY, ``INSERT ... ON
CONFLICT DO NOTHING`` for ABSENT, ``UPDATE/DELETE ... WHERE k = $1 AND v = $2`` for a version. A
batch is one transaction that first locks every key it names, in key order: existing rows with
``SELECT ... FOR UPDATE``, missing ones by inserting a transient placeholder row (version 0, never
committed), so that a concurrent writer of an absent key waits too. It then checks every
condition (against the versions as the batch's earlier ops leave them), raises ConflictError (the
transaction rolls back, placeholders vanish) or writes the final state of each key and removes the
placeholders. A deadlock or serialization failure between two batches retries the batch.

**Row-level security** (``?rls=KB``). The connection sets ``wikikv.kb`` to KB; the table gets RLS
enabled and forced, with policies that let such a connection read and write only rows whose shard
(the bytes before the first NUL of the key) is KB, read the store-wide rows (empty shard: format
record, kb registry), and write only the store-wide rows that belong to KB (the format record and
KB's registry entry). A connection without the setting is unrestricted. This guards against an
application bug that addresses another tenant's keys; it is not an authentication boundary (a
client that can run SQL can change the setting) unless each tenant also gets its own database role.

**Durability.** Commits are durable with PostgreSQL's defaults (``fsync=on``,
``synchronous_commit=on``). Long unlimited scans are read in pages of 1,000 keys; each page is one
consistent snapshot.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import psycopg
import psycopg.errors

from wikikv.errors import (
    BackendError,
    BackendUnavailable,
    ConfigError,
    ConflictError,
    InvalidKBName,
)
from wikikv.store.backends.base import (
    ABSENT,
    ANY,
    Backend,
    Check,
    Delete,
    Item,
    Op,
    Put,
    check_expect,
)
from wikikv.store.keys import check_kb_name

__all__ = ["PostgresBackend", "map_errors"]

T = TypeVar("T")
SCAN_PAGE = 1000
BATCH_RETRIES = 20
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")
_KB_SETTING = "wikikv.kb"
_SHARD_EXPR = (
    "CASE WHEN position('\\x00'::bytea IN k) = 0 THEN k "
    "ELSE substring(k FROM 1 FOR position('\\x00'::bytea IN k) - 1) END"
)


_LOST_RACE = (
    psycopg.errors.DeadlockDetected,
    psycopg.errors.SerializationFailure,
    psycopg.errors.TransactionRollback,
)


@contextlib.contextmanager
def map_errors() -> Iterator[None]:
    """Turn psycopg exceptions into WikiKV errors at the adapter edge."""
    try:
        yield
    except _LOST_RACE as exc:  # deadlock or serialization failure: the server is up, retry
        raise BackendError(f"postgresql: {type(exc).__name__}: {exc}") from exc
    except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
        raise BackendUnavailable(f"postgresql: {exc}") from exc
    except psycopg.Error as exc:
        raise BackendError(f"postgresql: {type(exc).__name__}: {exc}") from exc


class _Retry(Exception):
    """A batch lost a lock race; run it again."""


class PostgresBackend(Backend):
    scheme = "postgresql"
    shared_across_processes = True

    def __init__(self, conninfo: str, *, schema: str = "wikikv", rls: str | None = None) -> None:
        if not _SCHEMA_NAME.match(schema):
            raise ConfigError(f"postgres schema {schema!r}: use [a-z_][a-z0-9_]*, at most 63")
        if rls is not None:
            # It is pasted into libpq's ``options`` (``-c wikikv.kb=...``): only a kb name may go
            # there, never a space, quote or backslash that would start another option.
            try:
                check_kb_name(rls)
            except InvalidKBName as exc:
                raise ConfigError(f"postgres rls={rls!r} is not a kb name: {exc}") from exc
        self._conninfo = conninfo
        self.schema = schema
        self.rls = rls
        self._t = f"{schema}.kv"
        self._local = threading.local()
        self._conns: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()
        self._ensure_schema()

    @classmethod
    def from_url(cls, url: str) -> PostgresBackend:
        """Open a ``postgresql://`` URL (see the module docstring for the options)."""
        parts = urlsplit(url)
        opts = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        schema = opts.pop("schema", "wikikv")
        rls = opts.pop("rls", None)
        # Remaining query parameters are libpq's own (sslmode, connect_timeout, ...).
        conninfo = urlunsplit(("postgresql", parts.netloc, parts.path, urlencode(opts), ""))
        return cls(conninfo, schema=schema, rls=rls)

    def sessions_named(self, application_name: str) -> int:
        """How many server sessions carry libpq's ``application_name`` (a crash test waits for a
        killed client's session to end: a COMMIT it sent before dying may still be landing)."""

        def count(conn: psycopg.Connection[Any]) -> int:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                (application_name,),
            ).fetchone()
            return int(row[0]) if row else 0

        return self._run(count)

    # ------------------------------------------------------------ connections
    def _conn(self) -> psycopg.Connection[Any]:
        """This thread's connection (one per thread and process; reopened after a failure)."""
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid() and not conn.closed:
            return conn
        options = f"-c {_KB_SETTING}={self.rls}" if self.rls else ""
        with map_errors():
            conn = psycopg.connect(
                self._conninfo, autocommit=True, prepare_threshold=0, options=options
            )
        self._local.conn, self._local.pid = conn, os.getpid()
        with self._lock:
            self._conns.append(conn)
        return conn

    def _run(self, fn: Callable[[psycopg.Connection[Any]], T]) -> T:
        conn = self._conn()
        try:
            with map_errors():
                return fn(conn)
        except BackendUnavailable:
            if conn.broken or conn.closed:
                self._local.conn = None
            raise

    def _ensure_schema(self) -> None:
        t = self._t

        def ddl(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext('wikikv-schema'))")
                conn.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
                conn.execute(
                    f"CREATE TABLE IF NOT EXISTS {t} (k bytea PRIMARY KEY, v integer NOT NULL,"
                    f" d bytea NOT NULL, shard bytea GENERATED ALWAYS AS ({_SHARD_EXPR}) STORED)"
                )
                if self.rls:
                    self._ensure_policies(conn)

        self._run(ddl)

    def _ensure_policies(self, conn: psycopg.Connection[Any]) -> None:
        have = {
            row[0]
            for row in conn.execute(
                "SELECT policyname FROM pg_policies WHERE schemaname = %s AND tablename = 'kv'",
                (self.schema,),
            )
        }
        cur = f"convert_to(coalesce(current_setting('{_KB_SETTING}', true), ''), 'UTF8')"
        unrestricted = f"{cur} = ''::bytea"
        own = f"({unrestricted} OR shard = {cur})"
        # The store-wide keys a kb may write: b"\x00!format" and b"\x00!kb\x00" + its name.
        fmt, reg = "'\\x0021666f726d6174'::bytea", "'\\x00216b6200'::bytea"
        shared = f"(k = {fmt} OR k = {reg} || {cur})"
        policies = {
            "kv_tenant": f"FOR ALL USING {own} WITH CHECK {own}",
            "kv_shared_read": "FOR SELECT USING (shard = ''::bytea)",
            "kv_shared_write": f"FOR ALL USING {shared} WITH CHECK {shared}",
        }
        for name, body in policies.items():
            if name not in have:
                conn.execute(f"CREATE POLICY {name} ON {self._t} {body}")
        conn.execute(f"ALTER TABLE {self._t} ENABLE ROW LEVEL SECURITY")
        conn.execute(f"ALTER TABLE {self._t} FORCE ROW LEVEL SECURITY")

    # ------------------------------------------------------------------ reads
    # docstring inherited
    def get(self, key: bytes) -> Item | None:
        row = self._run(
            lambda c: c.execute(f"SELECT v, d FROM {self._t} WHERE k = %s", (key,)).fetchone()
        )
        return None if row is None else Item(row[0], bytes(row[1]))

    def get_many(self, keys: Sequence[bytes]) -> list[Item | None]:
        if not keys:
            return []
        # One statement: one snapshot.
        rows = self._run(
            lambda c: c.execute(
                f"SELECT k, v, d FROM {self._t} WHERE k = ANY(%s)", (list(keys),)
            ).fetchall()
        )
        found = {bytes(k): Item(v, bytes(d)) for k, v, d in rows}
        return [found.get(bytes(k)) for k in keys]

    def scan(
        self, start: bytes, end: bytes, limit: int | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, Item]]:
        if start >= end or (limit is not None and limit <= 0):
            return
        order = "DESC" if reverse else "ASC"
        query = (
            f"SELECT k, v, d FROM {self._t} WHERE k >= %s AND k < %s ORDER BY k {order} LIMIT %s"
        )
        lo, hi, got = start, end, 0
        while True:
            count = SCAN_PAGE if limit is None else min(SCAN_PAGE, limit - got)
            rows = self._run(lambda c: c.execute(query, (lo, hi, count)).fetchall())  # noqa: B023
            for k, v, d in rows:
                yield bytes(k), Item(v, bytes(d))
            got += len(rows)
            if len(rows) < count or (limit is not None and got >= limit):
                return
            last = bytes(rows[-1][0])
            if reverse:
                hi = last
            else:
                lo = last + b"\x00"  # the smallest key after ``last``

    # ----------------------------------------------------------------- writes
    def put_if(self, key: bytes, value: bytes, expect: int = ANY) -> int:
        t = self._t
        if expect == ANY:
            sql = (
                f"INSERT INTO {t} AS kv (k, v, d) VALUES (%s, 1, %s) ON CONFLICT (k)"
                " DO UPDATE SET v = kv.v + 1, d = EXCLUDED.d RETURNING v"
            )
            params: tuple[Any, ...] = (key, value)
        elif expect == ABSENT:
            sql = f"INSERT INTO {t} (k, v, d) VALUES (%s, 1, %s) ON CONFLICT (k) DO NOTHING RETURNING v"
            params = (key, value)
        else:
            sql = f"UPDATE {t} SET v = v + 1, d = %s WHERE k = %s AND v = %s RETURNING v"
            params = (value, key, expect)
        row = self._run(lambda c: c.execute(sql, params).fetchone())
        if row is None:
            self._conflict(key, expect)
        return int(row[0])

    def delete_if(self, key: bytes, expect: int = ANY) -> bool:
        if expect == ABSENT:  # nothing to delete; only the condition to check
            if self.get(key) is not None:
                self._conflict(key, expect)
            return False
        if expect == ANY:
            sql = f"DELETE FROM {self._t} WHERE k = %s RETURNING v"
            params: tuple[Any, ...] = (key,)
        else:
            sql = f"DELETE FROM {self._t} WHERE k = %s AND v = %s RETURNING v"
            params = (key, expect)
        row = self._run(lambda c: c.execute(sql, params).fetchone())
        if row is None and expect != ANY:
            self._conflict(key, expect)
        return row is not None

    def _conflict(self, key: bytes, expect: int) -> NoReturn:
        item = self.get(key)
        check_expect(key, expect, None if item is None else item.version)
        raise ConflictError(repr(key), expect, None)  # changed again since; still a conflict

    def batch(self, ops: Sequence[Op]) -> list[int]:
        if not ops:
            return []
        for op in ops:
            if not isinstance(op, Put | Delete | Check):
                raise TypeError(f"not a batch op: {op!r}")
        for _ in range(BATCH_RETRIES):
            try:
                return self._run(lambda c: self._batch_txn(c, ops))
            except BackendError as exc:
                cause = exc.__cause__
                if not isinstance(cause, _LOST_RACE):
                    raise
            except _Retry:
                pass
        raise BackendError(f"postgresql: batch of {len(ops)} ops kept losing lock races")

    def _batch_txn(self, conn: psycopg.Connection[Any], ops: Sequence[Op]) -> list[int]:
        t = self._t
        keys = sorted({op.key for op in ops})
        with conn.transaction():
            current: dict[bytes, int | None] = dict.fromkeys(keys)
            for k, v in conn.execute(
                f"SELECT k, v FROM {t} WHERE k = ANY(%s) ORDER BY k FOR UPDATE", (keys,)
            ):
                current[bytes(k)] = v
            missing = [k for k in keys if current[k] is None]
            placeholders: set[bytes] = set()
            if missing:
                # Lock the absence of each missing key with an uncommitted placeholder row.
                placeholders = {
                    bytes(row[0])
                    for row in conn.execute(
                        f"INSERT INTO {t} (k, v, d) SELECT x, 0, ''::bytea FROM unnest(%s::bytea[])"
                        " AS x ORDER BY x ON CONFLICT (k) DO NOTHING RETURNING k",
                        (missing,),
                    )
                }
                if len(placeholders) != len(missing):
                    raise _Retry  # another writer created one of them meanwhile: start over
            state: dict[bytes, int | None] = dict(current)  # None: absent
            values: dict[bytes, bytes] = {}  # keys the batch leaves written -> final value
            out: list[int] = []
            for op in ops:
                cur = state[op.key]
                check_expect(op.key, op.expect, cur)
                if isinstance(op, Put):
                    state[op.key] = (cur or 0) + 1
                    values[op.key] = op.value
                    out.append((cur or 0) + 1)
                else:
                    if isinstance(op, Delete):
                        state[op.key] = None
                        values.pop(op.key, None)
                    out.append(0)
            writes = [(k, state[k], v) for k, v in values.items()]
            gone = [
                k
                for k in keys
                if state[k] is None and (current[k] is not None or k in placeholders)
            ]
            if writes:
                conn.execute(
                    f"UPDATE {t} AS kv SET v = w.v, d = w.d FROM unnest(%s::bytea[], %s::int[],"
                    " %s::bytea[]) AS w(k, v, d) WHERE kv.k = w.k",
                    ([w[0] for w in writes], [w[1] for w in writes], [w[2] for w in writes]),
                )
            if gone:
                conn.execute(f"DELETE FROM {t} WHERE k = ANY(%s)", (gone,))
        return out

    # -------------------------------------------------------------- operation
    def drop_schema(self) -> None:
        """Drop this backend's schema and everything in it (tests and teardown tooling)."""
        self._run(lambda c: c.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE"))

    def close(self) -> None:
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(psycopg.Error):
                conn.close()
        self._local = threading.local()

    def describe(self) -> str:
        parts = urlsplit(self._conninfo)
        netloc = parts.netloc.rsplit("@", 1)[-1]
        return f"postgresql://{netloc}{parts.path} (schema {self.schema})"
