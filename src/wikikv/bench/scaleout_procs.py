"""The concurrent-readers mode of the scale-out benchmark (and the process helpers the
staleness and build modes in :mod:`wikikv.bench.scaleout_writers` share).

* **Concurrent readers.** For each wiki size an LMDB store is bulk-loaded (the storage
  benchmark's generator and loader); then N reader processes (spawned, so each is a fresh
  interpreter) read Zipf-distributed paths for a fixed time, with the cache tiers off, L1 only
  (the embedded default: pinned root and dimensions, the audit follower) and L1 + the Redis L2. Popularity follows depth — the root, then dimensions and other directories,
  then the pages in a fixed shuffled order — and rank ``r`` is drawn with probability ~ 1/r. The
  draws (a fixed number of path strings, the same for every size) are written to a file, so a
  reader holds nothing proportional to the corpus. Latencies go into a fixed-size histogram.
  After its run each reader reports its memory from ``/proc/self/smaps_rollup``: anonymous
  (private, non-file-backed) memory, and separately the resident pages of LMDB's file mapping,
  which belong to the page cache.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing as mp
import os
import random
import shutil
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from wikikv.bench import report
from wikikv.bench.engines import WikiKVEngine
from wikikv.bench.engines_server import (
    delete_redis_pattern,
    new_tag,
)
from wikikv.bench.storage import timed_load
from wikikv.bench.wikigen import WikiPlan
from wikikv.config import CacheSettings
from wikikv.errors import BenchProcessError
from wikikv.library import open_store

Log = Callable[[str], None]
DRAWS = 20_000
WARM_OPS = 2_000
BUCKET_NS = 100
BUCKETS = 200_000  # 100 ns buckets up to 20 ms; slower operations land in the last one
MEMORY_RATIO_TARGET = 1.2
PROC_TIMEOUT_S = 600.0
# off: straight to LMDB; L1: the embedded default (L1 pinned, AuditFollower); L1+L2: and Redis L2
CACHE_MODES = ("off", "L1", "L1+L2")
ctx = mp.get_context("spawn")


# ================================================================ helpers
def smaps_memory(mapped_file: str | None = None) -> dict[str, int]:
    """This process's memory in kB: smaps_rollup totals, and the resident pages of the mapping of
    ``mapped_file`` (file-backed, page cache) when given."""
    out: dict[str, int] = {}
    try:
        with open("/proc/self/smaps_rollup", encoding="ascii") as fh:
            for line in fh:
                name, _, rest = line.partition(":")
                if rest.strip().endswith("kB"):
                    out[name] = int(rest.split()[0])
    except OSError:
        return {}
    mem = {
        "rss_kb": out.get("Rss", 0),
        "anonymous_kb": out.get("Anonymous", 0),
        "private_dirty_kb": out.get("Private_Dirty", 0),
        "private_clean_kb": out.get("Private_Clean", 0),
    }
    if mapped_file:
        mem["mapped_file_rss_kb"] = _mapping_rss(mapped_file)
    return mem


def _mapping_rss(path: str) -> int:
    total = 0
    inside = False
    with open("/proc/self/smaps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            head = line.split(maxsplit=5)
            if head and not head[0].endswith(":"):  # a mapping's header line
                inside = len(head) == 6 and head[5].strip() == path
            elif inside and head[0] == "Rss:":
                total += int(head[1])
    return total


def hist_percentiles(hist: dict[int, int]) -> dict[str, float]:
    """p50/p99/max in microseconds from a {bucket: count} histogram of BUCKET_NS buckets."""
    total = sum(hist.values())
    out: dict[str, float] = {"count": float(total)}
    if not total:
        return out | {"p50": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(hist.items())
    for pct in (50, 99):
        rank = max(1, math.ceil(pct / 100 * total))
        seen = 0
        for bucket, count in ordered:
            seen += count
            if seen >= rank:
                out[f"p{pct}"] = round((bucket + 1) * BUCKET_NS / 1000, 2)
                break
    out["max"] = round((ordered[-1][0] + 1) * BUCKET_NS / 1000, 2)
    return out


def zipf_draws(plan: WikiPlan, count: int, seed: int) -> list[str]:
    """``count`` paths drawn with P(rank r) ~ 1/r; directories by depth first, then pages."""
    dirs: list[str] = []
    pages: list[str] = []
    for node in plan.nodes(with_text=False):
        (dirs if node.is_dir else pages).append(node.path)
    dirs.sort(key=lambda p: p.count("/") - (p == "/"))
    random.Random(seed).shuffle(pages)
    ranked = dirs + pages
    n = len(ranked)
    rng = random.Random(seed + 1)
    return [ranked[min(n, int(n ** rng.random())) - 1] for _ in range(count)]


def collect(procs: Sequence[Any], queue: Any, count: int) -> list[dict[str, Any]]:
    """The results of ``count`` worker processes; raises if one fails or dies without one."""
    import queue as queue_mod

    results: list[dict[str, Any]] = []
    deadline = time.monotonic() + PROC_TIMEOUT_S
    try:
        while len(results) < count:
            try:
                got = queue.get(timeout=1.0)
            except queue_mod.Empty:
                dead = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
                if dead or time.monotonic() > deadline:
                    raise BenchProcessError(
                        f"benchmark worker died (exit codes {dead}) or timed out"
                    ) from None
                continue
            if "error" in got:
                raise BenchProcessError(f"benchmark worker failed: {got['error']}")
            results.append(got)
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.terminate()
                p.join()
    return results


# ============================================================ concurrent
@dataclass(frozen=True)
class ReaderSpec:
    url: str
    kb: str
    cache: str  # one of CACHE_MODES
    l2_url: str
    draws_file: str
    offset: int
    seconds: float
    mapped_file: str


def _reader(spec: ReaderSpec, barrier: Any, queue: Any) -> None:
    try:
        queue.put(_read(spec, barrier))
    except BaseException as exc:  # noqa: BLE001 - report any failure to the parent, then exit
        queue.put({"error": f"{type(exc).__name__}: {exc}"})


def _read(spec: ReaderSpec, barrier: Any) -> dict[str, Any]:
    from wikikv.cache.tiers import CachedBackend, CacheStats

    cache = {
        "off": None,
        "L1": CacheSettings(l1=True),
        "L1+L2": CacheSettings(l1=True, l2_url=spec.l2_url),
    }[spec.cache]
    store = open_store(spec.url, cache=cache, search=False)
    try:
        kb = store.kb(spec.kb)
        with open(spec.draws_file, encoding="utf-8") as fh:
            draws = fh.read().split("\n")
        n = len(draws)
        get = kb.get
        for i in range(WARM_OPS):
            get(draws[(spec.offset + i) % n])
        backend = store.backend
        if isinstance(backend, CachedBackend):
            backend.stats = CacheStats()
        hist = array("Q", bytes(8 * BUCKETS))
        last = BUCKETS - 1
        clock = time.perf_counter_ns
        barrier.wait(timeout=PROC_TIMEOUT_S)
        start = clock()
        deadline = start + int(spec.seconds * 1e9)
        i = spec.offset % n
        ops = 0
        while True:
            t0 = clock()
            get(draws[i])
            t1 = clock()
            b = (t1 - t0) // BUCKET_NS
            hist[b if b < last else last] += 1
            ops += 1
            i = i + 1 if i + 1 < n else 0
            if t1 >= deadline:
                break
        elapsed = (clock() - start) / 1e9
        out: dict[str, Any] = {
            "ops": ops,
            "seconds": round(elapsed, 3),
            "ops_per_s": round(ops / elapsed, 1),
            "hist": {i: c for i, c in enumerate(hist) if c},
            "memory": smaps_memory(spec.mapped_file),
        }
        if isinstance(backend, CachedBackend):
            out["cache"] = backend.stats.to_dict()
        return out
    finally:
        store.close()


def run_readers(spec: ReaderSpec, n: int) -> dict[str, Any]:
    barrier = ctx.Barrier(n)
    queue = ctx.Queue()
    procs = [
        ctx.Process(
            target=_reader,
            args=(dataclasses.replace(spec, offset=spec.offset + i * 4_999), barrier, queue),
        )
        for i in range(n)
    ]
    for p in procs:
        p.start()
    results = collect(procs, queue, n)
    hist: dict[int, int] = {}
    for r in results:
        for b, c in r.pop("hist").items():
            hist[b] = hist.get(b, 0) + c
    out: dict[str, Any] = {
        "readers": n,
        "ops_per_s": round(sum(r["ops_per_s"] for r in results), 1),
        "latency_us": hist_percentiles(hist),
        "memory_kb": results[0]["memory"],
        "memory_kb_max": {
            k: max(r["memory"].get(k, 0) for r in results) for k in results[0]["memory"]
        },
    }
    if "cache" in results[0]:
        keys = ("l1_hits", "l1_misses", "l2_hits", "l2_misses", "l3_reads")
        totals = {k: sum(r["cache"][k] for r in results) for k in keys}
        reads = totals["l1_hits"] + totals["l1_misses"]
        out["cache"] = totals | {
            "l1_hit_rate": _rate(totals["l1_hits"], totals["l1_misses"]),
            "l2_hit_rate": _rate(totals["l2_hits"], totals["l2_misses"]),
            "l3_share": round(totals["l3_reads"] / reads, 4) if reads else 0.0,
        }
    return out


def _rate(hits: int, misses: int) -> float:
    return round(hits / (hits + misses), 4) if hits + misses else 0.0


def run_concurrent(
    sizes: Sequence[int],
    readers: Sequence[int],
    seconds: float,
    workdir: Path,
    log: Log,
    l2_url: str,
) -> dict[str, Any]:
    """Readers on LMDB stores of growing size, with the cache tiers on and off (the shared L2
    on the Redis server at ``l2_url``)."""
    tag = new_tag()
    out: dict[str, Any] = {"sizes": {}, "seconds_per_run": seconds, "draws": DRAWS}
    workdir.mkdir(parents=True, exist_ok=True)
    for size in sizes:
        root = workdir / f"wiki-{size}"
        kb_name = f"so{tag}-{size}"
        plan = WikiPlan(size, 7)
        log(f"concurrent: loading {plan.n_nodes:,} nodes into LMDB")
        engine = WikiKVEngine(root, kb_name)
        try:
            bulk = timed_load(engine, plan, None)
        finally:
            engine.close()
        draws_file = workdir / f"draws-{size}.txt"
        draws_file.write_text("\n".join(zipf_draws(plan, DRAWS, 11)), encoding="utf-8")
        runs: dict[str, Any] = {}
        try:
            for mode in CACHE_MODES:
                for n in readers:
                    log(f"concurrent: {plan.n_nodes:,} nodes, {n} reader(s), cache {mode}")
                    spec = ReaderSpec(
                        f"lmdb://{root}",
                        kb_name,
                        mode,
                        l2_url,
                        str(draws_file),
                        0,
                        seconds,
                        str(root / "data.mdb"),
                    )
                    runs[f"cache {mode}, N={n}"] = run_readers(spec, n)
        finally:
            delete_redis_pattern(l2_url, f"wikikv:l2:{{{kb_name}}}:*")
            shutil.rmtree(root, ignore_errors=True)
        out["sizes"][str(plan.n_nodes)] = {"bulk_load": bulk, "runs": runs}
    out["cpus"] = os.cpu_count() or 1
    out["targets"] = concurrent_targets(out)
    return out


def concurrent_targets(res: dict[str, Any]) -> list[dict[str, Any]]:
    sizes = list(res["sizes"])
    if len(sizes) < 2:
        return []
    lo, hi = res["sizes"][sizes[0]]["runs"], res["sizes"][sizes[-1]]["runs"]
    out: list[dict[str, Any]] = []
    for mode in (f"cache {m}, N=1" for m in CACHE_MODES):
        if mode in lo and mode in hi:
            a = lo[mode]["memory_kb"]["anonymous_kb"]
            b = hi[mode]["memory_kb"]["anonymous_kb"]
            ratio = round(b / a, 3) if a else 0.0
            out.append(
                {
                    "target": f"reader anonymous memory {int(sizes[-1]):,} vs {int(sizes[0]):,}"
                    f" nodes <= {MEMORY_RATIO_TARGET:g}x ({mode})",
                    "measured": ratio,
                    "met": 0 < ratio <= MEMORY_RATIO_TARGET,
                }
            )
    return out


# ================================================================ output
def print_concurrent(res: dict[str, Any], con: Console) -> None:
    rows = []
    for size, by_size in res["sizes"].items():
        for name, r in by_size["runs"].items():
            c = r.get("cache", {})
            m = r["memory_kb"]
            rows.append(
                [
                    f"{int(size):,} / {name}",
                    r["ops_per_s"],
                    r["latency_us"]["p50"],
                    r["latency_us"]["p99"],
                    _pct(c.get("l1_hit_rate")),
                    _pct(c.get("l2_hit_rate")),
                    _pct(c.get("l3_share")),
                    round(m.get("anonymous_kb", 0) / 1024, 1),
                    round(m.get("mapped_file_rss_kb", 0) / 1024, 1),
                ]
            )
    report.print_table(
        f"Concurrent readers (Zipf kb.get on LMDB, {res['seconds_per_run']:g} s per run)",
        ["nodes / mode", "ops/s", "p50 us", "p99 us", "L1 hit", "L2 hit", "L3 share",
         "anon MiB", "lmdb map MiB"],
        rows,
        con,
    )  # fmt: skip
    cpus = res["cpus"]
    con.print(
        f"on {cpus} cores: N > {cpus} readers share the CPUs, so N=4 shows saturation, not"
        " scaling; anon MiB = one reader's private anonymous memory, lmdb map MiB = its"
        " resident LMDB pages (file-backed, page cache)"
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"
