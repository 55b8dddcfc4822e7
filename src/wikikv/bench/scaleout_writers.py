"""The writer-side modes of the scale-out benchmark: the staleness bound and parallel builds.

* **Staleness Δ.** A reader process with L1 pinned learns of a writer's commits (LMDB: the
  :class:`~wikikv.cache.invalidation.AuditFollower`; Redis: the
  :class:`~wikikv.cache.invalidation.RedisSubscriber`); its ``on_refresh`` callback stamps
  ``time.time_ns()`` (one clock for every process of the machine) and reads the refreshed entry
  to learn which write it reflects. Δ is measured from the writer's call returning (the commit
  acknowledged) and, as an upper bound, from the call starting.
* **Parallel builds.** 1, 2 and 4 worker processes each bulk-load their own kb (one kb per
  worker, no coordination) into one store; the aggregate rate is records over the wall time.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from wikikv.bench import report
from wikikv.bench.engines_server import (
    StoreEngine,
    cleanup,
    delete_redis_pattern,
    new_tag,
    private_url,
)
from wikikv.bench.scaleout_procs import PROC_TIMEOUT_S, Log, collect, ctx
from wikikv.bench.servers import NO_SERVERS, ServerURLs
from wikikv.bench.storage import timed_load
from wikikv.bench.wikigen import WikiPlan
from wikikv.config import CacheSettings
from wikikv.errors import BenchProcessError
from wikikv.library import open_store
from wikikv.store.records import decode

STALENESS_TARGET_MS = 50.0
WRITE_GAP_S = 0.02


# ============================================================= staleness
def _stale_reader(
    url: str, kb_name: str, l2_url: str | None, path: str, ready: Any, stop: Any, queue: Any
) -> None:
    try:
        cache = CacheSettings(l1=True, l2_url=l2_url, follow=True, follow_interval=0.005)
        store = open_store(url, cache=cache, search=False)
        try:
            kb = store.kb(kb_name)
            backend = store.backend
            key = kb.keys.node(path)
            seen: list[tuple[int, int]] = []

            def on_refresh(k: bytes, _stamp: float) -> None:
                t = time.time_ns()
                if k != key:
                    return
                item = backend.get(k)  # an L1 hit: the refreshed entry
                if item is not None:
                    text = getattr(decode(item.value), "text", "")
                    if text.startswith("probe "):
                        seen.append((int(text.split()[1]), t))

            backend.on_refresh = on_refresh  # type: ignore[attr-defined]
            ready.set()
            stop.wait(timeout=PROC_TIMEOUT_S)
            queue.put({"refreshes": seen})
        finally:
            store.close()
    except BaseException as exc:  # noqa: BLE001 - report any failure to the parent
        queue.put({"error": f"{type(exc).__name__}: {exc}"})


def measure_staleness(
    url: str, l2_url: str | None, writes: int, kb_name: str, log: Log
) -> dict[str, Any]:
    """Δ from a write in this process to the refreshed L1 entry in another one."""
    path = "/人物"
    writer_cache = CacheSettings(l1=False, l2_url=l2_url, follow=False) if l2_url else None
    store = open_store(url, cache=writer_cache, search=False)
    try:
        kb = store.create_kb(kb_name, exist_ok=True)
        kb.mkdir(path, "probe -1")
        ready, stop, queue = ctx.Event(), ctx.Event(), ctx.Queue()
        proc = ctx.Process(
            target=_stale_reader, args=(url, kb_name, l2_url, path, ready, stop, queue)
        )
        proc.start()
        if not ready.wait(timeout=120):
            proc.terminate()
            raise BenchProcessError("the staleness reader did not start")
        time.sleep(0.2)
        started: list[int] = []
        returned: list[int] = []
        for i in range(writes):
            started.append(time.time_ns())
            kb.set_dir_text(path, f"probe {i}")
            returned.append(time.time_ns())
            time.sleep(WRITE_GAP_S)
        time.sleep(0.3)
        stop.set()
        refreshes: list[tuple[int, int]] = collect([proc], queue, 1)[0]["refreshes"]
    finally:
        store.close()
    from_return: list[int] = []
    from_start: list[int] = []
    missed = 0
    for i in range(writes):
        later = [t for seq, t in refreshes if seq >= i]
        if not later:
            missed += 1
            continue
        first = min(later)
        from_return.append(first - returned[i])
        from_start.append(first - started[i])
    log(f"staleness: {len(from_return)} of {writes} writes seen refreshed")
    return {
        "writes": writes,
        "refreshed": len(from_return),
        "missed": missed,
        "delta_from_commit_ms": _ms(from_return),
        "delta_from_write_start_ms": _ms(from_start),
        "write_ms": _ms([r - s for s, r in zip(started, returned, strict=True)]),
    }


def _ms(samples_ns: Sequence[int]) -> dict[str, float]:
    s = report.summarize(samples_ns)
    return {k: round(s[k] / 1000.0, 3) for k in ("p50", "p99", "max")} | {"count": s["count"]}


def run_staleness(writes: int, workdir: Path, log: Log, redis_url: str) -> dict[str, Any]:
    tag = new_tag()
    out: dict[str, Any] = {}
    workdir.mkdir(parents=True, exist_ok=True)
    log("staleness: LMDB + AuditFollower")
    out["lmdb + AuditFollower (poll 5 ms)"] = measure_staleness(
        f"lmdb://{workdir / 'lmdb'}", None, writes, f"st{tag}", log
    )
    log("staleness: Redis + RedisSubscriber")
    url = private_url("redis", redis_url, tag)
    try:
        out["redis + RedisSubscriber (pub/sub)"] = measure_staleness(
            url, redis_url, writes, f"st{tag}", log
        )
    finally:
        cleanup(url)
        delete_redis_pattern(redis_url, f"wikikv:l2:{{st{tag}}}:*")
    targets = [
        {
            "target": f"staleness {name}: p99 <= {STALENESS_TARGET_MS:g} ms",
            "measured": r["delta_from_write_start_ms"]["p99"],
            "met": r["missed"] == 0
            and r["delta_from_write_start_ms"]["p99"] <= STALENESS_TARGET_MS,
        }
        for name, r in out.items()
    ]
    return {"modes": out, "targets": targets}


# ================================================================ builds
def _builder(url: str, kb_name: str, nodes: int, seed: int, barrier: Any, queue: Any) -> None:
    try:
        plan = WikiPlan(nodes, seed)
        cached = list(plan.nodes())
        engine = StoreEngine("build", url, kb_name)
        try:
            barrier.wait(timeout=PROC_TIMEOUT_S)
            t0 = time.time()
            load = timed_load(engine, plan, cached)
            queue.put(load | {"start": t0, "end": time.time()})
        finally:
            engine.close()
    except BaseException as exc:  # noqa: BLE001 - report any failure to the parent
        queue.put({"error": f"{type(exc).__name__}: {exc}"})


def run_build(
    nodes: dict[str, int],
    workers: Sequence[int],
    workdir: Path,
    log: Log,
    urls: ServerURLs = NO_SERVERS,
) -> dict[str, Any]:
    """Bulk-load one generated kb per worker process, 1/2/4 workers at once, into one store
    (LMDB under ``workdir``; a server backend at its URL in ``urls``)."""
    out: dict[str, Any] = {
        "method": "bulk load of generated wikis, kb.put per node in one lease, one kb per worker"
        " process (wikikv.compile has no parallel multi-kb build to measure yet)",
        "backends": {},
    }
    tag = new_tag()
    for count in nodes.values():
        WikiPlan(count)  # a size the generator cannot lay out fails here, before any process
    for backend, count in nodes.items():
        rows: dict[str, Any] = {}
        for n in workers:
            if backend == "lmdb":
                url = f"lmdb://{workdir / f'lmdb-{n}'}?sync=false"
            else:
                url = private_url(backend, urls.url(backend), f"{tag}{n}")
            log(f"build: {n} kb(s) of {count:,} nodes in parallel on {backend}")
            barrier, queue = ctx.Barrier(n), ctx.Queue()
            procs = [
                ctx.Process(target=_builder, args=(url, f"kb{i}", count, 7 + i, barrier, queue))
                for i in range(n)
            ]
            for p in procs:
                p.start()
            try:
                results = collect(procs, queue, n)
            finally:
                if backend == "lmdb":
                    shutil.rmtree(workdir / f"lmdb-{n}", ignore_errors=True)
                else:
                    cleanup(url)
            wall = max(r["end"] for r in results) - min(r["start"] for r in results)
            records = sum(r["records"] for r in results)
            rows[str(n)] = {
                "kbs": n,
                "records": records,
                "wall_s": round(wall, 2),
                "records_per_s": round(records / wall, 1) if wall else 0.0,
                "per_worker_records_per_s": [r["records_per_s"] for r in results],
            }
        out["backends"][backend] = rows
    return out


# ================================================================ output
def print_staleness(res: dict[str, Any], con: Console) -> None:
    rows = []
    for name, r in res["modes"].items():
        a, b = r["delta_from_commit_ms"], r["delta_from_write_start_ms"]
        rows.append(
            [name, f"{r['refreshed']}/{r['writes']}", a["p50"], a["p99"], b["p50"], b["p99"]]
        )
    report.print_table(
        "Staleness Δ, ms (write in one process -> refreshed L1 entry in another)",
        ["mode", "seen", "p50 commit", "p99 commit", "p50 start", "p99 start"],
        rows,
        con,
    )


def print_build(res: dict[str, Any], con: Console) -> None:
    rows = []
    for backend, by_n in res["backends"].items():
        base = by_n[next(iter(by_n))]["records_per_s"]
        for n, r in by_n.items():
            speedup = round(r["records_per_s"] / base, 2) if base else 0.0
            rows.append([f"{backend}, {n} kb(s)", r["records"], r["wall_s"], r["records_per_s"],
                         f"{speedup:g}x"])  # fmt: skip
    report.print_table(
        "Parallel builds (one kb per worker process)",
        ["backend / kbs", "records", "wall s", "records/s", "vs 1"],
        rows,
        con,
    )
    con.print(res["method"])
