"""``wikikv bench quality``: how good the Lu Xun wiki is for a reader and an agent (issue 8).

One run measures, side by side:

* entity recall against the hand-written list (a) (``evals/luxun/entities.tsv``): the share of
  listed entities that have a page — a page whose title or alias is the listed name or an alias;
* mention coverage (issue 8's fact coverage): the share of the listed entities' document
  mentions that reach their pages, counted from list (a) and the texts
  (:mod:`wikikv.bench.quality_mentions`), beside ``wikikv check``'s informative-sentence
  coverage;
* precision and wrong-type rate read from the hand-labelled page sample (b), as labelled (never
  recomputed by the detector);
* recall@2/@5 of nav (count budget) against BM25 over the raw files (``rank_bm25``, jieba
  tokens) on the question set (c) (``evals/luxun/questions.yaml``), per bucket, and on the
  development set (d) of multi-document questions (``evals/luxun/questions_dev.yaml``) that
  nav's ranking is tuned on — so that (c) stays held out;
* offline ``ask`` on (c): the share of questions whose gold answer string appears in the
  answer's sentences, beside the same number of top BM25 sentences of the raw corpus;
* the English multi-hop sets as in ``wikikv bench retrieval`` (nav vs BM25, which must not drop),
  with the same ``ask`` comparison against their gold answers.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from wikikv.bench import retrieval
from wikikv.bench.compile import shared_data
from wikikv.bench.quality_mentions import mention_coverage
from wikikv.bench.quality_sets import (
    BUCKETS,
    FlatBM25,
    SentenceBM25,
    ZhQuestion,
    contains_answer,
    dev_path,
    find_set,
    load_questions,
    load_table,
    read_corpus,
)
from wikikv.bench.report import machine_info
from wikikv.errors import NotFound
from wikikv.query.answer import ask
from wikikv.query.budget import Budget
from wikikv.query.nav import nav
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store

Log = Callable[[str], None]
KS = retrieval.KS
TARGET_MARGIN = 0.05
LABELS = ("real", "junk", "wrong type")


# ----------------------------------------------------------------------------- (a) and (b)
def entity_recall(kb: KnowledgeBase, path: Path | None) -> dict[str, Any]:
    """Share of the entities of list (a) that have a page (by exact, folded name or alias)."""
    if path is None:
        return {"skipped": "no entity list under evals/luxun"}
    rows = load_table(path)
    by_type: dict[str, list[int]] = {}
    missing: list[str] = []
    for row in rows:
        name = row.get("name", "")
        if not name:
            continue
        names = [name, *(a for a in row.get("aliases", "").replace("|", ";").split(";") if a)]
        found = any(_has_page(kb, n) for n in names)
        by_type.setdefault(row.get("type", "?"), []).append(int(found))
        if not found:
            missing.append(name)
    total = sum(len(v) for v in by_type.values())
    hits = sum(sum(v) for v in by_type.values())
    return {
        "file": path.name,
        "entities": total,
        "recall": round(hits / total, 4) if total else None,
        "by_type": {t: round(sum(v) / len(v), 4) for t, v in sorted(by_type.items())},
        "missing": missing,
    }


def _has_page(kb: KnowledgeBase, name: str) -> bool:
    for hit in kb.find_names(name, limit=8, exact=True):
        if not hit.path.startswith("/sources") and isinstance(kb.get(hit.path), FileRecord):
            return True
    return False


def labelled_sample(path: Path | None) -> dict[str, Any]:
    """Precision and wrong-type rate of set (b), read from its label column as labelled."""
    if path is None:
        return {"skipped": "no labelled sample under evals/luxun"}
    rows = load_table(path)
    labels = [_label(r) for r in rows]
    n = len(labels)
    counts = {lab: labels.count(lab) for lab in LABELS}
    return {
        "file": path.name,
        "pages": n,
        "counts": counts,
        "unlabelled": labels.count(""),
        # evals/luxun/README.md: a real entity under the wrong type still counts as precise.
        "precision": round((counts["real"] + counts["wrong type"]) / n, 4) if n else None,
        "wrong_type_rate": round(counts["wrong type"] / n, 4) if n else None,
    }


def sample_path() -> Path | None:
    """Set (b) in the repository (``evals/luxun/page_sample_labels.tsv``)."""
    return find_set("page_sample_labels", "page_sample", "sample", "labels")


def _label(row: dict[str, str]) -> str:
    value = (row.get("label") or row.get("verdict") or "").strip().lower().replace("_", " ")
    value = value.replace("-", " ")
    if value.startswith("real") or value in ("ok", "correct"):
        return "real"
    if value.startswith("junk"):
        return "junk"
    if value.startswith("wrong"):
        return "wrong type"
    return ""


def fact_coverage(kb: KnowledgeBase) -> float:
    from wikikv.compile.check import check

    return round(check(kb, run_fsck=False).fact_coverage, 4)


# ----------------------------------------------------------------------------- (c)
def nav_vs_bm25(
    kb: KnowledgeBase, questions: Sequence[ZhQuestion], bm25: FlatBM25, reads: int
) -> dict[str, Any]:
    """Recall@2/@5 per bucket of nav and of BM25 over the raw files, and the per-question
    rankings (for failure analysis)."""
    per: dict[str, dict[str, list[float]]] = {b: {} for b in BUCKETS}
    rows: list[dict[str, Any]] = []
    for q in questions:
        ranks = {
            "nav": retrieval.nav_ranking(nav(kb, q.question, Budget(max_reads=reads))),
            "bm25": bm25.rank(q.question, max(KS)),
        }
        row: dict[str, Any] = {"id": q.id, "bucket": q.bucket}
        for method, ranked in ranks.items():
            row[method] = ranked[: max(KS)]
            for k in KS:
                r = retrieval.recall_at(ranked, q.docs, k)
                per[q.bucket].setdefault(f"{method} R@{k}", []).append(r)
        rows.append(row)
    buckets = {
        b: {m: round(retrieval.mean(v), 4) for m, v in per[b].items()} | {"n": _n(per[b])}
        for b in BUCKETS
    }
    return {"buckets": buckets, "questions": rows}


def _n(values: dict[str, list[float]]) -> int:
    return len(next(iter(values.values()), []))


def ask_vs_bm25(
    kb: KnowledgeBase,
    items: Sequence[tuple[str, str, str]],
    sentences: SentenceBM25,
    reads: int,
) -> dict[str, Any]:
    """For (id, question, gold answer) items: whether offline ``ask``'s sentences hold the answer,
    and whether the same number of top BM25 sentences do."""
    ask_hits = bm25_hits = answered = 0
    rows: list[dict[str, Any]] = []
    for qid, question, gold in items:
        answer = ask(kb, question, None, Budget(max_reads=reads))
        quotes = [c.quote for c in answer.citations if c.quote]
        base = [s for _, s in sentences.top(question, len(quotes))] if quotes else []
        a_ok = contains_answer(quotes, gold)
        b_ok = contains_answer(base, gold)
        ask_hits += a_ok
        bm25_hits += b_ok
        answered += bool(quotes)
        rows.append({"id": qid, "sentences": len(quotes), "ask": a_ok, "bm25": b_ok})
    n = len(items)
    return {
        "questions": n,
        "answered": answered,
        "ask": round(ask_hits / n, 4) if n else None,
        "bm25_sentences": round(bm25_hits / n, 4) if n else None,
        "rows": rows,
    }


# ----------------------------------------------------------------------------- English sets
def english_sets(
    names: Sequence[str], reads: int, limit: int | None, log: Log
) -> list[dict[str, Any]]:
    """nav vs BM25 on each multi-hop set (as ``bench retrieval``), plus ``ask`` vs BM25
    sentences against the gold answers."""
    out = []
    for name in names:
        ddir = retrieval.dataset_dir(name)
        questions = retrieval.load_questions(ddir / "questions.jsonl", limit)
        passages = retrieval.load_passages(ddir / "corpus.jsonl")
        answers = _answers(ddir / "questions.jsonl")
        log(f"{name}: {len(questions)} questions")
        with tempfile.TemporaryDirectory(prefix="wikikv-quality-") as tmp:
            kb, build = retrieval.build_wiki(ddir / "corpus.jsonl", Path(tmp) / "store", log)
            res: dict[str, Any] = {"dataset": name, "questions": len(questions), "build": build}
            nav_res = retrieval.evaluate(questions, retrieval.nav_ranker(kb, reads))
            bm25 = retrieval.BM25Ranker(passages)
            bm_res = retrieval.evaluate(questions, bm25.rank)
            res["nav"] = {k: v for k, v in nav_res.items() if k != "rankings"}
            res["bm25"] = {k: v for k, v in bm_res.items() if k != "rankings"}
            docs = {p.id: p.flat for p in passages}
            sentence_bm25 = SentenceBM25(docs, retrieval.bm25_tokens)
            items = [(q.id, q.question, answers.get(q.id, "")) for q in questions]
            items = [it for it in items if it[2]]
            res["ask"] = ask_vs_bm25(kb, items, sentence_bm25, reads)
            res["ask"].pop("rows")
        log(f"  {name}: nav {res['nav']}, bm25 {res['bm25']}, ask {res['ask']}")
        out.append(res)
    return out


def _answers(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            o = json.loads(line)
            out[str(o["id"])] = str(o.get("answer", ""))
    return out


# ----------------------------------------------------------------------------- the run
def run(
    *,
    reads: int = retrieval.DEFAULT_READS,
    store_url: str | None = None,
    kb_name: str = "luxun",
    english: Sequence[str] = retrieval.DATASETS,
    english_limit: int | None = None,
    corpus: Path | None = None,
    log: Log = lambda _msg: None,
) -> dict[str, Any]:
    folder = corpus or shared_data() / "luxun"
    if not folder.is_dir():
        raise NotFound(f"no Lu Xun corpus at {folder}")
    questions = load_questions()
    docs = read_corpus(folder)
    with tempfile.TemporaryDirectory(prefix="wikikv-quality-") as tmp:
        if store_url is None:
            log(f"luxun: building the wiki from {folder}")
            kb, build = retrieval.build_wiki(folder, Path(tmp) / "store", log)
        else:
            kb, build = open_store(store_url).kb(kb_name), {"reused": store_url}
        log("luxun: BM25 baselines (jieba tokens)")
        flat = FlatBM25(docs)
        sentences = SentenceBM25(docs)
        t0 = time.perf_counter()
        ranking = nav_vs_bm25(kb, questions, flat, reads)
        log(f"luxun: nav vs BM25 {ranking['buckets']}")
        dev_questions = load_questions(dev_path())
        dev = nav_vs_bm25(kb, dev_questions, flat, reads)
        log(f"luxun dev (d): nav vs BM25 {dev['buckets']['multi']}")
        asked = ask_vs_bm25(kb, [(q.id, q.question, q.answer) for q in questions], sentences, reads)
        log(f"luxun: ask {asked['ask']} vs BM25 sentences {asked['bm25_sentences']}")
        dev_asked = ask_vs_bm25(
            kb, [(q.id, q.question, q.answer) for q in dev_questions], sentences, reads
        )
        log(f"luxun dev (d): ask {dev_asked['ask']} vs BM25 {dev_asked['bm25_sentences']}")
        result: dict[str, Any] = {
            "benchmark": "quality",
            "machine": machine_info(),
            "settings": {
                "reads": reads,
                "bm25": "rank_bm25.BM25Okapi defaults over whole files; jieba.lcut tokens, "
                "punctuation dropped",
                "ask_baseline": "the same number of top BM25 sentences of the raw corpus",
            },
            "build": build,
            "entities": entity_recall(kb, find_set("entities")),
            "labelled_sample": labelled_sample(sample_path()),
            "mention_coverage": mention_coverage(kb, find_set("entities"), list(docs)),
            "check_fact_coverage": fact_coverage(kb),
            "luxun_nav": ranking,
            "luxun_dev_nav": dev,
            "luxun_ask": asked,
            "luxun_dev_ask": dev_asked,
            "seconds": round(time.perf_counter() - t0, 2),
        }
    result["english"] = english_sets(english, reads, english_limit, log) if english else []
    result["targets"] = targets(result)
    return result


def targets(result: dict[str, Any]) -> dict[str, bool | None]:
    out: dict[str, bool | None] = {}
    ent = result["entities"].get("recall")
    out["entity recall >= 0.90"] = None if ent is None else ent >= 0.90
    prec = result["labelled_sample"].get("precision")
    out["precision (b) >= 0.90"] = None if prec is None else prec >= 0.90
    cov = result["mention_coverage"].get("coverage")
    out["mention (fact) coverage >= 0.60"] = None if cov is None else cov >= 0.60
    for bucket, m in result["luxun_nav"]["buckets"].items():
        margin = round(m["nav R@5"] - m["bm25 R@5"], 4)  # no float noise at the boundary
        out[f"{bucket}: nav R@5 >= BM25 R@5 + 0.05"] = margin >= TARGET_MARGIN
    return out


def table_rows(result: dict[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for bucket, m in result["luxun_nav"]["buckets"].items():
        rows.append(
            [f"luxun {bucket}", m["n"], m["nav R@2"], m["bm25 R@2"], m["nav R@5"], m["bm25 R@5"]]
        )
    if "luxun_dev_nav" in result:
        m = result["luxun_dev_nav"]["buckets"]["multi"]
        rows.append(
            ["luxun dev (d)", m["n"], m["nav R@2"], m["bm25 R@2"], m["nav R@5"], m["bm25 R@5"]]
        )
    for res in result["english"]:
        n, b = res["nav"], res["bm25"]
        rows.append(
            [
                res["dataset"],
                res["questions"],
                n["recall@2"],
                b["recall@2"],
                n["recall@5"],
                b["recall@5"],
            ]
        )
    return rows


def ask_rows(result: dict[str, Any]) -> list[list[object]]:
    a = result["luxun_ask"]
    rows: list[list[object]] = [
        ["luxun (c)", a["questions"], a["answered"], a["ask"], a["bm25_sentences"]]
    ]
    if "luxun_dev_ask" in result:
        d = result["luxun_dev_ask"]
        rows.append(["luxun dev (d)", d["questions"], d["answered"], d["ask"], d["bm25_sentences"]])
    for res in result["english"]:
        e = res["ask"]
        rows.append([res["dataset"], e["questions"], e["answered"], e["ask"], e["bm25_sentences"]])
    return rows
