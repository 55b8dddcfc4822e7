"""The build writes its search index in bounded flushes: flushing after every batch and page
builds exactly the wiki and index that one flush per phase does, and a job killed while articles
wait for the index resumes to the same index as a clean build (a document is recorded as
analysed only once its article is searchable)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from wikikv.bench.compile import snapshot
from wikikv.compile import pipeline
from wikikv.compile.index_feed import IndexFeed
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.errors import SimulatedCrash
from wikikv.search.analysis import IndexKeys
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord
from wikikv.store.store import open_store


def _index(kb: KnowledgeBase) -> dict[bytes, object]:
    """Every index key but the stats; a posting block as the multiset of its postings."""
    ik = IndexKeys(kb.name)
    out: dict[bytes, object] = {}
    for key, item in kb.backend.scan(ik.base, ik.base + b"\xff"):
        rel = key[len(ik.base) :]
        if key == ik.stats:
            continue
        v = item.value
        out[rel] = sorted(v[i : i + 28] for i in range(0, len(v), 28)) if rel[:1] == b"p" else v
    return out


def test_a_flush_per_batch_builds_the_same_wiki_and_index(
    tmp_path: Path, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store(f"lmdb://{tmp_path / 'one'}?sync=false") as s1:
        whole = s1.create_kb("kb")
        Compiler(whole).build(hotpot_slice)
        with open_store(f"lmdb://{tmp_path / 'many'}?sync=false") as s2:
            small = s2.create_kb("kb")
            flushes = _count_flushes(monkeypatch)
            monkeypatch.setattr(pipeline, "INDEX_FLUSH_CHARS", 1)  # every batch, every page
            Compiler(small, options=CompileOptions(batch=7)).build(hotpot_slice)
            assert len(flushes) > 40
            assert snapshot(small) == snapshot(whole)
            assert _index(small) == _index(whole)


def test_the_directory_listings_are_flushed_in_bounded_parts(
    tmp_path: Path, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listings are written after the pages: added to the index all at once, they were one
    flush of every listing's text (~150 MB at 100 MB of corpus) at the end of phase B."""
    limit = 4_000
    flushes = _count_flushes(monkeypatch)
    monkeypatch.setattr(pipeline, "INDEX_FLUSH_CHARS", limit)
    with open_store(f"lmdb://{tmp_path / 's'}?sync=false") as s:
        kb = s.create_kb("kb")
        Compiler(kb, options=CompileOptions(batch=5)).build(hotpot_slice)  # articles too
        nodes = [kb.get(p) for p in kb.walk("/")]
        texts = [len(r.text) for r in nodes if r is not None]
        listings = sum(len(r.text) for r in nodes if isinstance(r, DirRecord))
    assert listings > limit + max(texts) + 1_000  # all in one flush would break the bound
    # a flush holds what reached the limit plus one page or listing (and its summary)
    assert max(flushes) < limit + max(texts) + 1_000


def test_a_job_killed_before_the_index_flush_resumes_to_a_full_index(
    tmp_path: Path, hotpot_slice: Path
) -> None:
    with open_store(f"lmdb://{tmp_path / 'clean'}?sync=false") as s1:
        clean = s1.create_kb("kb")
        Compiler(clean).build(hotpot_slice)
        with open_store(f"lmdb://{tmp_path / 'crash'}?sync=false") as s2:
            kb = s2.create_kb("kb")
            # Killed in phase A after several batches of articles were written, before the one
            # index flush of the phase.
            with pytest.raises(SimulatedCrash):
                Compiler(kb, options=CompileOptions(batch=20, fail_after_writes=90)).build(
                    hotpot_slice
                )
            report = Compiler(kb).build(hotpot_slice)
            assert report.resumed
            assert snapshot(kb) == snapshot(clean)
            assert _index(kb) == _index(clean)


@pytest.mark.parametrize("late", [False, True])
def test_a_build_killed_while_rendering_resumes_to_the_same_index(
    tmp_path: Path, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch, late: bool
) -> None:
    """A first build stages its index flushes and merges them at the end: killed in phase B
    with runs staged (and one cut short), the resumed build merges them into the clean index.
    ``late``: killed among the directory listings, some of them flushed and recorded."""
    monkeypatch.setattr(pipeline, "INDEX_FLUSH_CHARS", 20_000)  # a run every few pages
    with open_store(f"lmdb://{tmp_path / 'clean'}?sync=false") as s1:
        clean = s1.create_kb("kb")
        done = Compiler(clean).build(hotpot_slice)
        with open_store(f"lmdb://{tmp_path / 'crash'}?sync=false") as s2:
            kb = s2.create_kb("kb")
            at = done.analyzed + (done.written - 4 if late else 60)
            with pytest.raises(SimulatedCrash):  # every article written, then some pages
                Compiler(kb, options=CompileOptions(fail_after_writes=at)).build(hotpot_slice)
            ik = IndexKeys(kb.name)
            assert list(kb.backend.scan(ik.runs, ik.runs + b"\xff"))  # runs were staged
            beside = tmp_path / "crash" / "index-runs"
            assert list(beside.rglob("*.run"))  # their blocks, in files beside the store
            report = Compiler(kb).build(hotpot_slice)
            assert report.resumed
            assert list(kb.backend.scan(ik.runs, ik.runs + b"\xff")) == []
            assert not beside.exists()
            assert snapshot(kb) == snapshot(clean)
            assert _index(kb) == _index(clean)


def test_samewiki_digests_tell_equal_builds_from_different_ones(
    tmp_path: Path, small_en: Path
) -> None:
    from wikikv.bench import samewiki

    a = samewiki.dump(str(small_en), str(tmp_path / "a"), str(tmp_path / "a.json"))
    b = samewiki.dump(str(small_en), str(tmp_path / "b"), str(tmp_path / "b.json"))
    assert samewiki.compare(a, b) == {"pages": [], "index": []}
    assert samewiki.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    text = small_en.read_text(encoding="utf-8").replace("violin", "cello")
    changed = tmp_path / "changed.jsonl"
    changed.write_text(text, encoding="utf-8")
    c = samewiki.dump(str(changed), str(tmp_path / "c"), str(tmp_path / "c.json"))
    diff = samewiki.compare(a, c)
    assert "/sources/articles/d1" in diff["pages"]
    assert diff["index"]


def _count_flushes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The characters pending at each index flush of the builds that follow."""
    flushes: list[int] = []
    real = IndexFeed.flush

    def counting(
        self: IndexFeed, last: bool = False, then: Callable[[], None] | None = None
    ) -> None:
        flushes.append(self.pending_chars)
        real(self, last, then)

    monkeypatch.setattr(IndexFeed, "flush", counting)
    return flushes
