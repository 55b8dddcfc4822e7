"""The storage benchmark's quick mode, end to end: every engine and operator is reported and all
engines returned the same decoded records (never timing assertions)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import msgspec
import pytest
from click.testing import CliRunner

from wikikv.bench import scale, storage
from wikikv.bench.engines import Engine, FSEngine, SQLiteEngine, WikiKVEngine
from wikikv.bench.report import percentile, summarize
from wikikv.bench.wikigen import WikiPlan
from wikikv.config import FANOUT_BOUND
from wikikv.interfaces.commands import bench
from wikikv.interfaces.commands.lazy import BENCH_COMMANDS
from wikikv.store.records import FileRecord


@pytest.fixture(scope="module")
def quick_result(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("bench") / "storage.json"
    group = click.Group("wikikv")
    bench.register(group)
    res = CliRunner().invoke(group, ["bench", "storage", "--quick", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    on_disk = json.loads(out.read_text(encoding="utf-8"))
    assert json.loads(res.output) == on_disk
    return on_disk  # type: ignore[no-any-return]


def test_every_engine_and_operator_is_reported(quick_result: dict[str, object]) -> None:
    results = quick_result["results"]
    assert isinstance(results, dict)
    assert set(results) == {"wikikv", "fs", "sqlite", "lmdb-raw"}
    for engine in results.values():
        assert set(engine) == {"Q1", "Q2", "Q3", "Q4"}
        for stats in engine.values():
            assert stats["count"] == storage.QUICK.ops
            assert 0 < stats["p50"] <= stats["p95"] <= stats["p99"] <= stats["max"]
    bulk = quick_result["bulk_load"]
    assert isinstance(bulk, dict)
    assert set(bulk) == {"wikikv", "fs", "sqlite"}
    assert all(b["records"] == storage.QUICK.nodes for b in bulk.values())


def test_engines_returned_the_same_records(quick_result: dict[str, object]) -> None:
    check = quick_result["cross_check"]
    assert isinstance(check, dict)
    assert check["same_results"] is True
    assert check["mismatches"] == []
    # 3 compared engines - the reference, times 4 operators, times the sampled targets
    assert check["ops_checked"] == 2 * 4 * storage.QUICK.targets
    wiki = quick_result["wiki"]
    assert isinstance(wiki, dict)
    assert wiki["q4_results_mean"] == 12


def test_cross_check_catches_an_engine_that_differs(tmp_path: Path) -> None:
    plan = WikiPlan(400)
    nodes = list(plan.nodes())
    work = storage.Workload.from_plan(plan, 10)
    engines: list[Engine] = [
        WikiKVEngine(tmp_path / "w"),
        FSEngine(tmp_path / "f"),
        SQLiteEngine(tmp_path / "s"),
    ]
    for e in engines:
        e.load(nodes)
        e.finish_load()
    ops = {e.name: storage.engine_ops(e, work) for e in engines}
    assert storage.cross_check(ops)["same_results"] is True
    # An FS page edited behind the benchmark's back must be reported.
    victim = work.pages[0]
    rec = engines[0].get(victim)
    assert isinstance(rec, FileRecord)
    fs = engines[1]
    assert isinstance(fs, FSEngine)
    changed = msgspec.structs.replace(rec, text=rec.text + "!")
    Path(fs.base + victim).write_bytes(msgspec.msgpack.encode(changed))
    check = storage.cross_check(ops)
    assert check["same_results"] is False
    assert {"engine": "fs", "operator": "Q1", "target": 0} in check["mismatches"]
    for e in engines:
        e.close()


def test_generator_is_deterministic_and_within_the_fanout_bound() -> None:
    plan = WikiPlan(2000)
    paths = list(plan.paths())
    assert len(paths) == len(set(paths)) == 2000
    assert paths == list(WikiPlan(2000).paths())
    children: dict[str, int] = {}
    for p in paths[1:]:
        par = p.rsplit("/", 1)[0] or "/"
        children[par] = children.get(par, 0) + 1
    assert max(children.values()) <= FANOUT_BOUND
    assert any(170 <= n <= 200 for n in children.values())
    assert any(not p.isascii() for p in paths)
    assert any(p.isascii() for p in paths[1:])
    routed = WikiPlan(30_000)
    assert routed.routed
    assert routed.n_nodes == 30_000
    assert all(leaf.path.count("/") == 2 for leaf in routed.leaves)


def test_percentiles() -> None:
    assert percentile([], 50) == 0.0
    assert percentile([1, 2, 3, 4], 50) == 2
    assert percentile([1, 2, 3, 4], 99) == 4
    s = summarize([1000 * i for i in range(1, 101)])
    assert (s["p50"], s["p90"], s["p99"], s["max"], s["count"]) == (50.0, 90.0, 99.0, 100.0, 100)


def test_every_bench_command_is_listed_once_and_resolves_lazily() -> None:
    main = click.Group("wikikv")
    bench.register(main)
    group = main.commands["bench"]
    assert isinstance(group, click.Group)
    ctx = click.Context(group)
    assert group.list_commands(ctx) == sorted(BENCH_COMMANDS)
    for name in BENCH_COMMANDS:
        command = group.get_command(ctx, name)
        assert isinstance(command, click.Command)
        assert command.name == name


def test_scale_mode_small(tmp_path: Path) -> None:
    """The scale mode's checks on small sizes: a routed wiki answers every operator, and a
    directory spilling over continuation pages lists each child exactly once."""
    res = scale.run_scale(storage.QUICK, (12_000,), 2_500, tmp_path)
    size = res["sizes"]["12000"]
    assert size["nodes"] == 12_000
    assert size["check"]["ok"]
    assert size["check"]["q4_results_mean"] == 12
    assert set(size["results"]) == {"wikikv", scale.REFERENCE, "lmdb-raw"}
    assert set(res["p50_ratio_to_medium"]["12000"]) == {"Q1", "Q2", "Q4"}
    big = res["big_dir"]
    assert big["ok"]
    assert big["pages"] == 3
    assert (big["listed"], big["duplicates"], big["missing"], big["extra"]) == (2_500, 0, 0, 0)
    assert big["entries_per_page_max"] <= big["entries_per_page_bound"]
    assert list(tmp_path.iterdir()) == []  # the stores are removed afterwards


def test_bulk_options_load_the_same_wiki_and_report_rates() -> None:
    from wikikv.bench.bulkload import OPTIONS, run_options

    result = run_options([2000], ["chosen", "hashed", "writemap"])
    rows = result["2000"]
    assert [r["option"] for r in rows] == ["chosen", "hashed", "writemap"]
    assert set(OPTIONS) >= {r["option"] for r in rows}
    for row in rows:
        assert "error" not in row, row
        assert row["records"] == rows[0]["records"]
        assert row["missing_of_last_1000"] == 0
        assert row["records_per_s"] > 0
