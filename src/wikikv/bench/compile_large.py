"""The compile benchmark at scale: builds of a generated corpus of growing size
(:mod:`wikikv.bench.bigcorpus`: renamed copies of the 2Wiki 6k corpus), each in its own process.

Per size: documents, megabytes of text, build time and MB/s, peak resident memory of the building
process (``ru_maxrss``, which counts the store's mapped pages the process touched, and the peak of
its anonymous memory alone, sampled), store size, and incremental adds into the built wiki:
:data:`ADDS` new documents one after the other, then :data:`HUB_ADDS` that name the corpus's
most-named entity, each its own ``add`` as the CLI runs it (wall and CPU time, the median and
the slowest reported, the machine's load average beside them). Time per MB across the
sizes shows whether the build is linear.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import resource
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikikv.bench.bigcorpus import HUB_NAME, documents_naming, extra_documents, write_corpus

DEFAULT_COPIES = (9, 18, 36)  # ~25, ~50 and ~100 MB of text
ADDS = 5  # incremental adds timed after each build (the median is reported)
HUB_ADDS = 2  # and adds of documents naming the corpus's most-named entity (bigcorpus.HUB_NAME)


class _AnonPeak:
    """Samples this process's anonymous resident memory (what the heap holds, without the
    store's file-backed pages) every few milliseconds and keeps the peak; and, less often, the
    memory its worker processes hold privately (forked, they share the rest with it), and the
    peak of the whole build at one instant: this process's resident memory plus its workers'
    private memory, sampled together (the two peaks need not fall at the same time)."""

    def __init__(self) -> None:
        self.peak_kb = 0
        self.workers_peak_kb = 0
        self.tree_peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        tick = 0
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, _status_kb("RssAnon"))
            if tick % WORKER_SAMPLE_TICKS == 0:
                workers = _children_private_kb()
                self.workers_peak_kb = max(self.workers_peak_kb, workers)
                self.tree_peak_kb = max(self.tree_peak_kb, _status_kb("VmRSS") + workers)
            tick += 1
            self._stop.wait(0.02)

    def __enter__(self) -> _AnonPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


WORKER_SAMPLE_TICKS = 25  # every ~0.5 s: reading a forked child's page tables costs ms


def _children_private_kb() -> int:
    """The private memory (Private_Clean + Private_Dirty of smaps_rollup) of this process's
    children, summed: what the workers add to what they share with this process."""
    me = str(os.getpid())
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as fh:
                ppid = fh.read().rsplit(")", 1)[1].split()[1]
            if ppid != me:
                continue
            with open(f"/proc/{entry.name}/smaps_rollup", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith(("Private_Clean:", "Private_Dirty:")):
                        total += int(line.split()[1])
        except (OSError, IndexError, ValueError):  # gone meanwhile, or no smaps_rollup
            continue
    return total


def _status_kb(field: str) -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file())


def build_one(
    corpus: Path, text_bytes: int, extras: list[dict[str, str]], workdir: Path, index: bool
) -> dict[str, Any]:
    """Build ``corpus`` into a fresh LMDB store, then add ``extras`` one by one; measured in
    this process."""
    from wikikv.compile.analyze_workers import cpu_with_children
    from wikikv.compile.pipeline import Compiler
    from wikikv.quality.hooks import gated
    from wikikv.store.store import open_store

    store = open_store(f"lmdb://{workdir}?sync=false")
    kb = store.create_kb("large")
    options = gated(index=index)  # as `wikikv build`: the quality gate on
    with _AnonPeak() as anon:
        t, cpu = time.perf_counter(), cpu_with_children()
        report = Compiler(kb, options=options).build(corpus)
        elapsed, build_cpu = time.perf_counter() - t, cpu_with_children() - cpu
        store.backend.sync()
        build_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        build_anon = anon.peak_kb / 1024
        adds = [_add_one(kb, extra, workdir, i, options) for i, extra in enumerate(extras)]
    store.close()
    mb = text_bytes / 2**20
    first = adds[0] if adds else {}
    return {
        "documents": report.documents,
        "text_mb": round(mb, 1),
        "text_bytes": text_bytes,
        "entities": report.entities,
        "links": report.links,
        "facts": report.facts,
        "elapsed_s": round(elapsed, 1),
        "mb_per_s": round(mb / elapsed, 3) if elapsed else 0.0,
        "s_per_mb": round(elapsed / mb, 2) if mb else 0.0,
        # CPU seconds of the building process and of the analysis workers it forks: on a
        # shared machine wall time mostly measures the other jobs
        "cpu_s": round(build_cpu, 1),
        "mb_per_cpu_s": round(mb / build_cpu, 3) if build_cpu else 0.0,
        "cpu_s_per_mb": round(build_cpu / mb, 2) if mb else 0.0,
        "load_avg": [round(x, 1) for x in os.getloadavg()],
        "phases_s": {k: round(v, 1) for k, v in report.timings.items()},
        "cpu_by_part": cpu_by_part(report.timings, build_cpu),
        "peak_rss_mb": round(build_peak, 0),
        "peak_anon_mb": round(build_anon, 0),
        "peak_anon_with_add_mb": round(anon.peak_kb / 1024, 0),
        # the analysis and index workers' private memory at its peak (sampled every ~0.5 s)
        "peak_workers_private_mb": round(anon.workers_peak_kb / 1024, 0),
        # the build's processes together at one instant: what the machine must hold
        "peak_build_tree_mb": round(anon.tree_peak_kb / 1024, 0),
        "store_mb": round(_dir_size(workdir) / 2**20, 0),
        # the median of the adds, each a new document added on its own, and the slowest
        **_add_summary(adds),
        # records the first add read from the persisted model, by kind (empty: it derived all)
        "incremental_add_model_reads": first.get("model_reads", {}),
        "incremental_add_fallback": "; ".join(a["fallback"] for a in adds if a["fallback"]),
        "incremental_add_phases_s": first.get("phases_s", {}),
        "incremental_added": sum(a["added"] for a in adds),
    }


# The parts of a build's CPU (keys of CompileReport.timings), in the order they run.
CPU_PARTS = ("prepare", "analyse", "cold_start", "derive", "render", "index_merge", "quality")


def cpu_by_part(timings: dict[str, float], total: float) -> dict[str, float]:
    """Where a build's ``total`` CPU seconds went: each phase's (with the analysis workers),
    the index worker's over all phases, and what no phase holds (reading the corpus, the
    report's totals)."""
    out = {part: round(timings.get(part + "_cpu", 0.0), 1) for part in CPU_PARTS}
    out["index_worker"] = round(sum(timings.get(p + "_index_cpu", 0.0) for p in CPU_PARTS), 1)
    out["other"] = round(total - sum(out.values()), 1)
    return out


def _add_summary(adds: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "incremental_add_s": _median([a["wall_s"] for a in adds]),
        "incremental_add_cpu_s": _median([a["cpu_s"] for a in adds]),
        "incremental_add_max_s": max((a["wall_s"] for a in adds), default=0.0),
        "incremental_adds": adds,
    }


def _extras(source: Path, copies: int, limit: int | None) -> list[dict[str, str]]:
    """The documents the adds bring: the first :data:`ADDS` of copy ``copies`` and the next
    :data:`HUB_ADDS` of it that name :data:`~wikikv.bench.bigcorpus.HUB_NAME`."""
    return extra_documents(source, copies, ADDS, limit) + documents_naming(
        source, copies, HUB_NAME, HUB_ADDS, ADDS, limit
    )


def _add_one(kb: Any, extra: dict[str, str], workdir: Path, i: int, options: Any) -> dict[str, Any]:
    from wikikv.compile.pipeline import Compiler

    one = workdir.parent / f"{workdir.name}-add{i}.jsonl"
    one.write_text(json.dumps(extra, ensure_ascii=False) + "\n", encoding="utf-8")
    load = os.getloadavg()[0]
    t, cpu = time.perf_counter(), time.process_time()
    added = Compiler(kb, options=options).add(one)
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    one.unlink()  # scratch: beside a store --keep keeps, it would stay
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "load_1min": round(load, 1),
        "written": added.written,
        "added": added.analyzed,
        "names_hub": HUB_NAME in extra.get("text", ""),
        "fallback": added.model_fallback,
        "model_reads": added.model_reads,
        "phases_s": {k: round(v, 3) for k, v in added.timings.items()},
    }


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3) if values else 0.0


def _child(args: tuple[str, int, list[dict[str, str]], str, bool], queue: Any) -> None:
    corpus, size, extras, workdir, index = args
    try:
        queue.put(build_one(Path(corpus), size, extras, Path(workdir), index))
    except Exception as exc:  # noqa: BLE001 - reported as a failed row
        queue.put({"error": f"{type(exc).__name__}: {exc}"})


def run_large(
    source: Path,
    copies: list[int],
    index: bool = True,
    log: Callable[[str], None] | None = None,
    limit: int | None = None,
    keep: Path | None = None,
) -> dict[str, Any]:
    """Build the generated corpus (``copies`` of the JSONL corpus ``source``, its first ``limit``
    records each) at each number of copies, smallest first; ``keep``: keep the built stores
    there (after their adds)."""
    ctx = mp.get_context("fork")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="wikikv-large-") as tmp:
        for n in sorted(copies):
            stores = Path(tmp) if keep is None else keep
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                shutil.rmtree(keep / f"store-{n}", ignore_errors=True)
                about = {"source": str(source), "copies": n, "limit": limit, "index": index}
                (keep / f"store-{n}.json").write_text(json.dumps(about), encoding="utf-8")
            corpus = Path(tmp) / f"corpus-{n}.jsonl"
            size = write_corpus(source, n, corpus, limit)
            extras = _extras(source, n, limit)
            if log:
                log(f"large: {n} copies, {size / 2**20:.1f} MB of text: building ...")
            queue = ctx.Queue()
            args = (str(corpus), size, extras, str(stores / f"store-{n}"), index)
            proc = ctx.Process(target=_child, args=(args, queue))
            proc.start()
            row = {"copies": n, **queue.get()}
            proc.join()
            corpus.unlink()
            rows.append(row)
            if log and "error" not in row:
                log(
                    f"  {row['documents']} docs in {row['elapsed_s']} s ({row['mb_per_s']} MB/s), "
                    f"cpu {row['cpu_s']} s ({row['mb_per_cpu_s']} MB per cpu-s, "
                    f"{row['cpu_s_per_mb']} cpu-s/MB), load {row['load_avg'][0]}, "
                    f"peak {row['peak_rss_mb']:.0f} MB (anon {row['peak_anon_mb']:.0f}, "
                    f"workers' own {row['peak_workers_private_mb']:.0f}; "
                    f"all processes at once {row['peak_build_tree_mb']:.0f}), "
                    f"add (median of {len(row['incremental_adds'])}) {row['incremental_add_s']} s,"
                    f" slowest {row['incremental_add_max_s']} s"
                    f" (cpu {row['incremental_add_cpu_s']} s"
                    f"{', derived everything: ' + row['incremental_add_fallback'] if row['incremental_add_fallback'] else ''})"
                )
            elif log:
                log(f"  failed: {row['error']}")
    out: dict[str, Any] = {"source": source.name, "index": index, "cpus": os.cpu_count()}
    out["sizes"] = rows
    built = [r for r in rows if "error" not in r]
    if len(built) >= 2:
        out["fit"] = fit(built)
    return out


def sample_extras(
    source: Path, copies: int, sample: int, limit: int | None = None
) -> list[dict[str, str]]:
    """A wider sample than the benchmark's seven, after them in copy ``copies``: the next
    ``sample`` documents in order (plain adds, most naming no hub), then ``sample`` documents
    further on that name :data:`~wikikv.bench.bigcorpus.HUB_NAME`."""
    seen = {r["id"] for r in _extras(source, copies, limit)}
    plain = [r for r in extra_documents(source, copies, ADDS + 3 * sample, limit)[ADDS:]]
    plain = [r for r in plain if r["id"] not in seen][:sample]
    seen |= {r["id"] for r in plain}
    hub = documents_naming(source, copies, HUB_NAME, len(seen) + sample, ADDS, limit)
    return plain + [r for r in hub if r["id"] not in seen][:sample]


def sample_summary(adds: list[dict[str, Any]], bound_s: float = 0.5) -> dict[str, Any]:
    """Per class of add (naming the hub or not): how many, the median, 90th percentile and
    slowest wall and CPU time, and how many stayed within ``bound_s`` of wall time."""
    out: dict[str, Any] = {}
    for label, hub in (("plain", False), ("names_hub", True)):
        rows = [a for a in adds if a["names_hub"] is hub]
        if not rows:
            continue
        walls = sorted(a["wall_s"] for a in rows)
        cpus = sorted(a["cpu_s"] for a in rows)
        out[label] = {
            "adds": len(rows),
            "wall_median_s": _median(walls),
            "wall_p90_s": walls[min(len(walls) - 1, int(0.9 * len(walls)))],
            "wall_max_s": walls[-1],
            "cpu_median_s": _median(cpus),
            "cpu_max_s": cpus[-1],
            f"within_{bound_s}_s": sum(w <= bound_s for w in walls),
        }
    return out


def run_adds(kept: Path, work: Path, sample: int = 0) -> dict[str, Any]:
    """Copy the store ``kept`` (``<keep>/store-<copies>`` of :func:`run_large`) to ``work`` and
    time adds against the copy, one by one as the large benchmark does (:func:`_extras`), of
    the copy after the next (the benchmark's own adds, of the next, are in it); ``sample``:
    then that many more plain adds and as many naming the hub (:func:`sample_extras`),
    summarised by class."""
    from wikikv.compile.pipeline import Compiler
    from wikikv.quality.hooks import gated
    from wikikv.store.store import open_store

    about = json.loads(kept.with_suffix(".json").read_text(encoding="utf-8"))
    source, n = Path(about["source"]), int(about["copies"])
    extras = _extras(source, n + 1, about["limit"])
    if sample:
        extras += sample_extras(source, n + 1, sample, about["limit"])
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(kept, work)
    store = open_store(f"lmdb://{work}?sync=false")
    kb = store.kb("large")
    options = gated(index=about["index"])
    Compiler(kb, options=options)  # warm the imports, as a built process has them
    try:
        adds = [_add_one(kb, extra, work, i, options) for i, extra in enumerate(extras)]
    finally:
        store.close()
        shutil.rmtree(work, ignore_errors=True)  # a copy of the kept store: ~9 GB at 36 copies
    result = {"copies": n, **_add_summary(adds)}
    if sample:
        result["sample"] = sample_summary(adds)
    return result


TARGET_MB = 100.0


def _line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and intercept of ``ys`` over ``xs``."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    var = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0
    return slope, my - slope * mx


def fit(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Straight lines through the sizes (CPU seconds, peak RSS and anonymous peak against MB of
    text) and what they give at ``TARGET_MB``; ``cpu_per_mb_spread`` is the largest CPU s/MB over
    the smallest (1.0: exactly linear)."""
    mb = [r["text_bytes"] / 2**20 for r in rows]
    out: dict[str, Any] = {"target_mb": TARGET_MB}
    for name in ("cpu_s", "elapsed_s", "peak_rss_mb", "peak_anon_mb"):
        slope, icpt = _line(mb, [float(r[name]) for r in rows])
        out[name] = {
            "per_mb": round(slope, 2),
            "intercept": round(icpt, 1),
            "at_target": round(icpt + slope * TARGET_MB, 0),
        }
    per_mb = [float(r["cpu_s_per_mb"]) for r in rows]
    out["cpu_per_mb_spread"] = round(max(per_mb) / min(per_mb), 2) if min(per_mb) else 0.0
    cpu_at = out["cpu_s"]["at_target"]
    out["mb_per_cpu_s_at_target"] = round(TARGET_MB / cpu_at, 3) if cpu_at > 0 else 0.0
    return out
