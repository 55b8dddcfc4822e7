"""Posting blocks past ``SPLIT_BYTES`` are stored in parts (by the doc ref's second byte): a
write, a re-index, a removal and a staged build's merge give the same postings and the same
search results as whole blocks."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from wikikv.search import index as ix
from wikikv.search.index import IndexKeys, IndexWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta

from .test_index import _raw_index, _snapshot
from .test_index_writes import records


def _postings(kb: KnowledgeBase) -> tuple[dict[bytes, list[bytes]], int]:
    """Every block's postings (sorted), its parts joined; and how many keys were parts."""
    out: dict[bytes, list[bytes]] = {}
    parts = 0
    for rel, value in _raw_index(kb).items():
        if not rel.startswith(b"p"):
            continue
        term, tail = rel.rsplit(b"\x00", 1)
        parts += len(tail) == 2
        assert isinstance(value, list)
        out.setdefault(term + b"\x00" + tail[:1], []).extend(value)
    return {k: sorted(v) for k, v in out.items()}, parts


def _change_pages(kb: KnowledgeBase) -> None:
    kb.put(
        "/works/ah-q", "鲁迅的小说。Ah Q. Lu Xun wrote it.", FileMeta(kind="entity", title="阿Q")
    )
    kb.put("/places/shaoxing", "Shaoxing, a canal town; Lu Xun.", FileMeta(title="Shaoxing"))
    kb.delete("/topics/orchid-society")


def _edit(kb: KnowledgeBase, staged: bool, split: Callable[[], None]) -> None:
    """Index the pages, ``split`` (from now on, blocks go in parts), then edit, re-index."""
    with IndexWriter(kb, staged=staged) as writer:
        writer.add_all(records(kb))
    split()
    _change_pages(kb)
    with IndexWriter(kb) as writer:
        writer.add_all(records(kb))
        writer.remove("/topics/orchid-society")


def _fresh(kb: KnowledgeBase) -> None:
    _change_pages(kb)
    with IndexWriter(kb) as writer:
        writer.add_all(records(kb))


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize("first", [True, False])
def test_blocks_in_parts_equal_whole_blocks(
    make_kb: Callable[[str], KnowledgeBase],
    monkeypatch: pytest.MonkeyPatch,
    staged: bool,
    first: bool,
) -> None:
    """``first``: the first write puts its blocks in parts (a build); else the edits turn the
    whole blocks they touch into parts."""
    whole = make_kb("whole")
    _fresh(whole)
    expected, none = _postings(whole)
    assert none == 0
    parted = make_kb("parted")

    def split() -> None:
        monkeypatch.setattr(ix, "SPLIT_BYTES", 0)  # every block in parts

    if first:
        split()
    _edit(parted, staged, split)
    got, parts = _postings(parted)
    assert parts > 0
    assert got == expected
    assert _snapshot(parted) == _snapshot(whole)


def test_a_block_in_parts_that_empties_drops_its_word(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = make_kb("wiki")
    monkeypatch.setattr(ix, "SPLIT_BYTES", 0)  # every block in parts
    paths = [f"/misc/z{i}" for i in range(6)]
    for p in paths:
        kb.put(p, "zanzibarr quokka", FileMeta(title="Zanzibarr"))
    with IndexWriter(kb) as writer:
        writer.add_all(records(kb) + [kb.get(p) for p in paths])  # type: ignore[list-item]
    ik = IndexKeys(kb.name)
    assert ix.read_postings(kb.backend, ik, "zanzibarr")
    assert kb.backend.get(ik.variant("zanzibarr", "zanzibarr")) is not None
    with IndexWriter(kb) as writer:
        for p in paths:
            writer.remove(p)
    assert ix.read_postings(kb.backend, ik, "zanzibarr") == []
    assert kb.backend.get(ik.variant("zanzibarr", "zanzibarr")) is None
