"""The opt-in scale mode of the storage benchmark.

* Q1, Q2, Q4 and the bulk load on WikiKV at 200,000 and 1,000,000 nodes (directories kept within
  the fan-out bound by a routing level), with the bare LMDB floor beside them, and the ratio of
  each p50 to that of a medium (2,000-node) wiki's store timed in the same interleaved rounds;
* one directory grown to 100,000 children (spilling into continuation pages): every page is
  listed, each child must appear exactly once, every record stays within its size bound, and the
  first page's latency is timed.
"""

from __future__ import annotations

import collections
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from wikikv.bench import report
from wikikv.bench.engines import RawLMDBEngine, WikiKVEngine
from wikikv.bench.storage import (
    FLOOR,
    Config,
    Workload,
    engine_ops,
    floor_ops,
    time_interleaved,
    timed_load,
)
from wikikv.bench.wikigen import MEDIUM_NODES, Node, WikiPlan
from wikikv.store.backends.base import Item
from wikikv.store.records import FileMeta

SCALE_OPERATORS = ("Q1", "Q2", "Q4")
BIG_DIR = "/大目录"


REFERENCE = "wikikv@medium"


def run_sizes(
    sizes: Sequence[int], cfg: Config, workdir: Path, log: Callable[[str], None]
) -> dict[str, Any]:
    """WikiKV and the LMDB floor at each size: load rate and Q1, Q2, Q4 latencies. A medium
    wiki's store is timed in the same interleaved rounds, so the growth ratio compares numbers
    taken under the same machine load."""
    out: dict[str, Any] = {}
    medium_plan = WikiPlan(MEDIUM_NODES, cfg.seed)
    medium = WikiKVEngine(workdir / "scale-reference")
    try:
        timed_load(medium, medium_plan, None)
        medium_ops = engine_ops(medium, Workload.from_plan(medium_plan, cfg.targets))
        for size in sizes:
            out[str(size)] = _one_size(size, cfg, workdir, medium_ops, log)
    finally:
        medium.close()
        shutil.rmtree(workdir / "scale-reference", ignore_errors=True)
    return out


def _one_size(
    size: int,
    cfg: Config,
    workdir: Path,
    medium_ops: dict[str, list[Callable[[], object]]],
    log: Callable[[str], None],
) -> dict[str, Any]:
    root = workdir / f"scale-{size}"
    started = time.perf_counter()
    log(f"scale: generating and loading {size:,} nodes")
    plan = WikiPlan(size, cfg.seed)
    engine = WikiKVEngine(root)
    try:
        bulk = timed_load(engine, plan, None)
        bulk["loader"] = engine.loader
        log(f"scale: loaded {bulk['records']:,} records at {bulk['records_per_s']:,.0f}/s")
        work = Workload.from_plan(plan, cfg.targets)
        ops = {
            engine.name: engine_ops(engine, work),
            REFERENCE: medium_ops,
            FLOOR: floor_ops(RawLMDBEngine(engine), work),
        }
        check = _check(engine, work)
        results = time_interleaved(ops, cfg, SCALE_OPERATORS)
    finally:
        engine.close()
        shutil.rmtree(root, ignore_errors=True)
    return {
        "nodes": plan.n_nodes,
        "bulk_load": bulk,
        "results": results,
        "check": check,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _check(engine: WikiKVEngine, work: Workload) -> dict[str, Any]:
    """Every sampled page is found, listings hold about 180 children, prefixes twelve pages."""
    missing = sum(engine.get(p) is None for p in work.pages)
    children = [len(engine.ls(d)) for d in work.dirs]
    results = [len(engine.prefix(t)) for t in work.prefixes]
    return {
        "ok": missing == 0 and min(children) > 0 and min(results) > 0,
        "missing_pages": missing,
        "q2_children_mean": round(sum(children) / len(children), 1),
        "q4_results_mean": round(sum(results) / len(results), 1),
    }


def ratios(scale: dict[str, Any]) -> dict[str, dict[str, float]]:
    """WikiKV's p50 at each size divided by its p50 on the medium wiki timed beside it."""
    out: dict[str, dict[str, float]] = {}
    for size, res in scale.items():
        r = res["results"]
        out[size] = {
            op: round(r["wikikv"][op]["p50"] / r[REFERENCE][op]["p50"], 2) for op in SCALE_OPERATORS
        }
    return out


# ================================================================ big directory
def big_dir_nodes(children: int) -> Iterator[Node]:
    yield Node(BIG_DIR, True, "A directory that has grown before evolution splits it.")
    meta = FileMeta(kind="entity")
    for i in range(children):
        name = f"条目{i:06d}" if i % 2 else f"entry-{i:06d}"
        yield Node(f"{BIG_DIR}/{name}", False, f"# {name}\n\npage {i}", meta)


def run_big_dir(
    children: int, cfg: Config, workdir: Path, log: Callable[[str], None]
) -> dict[str, Any]:
    """Grow one directory to ``children`` entries, list it page by page and time page 0."""
    root = workdir / "big-dir"
    engine = WikiKVEngine(root)
    started = time.perf_counter()
    try:
        log(f"big directory: writing {children:,} children")
        t0 = time.perf_counter()
        engine.load(big_dir_nodes(children))
        engine.finish_load()
        load_s = time.perf_counter() - t0
        kb = engine.kb
        first = kb.ls(BIG_DIR)
        seen: collections.Counter[str] = collections.Counter()
        per_page: list[int] = []
        for page in range(first.pages):
            listing = kb.ls(BIG_DIR, page)
            per_page.append(len(listing))
            seen.update(listing.sub_dirs)
            seen.update(listing.files)
        expected = {n.path.rsplit("/", 1)[1] for n in big_dir_nodes(children) if not n.is_dir}
        dupes = sum(1 for c in seen.values() if c > 1)
        missing = len(expected - seen.keys())
        extra = len(seen.keys() - expected)
        sizes = _record_sizes(engine, first.pages)
        bound = kb.settings.dir_page_entries
        ok = (
            dupes == 0
            and missing == 0
            and extra == 0
            and max(per_page) <= bound
            and max(sizes) <= kb.settings.max_record_bytes
        )
        last = first.pages - 1
        ops: dict[str, dict[str, list[Callable[[], object]]]] = {
            "wikikv": {
                "first": [lambda: kb.ls(BIG_DIR)],
                "last": [lambda: kb.ls(BIG_DIR, last)],
            }
        }
        timing = time_interleaved(ops, cfg, ("first", "last"))["wikikv"]
    finally:
        engine.close()
        shutil.rmtree(root, ignore_errors=True)
    return {
        "ok": ok,
        "children": children,
        "pages": first.pages,
        "entries_per_page_max": max(per_page),
        "entries_per_page_bound": bound,
        "listed": sum(seen.values()),
        "duplicates": dupes,
        "missing": missing,
        "extra": extra,
        "record_bytes_max": max(sizes),
        "record_bytes_limit": kb.settings.max_record_bytes,
        "load_seconds": round(load_s, 1),
        "load_records_per_s": round((children + 1) / load_s, 1),
        "first_page": timing["first"],
        "last_page": timing["last"],
        "seconds": round(time.perf_counter() - started, 1),
    }


def _record_sizes(engine: WikiKVEngine, pages: int) -> list[int]:
    kb = engine.kb
    keys = [kb.keys.node(BIG_DIR)] + [kb.keys.dir_page(BIG_DIR, i) for i in range(1, pages)]
    items: list[Item | None] = kb.backend.get_many(keys)
    return [len(it.value) for it in items if it is not None]


def run_scale(
    cfg: Config,
    sizes: Sequence[int],
    big_children: int,
    workdir: Path | None = None,
    log: Callable[[str], None] = lambda _msg: None,
) -> dict[str, Any]:
    own = workdir is None
    base = Path(tempfile.mkdtemp(prefix="wikikv-scale-")) if workdir is None else workdir
    started = time.perf_counter()
    try:
        by_size = run_sizes(sizes, cfg, base, log)
        big = run_big_dir(big_children, cfg, base, log)
    finally:
        if own:
            shutil.rmtree(base, ignore_errors=True)
    return {
        "sizes": by_size,
        "p50_ratio_to_medium": ratios(by_size),
        "big_dir": big,
        "machine": report.machine_info(),
        "seconds": round(time.perf_counter() - started, 1),
    }
