"""Quick search benchmark: index a multi-hop corpus as flat pages, time wiki_search on its questions.

Each passage becomes one page (``/passages/<title>``, kind ``article``, titled by the passage
title), written with ``kb.put`` and indexed in one bulk :class:`~wikikv.search.index.IndexWriter`
flush. Every question is then searched (limit 10) twice: once with the per-process read caches
emptied before each query (``cold``: postings come from the store) and then with warm caches, as
a long-running server sees them (plus the best of three warm passes per query, which separates
the code's cost from a shared machine's scheduling noise). It reports p50/p95/p99 in microseconds, and as a sanity check
of ranking quality the share of gold supporting titles found in the top 5 / 10 (recall of search
alone, not of nav).

Run: ``python -m wikikv.bench.search_quick [--dataset 2wikimultihopqa] [--store URL] [--json F]``.
The target of the query layer is a warm p50 of at most 2 ms on the 2WikiMultiHopQA corpus.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from wikikv.bench.report import machine_info, print_table, summarize, write_json
from wikikv.search.index import IndexWriter
from wikikv.search.ranking import clear_caches, search
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import escape_segment
from wikikv.store.records import FileMeta
from wikikv.store.store import open_store

REPO_ROOT = Path(__file__).resolve().parents[3]


def data_dir() -> Path:
    env = os.environ.get("WIKIKV_SHARED_DATA")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "data"


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def build(kb: KnowledgeBase, passages: list[dict[str, Any]]) -> dict[str, Any]:
    """Write one page per passage, then index them all in one bulk flush."""
    t0 = time.perf_counter()
    used: set[str] = set()
    records = []
    with kb.store.backend.bulk(), kb.lease("search-bench"):
        for row in passages:
            seg = escape_segment(row["title"])
            if seg in used:
                seg = escape_segment(f"{row['title']} ({row['id']})")
            used.add(seg)
            meta = FileMeta(kind="article", title=row["title"], sources=[row["id"]])
            records.append(kb.put(f"/passages/{seg}", row["text"], meta))
        t1 = time.perf_counter()
        writer = IndexWriter(kb)
        writer.add_all(records)
        writer.flush()
    t2 = time.perf_counter()
    return {"pages": len(records), "write_s": round(t1 - t0, 3), "index_s": round(t2 - t1, 3)}


def run(
    dataset: str, store_url: str | None, limit: int, corpus: Path | None = None
) -> dict[str, Any]:
    base = data_dir() / "multihop" / dataset
    passages = load_jsonl(corpus or base / "corpus.jsonl")
    qpath = base / "questions.jsonl"
    questions = load_jsonl(qpath) if qpath.exists() else []
    with tempfile.TemporaryDirectory(prefix="wikikv-search-bench-") as tmp:
        store = open_store(store_url or f"lmdb://{tmp}/store?sync=false")
        try:
            name = "bench-" + dataset.replace("_", "-")
            if store.has_kb(name):
                store.drop_kb(name)
            kb = store.create_kb(name)
            built = build(kb, passages)
            result: dict[str, Any] = {
                "dataset": dataset,
                "store": store.backend.describe(),
                "build": built,
                "questions": len(questions),
                "machine": machine_info(),
            }
            if questions:
                result.update(measure(kb, questions, limit))
            return result
        finally:
            store.close()


def measure(kb: KnowledgeBase, questions: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    clock = time.perf_counter_ns
    texts = [q["question"] for q in questions]
    search(kb, texts[0], limit)  # load the tokenizer's dictionary outside the timings
    cold: list[int] = []
    for text in texts:
        clear_caches()
        t0 = clock()
        search(kb, text, limit)
        cold.append(clock() - t0)
    warm: list[int] = []
    found5 = found10 = gold = 0
    for q in questions:
        t0 = clock()
        hits = search(kb, q["question"], limit)
        warm.append(clock() - t0)
        titles = [h.title for h in hits]
        for t in q.get("supporting_titles", []):
            gold += 1
            found5 += t in titles[:5]
            found10 += t in titles[:10]
    # Best of three warm passes per query: on a shared machine the single-pass tail is mostly
    # other processes' scheduling, which this row separates from the code's own cost.
    best = list(warm)
    for _ in range(2):
        for i, text in enumerate(texts):
            t0 = clock()
            search(kb, text, limit)
            best[i] = min(best[i], clock() - t0)
    return {
        "search_cold_us": summarize(cold),
        "search_warm_us": summarize(warm),
        "search_warm_best_of_3_us": summarize(best),
        "title_recall@5": round(found5 / gold, 4) if gold else None,
        "title_recall@10": round(found10 / gold, 4) if gold else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--dataset", default="2wikimultihopqa")
    ap.add_argument("--corpus", type=Path, help="another corpus.jsonl (e.g. the 6k one)")
    ap.add_argument("--store", help="store URL (default: a temporary LMDB store)")
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--json", dest="json_out", help="write the result as JSON here")
    args = ap.parse_args(argv)
    result = run(args.dataset, args.store, args.limit, args.corpus)
    b = result["build"]
    print(
        f"{result['dataset']}: {b['pages']} pages written in {b['write_s']} s, "
        f"indexed (bulk) in {b['index_s']} s on {result['store']}"
    )
    rows = [
        [label, s["p50"], s["p95"], s["p99"], s["max"], s["count"]]
        for label, s in (
            ("search cold (µs)", result.get("search_cold_us")),
            ("search warm (µs)", result.get("search_warm_us")),
            ("warm, best of 3 (µs)", result.get("search_warm_best_of_3_us")),
        )
        if s
    ]
    if rows:
        print_table("wiki_search latency", ["", "p50", "p95", "p99", "max", "n"], rows)
        print(
            f"gold supporting titles in top 5: {result['title_recall@5']}, "
            f"top 10: {result['title_recall@10']}"
        )
    if args.json_out:
        write_json(result, args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
