"""A page written again with other text but the same postings (its words reordered, a link's
target moved) rewrites its doc entry and no posting block; any change to a word, a count or a
field's length rewrites the postings as before."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from wikikv.search import analysis as an
from wikikv.search.analysis import IndexKeys
from wikikv.search.ranking import search
from wikikv.store.kb import KnowledgeBase

from .test_index import _raw_index
from .test_index_inflight import _flush, _page, killed_before_entries


def _versions(kb: KnowledgeBase) -> dict[bytes, int]:
    """The version of every posting block."""
    ik = IndexKeys(kb.name)
    start = ik.base + b"p"
    return {k: item.version for k, item in kb.backend.scan(start, start + b"\xff")}


def _entry(kb: KnowledgeBase, path: str) -> an.DocEntry:
    item = kb.backend.get(IndexKeys(kb.name).doc(an.doc_ref(path)))
    assert item is not None
    return an._doc_dec.decode(item.value)


_OTHERS = [_page(f"/b/q{i}", f"alpha common other{i} zebra") for i in range(20)]


def test_reordered_words_rewrite_the_entry_and_no_block(kb: KnowledgeBase) -> None:
    _flush(kb, [_page("/a/one", "zebra alpha beta alpha [[/x/old|gamma]]"), *_OTHERS])
    blocks = _versions(kb)
    _flush(kb, [_page("/a/one", "alpha [[/y/new|gamma]] beta zebra alpha")])
    assert _versions(kb) == blocks
    entry = _entry(kb, "/a/one")
    assert (
        entry.digest
        == an.fields_of(_page("/a/one", "alpha [[/y/new|gamma]] beta zebra alpha")).digest
    )
    # a second write of the same text is skipped by that digest; the index reads as one built
    # from the new text alone
    _flush(kb, [_page("/a/one", "alpha [[/y/new|gamma]] beta zebra alpha")])
    assert _versions(kb) == blocks
    assert [h.path for h in search(kb, "gamma")] == ["/a/one"]


@pytest.mark.parametrize(
    "text",
    [
        "zebra alpha beta beta [[/x/old|gamma]]",  # a count changes
        "zebra alpha beta alpha [[/x/old|delta]]",  # a word changes
        "zebra alpha beta alpha [[/x/old|gamma]] and more",  # the length changes
    ],
)
def test_other_postings_are_written(make_kb: Callable[[str], KnowledgeBase], text: str) -> None:
    kb, clean = make_kb("kb"), make_kb("clean")
    _flush(kb, [_page("/a/one", "zebra alpha beta alpha [[/x/old|gamma]]"), *_OTHERS])
    blocks = _versions(kb)
    _flush(kb, [_page("/a/one", text)])
    assert _versions(kb) != blocks
    _flush(clean, [_page("/a/one", text), *_OTHERS])
    assert _raw_index(kb).keys() == _raw_index(clean).keys()
    for key, value in _raw_index(clean).items():
        if key.startswith(b"p"):
            assert _raw_index(kb)[key] == value, key


_LONG = "alpha beta zebra delta [[/x/old|gamma]] epsilon"


def _changed_blocks(before: dict[bytes, int], after: dict[bytes, int]) -> set[bytes]:
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def _same_postings_as_clean(kb: KnowledgeBase, clean: KnowledgeBase, but: bytes = b"-") -> None:
    """Every posting block of ``kb`` (but those whose key starts with ``but``) is ``clean``'s."""
    mine, theirs = _raw_index(kb), _raw_index(clean)
    blocks = {k for k in theirs if k.startswith(b"p")}
    assert {k for k in mine if k.startswith(b"p") and not k.startswith(but)} == blocks
    for key in blocks:
        assert mine[key] == theirs[key], key


@pytest.fixture(params=[1 << 15, 3 * an.POSTING.size], ids=["blocks", "parts"])
def counted(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages of 5 terms or more keep their counts; posting blocks past the size are in parts."""
    from wikikv.search import index

    monkeypatch.setattr(an, "COUNTED_TERMS", 5)
    monkeypatch.setattr(index, "SPLIT_BYTES", request.param)


@pytest.mark.usefixtures("counted")
def test_a_long_page_rewrites_the_blocks_of_the_terms_whose_counts_changed(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    kb, clean = make_kb("kb"), make_kb("clean")
    _flush(kb, [_page("/a/one", _LONG), *_OTHERS])
    assert an.term_counts_of(_entry(kb, "/a/one")) is not None
    before = _versions(kb)
    text = _LONG.replace("delta", "theta")  # the same length: one word for another
    _flush(kb, [_page("/a/one", text)])
    changed = _changed_blocks(before, _versions(kb))
    assert changed
    assert all(b"delta" in k or b"theta" in k for k in changed), changed
    _flush(clean, [_page("/a/one", text), *_OTHERS])
    _same_postings_as_clean(kb, clean)
    assert [h.path for h in search(kb, "delta")] == []
    assert [h.path for h in search(kb, "theta")] == ["/a/one"]


@pytest.mark.usefixtures("counted")
def test_a_long_page_whose_lengths_change_is_written_whole(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    kb, clean = make_kb("kb"), make_kb("clean")
    _flush(kb, [_page("/a/one", _LONG), *_OTHERS])
    before = _versions(kb)
    text = _LONG + " omega"
    _flush(kb, [_page("/a/one", text)])
    assert any(b"alpha" in k for k in _changed_blocks(before, _versions(kb)))
    _flush(clean, [_page("/a/one", text), *_OTHERS])
    _same_postings_as_clean(kb, clean)


@pytest.mark.usefixtures("counted")
def test_a_partial_write_cut_short_is_redone_whole(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the blocks of a partial write, before the entries: the page's stored entry
    is the old one, so the next write of it (another text) cannot trust it to say which blocks
    hold what; it is listed as in flight and written whole. (As after any interrupted write, a
    posting of a term neither the old nor the next text has stays: theta's here.)"""
    kb, clean = make_kb("kb"), make_kb("clean")
    _flush(kb, [_page("/a/one", _LONG), *_OTHERS])
    cut = [_page("/a/one", _LONG.replace("delta", "theta"))]
    killed_before_entries(kb, monkeypatch, lambda: _flush(kb, cut))
    text = _LONG.replace("beta", "kappa")  # delta's posting, gone from its block, is back
    _flush(kb, [_page("/a/one", text)])
    _flush(clean, [_page("/a/one", text), *_OTHERS])
    _same_postings_as_clean(kb, clean, but=b"ptheta\x00")
    assert [h.path for h in search(kb, "delta")] == ["/a/one"]
