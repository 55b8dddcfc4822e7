"""The scale-out benchmark at tiny sizes: every engine (WikiKV on LMDB, Redis, Redis Cluster and
PostgreSQL, cached and not; PostgreSQL + ltree, the file system, SQLite) returns the same records,
and the concurrent, staleness and build modes report what they promise (never timing
assertions)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from wikikv.bench import scaleout, scaleout_procs, scaleout_writers, storage
from wikikv.bench.engines import WikiKVEngine
from wikikv.bench.engines_server import LtreeEngine, label, prefix_lquery, to_ltree
from wikikv.bench.servers import ServerURLs
from wikikv.bench.wikigen import WikiPlan
from wikikv.errors import ConfigError
from wikikv.interfaces.commands import bench
from wikikv.testing.services import service_url

TINY = storage.Config(nodes=300, ops=20, warmup=5, targets=10, rounds=2)


def _noop(_msg: str) -> None:
    pass


def _urls() -> ServerURLs:
    """The test servers, handed to the benchmark as its options would be."""
    return ServerURLs(service_url("redis"), service_url("cluster"), service_url("postgres"))


# ------------------------------------------------------------------ pure helpers
def test_ltree_labels_keep_textual_prefixes() -> None:
    assert to_ltree("/") == ""
    assert to_ltree("/人物/Lu Xun") == f"{label('人物')}.{label('Lu Xun')}"
    assert label("鲁迅日记").startswith(label("鲁迅"))
    assert prefix_lquery("/人物/鲁迅") == (f"{label('人物')}.{label('鲁迅')}*.*", "/人物")
    assert prefix_lquery("/人物/") == (f"{label('人物')}.*{{1,}}", "/人物")
    assert prefix_lquery("/Lu") == (f"{label('Lu')}*.*", "/")


def test_zipf_draws_favour_the_top_of_the_tree() -> None:
    plan = WikiPlan(300, 7)
    draws = scaleout_procs.zipf_draws(plan, 2_000, 3)
    assert len(draws) == 2_000
    assert set(draws) <= set(plan.paths())
    # rank 1 is the root: with P(r) ~ 1/r it is the most frequent path by far
    counts = {p: draws.count(p) for p in set(draws)}
    assert max(counts, key=lambda p: counts[p]) == "/"


def test_histogram_percentiles() -> None:
    hist = {0: 50, 9: 49, 99: 1}  # 0.1 us, 1 us, 10 us buckets
    got = scaleout_procs.hist_percentiles(hist)
    assert got["count"] == 100
    assert got["p50"] == 0.1
    assert got["p99"] == 1.0
    assert got["max"] == 10.0


def test_smaps_memory_reports_anonymous_and_mapped_pages(tmp_path: Path) -> None:
    engine = WikiKVEngine(tmp_path / "w", "m")
    try:
        engine.load(WikiPlan(300, 7).nodes())
        assert engine.get("/") is not None
        mem = scaleout_procs.smaps_memory(str(tmp_path / "w" / "data.mdb"))
    finally:
        engine.close()
    assert mem["anonymous_kb"] > 0
    assert mem["rss_kb"] >= mem["anonymous_kb"]
    assert mem["mapped_file_rss_kb"] > 0


# ------------------------------------------------------------------- engines
@pytest.mark.postgres
def test_ltree_engine_returns_wikikv_records(tmp_path: Path) -> None:
    plan = WikiPlan(300, 7)
    nodes = list(plan.nodes())
    work = storage.Workload.from_plan(plan, 10)
    ref = WikiKVEngine(tmp_path / "w")
    lt = LtreeEngine(service_url("postgres"))
    try:
        for e in (ref, lt):
            e.load(nodes)
            e.finish_load()
        check = storage.cross_check(
            {"wikikv": storage.engine_ops(ref, work), "pg-ltree": storage.engine_ops(lt, work)}
        )
        assert check["same_results"], check["mismatches"]
        assert lt.get("/no/such/page") is None
        assert lt.prefix(work.prefixes[0]) == ref.prefix(work.prefixes[0])
        assert len(lt.prefix(work.prefixes[0])) == 12
    finally:
        ref.close()
        lt.close()


@pytest.mark.redis
@pytest.mark.cluster
@pytest.mark.postgres
def test_every_engine_returns_the_same_records(tmp_path: Path) -> None:
    res = scaleout.run_engines(TINY, tmp_path, _noop, scaleout.EngineRun(urls=_urls()))
    assert res["cross_check"]["same_results"], res["cross_check"]["mismatches"]
    stores = ["lmdb", "redis", "cluster", "postgres"]
    expected = {*stores, *(s + "+cache" for s in stores), "pg-ltree", "fs", "sqlite", "lmdb-raw"}
    assert set(res["results"]) == expected
    # every compared engine (all but the reference and the raw floor), 4 operators, each target
    assert res["cross_check"]["ops_checked"] == (len(expected) - 2) * 4 * TINY.targets
    for by_op in res["results"].values():
        assert set(by_op) == set(scaleout.ALL_OPS)
        assert all(s["count"] == TINY.ops for s in by_op.values())
    bare = res["floors"]["redis_get"]
    assert bare["same_value"] is True
    assert {"get", "get_decode", "wikikv_q1"} <= set(bare)
    # the cached engines served root and dimension lookups from L1
    for name in stores:
        assert res["cache_stats"][name + "+cache"]["l1_hits"] > 0
    assert {t["target"].split(" ")[0] for t in res["targets"]} >= {"lmdb+cache", "redis"}


@pytest.mark.redis
def test_engines_lmdb_only(tmp_path: Path) -> None:
    run = scaleout.EngineRun((), ltree=False, urls=ServerURLs(redis=service_url("redis")))
    res = scaleout.run_engines(TINY, tmp_path, _noop, run)
    assert res["cross_check"]["same_results"]
    assert set(res["results"]) == {"lmdb", "lmdb+cache", "fs", "sqlite", "lmdb-raw"}
    assert "redis_get" not in res["floors"]


# -------------------------------------------------------- processes (spawned)
@pytest.mark.redis
def test_concurrent_readers_report_throughput_hits_and_memory(tmp_path: Path) -> None:
    res = scaleout_procs.run_concurrent((300,), (1, 2), 0.2, tmp_path, _noop, service_url("redis"))
    runs = res["sizes"][str(WikiPlan(300, 7).n_nodes)]["runs"]
    assert set(runs) == {f"cache {m}, N={n}" for m in scaleout_procs.CACHE_MODES for n in (1, 2)}
    for name, r in runs.items():
        assert r["ops_per_s"] > 0
        assert r["latency_us"]["count"] > 0
        assert r["memory_kb"]["anonymous_kb"] > 0
        assert "mapped_file_rss_kb" in r["memory_kb"]
        assert ("cache" in r) == (not name.startswith("cache off"))
    l2 = runs["cache L1+L2, N=1"]["cache"]
    assert l2["l1_hits"] > 0
    assert l2["l2_hits"] + l2["l2_misses"] > 0
    assert runs["cache L1, N=1"]["cache"]["l2_hits"] == 0


@pytest.mark.redis
def test_staleness_sees_every_write(tmp_path: Path) -> None:
    res = scaleout_writers.run_staleness(5, tmp_path, _noop, service_url("redis"))
    assert len(res["modes"]) == 2
    for r in res["modes"].values():
        assert r["writes"] == 5
        assert r["refreshed"] == 5, r
        assert r["missed"] == 0
    assert len(res["targets"]) == 2


def test_parallel_builds_load_every_kb(tmp_path: Path) -> None:
    res = scaleout_writers.run_build({"lmdb": 300}, (1, 2), tmp_path, _noop)
    rows = res["backends"]["lmdb"]
    nodes = WikiPlan(300, 7).n_nodes
    assert rows["1"]["records"] == nodes
    assert rows["2"]["records"] == 2 * nodes
    assert len(rows["2"]["per_worker_records_per_s"]) == 2


# ----------------------------------------------------------------------- CLI
def test_cli_registers_under_bench_and_writes_json(tmp_path: Path) -> None:
    group = click.Group("wikikv")
    bench.register(group)
    bench_group = group.commands["bench"]
    assert isinstance(bench_group, click.Group)
    assert {"storage", "scaleout"} <= set(bench_group.list_commands(click.Context(bench_group)))
    out = tmp_path / "scaleout.json"
    res = CliRunner().invoke(
        group,
        ["bench", "scaleout", "--quick", "--modes", "build", "--out", str(out), "--json"],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["benchmark"] == "scaleout"
    assert set(data["build"]["backends"]) == {"lmdb"}
    assert "engines" not in data


def test_a_failing_mode_is_reported_and_the_others_kept(tmp_path: Path) -> None:
    plan = scaleout.Plan(
        engines=None,
        concurrent_sizes=(),
        staleness_writes=0,
        build_nodes=5_000,  # between the medium and the routed layouts: the generator refuses
        build_workers=(1,),
        build_backends=("lmdb",),
    )
    res = scaleout.run(plan, tmp_path, _noop)
    assert set(res["errors"]) == {"build"}
    assert "ConfigError" in res["errors"]["build"]
    assert "build" not in res


def test_cli_rejects_unknown_modes() -> None:
    group = click.Group("wikikv")
    bench.register(group)
    res = CliRunner().invoke(group, ["bench", "scaleout", "--modes", "engines,nope"])
    assert res.exit_code != 0
    assert "nope" in res.output


def test_a_server_run_without_its_url_names_the_option(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--redis-url"):
        scaleout.run_engines(TINY, tmp_path, _noop, scaleout.EngineRun((), ltree=False))
    with pytest.raises(ConfigError, match="--cluster-url"):
        scaleout_writers.run_build({"cluster": 300}, (1,), tmp_path, _noop)
