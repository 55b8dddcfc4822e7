"""The compile benchmark at scale: builds of a generated corpus of growing size
(:mod:`wikikv.bench.bigcorpus`: renamed copies of the 2Wiki 6k corpus), each in its own process.

Per size: documents, megabytes of text, build time and MB/s, peak resident memory of the building
process (``ru_maxrss``, which counts the store's mapped pages the process touched, and the peak of
its anonymous memory alone, sampled), store size, and the time of one incremental add of a new
document into the built wiki. Time per MB across the sizes shows whether the build is linear.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import resource
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikikv.bench.bigcorpus import extra_document, write_corpus

DEFAULT_COPIES = (9, 18, 36)  # ~25, ~50 and ~100 MB of text


class _AnonPeak:
    """Samples this process's anonymous resident memory (what the heap holds, without the
    store's file-backed pages) every few milliseconds and keeps the peak."""

    def __init__(self) -> None:
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, _status_kb("RssAnon"))
            self._stop.wait(0.02)

    def __enter__(self) -> _AnonPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


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
    corpus: Path, text_bytes: int, extra: dict[str, str], workdir: Path, index: bool
) -> dict[str, Any]:
    """Build ``corpus`` into a fresh LMDB store, then add ``extra``; measured in this process."""
    from wikikv.compile.pipeline import Compiler
    from wikikv.quality.hooks import gated
    from wikikv.store.store import open_store

    store = open_store(f"lmdb://{workdir}?sync=false")
    kb = store.create_kb("large")
    options = gated(index=index)  # as `wikikv build`: the quality gate on
    with _AnonPeak() as anon:
        t = time.perf_counter()
        report = Compiler(kb, options=options).build(corpus)
        elapsed = time.perf_counter() - t
        store.backend.sync()
        build_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        build_anon = anon.peak_kb / 1024
        one = workdir.parent / f"{workdir.name}-add.jsonl"
        one.write_text(json.dumps(extra, ensure_ascii=False) + "\n", encoding="utf-8")
        t, cpu = time.perf_counter(), time.process_time()
        added = Compiler(kb, options=options).add(one)
        add_s, add_cpu = time.perf_counter() - t, time.process_time() - cpu
    store.close()
    mb = text_bytes / 2**20
    return {
        "documents": report.documents,
        "text_mb": round(mb, 1),
        "entities": report.entities,
        "links": report.links,
        "facts": report.facts,
        "elapsed_s": round(elapsed, 1),
        "mb_per_s": round(mb / elapsed, 3) if elapsed else 0.0,
        "s_per_mb": round(elapsed / mb, 2) if mb else 0.0,
        "phases_s": {k: round(v, 1) for k, v in report.timings.items()},
        "peak_rss_mb": round(build_peak, 0),
        "peak_anon_mb": round(build_anon, 0),
        "peak_anon_with_add_mb": round(anon.peak_kb / 1024, 0),
        "store_mb": round(_dir_size(workdir) / 2**20, 0),
        "incremental_add_s": round(add_s, 3),
        "incremental_add_cpu_s": round(add_cpu, 3),
        # records the add read from the persisted model, by kind (empty: it derived everything)
        "incremental_add_model_reads": added.model_reads,
        "incremental_add_fallback": added.model_fallback,
        "incremental_add_phases_s": {k: round(v, 3) for k, v in added.timings.items()},
        "incremental_added": added.analyzed,
    }


def _child(args: tuple[str, int, dict[str, str], str, bool], queue: Any) -> None:
    corpus, size, extra, workdir, index = args
    try:
        queue.put(build_one(Path(corpus), size, extra, Path(workdir), index))
    except Exception as exc:  # noqa: BLE001 - reported as a failed row
        queue.put({"error": f"{type(exc).__name__}: {exc}"})


def run_large(
    source: Path,
    copies: list[int],
    index: bool = True,
    log: Callable[[str], None] | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """Build the generated corpus (``copies`` of the JSONL corpus ``source``, its first ``limit``
    records each) at each number of copies, smallest first."""
    ctx = mp.get_context("fork")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="wikikv-large-") as tmp:
        for n in sorted(copies):
            corpus = Path(tmp) / f"corpus-{n}.jsonl"
            size = write_corpus(source, n, corpus, limit)
            extra = extra_document(source, n, limit)
            if log:
                log(f"large: {n} copies, {size / 2**20:.1f} MB of text: building ...")
            queue = ctx.Queue()
            args = (str(corpus), size, extra, str(Path(tmp) / f"store-{n}"), index)
            proc = ctx.Process(target=_child, args=(args, queue))
            proc.start()
            row = {"copies": n, **queue.get()}
            proc.join()
            corpus.unlink()
            rows.append(row)
            if log and "error" not in row:
                log(
                    f"  {row['documents']} docs in {row['elapsed_s']} s ({row['mb_per_s']} MB/s), "
                    f"peak {row['peak_rss_mb']:.0f} MB (anon {row['peak_anon_mb']:.0f}), "
                    f"add {row['incremental_add_s']} s (cpu {row['incremental_add_cpu_s']} s"
                    f"{', derived everything: ' + row['incremental_add_fallback'] if row['incremental_add_fallback'] else ''})"
                )
            elif log:
                log(f"  failed: {row['error']}")
    return {"source": source.name, "index": index, "cpus": os.cpu_count(), "sizes": rows}
