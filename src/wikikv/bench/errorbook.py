"""``wikikv bench errorbook`` (issue 10, "Measure it").

Per wiki (Lu Xun, HotpotQA, 2Wiki-6k, compiled offline here):

* error counts by type before and after ``lint --fix`` (the LLM-Wiki paper's Table 7 reports
  the share of each type among detected errors; we report counts and shares);
* the share of pages ``passed`` before and after;
* the time of one lint pass (target ≤ 30 s on the 6k wiki, offline);
* nav recall@5 of the gold passages before and after the repair (must not drop), on the sets
  with questions, with :mod:`wikikv.bench.retrieval`'s nav ranker and read budget;
* detection recall: 100 errors of each type seeded at random into a copy of the wiki
  (:mod:`wikikv.quality.seed`), then one validation pass (target ≥ 95 % for the structural
  types); then ``lint --fix`` on the copy: what is left of each type (repaired or queued).
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikikv.bench import retrieval
from wikikv.bench.evolve import corpus_and_questions
from wikikv.bench.quality_sets import evals_dir
from wikikv.bench.report import machine_info
from wikikv.compile.pipeline import Compiler
from wikikv.quality import seed
from wikikv.quality import validators as v
from wikikv.quality.hooks import gated
from wikikv.quality.queue import KIND_PREFIX
from wikikv.quality.run import lint_kb
from wikikv.review import ReviewQueue
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import open_store

Log = Callable[[str], None]
WIKIS = ("luxun", "hotpotqa", "2wiki-6k")
LINT_TARGET_S = 30.0
DETECTION_TARGET = 0.95
SEEDS_PER_TYPE = 100


def _recall(kb: KnowledgeBase, questions: list[retrieval.Question], reads: int) -> float | None:
    if not questions:
        return None
    res = retrieval.evaluate(questions, retrieval.nav_ranker(kb, reads))
    return float(res["recall@5"])


def _open_review_items(kb: KnowledgeBase) -> dict[str, int]:
    """Open review items by error type: what the repair left for a person to decide."""
    counts: Counter[str] = Counter()
    for item in ReviewQueue(kb).items(status="open"):
        counts[item.kind.removeprefix(KIND_PREFIX)] += 1
    return dict(counts)


def _shares(counts: dict[str, int]) -> dict[str, float]:
    total = sum(counts[t] for t in v.ERROR_TYPES)
    return {t: round(counts[t] / total, 4) if total else 0.0 for t in v.ERROR_TYPES}


def run_wiki(
    name: str,
    per_type: int = SEEDS_PER_TYPE,
    reads: int = retrieval.DEFAULT_READS,
    log: Log = lambda _m: None,
) -> dict[str, Any]:
    # The same question sets as ``bench evolve``: Lu Xun's set (c) from evals/luxun, HotpotQA's
    # own, and the 2Wiki dev questions whose supporting titles are all in the 6k corpus.
    corpus, questions = corpus_and_questions(name, evals_dir().parents[1])
    out: dict[str, Any] = {"wiki": name, "questions": len(questions)}
    with tempfile.TemporaryDirectory(prefix="wikikv-errorbook-") as tmp:
        store = open_store(f"lmdb://{Path(tmp) / 'store'}?sync=false")
        kb = store.create_kb("bench")
        t0 = time.perf_counter()
        report = Compiler(kb, options=gated()).build(corpus)
        out["build_s"] = round(time.perf_counter() - t0, 2)
        out["documents"], out["entities"] = report.documents, report.entities
        log(
            f"{name}: built {report.documents} documents, {report.entities} entities "
            f"in {out['build_s']} s"
        )
        out["recall5_before"] = _recall(kb, questions, reads)
        cpu = time.process_time()
        first = lint_kb(kb)
        # CPU time beside wall time: on a shared 2-core machine the wall clock mostly measures
        # the other jobs; the target is judged on wall time, the CPU time says what it costs.
        out["lint_cpu_s"] = round(time.process_time() - cpu, 2)
        out["lint_s"] = round(first.lint.elapsed, 2)
        out["before"] = first.after
        out["passed_before"] = round(first.lint.passed / max(1, first.lint.pages), 4)
        out["pages"] = first.lint.pages
        log(
            f"  lint pass {out['lint_s']} s ({out['lint_cpu_s']} s CPU); errors {sum(first.after.values())}; "
            f"passed {out['passed_before']:.1%}"
        )
        t0 = time.perf_counter()
        fixed = lint_kb(kb, fix=True)
        out["fix_s"] = round(time.perf_counter() - t0, 2)
        out["after"] = fixed.after
        out["passed_after"] = round(fixed.lint.passed / max(1, fixed.lint.pages), 4)
        out["rounds"] = len(fixed.rounds)
        out["queued"] = fixed.queued
        out["review_open"] = _open_review_items(kb)
        out["shares_before"] = _shares(out["before"])
        out["recall5_after"] = _recall(kb, questions, reads)
        log(
            f"  after fix: errors {sum(fixed.after.values())}, passed {out['passed_after']:.1%}, "
            f"recall@5 {out['recall5_before']} -> {out['recall5_after']}"
        )
        copy_dir = Path(tmp) / "copy"
        store.backup(copy_dir)
        store.close()
        copy = open_store(f"lmdb://{copy_dir}?sync=false")
        ckb = copy.kb("bench")
        seeded = seed.seed_errors(ckb, per_type, seed=7)
        _, found = v.validate(ckb)
        out["seeded"] = seed.detected(seeded, found)
        for row in out["seeded"].values():
            row["recall"] = round(row["detected"] / row["seeded"], 4) if row["seeded"] else 0.0
        log(f"  seeded detection: { {t: r['recall'] for t, r in out['seeded'].items()} }")
        repaired = lint_kb(ckb, fix=True)
        out["seeded_after_fix"] = repaired.after
        out["seeded_queued"] = repaired.queued
        out["seeded_review_open"] = _open_review_items(ckb)
        copy.close()
    return out


def run(
    names: list[str], per_type: int = SEEDS_PER_TYPE, log: Log = lambda _m: None
) -> dict[str, Any]:
    wikis = [run_wiki(n, per_type, log=log) for n in names]
    targets: dict[str, bool] = {}
    for w in wikis:
        if w["wiki"] == "2wiki-6k":
            targets[f"lint pass <= {LINT_TARGET_S:.0f} s on 2wiki-6k"] = (
                w["lint_s"] <= LINT_TARGET_S
            )
        if w["recall5_before"] is not None:
            targets[f"nav recall@5 does not drop ({w['wiki']})"] = (
                w["recall5_after"] >= w["recall5_before"]
            )
        for t in v.STRUCTURAL:
            row = w["seeded"].get(t)
            if row:
                targets[f"detection >= 95% {t} ({w['wiki']})"] = row["recall"] >= DETECTION_TARGET
    return {"machine": machine_info(), "per_type": per_type, "wikis": wikis, "targets": targets}


def table_rows(result: dict[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for t in v.ALL_TYPES:
        row: list[object] = [t]
        for w in result["wikis"]:
            share = w["shares_before"].get(t)
            row += [w["before"][t], f"{share:.1%}" if share is not None else "-", w["after"][t]]
        rows.append(row)
    return rows


def summary_rows(result: dict[str, Any]) -> list[list[object]]:
    out: list[list[object]] = []
    for w in result["wikis"]:
        out.append(
            [
                w["wiki"],
                w["pages"],
                f"{w['passed_before']:.1%}",
                f"{w['passed_after']:.1%}",
                f"{w['lint_s']} ({w['lint_cpu_s']} CPU)",
                w["fix_s"],
                "-" if w["recall5_before"] is None else w["recall5_before"],
                "-" if w["recall5_after"] is None else w["recall5_after"],
                sum(w["review_open"].values()),
            ]
        )
    return out


def detection_rows(result: dict[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for t in v.ERROR_TYPES:
        row: list[object] = [t]
        for w in result["wikis"]:
            r = w["seeded"].get(t, {"seeded": 0, "detected": 0, "recall": 0.0})
            queued = w["seeded_review_open"].get(t, 0)
            row += [f"{r['detected']}/{r['seeded']}", f"{w['seeded_after_fix'][t]} ({queued})"]
        rows.append(row)
    return rows
