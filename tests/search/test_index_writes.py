"""The cheap write path of the index: unchanged pages skipped, blocks written once, analysis memoised
(in process and, for CJK runs, in the store), and the result byte-identical to plain indexing."""

from __future__ import annotations

import gc
import importlib
from collections import Counter
from collections.abc import Callable

import pytest

from wikikv.errors import ConflictError
from wikikv.search import analysis as an
from wikikv.search import index as ix
from wikikv.search.index import IndexKeys, IndexWriter, index_page, read_stats
from wikikv.search.ranking import search
from wikikv.store.backends.base import Delete, Op, Put
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileMeta, FileRecord

from .test_index import ALL_PATHS, QUERIES, _raw_index, _snapshot, index_all

# The package re-exports the function ``tokenize``, which hides the module of the same name.
tk = importlib.import_module("wikikv.search.tokenize")

TEXTS = [
    "Lu Xun's brothers wrote essays; the Directors' cut isn't out.",
    "Gábor Ünïcödé naïve café — ＦＵＬＬ ｗｉｄｔｈ, O\u2019Brien's boxes",
    "《阿Q正传》是鲁迅创作的中篇小说，1921年发表于北京《晨报副刊》。",
    "Mixed 鲁迅 and Lu Xun, 北京 Peking; 的 是 and the of",
    "",
    "   ",
    "x" * 300,
]


def records(kb: KnowledgeBase) -> list[FileRecord | DirRecord]:
    """The sample pages that exist now."""
    return [r for r in kb.get_many(ALL_PATHS) if isinstance(r, FileRecord | DirRecord)]


def spy_writes(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> list[Op]:
    written: list[Op] = []
    real = kb.backend.batch

    def spy(ops: list[Op]) -> list[int]:
        written.extend(ops)
        return real(ops)

    monkeypatch.setattr(kb.backend, "batch", spy)
    return written


def reference_tokenize(text: str, keep: bool) -> list[str]:
    """The tokenizer's definition, written plainly (no memo, no ASCII fast path)."""
    out: list[str] = []
    for m in tk._RUNS.finditer(tk.fold(text).replace("\u2019", "'")):
        cjk, latin = m.group(1), m.group(2)
        if cjk:
            words = [cjk] if len(cjk) == 1 else tk.segment_words(cjk)
            terms = list(words)
            for i in range(len(cjk) - 1):
                bigram = cjk[i : i + 2]
                if bigram not in words and not (tk._BIGRAM_SKIP & set(bigram)):
                    terms.append(bigram)
            out.extend(t for t in terms if keep or t not in tk.STOPWORDS)
        else:
            word = latin if latin.isascii() else tk.strip_accents(latin)
            if not keep and word in tk.STOPWORDS:
                continue
            if term := tk.stem(word):
                out.append(term)
    return out


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("text", TEXTS)
def test_tokenize_fast_paths_equal_the_definition(text: str, keep: bool) -> None:
    expected = reference_tokenize(text, keep)
    tk._WORD_MEMO.clear()
    tk._RUN_MEMO.clear()
    assert tk.tokenize(text, keep) == expected  # cold memo
    assert tk.tokenize(text, keep) == expected  # warm memo
    assert [t for t, _ in tk._terms(text, keep)] == expected


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("text", [*TEXTS, "Éclair — the ÉCLAIRS’ sake… naïve", "a b c the"])
def test_term_counts_equal_counting_the_tokens(text: str, keep: bool) -> None:
    tokens = reference_tokenize(text, keep)
    counts, total = tk.term_counts(text, keep)
    assert counts == Counter(tokens)
    assert total == len(tokens)


def test_memo_tables_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tk, "MEMO_MAX", 5)
    tk._WORD_MEMO.clear()
    words = [f"word{i}" for i in range(40)]
    assert tk.tokenize(" ".join(words)) == words
    assert len(tk._WORD_MEMO) <= 5


def test_writer_skips_unchanged_pages_and_writes_nothing(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    with IndexWriter(kb) as writer:
        writer.add_all(records(kb))
    gen = read_stats(kb.backend, IndexKeys(kb.name))[1].gen
    before = _raw_index(kb)
    written = spy_writes(kb, monkeypatch)
    analysed: list[str] = []
    real = an.analyze_fields

    def counting(fields: an.Fields) -> an.Analyzed:
        analysed.append(fields.path)
        return real(fields)

    monkeypatch.setattr(ix, "analyze_fields", counting)
    writer = IndexWriter(kb)
    writer.add_all(records(kb))
    assert writer.flush() == 0
    assert writer.skipped == len(ALL_PATHS)
    assert written == []
    assert analysed == []
    assert read_stats(kb.backend, IndexKeys(kb.name))[1].gen == gen
    # One changed page among unchanged ones: only it is analysed and rewritten.
    rec = kb.put("/places/shaoxing", "A canal town.", FileMeta(kind="entity", title="Shaoxing"))
    writer.add_all([*records(kb)[:2], rec])
    assert writer.flush() == 1
    assert analysed == ["/places/shaoxing"]
    assert paths_of(kb, "canal") == ["/places/shaoxing"]
    assert _raw_index(kb) != before


def docs_and_postings(kb: KnowledgeBase) -> dict[bytes, object]:
    return {k: v for k, v in _raw_index(kb).items() if k[:1] in (b"d", b"p")}


def paths_of(kb: KnowledgeBase, query: str) -> list[str]:
    return [h.path for h in search(kb, query)]


def test_writer_after_edits_equals_a_fresh_index(make_kb: Callable[[str], KnowledgeBase]) -> None:
    edited, fresh = make_kb("edited"), make_kb("fresh")
    with IndexWriter(edited) as writer:
        writer.add_all(records(edited))
    for kb in (edited, fresh):
        kb.put("/works/ah-q", "鲁迅的小说。Ah Q.", FileMeta(kind="entity", title="阿Q正传"))
        kb.delete("/topics/orchid-society")
    with IndexWriter(edited) as writer:
        writer.add_all(records(edited))
        writer.remove("/topics/orchid-society")
    with IndexWriter(fresh) as writer:
        writer.add_all(records(fresh))
    assert _snapshot(edited) == _snapshot(fresh)
    # Docs and postings are identical; the typo neighbourhood and the segmentation memo keep
    # entries of what was indexed before (by design: both are only hints).
    assert docs_and_postings(edited) == docs_and_postings(fresh)
    s_edited = read_stats(edited.backend, IndexKeys("edited"))[1]
    s_fresh = read_stats(fresh.backend, IndexKeys("fresh"))[1]
    assert (s_edited.n, s_edited.total) == (s_fresh.n, s_fresh.total)


def test_leftover_postings_of_an_interrupted_write_are_replaced(kb: KnowledgeBase) -> None:
    """Blocks written by an attempt whose doc entries never landed hold postings of docs the
    index does not know yet (listed under the attempt's in-flight marker); the next write must
    not duplicate them, and drops the marker."""
    index_all(kb)
    rec = kb.put("/misc/new", "zanzibar zanzibar", FileMeta(title="Zanzibar"))
    doc = an.analyze(rec)
    ik = IndexKeys(kb.name)
    key = ik.posting("zanzibar", an.bucket_of(doc.ref))
    stale = an.pack(doc.ref, [0, 0, 0, 0, 7], doc.entry.lens)
    marker = ik.in_flight(b"attempt1")
    kb.backend.batch([Put(key, stale), Put(marker, doc.ref)])
    with IndexWriter(kb) as writer:
        writer.add(rec)
    item = kb.backend.get(key)
    assert item is not None
    assert item.value == an.pack(doc.ref, doc.tfs["zanzibar"], doc.entry.lens)
    assert kb.backend.get(marker) is None


def test_a_conflicting_flush_retries_without_analysing_again(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysed: list[str] = []
    real_analyze = an.analyze_fields

    def counting(fields: an.Fields) -> an.Analyzed:
        analysed.append(fields.path)
        return real_analyze(fields)

    monkeypatch.setattr(ix, "analyze_fields", counting)
    real_apply = ix._apply
    calls = {"n": 0}

    def flaky(*args: object, **kw: object) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConflictError("k", 1, 2)
        real_apply(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(ix, "_apply", flaky)
    with IndexWriter(kb) as writer:
        writer.add_all(records(kb))
    assert calls["n"] == 2
    assert sorted(analysed) == sorted(ALL_PATHS)
    assert paths_of(kb, "Lu Xun")[0] == "/people/lu-xun"


def test_stored_segmentations_spare_loading_jieba(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch
) -> None:
    memo_kb, plain = make_kb("memo"), make_kb("plain")
    with IndexWriter(memo_kb) as writer:
        writer.add_all(records(memo_kb))
    ik = IndexKeys(memo_kb.name)
    stored = list(memo_kb.backend.scan(ik.base + b"j", ik.base + b"k"))
    assert any("正传".encode() in key for key, _ in stored)
    # A later process: empty in-process memo and no jieba. Re-indexing a page whose Chinese runs
    # were all seen must work from the stored memo alone, and give the same index.
    tk._RUN_MEMO.clear()

    def no_jieba() -> object:
        raise AssertionError("jieba was loaded")

    monkeypatch.setattr(tk, "_segmenter", no_jieba)
    text = "《阿Q正传》是鲁迅创作的中篇小说。Revised."
    meta = FileMeta(kind="entity", title="阿Q正传", aliases=["The True Story of Ah Q"])
    rec = memo_kb.put("/works/ah-q", text, meta)
    assert index_page(memo_kb, rec) is True
    monkeypatch.undo()
    with IndexWriter(plain) as writer:
        writer.add_all(records(plain))
    index_page(plain, plain.put("/works/ah-q", text, meta))
    assert _raw_index(memo_kb) == _raw_index(plain)
    assert _snapshot(memo_kb) == _snapshot(plain)
    assert QUERIES  # the snapshot covers Chinese and English queries


def test_large_flushes_do_not_store_segmentations(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ix, "MEMO_FLUSH_MAX", 2)
    written = spy_writes(kb, monkeypatch)
    with IndexWriter(kb) as writer:
        writer.add_all(records(kb))
    memo_prefix = IndexKeys(kb.name).base + b"j"
    assert not [
        op for op in written if isinstance(op, Put | Delete) and op.key.startswith(memo_prefix)
    ]
    assert paths_of(kb, "鲁迅的中篇小说")[0] == "/works/ah-q"


@pytest.mark.parametrize("enabled", [True, False])
def test_flush_restores_the_garbage_collector(kb: KnowledgeBase, enabled: bool) -> None:
    seen: list[bool] = []
    real = an.analyze_fields

    def probe(fields: an.Fields) -> an.Analyzed:
        seen.append(gc.isenabled())
        return real(fields)

    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ix, "analyze_fields", probe)
            with IndexWriter(kb) as writer:
                writer.add_all(records(kb))
        assert seen
        assert not any(seen)  # paused while the flush analyses and writes
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
