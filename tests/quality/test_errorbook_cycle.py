"""Issue 10, "Prove it": each error type seeded into a small compiled wiki is detected, gets an
Error Book entry with a constraint, is repaired or queued, and is closed on re-validation."""

from __future__ import annotations

import pytest

from wikikv.quality import errorbook as eb
from wikikv.quality import seed
from wikikv.quality import validators as v
from wikikv.quality.run import find, lint_kb
from wikikv.review import ReviewQueue
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord

# Types a person must decide: they are queued, and close once the queue item is decided.
QUEUED = {v.UNSEEN}


def _found(kb: KnowledgeBase) -> list[v.Finding]:
    return v.validate(kb)[1]


def test_a_clean_compile_has_no_errors_and_every_page_passes(clean_kb: KnowledgeBase) -> None:
    assert _found(clean_kb) == []
    pages = [clean_kb.get(p) for p in clean_kb.prefix("/")]
    entity = [r for r in pages if isinstance(r, FileRecord) and r.meta.kind == "entity"]
    assert entity
    assert all(r.meta.lint_status == "passed" for r in entity)
    report = lint_kb(clean_kb)
    assert report.lint.failed == 0
    assert report.lint.changed == 0
    assert eb.load(clean_kb).entries == {}


@pytest.mark.parametrize("error_type", v.ERROR_TYPES)
def test_seeded_error_is_detected_recorded_repaired_and_closed(
    clean_kb: KnowledgeBase, error_type: str
) -> None:
    kb = clean_kb
    seeded = seed.seed_errors(kb, 1, seed=3, types=(error_type,))
    assert len(seeded) == 1
    _, path = seeded[0]
    # detect
    hits = seed.detected(seeded, _found(kb))
    assert hits[error_type] == {"seeded": 1, "detected": 1}
    # attribute → constrain: the entry carries a root cause and a rule, open until fixed
    first = lint_kb(kb)
    entry = eb.load(kb).entries[error_type]
    assert entry.status == "open"
    assert path in entry.affected
    assert entry.root_cause
    assert entry.constraint
    assert entry.verification
    assert entry.constraint in first.constraints
    # repair (or queue)
    fixed = lint_kb(kb, fix=True)
    queue = ReviewQueue(kb)
    if error_type in QUEUED:
        items = [it for it in queue.items() if it.path == path]
        assert items
        assert items[0].kind == f"quality/{error_type}"
        assert eb.load(kb).entries[error_type].status == "open"
        queue.accept(items[0].key, note="hand edit was scratch work")
        lint_kb(kb)
    else:
        assert fixed.after[error_type] == 0, fixed.rounds
    # verify & close
    book = eb.load(kb)
    assert book.entries[error_type].status == "closed"
    assert book.entries[error_type].affected == []
    assert error_type not in eb.open_constraints(book)
    assert [f for f in find(kb)[1] if f.type == error_type] == []  # decided ones left out


def test_an_error_that_comes_back_reopens_its_entry(clean_kb: KnowledgeBase) -> None:
    seed.seed_errors(clean_kb, 1, seed=1, types=(v.DANGLING,))
    lint_kb(clean_kb, fix=True)
    assert eb.load(clean_kb).entries[v.DANGLING].status == "closed"
    seed.seed_errors(clean_kb, 1, seed=2, types=(v.DANGLING,))
    lint_kb(clean_kb)
    entry = eb.load(clean_kb).entries[v.DANGLING]
    assert entry.status == "open"
    assert entry.occurrences >= 2


def test_repairs_are_audited(clean_kb: KnowledgeBase) -> None:
    seeded = seed.seed_errors(clean_kb, 1, seed=4, types=(v.DANGLING,))
    lint_kb(clean_kb, fix=True)
    path = seeded[0][1]
    ops = [(e.op, e.detail) for e in clean_kb.audit(limit=50, path_prefix=path)]
    assert ("update", "bulk:quality:repair") in ops
    assert any(op == "repair" and "dropped link to /nowhere/" in d for op, d in ops)


def test_seeded_detection_over_many_pages(clean_kb: KnowledgeBase) -> None:
    """Every structural seed is found even when several types share the wiki."""
    seeded = seed.seed_errors(clean_kb, 1, seed=9)
    hits = seed.detected(seeded, _found(clean_kb))
    assert {t: r["detected"] for t, r in hits.items()} == {t: r["seeded"] for t, r in hits.items()}
