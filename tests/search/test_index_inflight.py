"""Index writes that add new documents list them while in flight, so a merge only filters the
blocks it must: an interrupted write is repaired by the next one (no posting twice), and a
write that completes leaves no marker behind."""

from __future__ import annotations

import os
import random
from collections.abc import Callable

import pytest

from wikikv.errors import SimulatedCrash
from wikikv.search import analysis as an
from wikikv.search.index import IndexKeys, IndexWriter
from wikikv.store.backends.base import Op
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta, FileRecord

from .test_index import _raw_index


def _page(path: str, text: str) -> FileRecord:
    return FileRecord(name=path.rsplit("/", 1)[1], path=path, text=text, meta=FileMeta())


def _flush(kb: KnowledgeBase, pages: list[FileRecord]) -> None:
    with IndexWriter(kb) as writer:
        writer.add_all(pages)


def killed_before_entries(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, write: Callable[[], object]
) -> None:
    """Run ``write``, killed after its posting blocks are committed and before its doc entries
    and stats (they are committed together, last)."""
    real = kb.commit
    stats_key = IndexKeys(kb.name).stats

    def crash_at_entries(ops: list[Op]) -> object:
        if any(op.key == stats_key for op in ops):
            raise SimulatedCrash("killed after the blocks, before the doc entries")
        return real(ops)

    monkeypatch.setattr(kb, "commit", crash_at_entries)
    with pytest.raises(SimulatedCrash):
        write()
    monkeypatch.setattr(kb, "commit", real)


def _markers(kb: KnowledgeBase) -> list[bytes]:
    start, end = IndexKeys(kb.name).in_flight_range()
    return [k for k, _ in kb.backend.scan(start, end)]


@pytest.mark.parametrize("seed", range(3))
def test_without_finds_the_same_postings_as_a_scan(seed: int) -> None:
    rng = random.Random(seed)
    size = an.POSTING.size
    refs = [rng.randbytes(8) for _ in range(40)]
    postings = [rng.choice(refs) + rng.randbytes(size - 8) for _ in range(200)]
    block = b"".join(postings)
    for n in (0, 1, 3, an.FIND_REFS, an.FIND_REFS + 1, 40):
        gone = set(rng.sample(refs, n))
        assert an.without(block, gone) == b"".join(p for p in postings if p[:8] not in gone)


def test_a_completed_write_leaves_no_marker(kb: KnowledgeBase) -> None:
    _flush(kb, [_page("/a/one", "alpha beta"), _page("/a/two", "alpha gamma")])
    _flush(kb, [_page("/a/three", "alpha delta")])  # merges into existing blocks
    assert _markers(kb) == []


def test_an_interrupted_write_is_repaired_by_the_next(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = [_page(f"/a/p{i}", f"alpha common word{i}") for i in range(30)]
    second = [_page(f"/b/q{i}", f"alpha common other{i}") for i in range(30)]
    clean, kb = make_kb("clean"), make_kb("killed")
    _flush(clean, first)
    _flush(clean, second)
    _flush(kb, first)
    killed_before_entries(kb, monkeypatch, lambda: _flush(kb, second))
    assert len(_markers(kb)) == 1  # the new docs are listed as in flight
    _flush(kb, second)  # the rerun adds the same pages again
    assert _markers(kb) == []
    assert _raw_index(kb) == _raw_index(clean)  # every posting once


def test_random_tokens_make_distinct_markers() -> None:
    ik = IndexKeys("kb")
    assert ik.in_flight(os.urandom(8)) != ik.in_flight(os.urandom(8))
    start, end = ik.in_flight_range()
    assert start <= ik.in_flight(b"\xff" * 8) < end
