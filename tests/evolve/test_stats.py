"""Access statistics: reads buffer in memory and reach the store only in batches; a query's
sibling directories count as co-accessed; a crash loses at most the unflushed buffer; workload
files replay through nav."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.errors import WikiKVError
from wikikv.evolve.replay import WorkloadError, read_queries, replay
from wikikv.query.ops import wiki_search
from wikikv.store.access_stats import STATS, AccessRecorder, attach, load_stats, rekey
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import open_store
from wikikv.testing.evolve_workload import generated_corpus, generated_queries

from .conftest import build_generated


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    store = open_store(f"lmdb://{tmp_path / 's'}?sync=false")
    kb = store.create_kb("k")
    for d in ("a", "b", "c"):
        kb.mkdir(f"/dim/{d}")
        for i in range(3):
            kb.put(f"/dim/{d}/p{i}", f"page {d}{i}")
    return kb


def stats_version(kb: KnowledgeBase) -> int:
    item = kb.backend.get(kb.keys.system(STATS))
    return 0 if item is None else item.version


def test_reads_are_buffered_and_flushed_in_batches(kb: KnowledgeBase) -> None:
    rec = attach(kb, flush_every=100)
    for i in range(250):
        kb.get(f"/dim/a/p{i % 3}")
    assert stats_version(kb) == 2  # two batch writes for 250 reads, not 250
    assert sum(load_stats(kb).access.values()) == 200
    assert rec.pending() == 50
    # A crash now loses the 50 buffered reads and nothing else: a new process starts afresh.
    kb.recorder = None
    assert sum(load_stats(kb).access.values()) == 200


def test_without_a_recorder_reads_write_nothing(kb: KnowledgeBase) -> None:
    for _ in range(50):
        kb.get("/dim/a/p0")
        kb.ls("/dim/a")
    assert stats_version(kb) == 0


def test_a_query_counts_visits_and_sibling_co_access(kb: KnowledgeBase) -> None:
    rec = AccessRecorder(kb)
    kb.recorder = rec
    with rec.query():
        kb.get("/dim/a/p0")
        kb.get("/dim/a/p1")
        kb.get("/dim/b/p2")
    with rec.query():
        kb.get("/dim/c/p0")
    rec.flush()
    st = load_stats(kb)
    assert st.queries == 2
    assert st.visits == {"/dim": 2, "/dim/a": 1, "/dim/b": 1, "/dim/c": 1}
    assert st.pair("/dim/a", "/dim/b") == 1
    assert st.pair("/dim/a", "/dim/c") == 0
    assert st.access["/dim/a/p0"] == 1


def test_flushes_from_two_processes_add_up(kb: KnowledgeBase) -> None:
    one, two = AccessRecorder(kb), AccessRecorder(kb)
    for r in (one, two):
        kb.recorder = r
        kb.get("/dim/a/p0")
        r.flush()
    assert load_stats(kb).access["/dim/a/p0"] == 2


def test_rekey_sums_merged_directories() -> None:
    from wikikv.store.access_stats import AccessStats

    st = AccessStats(
        queries=3,
        access={"/d/a/x": 2},
        visits={"/d/a": 2, "/d/b": 1},
        co={"/d/a\t/d/b": 1, "/d/a\t/d/c": 2},
    )
    out = rekey(st, {"/d/a": "/d/ab", "/d/b": "/d/ab", "/d/a/x": "/d/ab/x"})
    assert out.visits == {"/d/ab": 3}
    assert out.access == {"/d/ab/x": 2}
    assert out.co == {"/d/ab\t/d/c": 2}


def test_search_hits_and_nav_are_recorded() -> None:
    with open_store("memory://") as store:
        kb = build_generated(store, "g", 3, 30, 64, 0, index=True)
        rec = attach(kb, flush_every=10_000)
        title = generated_corpus(3, 30)[0].title
        hits = wiki_search(kb, title, limit=3)
        assert hits
        assert rec.pending() >= len(hits)
        replay(kb, generated_queries(generated_corpus(3, 30), 3, 5))
        st = load_stats(kb)
        assert st.queries == 5
        assert st.access
        assert st.visits


def test_workload_files(tmp_path: Path) -> None:
    (tmp_path / "q.jsonl").write_text('{"question": "Who is A?"}\n{"query": "B"}\n')
    (tmp_path / "q.yaml").write_text("questions:\n  - question: 阿Q是谁\n  - 孔乙己\n")
    (tmp_path / "q.txt").write_text("# comment\nfirst\n\nsecond\n")
    assert read_queries(tmp_path / "q.jsonl") == ["Who is A?", "B"]
    assert read_queries(tmp_path / "q.yaml") == ["阿Q是谁", "孔乙己"]
    assert read_queries(tmp_path / "q.txt") == ["first", "second"]
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    (tmp_path / "empty.txt").write_text("# nothing\n")
    (tmp_path / "odd.yaml").write_text("- 3\n")
    for bad in ("bad.jsonl", "empty.txt", "odd.yaml", "missing.txt"):
        with pytest.raises(WorkloadError) as err:
            read_queries(tmp_path / bad)
        assert isinstance(err.value, WikiKVError)
        assert bad in str(err.value)
