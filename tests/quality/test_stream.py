"""The whole-wiki quality pass in chunks (wikikv.quality.stream) finds what the pass over the
whole wiki at once finds, and its repair writes the same pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compile.conftest import SMALL_EN
from tests.quality.conftest import CONFLICTING, write_corpus
from wikikv.compile.pipeline import Compiler
from wikikv.quality import seed, stream
from wikikv.quality import validators as v
from wikikv.quality.hooks import gated
from wikikv.quality.repair import Repairer
from wikikv.quality.stream import repair_view, validate_chunked
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.store.store import Store

CONTENT = [v.UNSUPPORTED, v.INCOMPLETE, v.CONTRADICTION, v.IN_PAGE, v.SOURCE_DELETED]


def _seeded(store: Store, tmp_path: Path, name: str) -> KnowledgeBase:
    """A wiki with contradictions between and within pages, and one seeded error of each type."""
    kb = store.create_kb(name)
    corpus = write_corpus(tmp_path / f"{name}.jsonl", CONFLICTING + SMALL_EN)
    Compiler(kb, options=gated()).build(corpus)
    seed.seed_errors(kb, 1, seed=7)
    return kb


def test_chunked_pass_finds_what_the_whole_pass_finds(store: Store, tmp_path: Path) -> None:
    kb = _seeded(store, tmp_path, "a")
    whole = v.validate(kb)[1]
    # every type the chunked pass reads itself is present, so a lost finding shows
    assert {f.type for f in whole} >= {v.CONTRADICTION, v.IN_PAGE, v.UNSUPPORTED, v.DANGLING}
    for types in (CONTENT, sorted(v.PAGE_TYPES | v.CLAIM_TYPES), list(v.ALL_TYPES)):
        expected = v.validate(kb, types=types)[1]
        for chunk in (1, 2, 500):
            assert validate_chunked(kb, types, chunk=chunk) == expected


def test_a_view_of_some_pages_finds_their_dangling_links_without_listing_the_wiki(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An add checks the pages it wrote: listing every path of the wiki for that grew with the
    wiki (the view asks the store about the links it checks instead)."""
    kb = _seeded(store, tmp_path, "a")
    whole = [f for f in v.validate(kb, types=[v.DANGLING])[1] if f.type == v.DANGLING]
    assert whole
    scope = {f.path for f in whole} | set(sorted(v.View(kb).pages)[:5]) | {"/people/Nobody"}

    def no_listing(text: str, limit: int | None = None) -> list[str]:
        raise AssertionError(f"the view listed {text!r}")

    monkeypatch.setattr(kb, "prefix", no_listing)
    view = v.View(kb, scope)
    assert set(view.pages) == {p for p in scope if kb.get(p) is not None}
    found = v.validate(kb, paths=scope, types=[v.DANGLING], view=view)[1]
    assert found == [f for f in whole if f.path in scope]


def _pages(kb: KnowledgeBase) -> dict[str, tuple[str, object]]:
    out: dict[str, tuple[str, object]] = {}
    for p in kb.prefix("/"):
        rec = kb.get(p)
        if isinstance(rec, FileRecord):
            out[p] = (rec.text, rec.meta.confidence)
    return out


@pytest.mark.parametrize("types", [CONTENT, [v.CONTRADICTION]])
def test_repair_through_the_found_pages_writes_what_the_whole_view_writes(
    store: Store, tmp_path: Path, types: list[str]
) -> None:
    # Contradictions alone: a page that is only a contradiction's second page is demoted too.
    results = []
    for name, chunked in (("whole", False), ("chunked", True)):
        kb = _seeded(store, tmp_path, name)
        found = validate_chunked(kb, types, chunk=2)
        view = repair_view(kb, found) if chunked else v.View(kb)
        if chunked:  # the view holds the pages found, not the wiki
            assert set(view.pages) < set(v.View(kb).pages)
        rep = Repairer(kb, view, kb.put)
        rep.layer2(found)
        written = rep.commit()
        results.append((written, rep.report.demoted, _pages(kb)))
    assert results[0][0] > 0  # pages written
    assert results[0][1] > 0  # pages demoted
    assert results[0] == results[1]


def test_articles_kept_between_chunks_change_no_finding(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _seeded(store, tmp_path, "cache")
    expected = v.validate(kb, types=CONTENT)[1]
    for limit in (0, 1, 1 << 30):  # none kept, the last chunk's at most, all
        monkeypatch.setattr(stream, "ARTICLE_CACHE_CHARS", limit)
        assert validate_chunked(kb, CONTENT, chunk=2) == expected


def test_trim_drops_the_oldest_articles_first() -> None:
    def art(path: str, size: int) -> FileRecord:
        return FileRecord(name=path[1:], path=path, text="x" * size)

    kept: dict[str, FileRecord | None] = {"/a": art("/a", 5), "/gone": None, "/b": art("/b", 5)}
    kept["/c"] = art("/c", 5)
    stream._trim(kept, 10)
    assert list(kept) == ["/gone", "/b", "/c"]
    stream._trim(kept, 0)
    assert kept == {}
