"""Lint E1–E5 on compiled pages, the review queue for contradictions, E5 on deleted sources,
and the direct-answer gate: a page with a failed lint is never served directly."""

from __future__ import annotations

from wikikv.quality import errorbook as eb
from wikikv.quality import validators as v
from wikikv.quality.run import lint_kb
from wikikv.query.answer import ask, direct_page
from wikikv.review import ReviewQueue
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord


def _page(kb: KnowledgeBase, title: str) -> FileRecord:
    for p in kb.prefix("/"):
        rec = kb.get(p)
        if isinstance(rec, FileRecord) and rec.meta.kind == "entity" and rec.meta.title == title:
            return rec
    raise AssertionError(f"no page {title}")


def test_in_page_contradiction_fails_the_page_at_compile_time(conflict_kb: KnowledgeBase) -> None:
    lx = _page(conflict_kb, "Lu Xun")
    assert lx.meta.lint_status == "failed"
    assert any(e.startswith("E3: ") and "1881" in e and "1882" in e for e in lx.meta.lint_errors)
    assert _page(conflict_kb, "Shaoxing").meta.lint_status == "passed"


def test_cross_page_conflict_warns_and_queues_for_review(conflict_kb: KnowledgeBase) -> None:
    report = lint_kb(conflict_kb)
    assert report.after[v.CONTRADICTION] >= 1
    assert report.after[v.IN_PAGE] == 1
    xgp = _page(conflict_kb, "Xu Guangping")
    assert xgp.meta.lint_status == "passed"  # E4 warns only (whitepaper table)
    assert any(e.startswith("E4: ") for e in xgp.meta.lint_errors)
    items = ReviewQueue(conflict_kb).items()
    kinds = {it.kind for it in items}
    assert kinds == {"quality/cross_page_contradiction", "quality/in_page_contradiction"}
    # the repair cannot choose between supported facts: it demotes and leaves them queued
    fixed = lint_kb(conflict_kb, fix=True)
    assert fixed.after[v.CONTRADICTION] == report.after[v.CONTRADICTION]
    assert _page(conflict_kb, "Lu Xun").meta.confidence <= 0.5
    book = eb.load(conflict_kb)
    assert book.entries[v.CONTRADICTION].status == "open"
    # a person decides; the decisions are remembered: nothing is raised again, entries close
    queue = ReviewQueue(conflict_kb)
    for it in queue.items():
        queue.reject(it.key, note="the memoir is wrong; 1881 is right")
    again = lint_kb(conflict_kb)
    assert again.queued == 0
    assert queue.items() == []
    book = eb.load(conflict_kb)
    assert book.entries[v.CONTRADICTION].status == "closed"
    assert book.entries[v.IN_PAGE].status == "closed"


def test_failed_lint_is_never_served_as_a_direct_answer(conflict_kb: KnowledgeBase) -> None:
    # Shaoxing passed: served directly; Lu Xun failed (E3): falls through to evidence.
    assert ask(conflict_kb, "What is Shaoxing?").mode == "direct"
    assert direct_page(conflict_kb, "Who was Lu Xun?") is None
    answer = ask(conflict_kb, "Who was Lu Xun?")
    assert answer.mode == "evidence"
    assert not answer.from_wiki
    # still failed after a lint pass that rewrote its status: never direct
    lint_kb(conflict_kb)
    assert _page(conflict_kb, "Lu Xun").meta.lint_status == "failed"
    assert direct_page(conflict_kb, "Who was Lu Xun?") is None
    # once a person has decided the conflict the page passes, and may answer directly
    queue = ReviewQueue(conflict_kb)
    for it in queue.items():
        queue.accept(it.key)
    lint_kb(conflict_kb)
    assert _page(conflict_kb, "Lu Xun").meta.lint_status == "passed"
    assert direct_page(conflict_kb, "Who was Lu Xun?") is not None


def test_lint_writes_keep_the_compile_time_so_stale_pages_stay_stale(
    conflict_kb: KnowledgeBase,
) -> None:
    page = _page(conflict_kb, "Shaoxing")
    art = conflict_kb.get(page.meta.sources[0])
    assert isinstance(art, FileRecord)
    conflict_kb.put(art.path, art.text + " Changed.", art.meta)  # the source changes
    assert direct_page(conflict_kb, "What is Shaoxing?") is None
    report = lint_kb(conflict_kb)  # rewrites the page's meta, but not its compile time
    assert report.after[v.SOURCE_DELETED] >= 1
    shaoxing = _page(conflict_kb, "Shaoxing")
    assert shaoxing.meta.lint_status == "failed"
    assert any(e.startswith("E5: cited source changed") for e in shaoxing.meta.lint_errors)
    assert shaoxing.meta.compiled_at < art.meta.updated_at + 1e9
    assert direct_page(conflict_kb, "What is Shaoxing?") is None


def test_removing_a_source_sets_e5_then_reschedule_clears_it(clean_kb: KnowledgeBase) -> None:
    kb = clean_kb
    citing = [
        p
        for p in kb.prefix("/")
        for rec in [kb.get(p)]
        if isinstance(rec, FileRecord)
        and rec.meta.kind == "entity"
        and "/sources/articles/d3" in rec.meta.sources
    ]
    assert len(citing) >= 2
    kb.delete("/sources/articles/d3")
    report = lint_kb(kb)
    assert report.after[v.SOURCE_DELETED] >= len(citing)
    for p in citing:
        rec = kb.get(p)
        assert isinstance(rec, FileRecord)
        assert rec.meta.lint_status == "failed"
        assert "E5: cited source was deleted (/sources/articles/d3)" in rec.meta.lint_errors
    assert eb.load(kb).entries[v.SOURCE_DELETED].status == "open"
    # block + reschedule: the document leaves the compile state, its pages are recompiled
    fixed = lint_kb(kb, fix=True)
    assert fixed.after[v.SOURCE_DELETED] == 0
    assert any("d3" in r["reschedule_docs"] for r in fixed.rounds)
    assert eb.load(kb).entries[v.SOURCE_DELETED].status == "closed"
    for p in citing:
        rec = kb.get(p)
        assert rec is None or "/sources/articles/d3" not in rec.meta.sources  # type: ignore[union-attr]
