"""The scale-out benchmark's engine comparison (issue 5, "Measure it"), and the whole run.

One generated wiki (2,000 nodes by default) is loaded into WikiKV on LMDB, Redis, Redis Cluster
and PostgreSQL, into PostgreSQL + ltree (the paper's relational baseline), the file-system layout
and SQLite; each WikiKV store is then opened a second time behind the cache tiers (L1 in process,
L2 the shared Redis). Q1-Q4 and the root/dimension lookups run on every engine in interleaved
rounds (the storage benchmark's timing), after a cross-check that every engine returns the same
decoded records. Beside them: a bare redis-py ``GET`` of the Q1 values (the floor the Redis Q1
target is measured against) and bare LMDB reads.

The concurrent readers, the staleness bound and the parallel builds are in
:mod:`wikikv.bench.scaleout_procs` and :mod:`wikikv.bench.scaleout_writers`; :func:`run` runs the modes asked for and returns one JSON
document, :func:`print_result` prints its tables.
"""

from __future__ import annotations

import dataclasses
import functools
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from wikikv.bench import report
from wikikv.bench.engines import Engine, FSEngine, RawLMDBEngine, SQLiteEngine
from wikikv.bench.engines_server import (
    SERVER_BACKENDS,
    LtreeEngine,
    StoreEngine,
    cleanup,
    delete_redis_pattern,
    new_tag,
    private_url,
    redis_value_key,
)
from wikikv.bench.servers import ServerURLs
from wikikv.bench.storage import (
    FLOOR,
    OPERATORS,
    Config,
    Workload,
    cross_check,
    engine_ops,
    floor_ops,
    time_interleaved,
    timed_load,
    wiki_info,
)
from wikikv.bench.wikigen import WikiPlan
from wikikv.config import CacheSettings
from wikikv.store.records import decode

ROOT_DIM = "root/dim"
ALL_OPS = (*OPERATORS, ROOT_DIM)
REFERENCE = "lmdb"
CACHED = "+cache"
ROOT_DIM_TARGET_US = 5.0
REDIS_RATIO_TARGET = 1.5
Log = Callable[[str], None]


@dataclasses.dataclass(frozen=True)
class EngineRun:
    """What to compare: the server backends (a subset of redis, cluster, postgres)."""

    servers: tuple[str, ...] = SERVER_BACKENDS
    ltree: bool = True
    urls: ServerURLs = ServerURLs()


def _root_dims(plan: WikiPlan) -> list[str]:
    return ["/", *plan.dims]


def store_urls(
    servers: Sequence[str], workdir: Path, tag: str, given: ServerURLs
) -> dict[str, str]:
    urls = {REFERENCE: f"lmdb://{workdir / 'lmdb'}?sync=false"}
    for kind in servers:
        urls[kind] = private_url(kind, given.url(kind), tag)
    return urls


def run_engines(
    cfg: Config, workdir: Path, log: Log, what: EngineRun = EngineRun()
) -> dict[str, Any]:
    """Load every engine, cross-check, time Q1-Q4 and root/dim lookups; the JSON-ready result."""
    plan = WikiPlan(cfg.nodes, cfg.seed)
    nodes = list(plan.nodes())
    work = Workload.from_plan(plan, cfg.targets)
    tag = new_tag()
    l2_url = what.urls.url("redis")
    urls = store_urls(what.servers, workdir, tag, what.urls)
    kb_of = {kind: f"so{tag}-{kind}" for kind in urls}
    engines: list[Engine] = []
    bulk: dict[str, Any] = {}
    try:
        plain: dict[str, StoreEngine] = {}
        for kind, url in urls.items():
            log(f"engines: loading {len(nodes):,} nodes into WikiKV on {kind}")
            eng = StoreEngine(kind, url, kb_of[kind])
            engines.append(eng)
            plain[kind] = eng
            bulk[kind] = timed_load(eng, plan, nodes) | {"loader": eng.loader}
        baselines: list[Engine] = [FSEngine(workdir / "fs"), SQLiteEngine(workdir / "sqlite")]
        if what.ltree:
            baselines.insert(0, LtreeEngine(what.urls.url("postgres")))
        for eng_b in baselines:
            log(f"engines: loading {eng_b.name}")
            engines.append(eng_b)
            bulk[eng_b.name] = timed_load(eng_b, plan, nodes)
        cache = CacheSettings(l1=True, l2_url=l2_url)
        for kind, url in urls.items():
            shared = plain[kind].store.backend if kind == REFERENCE else None
            engines.append(StoreEngine(kind + CACHED, url, kb_of[kind], cache, shared))
        ops = {e.name: engine_ops(e, work) | {ROOT_DIM: _get_ops(e, plan)} for e in engines}
        raw = RawLMDBEngine(plain[REFERENCE])
        ops[FLOOR] = floor_ops(raw, work) | {
            ROOT_DIM: [functools.partial(raw.get_key, raw.keys.node(p)) for p in _root_dims(plan)]
        }
        log("engines: cross-checking every engine's records against WikiKV on LMDB")
        check = cross_check(ops, reference=REFERENCE)
        log(f"engines: timing {len(ops)} engines x {len(ALL_OPS)} operators")
        results = time_interleaved(ops, cfg, ALL_OPS)
        floors = {"redis_get": _bare_redis(plain, work, cfg, l2_url)} if "redis" in plain else {}
        floors["l1_lookup"] = _l1_lookup(engines, plan, cfg)
        stats = {
            e.name: e.store.backend.stats.to_dict()  # type: ignore[attr-defined]
            for e in engines
            if e.name.endswith(CACHED)
        }
    finally:
        for e in engines:
            e.close()
        for kind, url in urls.items():
            if kind != REFERENCE:
                cleanup(url)
            delete_redis_pattern(l2_url, f"wikikv:l2:{{{kb_of[kind]}}}:*")
    out: dict[str, Any] = {
        "wiki": wiki_info(plan, nodes) | {k: v for k, v in check.items() if k.startswith("q")},
        "engines": list(ops),
        "operators": list(ALL_OPS),
        "results": results,
        "floors": floors,
        "bulk_load": bulk,
        "cache_stats": stats,
        "cross_check": {k: v for k, v in check.items() if not k.startswith("q")},
        "urls": {k: _shown(v) for k, v in urls.items()} | {"l2": l2_url},
    }
    out["targets"] = engine_targets(out)
    return out


def _get_ops(engine: Engine, plan: WikiPlan) -> list[Callable[[], object]]:
    return [functools.partial(engine.get, p) for p in _root_dims(plan)]


def _bare_redis(
    plain: dict[str, StoreEngine], work: Workload, cfg: Config, redis_url: str
) -> dict[str, Any]:
    """A bare redis-py GET of the Q1 values (and GET + decode), timed in interleaved rounds with
    WikiKV's uncached Q1 on Redis, so that the ratio compares like with like on a busy machine."""
    import redis

    eng = plain["redis"]
    client = redis.Redis.from_url(redis_url)
    try:
        vkeys = [redis_value_key(eng, eng.kb.keys.node(p)) for p in work.pages]
        expected = [eng.store.backend.get(eng.kb.keys.node(p)) for p in work.pages]
        same = all(
            (raw := client.get(k)) is not None and item is not None and raw[8:] == item.value
            for k, item in zip(vkeys, expected, strict=True)
        )
        ops: dict[str, dict[str, list[Callable[[], object]]]] = {
            "get": {"Q1": [functools.partial(client.get, k) for k in vkeys]},
            "get_decode": {"Q1": [functools.partial(_get_decode, client, k) for k in vkeys]},
            "wikikv_q1": {"Q1": [functools.partial(eng.get, p) for p in work.pages]},
        }
        timed = time_interleaved(ops, cfg, ("Q1",))
    finally:
        client.close()
    return {"same_value": same} | {name: by_op["Q1"] for name, by_op in timed.items()}


def _get_decode(client: Any, key: bytes) -> object:
    return decode(client.get(key)[8:])


def _l1_lookup(engines: Sequence[Engine], plan: WikiPlan, cfg: Config) -> dict[str, Any]:
    """The cache lookup alone (backend.get of root/dim keys, no decode) per cached engine."""
    out: dict[str, Any] = {}
    for e in engines:
        if not e.name.endswith(CACHED):
            continue
        backend = e.store.backend  # type: ignore[attr-defined]
        keys = [e.kb.keys.node(p) for p in _root_dims(plan)]  # type: ignore[attr-defined]
        ops = [functools.partial(backend.get, k) for k in keys]
        out[e.name] = report.summarize(report.time_ops(ops, cfg.ops, cfg.warmup))
    return out


def _shown(url: str) -> str:
    return url.split("@")[-1] if "@" in url else url


def engine_targets(res: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    results = res["results"]
    for name in results:
        if name.endswith(CACHED):
            p50 = results[name][ROOT_DIM]["p50"]
            out.append(
                {
                    "target": f"{name} root/dim get p50 <= {ROOT_DIM_TARGET_US:g} us (decoded)",
                    "measured": p50,
                    "met": p50 <= ROOT_DIM_TARGET_US,
                }
            )
    for name, s in res["floors"].get("l1_lookup", {}).items():
        out.append(
            {
                "target": f"{name} root/dim L1 lookup p50 <= {ROOT_DIM_TARGET_US:g} us (raw item)",
                "measured": s["p50"],
                "met": s["p50"] <= ROOT_DIM_TARGET_US,
            }
        )
    bare = res["floors"].get("redis_get")
    if bare and "redis" in results:
        ratio = round(bare["wikikv_q1"]["p50"] / bare["get"]["p50"], 2)
        out.append(
            {
                "target": f"redis Q1 p50 <= {REDIS_RATIO_TARGET:g}x bare redis-py GET"
                " (interleaved pair)",
                "measured": ratio,
                "met": ratio <= REDIS_RATIO_TARGET,
            }
        )
    return out


# ======================================================================= run
@dataclasses.dataclass(frozen=True)
class Plan:
    """Which modes :func:`run` runs, and their sizes."""

    engines: Config | None = Config()
    servers: tuple[str, ...] = SERVER_BACKENDS
    concurrent_sizes: tuple[int, ...] = (2_000, 200_000)
    readers: tuple[int, ...] = (1, 2, 4)
    seconds: float = 3.0
    staleness_writes: int = 100
    build_nodes: int = 20_000
    build_server_nodes: int = 2_000
    build_workers: tuple[int, ...] = (1, 2, 4)
    build_backends: tuple[str, ...] = ("lmdb", "cluster")
    urls: ServerURLs = ServerURLs()


def run(plan: Plan, workdir: Path | None, log: Log) -> dict[str, Any]:
    """Run the modes ``plan`` asks for; returns the JSON-ready result."""
    from wikikv.bench import scaleout_procs as procs
    from wikikv.bench import scaleout_writers as writers

    own = workdir is None
    base = Path(tempfile.mkdtemp(prefix="wikikv-scaleout-")) if workdir is None else workdir
    started = time.perf_counter()
    out: dict[str, Any] = {"benchmark": "scaleout", "machine": report.machine_info()}
    # Server URLs may carry credentials: the result names the servers used, not how to log in.
    out["plan"] = {k: v for k, v in dataclasses.asdict(plan).items() if k != "urls"}
    modes: list[tuple[str, Callable[[], dict[str, Any]]]] = []
    if plan.engines is not None:
        cfg = plan.engines
        modes.append(
            (
                "engines",
                lambda: run_engines(
                    cfg, base / "engines", log, EngineRun(plan.servers, urls=plan.urls)
                ),
            )
        )
    if plan.concurrent_sizes:
        modes.append(
            (
                "concurrent",
                lambda: procs.run_concurrent(
                    plan.concurrent_sizes,
                    plan.readers,
                    plan.seconds,
                    base / "concurrent",
                    log,
                    plan.urls.url("redis"),
                ),
            )
        )
    if plan.staleness_writes:
        modes.append(
            (
                "staleness",
                lambda: writers.run_staleness(
                    plan.staleness_writes, base / "staleness", log, plan.urls.url("redis")
                ),
            )
        )
    if plan.build_workers:
        sizes = {
            b: plan.build_nodes if b == "lmdb" else plan.build_server_nodes
            for b in plan.build_backends
        }
        modes.append(
            (
                "build",
                lambda: writers.run_build(
                    sizes, plan.build_workers, base / "build", log, plan.urls
                ),
            )
        )
    errors: dict[str, str] = {}
    try:
        for name, mode in modes:
            shutil.rmtree(base / name, ignore_errors=True)  # a rerun in --workdir starts afresh
            (base / name).mkdir(parents=True)
            try:
                out[name] = mode()
            except Exception as exc:  # noqa: BLE001 - keep the other modes' results; reported
                log(f"{name}: FAILED: {exc}")
                errors[name] = f"{type(exc).__name__}: {exc}"
    finally:
        if own:
            shutil.rmtree(base, ignore_errors=True)
    out["errors"] = errors
    out["targets"] = (
        out.get("engines", {}).get("targets", [])
        + out.get("concurrent", {}).get("targets", [])
        + out.get("staleness", {}).get("targets", [])
    )
    out["same_results"] = out.get("engines", {}).get("cross_check", {}).get("same_results", True)
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


# ==================================================================== output
def print_result(result: dict[str, Any], console: Console | None = None) -> None:
    from wikikv.bench import scaleout_procs as procs
    from wikikv.bench import scaleout_writers as writers

    con = console or Console()
    if "engines" in result:
        print_engines(result["engines"], con)
    if "concurrent" in result:
        procs.print_concurrent(result["concurrent"], con)
    if "staleness" in result:
        writers.print_staleness(result["staleness"], con)
    if "build" in result:
        writers.print_build(result["build"], con)
    report.print_table(
        "Scale-out targets",
        ["target", "measured", "met"],
        [
            [t["target"], _fmt(t["measured"]), "yes" if t["met"] else "NO"]
            for t in result["targets"]
        ],
        con,
    )
    for mode, error in result.get("errors", {}).items():
        con.print(f"[red]mode {mode} failed: {error}[/red]")
    load = result["machine"]["loadavg"]
    con.print(
        f"machine: {result['machine']['cpus']} cpus, load average {load[0]:.1f} at the start "
        "(shared with other engineers' runs: latencies are noisy)"
    )


def print_engines(res: dict[str, Any], con: Console) -> None:
    wiki = res["wiki"]
    rows = []
    for engine in res["engines"]:
        by_op = res["results"][engine]
        rows.append(
            [engine]
            + [f"{by_op[op]['p50']:.1f} / {by_op[op]['p95']:.1f} / {by_op[op]['p99']:.1f}"
               for op in res["operators"]]
        )  # fmt: skip
    report.print_table(
        f"Engines: p50 / p95 / p99 us ({wiki['nodes']:,} nodes, Q2 ~{wiki['q2_children_mean']:g}"
        f" children, Q4 ~{wiki['q4_results_mean']:g} results; '+cache' = L1 in process + L2"
        " Redis)",
        ["engine", *res["operators"]],
        rows,
        con,
    )
    floors = []
    bare = res["floors"].get("redis_get")
    if bare:
        floors.append(["bare redis-py GET (Q1 values)", bare["get"]["p50"], bare["get"]["p99"]])
        floors.append(["bare GET + decode", bare["get_decode"]["p50"], bare["get_decode"]["p99"]])
        floors.append(
            ["WikiKV Q1 on Redis (same rounds)", bare["wikikv_q1"]["p50"], bare["wikikv_q1"]["p99"]]
        )
    for name, s in res["floors"].get("l1_lookup", {}).items():
        floors.append([f"{name} root/dim L1 lookup (raw)", s["p50"], s["p99"]])
    report.print_table("Floors, us", ["what", "p50", "p99"], floors, con)
    report.print_table(
        "Bulk load",
        ["engine", "loader", "records", "seconds", "records/s"],
        [
            [e, b.get("loader", "-"), b["records"], b["seconds"], b["records_per_s"]]
            for e, b in res["bulk_load"].items()
        ],
        con,
    )
    check = res["cross_check"]
    con.print(
        f"cross-check: {'same records on every engine' if check['same_results'] else 'MISMATCH'}"
        f" ({check['ops_checked']} operations compared)"
    )


def _fmt(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v:g}" for k, v in value.items())
    return f"{value:g}" if isinstance(value, float) else str(value)
