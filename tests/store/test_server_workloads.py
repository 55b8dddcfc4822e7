"""The storage core's multi-process workloads (no partial reads, crash, lost update) on the server
backends: Redis, Redis Cluster and PostgreSQL. Each test uses a fresh namespace or schema, so runs
never see each other's data; the servers come from the ``WIKIKV_TEST_*`` variables or are started
by ``scripts/services.sh start``. Short runs here; longer ones through
``python -m wikikv.testing.workloads ... --store URL``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from wikikv.store.backends import open_backend
from wikikv.store.backends.redis import RedisBackend
from wikikv.store.store import open_store
from wikikv.testing.services import service_url, unique_name, with_option
from wikikv.testing.workloads import (
    CRASH_DIRS,
    KB,
    count_lines,
    crash_check,
    crash_rounds,
    kill_writer,
    lost_updates,
    partial_reads,
)

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


@pytest.mark.postgres
def test_a_commit_landing_after_the_kill_is_waited_for(tmp_path: Path) -> None:
    """The interleaving behind a load-only failure, forced: the writer's COMMIT reaches the
    server, the writer is killed while the server is still committing (a deferred trigger holds
    every commit 1.5 s, as a slow WAL flush does under load), and only then does the checker
    read. The checker must wait for the dead writer's session, not settle the in-flight write
    to the state before it and then meet the commit in the next round."""
    base = service_url("postgres")
    schema = unique_name("wl_")
    url = with_option(base, "schema", schema)
    log = tmp_path / "crash.log"
    store = open_store(url)
    try:
        kb = store.create_kb(KB, exist_ok=True)
        for d in range(CRASH_DIRS):
            kb.mkdir(f"/c{d}")
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(
                f"CREATE FUNCTION {schema}.slow_commit() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN PERFORM pg_sleep(1.5); RETURN NULL; END $$"
            )
            conn.execute(
                f"CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT OR UPDATE ON {schema}.kv "
                "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.v > 0) "
                f"EXECUTE FUNCTION {schema}.slow_commit()"
            )

        def in_the_first_commit(lines_before: int) -> None:
            deadline = time.monotonic() + 60
            while count_lines(log) < lines_before + 2:  # "R", then "B" of the first write
                assert time.monotonic() < deadline, "the writer never began a write"
                time.sleep(0.01)
            time.sleep(0.5)  # its first batch's COMMIT is now held by the trigger

        kill_writer(url, log, seed=1, tag=f"wl_forced_{schema}", wait=in_the_first_commit,
                    store=store)  # fmt: skip
        problems, _ = crash_check(kb, log)
        assert problems == []
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP TRIGGER slow_commit ON {schema}.kv")
        time.sleep(2.0)  # anything the dead writer had sent has landed by now
        problems, _ = crash_check(kb, log)  # the settled state must still hold
        assert problems == []
    finally:
        store.close()
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
