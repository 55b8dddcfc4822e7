"""The storage operator benchmark (the WikiKV paper's Table II), run side by side on WikiKV, a
plain file-system layout and SQLite, with bare LMDB reads as the floor.

Operators, each over ``ops`` timed operations after ``warmup`` untimed ones, cycling through 100
sampled targets:

* Q1 get — a page by path, decoded;
* Q2 ls — a directory of about 180 children, the decoded listing;
* Q3 descent along a known path — list the root, the dimension (and the part, in routed wikis)
  and read the entity page;
* Q4 prefix — the paths under a textual prefix selecting twelve pages.

Engines are timed in interleaved rounds so that load from other processes on a shared machine
falls on all of them alike, with the garbage collector paused while timing. Before timing, every
engine's answer to every target is compared with WikiKV's (records with the engine-assigned
version and timestamps blanked): the benchmark only counts engines doing the same work.

``run_scale`` repeats Q1, Q2, Q4 and the bulk load on WikiKV at larger sizes, and grows one
directory to 100,000 children to check paged listings and report their first-page latency.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from rich.console import Console

from wikikv.bench import report
from wikikv.bench.engines import (
    Engine,
    FSEngine,
    RawLMDBEngine,
    SQLiteEngine,
    WikiKVEngine,
)
from wikikv.bench.wikigen import MEDIUM_NODES, Node, WikiPlan
from wikikv.errors import ConfigError
from wikikv.store.listing import Listing
from wikikv.store.records import DirMeta, DirRecord, FileRecord

OPERATORS = ("Q1", "Q2", "Q3", "Q4")
ENGINES = ("wikikv", "fs", "sqlite", "lmdb-raw")
FLOOR = "lmdb-raw"
TARGETS_US = {"Q1": 8.0, "Q2": 20.0, "Q3": 40.0, "Q4": 20.0}
BULK_TARGET = 20_000.0
SCALE_SIZES = (200_000, 1_000_000)
BIG_DIR_CHILDREN = 100_000
LOAD_CHUNK = 20_000
_canon_enc = msgspec.msgpack.Encoder()


@dataclass(frozen=True)
class Config:
    nodes: int = MEDIUM_NODES
    ops: int = 1000
    warmup: int = 200
    targets: int = 100
    rounds: int = 5
    seed: int = 7


QUICK = Config(nodes=400, ops=60, warmup=20, targets=20, rounds=2)


# ================================================================ workloads
@dataclass
class Workload:
    """The sampled targets of each operator."""

    pages: list[str]
    dirs: list[str]
    descents: list[tuple[list[str], str]]
    prefixes: list[str]

    @classmethod
    def from_plan(cls, plan: WikiPlan, count: int) -> Workload:
        return cls(
            plan.page_paths(count),
            plan.listing_dirs(count),
            plan.descents(count),
            plan.prefixes(count),
        )


def engine_ops(engine: Engine, work: Workload) -> dict[str, list[Callable[[], object]]]:
    p = functools.partial
    return {
        "Q1": [p(engine.get, t) for t in work.pages],
        "Q2": [p(engine.ls, t) for t in work.dirs],
        "Q3": [p(engine.descend, chain, page) for chain, page in work.descents],
        "Q4": [p(engine.prefix, t) for t in work.prefixes],
    }


def floor_ops(raw: RawLMDBEngine, work: Workload) -> dict[str, list[Callable[[], object]]]:
    """The same targets as bare LMDB reads of keys computed here, outside the timed region."""
    keys = raw.keys
    p = functools.partial
    return {
        "Q1": [p(raw.get_key, keys.node(t)) for t in work.pages],
        "Q2": [p(raw.get_key, keys.node(t)) for t in work.dirs],
        "Q3": [
            p(raw.get_keys, [keys.node(d) for d in chain] + [keys.node(page)])
            for chain, page in work.descents
        ],
        "Q4": [p(raw.scan, keys.path_range(t)) for t in work.prefixes],
    }


# ============================================================ cross-check
def canon(result: object) -> object:
    """A comparable form of an operator's result: engine-assigned versions and times blanked."""
    if isinstance(result, FileRecord):
        meta = msgspec.structs.replace(result.meta, version=0, updated_at=0.0)
        return msgspec.structs.replace(result, meta=meta)
    if isinstance(result, DirRecord):
        return msgspec.structs.replace(result, meta=DirMeta())
    if isinstance(result, Listing):
        return [result.path, canon(result.record), result.sub_dirs, result.files]
    if isinstance(result, (list, tuple)):
        return [canon(x) for x in result]
    return result


def fingerprint(result: object) -> str:
    return hashlib.blake2b(_canon_enc.encode(canon(result)), digest_size=12).hexdigest()


def cross_check(
    ops: dict[str, dict[str, list[Callable[[], object]]]], reference: str = "wikikv"
) -> dict[str, Any]:
    """Run each target once on every engine and compare the decoded results with WikiKV's."""
    mismatches: list[dict[str, Any]] = []
    checked = 0
    sizes: dict[str, float] = {}
    for op in OPERATORS:
        results = [f() for f in ops[reference][op]]
        ref = [fingerprint(r) for r in results]
        if op == "Q1" and any(r is None for r in results):
            mismatches.append({"engine": reference, "operator": op, "target": "missing page"})
        if op in ("Q2", "Q4"):
            key = "q2_children_mean" if op == "Q2" else "q4_results_mean"
            sizes[key] = _mean(len(r) for r in results)  # type: ignore[arg-type]
        for name, by_op in ops.items():
            if name in (reference, FLOOR):
                continue
            for i, f in enumerate(by_op[op]):
                checked += 1
                if fingerprint(f()) != ref[i]:
                    mismatches.append({"engine": name, "operator": op, "target": i})
    return {
        "same_results": not mismatches,
        "ops_checked": checked,
        "mismatches": mismatches[:20],
        **sizes,
    }


def _mean(values: Iterable[int]) -> float:
    vals = list(values)
    return round(sum(vals) / len(vals), 2) if vals else 0.0


# ================================================================= timing
def time_interleaved(
    ops: dict[str, dict[str, list[Callable[[], object]]]],
    cfg: Config,
    operators: Sequence[str] = OPERATORS,
) -> dict[str, dict[str, dict[str, float]]]:
    """Per engine and operator: the warm-up once, then ``cfg.ops`` timed operations split over
    ``cfg.rounds`` rounds that alternate between engines."""
    samples: dict[str, dict[str, list[int]]] = {e: {op: [] for op in operators} for e in ops}
    per_round = max(1, cfg.ops // cfg.rounds)
    gc.collect()
    gc.disable()
    try:
        for op in operators:
            for name in ops:
                report.time_ops(ops[name][op], 0, cfg.warmup)
            for r in range(cfg.rounds):
                n = per_round if r < cfg.rounds - 1 else cfg.ops - per_round * (cfg.rounds - 1)
                for name in ops:
                    funcs = ops[name][op]
                    shift = (r * per_round) % len(funcs)
                    samples[name][op].extend(report.time_ops(funcs[shift:] + funcs[:shift], n, 0))
    finally:
        gc.enable()
    return {e: {op: report.summarize(s) for op, s in per.items()} for e, per in samples.items()}


def chunks(nodes: Iterable[Node], size: int) -> Iterator[list[Node]]:
    buf: list[Node] = []
    for node in nodes:
        buf.append(node)
        if len(buf) >= size:
            yield buf
            buf = []
    if buf:
        yield buf


def timed_load(engine: Engine, plan: WikiPlan, cached: Sequence[Node] | None) -> dict[str, Any]:
    """Load the wiki into ``engine``; generation happens outside the timed region. Reports wall
    time and this process's CPU time (user + system: steadier than wall time on a shared
    machine, where the wall clock also counts waiting for the disk and for other processes)."""
    seconds = cpu = 0.0
    source: Iterable[list[Node]] = (
        [list(cached)] if cached is not None else chunks(plan.nodes(), LOAD_CHUNK)
    )
    count = 0
    for chunk in source:
        t0, c0 = time.perf_counter(), time.process_time()
        engine.load(chunk)
        seconds += time.perf_counter() - t0
        cpu += time.process_time() - c0
        count += len(chunk)
    t0, c0 = time.perf_counter(), time.process_time()
    engine.finish_load()
    seconds += time.perf_counter() - t0
    cpu += time.process_time() - c0
    return {
        "records": count,
        "seconds": round(seconds, 3),
        "records_per_s": round(count / seconds, 1) if seconds else 0.0,
        "cpu_seconds": round(cpu, 3),
        "records_per_cpu_s": round(count / cpu, 1) if cpu else 0.0,
    }


# ==================================================================== run
def run(cfg: Config = Config(), workdir: Path | None = None) -> dict[str, Any]:
    """The side-by-side comparison on one generated wiki; returns the JSON-ready result."""
    own = workdir is None
    base = Path(tempfile.mkdtemp(prefix="wikikv-bench-")) if workdir is None else workdir
    if not own and base.exists() and any(base.iterdir()):
        raise ConfigError(f"benchmark directory {base} is not empty (the engines load afresh)")
    started = time.perf_counter()
    plan = WikiPlan(cfg.nodes, cfg.seed)
    nodes = list(plan.nodes())
    work = Workload.from_plan(plan, cfg.targets)
    wikikv = WikiKVEngine(base / "wikikv")
    engines: list[Engine] = [wikikv, FSEngine(base / "fs"), SQLiteEngine(base / "sqlite")]
    try:
        bulk = {e.name: timed_load(e, plan, nodes) for e in engines}
        bulk["wikikv"]["loader"] = wikikv.loader
        ops = {e.name: engine_ops(e, work) for e in engines}
        ops[FLOOR] = floor_ops(RawLMDBEngine(wikikv), work)
        check = cross_check(ops)
        results = time_interleaved(ops, cfg)
    finally:
        for e in engines:
            e.close()
        if own:
            shutil.rmtree(base, ignore_errors=True)
    out: dict[str, Any] = {
        "benchmark": "storage",
        "machine": report.machine_info(),
        "config": dataclasses.asdict(cfg),
        "wiki": wiki_info(plan, nodes) | {k: v for k, v in check.items() if k.startswith("q")},
        "engines": list(ENGINES),
        "operators": list(OPERATORS),
        "results": results,
        "bulk_load": bulk,
        "cross_check": {k: v for k, v in check.items() if not k.startswith("q")},
    }
    out["targets"] = check_targets(out)
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def wiki_info(plan: WikiPlan, nodes: Sequence[Node]) -> dict[str, Any]:
    pages = [len(n.text.encode("utf-8")) for n in nodes if not n.is_dir]
    return {
        "nodes": len(nodes),
        "dirs": len(nodes) - len(pages),
        "pages": len(pages),
        "page_bytes_min": min(pages),
        "page_bytes_mean": round(sum(pages) / len(pages)),
        "page_bytes_max": max(pages),
        "dimensions": len(plan.dims),
    }


def check_targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The targets of the storage issue, each with what was measured and whether it was met."""
    res = result["results"]
    out: list[dict[str, Any]] = []
    for op, limit in TARGETS_US.items():
        p50 = res["wikikv"][op]["p50"]
        out.append({"target": f"{op} p50 <= {limit:g} us", "measured": p50, "met": p50 <= limit})
        others = {e: res[e][op]["p50"] for e in ("fs", "sqlite")}
        out.append(
            {
                "target": f"{op} faster than fs and sqlite",
                "measured": others,
                "met": all(p50 < v for v in others.values()),
            }
        )
    rate = result["bulk_load"]["wikikv"]["records_per_s"]
    out.append(
        {
            "target": f"bulk load >= {BULK_TARGET:,.0f} rec/s",
            "measured": rate,
            "met": rate >= BULK_TARGET,
        }
    )
    return out


# ================================================================== output
def print_result(result: dict[str, Any], console: Console | None = None) -> None:
    """The latency table (engines side by side per operator), the bulk loads and the targets."""
    con = console or Console()
    res = result["results"]
    wiki = result["wiki"]
    rows = []
    for op in result["operators"]:
        for engine in result["engines"]:
            s = res[engine][op]
            rows.append([f"{op} {engine}", s["p50"], s["p95"], s["p99"], s["count"]])
    report.print_table(
        f"Storage operators, us ({wiki['nodes']:,} nodes; Q2 ~{wiki['q2_children_mean']:g} "
        f"children, Q4 ~{wiki['q4_results_mean']:g} results)",
        ["operator / engine", "p50", "p95", "p99", "ops"],
        rows,
        con,
    )
    bulk = result["bulk_load"]
    report.print_table(
        "Bulk load",
        ["engine", "records", "seconds", "records/s"],
        [[e, b["records"], b["seconds"], b["records_per_s"]] for e, b in bulk.items()],
        con,
    )
    check = result["cross_check"]
    con.print(
        f"cross-check: {'same records on every engine' if check['same_results'] else 'MISMATCH'}"
        f" ({check['ops_checked']} operations compared)"
    )
    report.print_table(
        "Targets",
        ["target", "measured", "met"],
        [
            [t["target"], _measured(t["measured"]), "yes" if t["met"] else "NO"]
            for t in result["targets"]
        ],
        con,
    )
    scale = result.get("scale")
    if scale:
        print_scale(scale, con)


def print_scale(scale: dict[str, Any], con: Console) -> None:
    rows = []
    for size, r in scale["sizes"].items():
        w = r["results"]["wikikv"]
        ratio = scale["p50_ratio_to_medium"][size]
        rows.append(
            [
                f"{int(size):,}",
                *(w[op]["p50"] for op in ("Q1", "Q2", "Q4")),
                " ".join(f"{op} {ratio[op]:g}x" for op in ratio),
                r["bulk_load"]["records_per_s"],
                r["bulk_load"].get("records_per_cpu_s", "-"),
                r["seconds"],
            ]
        )
    report.print_table(
        "Scale (WikiKV p50 us)",
        ["nodes", "Q1", "Q2", "Q4", "p50 / medium", "load rec/s", "load rec/cpu-s", "seconds"],
        rows,
        con,
    )
    big = scale["big_dir"]
    con.print(
        f"big directory: {big['children']:,} children over {big['pages']} pages, "
        f"{'each listed exactly once' if big['ok'] else 'LISTING CHECK FAILED'}; largest record "
        f"{big['record_bytes_max']:,} bytes; first page p50 {big['first_page']['p50']:.1f} us, "
        f"p99 {big['first_page']['p99']:.1f} us; scale mode took {scale['seconds']:.0f} s"
    )


def _measured(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v:g}" for k, v in value.items())
    return f"{value:g}" if isinstance(value, float) else str(value)
