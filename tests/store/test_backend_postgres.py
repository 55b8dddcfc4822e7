"""The conformance suite on PostgreSQL, checked with plain SQL over a separate psycopg connection,
plus concurrency checks of the batch locking and the optional row-level security per kb.

Each test gets its own schema (dropped afterwards). The server comes from
``WIKIKV_TEST_POSTGRES`` or is started by ``scripts/services.sh start``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from urllib.parse import urlencode

import psycopg
import pytest

from wikikv.errors import BackendError, BackendUnavailable, ConfigError, ConflictError
from wikikv.store.backends import open_backend
from wikikv.store.backends.base import ABSENT, Backend, Check, Delete, Put
from wikikv.store.backends.postgres import PostgresBackend
from wikikv.store.store import open_store
from wikikv.testing import BackendTests
from wikikv.testing.services import service_url, unique_name, with_option

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_url() -> str:
    return service_url("postgres")


@pytest.fixture
def schema_url(pg_url: str) -> Iterator[str]:
    """A URL naming a fresh schema; the schema is dropped after the test."""
    schema = unique_name("test_")
    yield with_option(pg_url, "schema", schema)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def pg_backend(schema_url: str) -> Iterator[PostgresBackend]:
    backend = open_backend(schema_url)
    assert isinstance(backend, PostgresBackend)
    yield backend
    backend.close()


class TestPostgresBackend(BackendTests):
    @pytest.fixture
    def backend(self, pg_backend: PostgresBackend, pg_url: str) -> Iterator[Backend]:
        self._raw = psycopg.connect(pg_url, autocommit=True)
        yield pg_backend
        self._raw.close()

    def raw_get(self, backend: Backend, key: bytes) -> tuple[int, bytes] | None:
        assert isinstance(backend, PostgresBackend)
        row = self._raw.execute(
            f"SELECT v, d FROM {backend.schema}.kv WHERE k = %s", (key,)
        ).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    def raw_put(self, backend: Backend, key: bytes, value: bytes, version: int) -> None:
        assert isinstance(backend, PostgresBackend)
        self._raw.execute(
            f"INSERT INTO {backend.schema}.kv (k, v, d) VALUES (%s, %s, %s)"
            " ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, d = EXCLUDED.d",
            (key, version, value),
        )


def test_the_table_and_its_shard_column(pg_backend: PostgresBackend, pg_url: str) -> None:
    pg_backend.batch([Put(b"kb\x00a", b"1"), Put(b"\x00!format", b"f"), Put(b"solo", b"s")])
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            f"SELECT k, v, d, shard FROM {pg_backend.schema}.kv ORDER BY k"
        ).fetchall()
    assert [(bytes(k), v, bytes(d), bytes(s)) for k, v, d, s in rows] == [
        (b"\x00!format", 1, b"f", b""),
        (b"kb\x00a", 1, b"1", b"kb"),
        (b"solo", 1, b"s", b"solo"),
    ]


def test_batch_with_repeated_keys(pg_backend: PostgresBackend) -> None:
    out = pg_backend.batch(
        [Put(b"kb\x00a", b"1", ABSENT), Put(b"kb\x00a", b"2", 1), Delete(b"kb\x00a", 2)]
    )
    assert out == [1, 2, 0]
    assert pg_backend.get(b"kb\x00a") is None
    assert pg_backend.batch([Delete(b"kb\x00a"), Put(b"kb\x00a", b"3", ABSENT)]) == [0, 1]
    assert pg_backend.get(b"kb\x00a") == (1, b"3")
    assert list(pg_backend.scan(b"kb\x00", b"kb\x01")) == [(b"kb\x00a", (1, b"3"))]


def test_scan_pages(pg_backend: PostgresBackend) -> None:
    pg_backend.batch([Put(b"kb\x00%05d" % i, b"x") for i in range(2500)])
    assert [k for k, _ in pg_backend.scan(b"kb\x00", b"kb\x01")] == [
        b"kb\x00%05d" % i for i in range(2500)
    ]
    back = [k for k, _ in pg_backend.scan(b"kb\x00", b"kb\x01", reverse=True, limit=1500)]
    assert back == [b"kb\x00%05d" % i for i in range(2499, 999, -1)]


def test_concurrent_batches_on_absent_keys_serialize(pg_backend: PostgresBackend) -> None:
    """Many threads race to claim the same absent keys in batches with ABSENT checks: exactly one
    claim wins per round, and a Check(ABSENT) never lets a batch pass beside a committed claim."""
    rounds, threads = 15, 6
    wins: list[int] = []
    lock = threading.Lock()

    def worker(me: int) -> None:
        for r in range(rounds):
            lease = b"kb\x00lease%03d" % r
            try:
                pg_backend.batch(
                    [
                        Check(lease, ABSENT),
                        Put(lease + b"-owner", b"%d" % me, ABSENT),
                        Put(lease, b"x"),
                    ]
                )
            except ConflictError:
                continue
            with lock:
                wins.append(r)

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert sorted(wins) == list(range(rounds))
    assert pg_backend.get(b"kb\x00lease000") == (1, b"x")


def test_row_level_security_per_kb(schema_url: str) -> None:
    admin = open_backend(schema_url)
    admin.batch([Put(b"alpha\x00a", b"A")])
    admin.batch([Put(b"beta\x00b", b"B")])
    admin.put_if(b"\x00!shared", b"S")
    alpha = open_backend(with_option(schema_url, "rls", "alpha"))
    try:
        assert alpha.get(b"alpha\x00a") == (1, b"A")
        assert alpha.get(b"beta\x00b") is None  # another tenant's row is invisible
        assert alpha.get(b"\x00!shared") == (1, b"S")  # store-wide rows are readable
        assert [k for k, _ in alpha.scan(b"", b"\xff")] == [b"\x00!shared", b"alpha\x00a"]
        with pytest.raises(BackendError, match="row-level security"):
            alpha.put_if(b"\x00!shared", b"overwritten")  # ... but not writable
        alpha.put_if(b"alpha\x00new", b"N")
        alpha.put_if(b"\x00!kb\x00alpha", b"registry entry")  # its own registry entry
        with pytest.raises(BackendError, match="row-level security"):
            alpha.put_if(b"beta\x00evil", b"E")
        with pytest.raises(BackendError, match="row-level security"):
            alpha.put_if(b"\x00!kb\x00beta", b"E")
        assert not alpha.delete_if(b"beta\x00b")  # invisible, so nothing to delete
        assert admin.get(b"beta\x00b") == (1, b"B")
        assert admin.get(b"beta\x00evil") is None
    finally:
        alpha.close()
        admin.close()


def test_store_through_row_level_security(schema_url: str) -> None:
    admin = open_store(schema_url)
    admin.create_kb("beta").put("/secret", "beta's page")
    store = open_store(with_option(schema_url, "rls", "gamma"))
    try:
        store.create_kb("gamma").put("/x", "text")
        assert store.kb("gamma").get("/x") is not None
        assert store.kbs() == ["beta", "gamma"]  # the registry is store-wide
        assert store.kb("beta").get("/secret") is None  # but beta's rows are not visible
        assert admin.kb("beta").get("/secret") is not None
    finally:
        store.close()
        admin.close()


def test_bad_urls_and_unreachable_server() -> None:
    with pytest.raises(ConfigError):
        PostgresBackend.from_url("postgresql://u@127.0.0.1:5440/wikikv?schema=Bad-Name")
    # rls is pasted into libpq's options: anything but a kb name (a space starts another
    # "-c" option, e.g. one that switches row-level security off) is refused before connecting.
    for bad in ("a -c row_security=off", "a\\ -c x=y", "'a'", "A"):
        url = "postgresql://u@127.0.0.1:1/wikikv?" + urlencode({"rls": bad})
        with pytest.raises(ConfigError, match="rls"):
            PostgresBackend.from_url(url)
    with pytest.raises(BackendUnavailable):
        PostgresBackend.from_url("postgresql://u:p@127.0.0.1:1/wikikv?connect_timeout=2")


def test_store_on_postgres(schema_url: str) -> None:
    store = open_store(schema_url)
    try:
        kb = store.create_kb("alpha")
        kb.put("/people/ada", "Ada Lovelace")
        kb.put("/people/alan", "Alan Turing")
        assert store.kbs() == ["alpha"]
        assert kb.prefix("/people/a") == ["/people/ada", "/people/alan"]
        assert kb.ls("/people").child_paths() == ["/people/ada", "/people/alan"]
    finally:
        store.close()
