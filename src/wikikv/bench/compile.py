"""Compile benchmark: build each shared corpus from scratch, offline, in its own process.

Reports documents/s, elapsed time and its phases, peak resident memory of the building process,
store size on disk, the cost of removing one document and of adding it back (the incremental
path), whether the re-added wiki equals the original, and the check invariants. Wall-clock
numbers depend on the machine; the tests only run this as a smoke test and assert behaviour.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CORPORA = {
    "hotpotqa": "multihop/hotpotqa/corpus.jsonl",
    "musique": "multihop/musique/corpus.jsonl",
    "2wikimultihopqa": "multihop/2wikimultihopqa/corpus.jsonl",
    "2wiki-corpus-6k": "multihop/2wiki-corpus-6k/corpus.jsonl",
    "luxun": "luxun",
}


def shared_data() -> Path:
    """``$WIKIKV_SHARED_DATA``, else ``<repo root>/../shared/data``."""
    env = os.environ.get("WIKIKV_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3].parent / "shared" / "data"


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file())


def snapshot(kb: Any) -> dict[str, tuple[str, list[str], list[str], list[str]]]:
    """Path → (text without dates, aliases, links, sources) of every node: what 'the same wiki'
    means for remove-then-add (versions and timestamps may differ)."""
    import re

    from wikikv.store.records import DirRecord, FileRecord

    dates = re.compile(r"^(created|updated): .*$", re.MULTILINE)
    out: dict[str, tuple[str, list[str], list[str], list[str]]] = {}
    for path in kb.walk("/"):
        rec = kb.get(path)
        if isinstance(rec, FileRecord):
            out[path] = (
                dates.sub("", rec.text),
                sorted(rec.meta.aliases),
                sorted(rec.meta.links),
                sorted(rec.meta.sources),
            )
        elif isinstance(rec, DirRecord):
            out[path] = (rec.text, [], sorted(rec.sub_dirs), sorted(rec.files))
    return out


def bench_one(
    name: str, source: Path, store_kind: str, index: bool, workdir: Path
) -> dict[str, Any]:
    from wikikv.compile.check import check
    from wikikv.compile.pipeline import Compiler
    from wikikv.compile.state import load_docs
    from wikikv.quality.hooks import gated
    from wikikv.store.store import open_store

    url = "memory://" if store_kind == "memory" else f"lmdb://{workdir / name}?sync=false"
    store = open_store(url)
    kb = store.create_kb(name.replace("_", "-").lower())
    options = gated(index=index)  # as `wikikv build`: the quality gate on
    t = time.perf_counter()
    report = Compiler(kb, options=options).build(source)
    elapsed = time.perf_counter() - t
    store.backend.sync()
    before = snapshot(kb)
    victim = sorted(load_docs(kb))[-1]
    t = time.perf_counter()
    Compiler(kb, options=options).remove([victim])
    remove_s = time.perf_counter() - t
    from wikikv.compile.ingest import read_corpus

    doc = next(d for d in read_corpus(source).documents if d.id == victim)
    t = time.perf_counter()
    Compiler(kb, options=options).add([doc])
    add_s = time.perf_counter() - t
    same = snapshot(kb) == before
    checked = check(kb)
    size = _dir_size(workdir / name) if store_kind != "memory" else 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    store.close()
    return {
        "corpus": name,
        "documents": report.documents,
        "read": report.read,
        "dropped": report.dropped,
        "entities": report.entities,
        "links": report.links,
        "facts": report.facts,
        "elapsed_s": round(elapsed, 2),
        "docs_per_s": round(report.analyzed / elapsed, 1) if elapsed else 0.0,
        "phases_s": {k: round(v, 2) for k, v in report.timings.items()},
        "peak_rss_mb": round(peak, 1),
        "store_mb": round(size / 2**20, 1),
        "incremental_remove_s": round(remove_s, 3),
        "incremental_add_s": round(add_s, 3),
        "remove_then_add_same": same,
        "check": checked.to_dict(),
    }


def _child(name: str, source: str, store_kind: str, index: bool, workdir: str, queue: Any) -> None:
    try:
        queue.put(bench_one(name, Path(source), store_kind, index, Path(workdir)))
    except Exception as exc:  # noqa: BLE001 - reported as a failed row
        queue.put({"corpus": name, "error": f"{type(exc).__name__}: {exc}"})


def run_bench(
    names: list[str] | None,
    store_kind: str = "lmdb",
    index: bool = True,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the benchmark on ``names`` (default: every corpus), each in a fresh process."""
    data = shared_data()
    runs: list[dict[str, Any]] = []
    ctx = mp.get_context("fork")
    with tempfile.TemporaryDirectory(prefix="wikikv-bench-") as tmp:
        for name in names or list(CORPORA):
            source = data / CORPORA[name]
            if log:
                log(f"building {name} from {source} ...")
            queue = ctx.Queue()
            proc = ctx.Process(
                target=_child, args=(name, str(source), store_kind, index, tmp, queue)
            )
            proc.start()
            row = queue.get()
            proc.join()
            runs.append(row)
            if log and "error" not in row:
                log(
                    f"  {row['documents']} docs in {row['elapsed_s']} s "
                    f"({row['docs_per_s']} docs/s), peak {row['peak_rss_mb']} MB, "
                    f"add {row['incremental_add_s']} s, ok={row['check']['ok']}"
                )
            elif log:
                log(f"  failed: {row['error']}")
    return {"store": store_kind, "index": index, "cpus": os.cpu_count(), "runs": runs}


def write_result(result: dict[str, Any], out: str) -> Path:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
