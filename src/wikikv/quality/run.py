"""A lint pass over a whole kb, and the finalization loop of repairs (``wikikv lint [--fix]``).

``lint_kb``: validate every page → fold the findings into the Error Book (a full pass closes
the entries whose errors are gone) → queue what needs a person (E3, E4, lost hand edits) →
set ``lint_status`` / ``lint_errors`` on every page. With ``fix``, first run up to ``rounds``
rounds of layer-1 code fixes ↔ layer-2 content fixes, recompiling what was rescheduled between
rounds, until a round changes nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from wikikv.compile import state
from wikikv.quality import errorbook as eb
from wikikv.quality import validators as v
from wikikv.quality.lint import LintReport, apply
from wikikv.quality.llm_checks import LLMChecker, pairwise
from wikikv.quality.queue import decided_keys, enqueue
from wikikv.quality.repair import Repairer, RepairReport
from wikikv.store.bulk import BulkWriter
from wikikv.store.kb import KnowledgeBase

FINAL_ROUNDS = 3
REVIEW_TYPES = {
    v.IN_PAGE: "review: which value do the sources support? (E3)",
    v.CONTRADICTION: "review: which page is right? (E4)",
    v.UNSEEN: "review: restore the overwritten hand edit, or accept the compiled page",
}


@dataclass
class QualityReport:
    kb: str
    before: dict[str, int] = field(default_factory=dict)
    after: dict[str, int] = field(default_factory=dict)
    lint: LintReport = field(default_factory=LintReport)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    queued: int = 0
    errorbook: dict[str, str] = field(default_factory=dict)  # entry id → status
    constraints: list[str] = field(default_factory=list)
    llm_calls: int = 0
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["lint"] = self.lint.to_dict()
        return out


def _filtered(kb: KnowledgeBase, book: eb.Book, found: list[v.Finding]) -> list[v.Finding]:
    decided = decided_keys(kb)
    return [f for f in found if f.key not in book.waived and f.key not in decided]


def find(
    kb: KnowledgeBase, checker: LLMChecker | None = None, pairs: int = 20
) -> tuple[v.View, list[v.Finding]]:
    """Every open finding of the kb (waived and decided ones left out)."""
    view, found = v.validate(kb)
    if checker is not None and pairs:
        found += pairwise(checker, view, pairs)
    return view, _filtered(kb, eb.load(kb), found)


def fix_round(
    kb: KnowledgeBase, checker: LLMChecker | None = None, pairs: int = 20
) -> tuple[RepairReport, int, int]:
    """One layer-1 ↔ layer-2 round. Returns (report, pages written, findings seen)."""
    with BulkWriter(kb, job="quality:repair") as writer:
        view, found = find(kb, checker, pairs)
        rep = Repairer(kb, view, writer.put_file)
        left = rep.layer1(found)
        rep.layer2(left, checker)
        written = rep.commit()
    if rep.waived:
        book = eb.load(kb)
        book.waived.update(rep.waived)
        eb.save(kb, book)
    if rep.report.rescheduled or rep.report.reschedule_docs:
        recompile(kb, rep.report.reschedule_docs, _sample_meta(view))
    return rep.report, written, len(found)


def recompile(kb: KnowledgeBase, docs: list[str], like: tuple[str, str] | None) -> None:
    """Run the compile pipeline on the rescheduled pages (their signatures were dropped) and
    take the documents whose articles were deleted out of the compile state."""
    from wikikv.compile.pipeline import Compiler
    from wikikv.llm.extractive import ExtractiveProvider
    from wikikv.quality.hooks import gated

    if state.load_schema(kb) is None:
        return
    provider = ExtractiveProvider()
    if like is not None:  # render as the build did, so no other page's signature changes
        provider.name, provider.prompt_version = like
    # full_render: every signature recomputed, so a rescheduled page is re-rendered or, when
    # nothing produces it any more, deleted.
    compiler = Compiler(kb, provider, gated(full_render=True))
    known = set(state.load_docs(kb))
    gone = [d for d in docs if d in known]
    if gone:
        compiler.remove(gone)
    else:
        compiler.add([])


def _sample_meta(view: v.View) -> tuple[str, str] | None:
    for rec in view.pages.values():
        if rec.meta.kind == "entity" and rec.meta.compiled_by:
            return rec.meta.compiled_by, rec.meta.prompt_version
    return None


def lint_kb(
    kb: KnowledgeBase,
    *,
    fix: bool = False,
    llm: Any | None = None,
    rounds: int = FINAL_ROUNDS,
    pairs: int = 20,
) -> QualityReport:
    """Lint ``kb`` (see the module docstring)."""
    report = QualityReport(kb.name)
    checker = LLMChecker(llm) if llm is not None else None
    t0 = time.perf_counter()
    if fix:
        # Detect first: every error found now gets (or reopens) its Error Book entry, so the
        # final pass can close what the repairs removed.
        _, first = find(kb)
        report.before = v.by_type(first)
        book = eb.load(kb)
        eb.record(book, first)
        eb.save(kb, book)
        for i in range(rounds):
            t = time.perf_counter()
            rep, written, seen = fix_round(kb, checker, pairs)
            report.rounds.append(
                {
                    "round": i + 1,
                    "findings": seen,
                    "written": written,
                    **rep.to_dict(),
                    "seconds": round(time.perf_counter() - t, 3),
                }
            )
            if not written and not rep.rescheduled and not rep.reschedule_docs:
                break
        report.timings["repair"] = time.perf_counter() - t0
    t = time.perf_counter()
    with BulkWriter(kb, job="quality:lint") as writer:
        view, found = find(kb, checker, 0 if fix else pairs)
        book = eb.load(kb)
        eb.record(book, found, checked=v.ALL_TYPES)
        for f in found:
            if f.type in REVIEW_TYPES and enqueue(kb, f, REVIEW_TYPES[f.type]) is not None:
                report.queued += 1
        apply(view.pages, found, _Put(writer), report.lint)
        eb.save(kb, book)
    report.after = v.by_type(found)
    if not fix:
        report.before = dict(report.after)
    report.lint.elapsed = time.perf_counter() - t
    report.timings["lint"] = report.lint.elapsed
    report.errorbook = {e.id: e.status for e in book.entries.values()}
    report.constraints = eb.open_constraints(book)
    report.llm_calls = checker.calls if checker is not None else 0
    return report


class _Put:
    def __init__(self, writer: BulkWriter) -> None:
        self.writer = writer

    def put(self, path: str, text: str, meta: Any) -> None:
        self.writer.put_file(path, text, meta)
