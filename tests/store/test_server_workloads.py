"""The storage core's multi-process workloads (no partial reads, crash, lost update) on the server
backends: Redis, Redis Cluster and PostgreSQL. Each test uses a fresh namespace or schema, so runs
never see each other's data; the servers come from the ``WIKIKV_TEST_*`` variables or are started
by ``scripts/services.sh start``. Short runs here; longer ones through
``python -m wikikv.testing.workloads ... --store URL``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from wikikv.store.backends import open_backend
from wikikv.store.backends.redis import RedisBackend
from wikikv.testing.services import service_url, unique_name, with_option
from wikikv.testing.workloads import crash_rounds, lost_updates, partial_reads

SERVERS = [
    pytest.param("redis", marks=pytest.mark.redis),
    pytest.param("cluster", marks=pytest.mark.cluster),
    pytest.param("postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=SERVERS)
def store_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A store URL on a fresh namespace (Redis) or schema (PostgreSQL), removed afterwards."""
    kind: str = request.param
    base = service_url(kind)
    if kind == "postgres":
        schema = unique_name("wl_")
        yield with_option(base, "schema", schema)
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    else:
        url = with_option(base, "namespace", unique_name("wl-"))
        yield url
        backend = open_backend(url)
        assert isinstance(backend, RedisBackend)
        backend.clear()
        backend.close()


def test_no_partial_reads(store_url: str) -> None:
    result = partial_reads(store_url, seconds=2.0, readers=2)
    assert result.ok, result
    assert result.writes > 0
    assert result.children_read > 0


def test_no_lost_updates(store_url: str) -> None:
    procs, increments = 2, 100
    final, retried = lost_updates(store_url, procs=procs, increments=increments)
    assert final == procs * increments
    assert retried >= increments * (procs - 1)  # contention was forced, every round


def test_writer_killed_mid_operation(store_url: str, tmp_path: Path) -> None:
    result = crash_rounds(store_url, tmp_path / "crash.log", kills=4, seed=7)
    assert result.kills == 4
    assert result.problems == []
