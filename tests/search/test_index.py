"""The in-store search index: round trip, ranking, typos, removal, persistence, bulk builds."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from wikikv.errors import LeaseHeld
from wikikv.search.index import (
    IndexKeys,
    IndexWriter,
    clear_index,
    index_page,
    read_stats,
    remove_page,
)
from wikikv.search.ranking import clear_caches, search
from wikikv.store.backends.base import Delete, Op, Put
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileMeta, FileRecord
from wikikv.store.store import Store, open_store

ALL_PATHS = [
    "/people/lu-xun",
    "/people/xu-guangping",
    "/places/shaoxing",
    "/works/madman",
    "/works/ah-q",
    "/topics/orchid-society",
    "/topics/greenhouse",
    "/places/beijing",
    "/people",
]
Pages = list[tuple[str, str, FileMeta]]


def index_all(kb: KnowledgeBase) -> None:
    for path in ALL_PATHS:
        rec = kb.get(path)
        assert isinstance(rec, FileRecord | DirRecord)
        index_page(kb, rec)


def paths(kb: KnowledgeBase, query: str, **kw: object) -> list[str]:
    return [h.path for h in search(kb, query, **kw)]  # type: ignore[arg-type]


def test_round_trip_every_page_found_by_its_title(
    kb: KnowledgeBase, sample_pages: Pages, sample_paths: list[str]
) -> None:
    assert sample_paths == ALL_PATHS
    index_all(kb)
    for path, _, meta in sample_pages:
        hits = search(kb, meta.title)
        assert hits, meta.title
        assert hits[0].path == path, (meta.title, [h.path for h in hits])
        assert hits[0].title == meta.title
        assert hits[0].summary == meta.summary
        assert hits[0].kind == meta.kind
    _, stats = read_stats(kb.backend, IndexKeys(kb.name))
    assert stats.n == len(ALL_PATHS)


def test_empty_index_and_empty_query(kb: KnowledgeBase) -> None:
    assert search(kb, "Lu Xun") == []  # pages exist but nothing is indexed
    index_all(kb)
    assert search(kb, "") == []
    assert search(kb, "zzzzqqq") == []


def test_name_match_outranks_body_match(kb: KnowledgeBase) -> None:
    index_all(kb)
    hits = search(kb, "orchid")
    assert [h.path for h in hits[:2]] == ["/topics/orchid-society", "/topics/greenhouse"]
    assert any(w.startswith("name") for w in hits[0].why)
    assert all(w.startswith("body") for w in hits[1].why)


def test_exact_alias_fast_path(kb: KnowledgeBase) -> None:
    index_all(kb)
    hits = search(kb, "zhou shuren")
    assert hits[0].path == "/people/lu-xun"
    assert hits[0].why[0] == "exact name 'Zhou Shuren'"
    # An alias written in another script finds the page too.
    assert paths(kb, "Peking")[0] == "/places/beijing"


def test_why_lists_fields_and_terms(kb: KnowledgeBase) -> None:
    index_all(kb)
    hit = search(kb, "essayist Zhejiang")[0]
    assert hit.path in {"/people/lu-xun", "/places/shaoxing"}
    assert any("essayist" in w or "zhejiang" in w for w in hit.why)
    lu = next(h for h in search(kb, "essayist") if h.path == "/people/lu-xun")
    assert "tag/body: essayist" in lu.why


def test_chinese_query_finds_chinese_page(kb: KnowledgeBase) -> None:
    index_all(kb)
    assert paths(kb, "鲁迅的中篇小说")[0] == "/works/ah-q"
    assert paths(kb, "中华人民共和国首都")[0] == "/places/beijing"
    assert paths(kb, "狂人日记")[0] == "/works/madman"  # a Chinese alias of an English page
    assert paths(kb, "鲁迅")[0] == "/people/lu-xun"  # exact alias


def test_typos_and_surface_variants_find_the_page(kb: KnowledgeBase) -> None:
    index_all(kb)
    assert paths(kb, "Shaoxnig")[0] == "/places/shaoxing"  # swapped letters
    assert paths(kb, "Guangpin")[0] == "/people/xu-guangping"  # a letter missing
    assert paths(kb, "Xu Guangpimg")[0] == "/people/xu-guangping"
    assert paths(kb, "luxun")[0] == "/people/lu-xun"  # written without the space
    assert paths(kb, "LU  XUN")[0] == "/people/lu-xun"  # case and spacing
    hit = search(kb, "Shaoxnig")[0]
    assert any("~shaoxnig" in w for w in hit.why)
    # A one-character slip in a Chinese name ("纪" for "记").
    hit = search(kb, "狂人日纪")[0]
    assert hit.path == "/works/madman"
    assert "alias: 狂人日记 (~狂人日纪)" in hit.why


def test_kinds_filter_and_directories(kb: KnowledgeBase) -> None:
    index_all(kb)
    assert set(paths(kb, "orchid", kinds=["digest"])) == {"/topics/greenhouse"}
    assert paths(kb, "people", kinds=["dir"]) == ["/people"]
    assert "/people" not in paths(kb, "Lu Xun", kinds=["entity"])
    assert len(search(kb, "Lu Xun", limit=2)) == 2


def test_remove_page_removes_it_from_results(kb: KnowledgeBase) -> None:
    index_all(kb)
    assert "/places/shaoxing" in paths(kb, "rice wine")
    assert remove_page(kb, "/places/shaoxing") is True
    assert "/places/shaoxing" not in paths(kb, "rice wine")
    assert "/places/shaoxing" not in paths(kb, "Shaoxing")  # exact name no longer served
    assert "/places/shaoxing" not in paths(kb, "Shaoxnig")
    assert remove_page(kb, "/places/shaoxing") is False
    _, stats = read_stats(kb.backend, IndexKeys(kb.name))
    assert stats.n == len(ALL_PATHS) - 1


def test_reindex_replaces_old_terms(kb: KnowledgeBase) -> None:
    index_all(kb)
    rec = kb.put(
        "/places/shaoxing", "A canal town.", FileMeta(kind="entity", title="Keqiao", tags=["town"])
    )
    assert index_page(kb, rec) is True
    assert index_page(kb, rec) is False  # unchanged: nothing written
    assert "/places/shaoxing" not in paths(kb, "rice wine")
    assert paths(kb, "canal town")[0] == "/places/shaoxing"
    assert paths(kb, "Keqiao")[0] == "/places/shaoxing"


def test_update_rewrites_a_bounded_number_of_keys(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_all(kb)
    written: list[Op] = []
    real = kb.backend.batch

    def spy(ops: list[Op]) -> list[int]:
        written.extend(ops)
        return real(ops)

    monkeypatch.setattr(kb.backend, "batch", spy)
    rec = kb.put("/places/shaoxing", "Rice wine city.", FileMeta(kind="entity", title="Shaoxing"))
    written.clear()
    index_page(kb, rec)
    posting_prefix = IndexKeys(kb.name).term_prefix("")[:-1]
    posting_ops = [
        op for op in written if isinstance(op, Put | Delete) and op.key.startswith(posting_prefix)
    ]
    # Old terms ∪ new terms of this one page; never the whole corpus.
    assert 0 < len(posting_ops) <= 40


def test_index_survives_reopening_the_store(tmp_path: Path, sample_pages: Pages) -> None:
    url = str(tmp_path / "store")
    with open_store(url) as s:
        kb = s.create_kb("wiki")
        for path, text, meta in sample_pages:
            kb.put(path, text, meta)
        index_all(kb)
        before = [(h.path, round(h.score, 6)) for h in search(kb, "Lu Xun writer")]
    clear_caches()
    with open_store(url) as s:
        kb = s.kb("wiki")
        after = [(h.path, round(h.score, 6)) for h in search(kb, "Lu Xun writer")]
        assert paths(kb, "鲁迅的中篇小说")[0] == "/works/ah-q"
    assert before == after
    assert before[0][0] == "/people/lu-xun"


QUERIES = [
    "Lu Xun",
    "orchid",
    "鲁迅的中篇小说",
    "Shaoxnig",
    "writer Shanghai",
    "people",
    "北京",
    "Peking",
]


def _snapshot(kb: KnowledgeBase) -> dict[str, list[tuple[str, float]]]:
    return {q: [(h.path, round(h.score, 9)) for h in search(kb, q)] for q in QUERIES}


def _raw_index(kb: KnowledgeBase) -> dict[bytes, object]:
    ik = IndexKeys(kb.name)
    out: dict[bytes, object] = {}
    for key, item in kb.backend.scan(ik.base, ik.base + b"\xff"):
        if key == ik.stats:
            continue
        rel = key[len(ik.base) :]
        value = item.value
        if rel.startswith(b"p"):  # a posting block: order of postings does not matter
            out[rel] = sorted(value[i : i + 28] for i in range(0, len(value), 28))
        else:
            out[rel] = value
    return out


def test_bulk_writer_equals_incremental_indexing(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    inc = make_kb("inc")
    bulk = make_kb("bulk")
    index_all(inc)
    records = [bulk.get(p) for p in ALL_PATHS]
    with IndexWriter(bulk) as writer:
        for rec in records:
            assert isinstance(rec, FileRecord | DirRecord)
            writer.add(rec)
        assert len(writer) == len(records)
    assert _snapshot(inc) == _snapshot(bulk)
    assert _raw_index(inc) == _raw_index(bulk)
    s_inc = read_stats(inc.backend, IndexKeys("inc"))[1]
    s_bulk = read_stats(bulk.backend, IndexKeys("bulk"))[1]
    assert (s_inc.n, s_inc.total) == (s_bulk.n, s_bulk.total)


def test_bulk_writer_writes_each_posting_block_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = store.create_kb("many")
    writes: dict[bytes, int] = {}
    real = kb.backend.batch

    def spy(ops: list[Op]) -> list[int]:
        for op in ops:
            if isinstance(op, Put):
                writes[op.key] = writes.get(op.key, 0) + 1
        return real(ops)

    monkeypatch.setattr(kb.backend, "batch", spy)
    writer = IndexWriter(kb)
    for i in range(60):
        text = f"Common words appear in every page. Page number {i} talks about topic{i % 7}."
        writer.add(
            FileRecord(
                name=f"p{i}", path=f"/docs/p{i}", text=text, meta=FileMeta(title=f"Page {i}")
            )
        )
    assert writer.flush() == 60
    assert writes
    assert max(writes.values()) == 1
    assert len(search(kb, "common words", limit=100)) == 60
    assert search(kb, "topic3")[0].path in {f"/docs/p{i}" for i in range(3, 60, 7)}


def test_bulk_writer_reindexes_and_removes(kb: KnowledgeBase) -> None:
    index_all(kb)
    with IndexWriter(kb) as writer:
        writer.remove("/places/shaoxing")
        rec = kb.put(
            "/topics/greenhouse",
            "Cacti only now.",
            FileMeta(kind="digest", title="Greenhouse notes"),
        )
        writer.add(rec)
    assert "/places/shaoxing" not in paths(kb, "rice wine")
    assert "/topics/greenhouse" not in paths(kb, "orchid")
    assert paths(kb, "cacti")[0] == "/topics/greenhouse"
    assert clear_index(kb) > 0
    assert search(kb, "cacti") == []


def test_index_writes_respect_the_bulk_lease(
    store: Store, make_kb: Callable[[str], KnowledgeBase]
) -> None:
    kb = make_kb("leased")
    other = KnowledgeBase(store, "leased")  # a second writer of the same kb
    rec = kb.get("/places/shaoxing")
    assert isinstance(rec, FileRecord)
    with kb.lease("build"):
        index_page(kb, rec)  # the holder writes
        with pytest.raises(LeaseHeld):
            index_page(other, kb.get("/places/beijing"))  # type: ignore[arg-type]
    assert paths(kb, "rice wine") == ["/places/shaoxing"]


def test_long_tokens_and_odd_scripts_index_safely(kb: KnowledgeBase) -> None:
    long_word = "x" * 300
    rec = kb.put(
        "/misc/odd",
        f"{long_word} ✨🙂 Ünïcödé naïve café",
        FileMeta(title="Ωmega 🙂 " + "é" * 100, aliases=["ＦＵＬＬ ｗｉｄｔｈ"]),
    )
    assert index_page(kb, rec) is True
    assert paths(kb, "naive cafe")[0] == "/misc/odd"  # accents folded on both sides
    assert paths(kb, "naïve café")[0] == "/misc/odd"
    assert paths(kb, "omega")[0] == "/misc/odd"
    assert paths(kb, "full width")[0] == "/misc/odd"  # NFKC folding of the alias
    assert paths(kb, long_word) == []


def test_concurrent_writers_keep_the_index_consistent(store: Store) -> None:
    kb = store.create_kb("race")
    errors: list[BaseException] = []

    def writer(tag: str) -> None:
        own = KnowledgeBase(store, "race")
        try:
            for i in range(15):
                rec = own.put(
                    f"/{tag}/p{i}", f"shared words {tag} item{i}", FileMeta(title=f"{tag} {i}")
                )
                index_page(own, rec)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,)) for t in ("alpha", "beta")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _, stats = read_stats(kb.backend, IndexKeys("race"))
    assert stats.n == 30
    assert len(search(kb, "shared words", limit=50)) == 30
    assert len(search(kb, "alpha", limit=50)) == 15


def test_read_cache_is_least_recently_used() -> None:
    from wikikv.search.index import LRU

    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    cache.clear()
    assert cache.get("a") is None
