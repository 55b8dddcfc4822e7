"""A page written again with other text but the same postings (its words reordered, a link's
target moved) rewrites its doc entry and no posting block; any change to a word, a count or a
field's length rewrites the postings as before."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from wikikv.search import analysis as an
from wikikv.search.analysis import IndexKeys
from wikikv.search.index import IndexWriter
from wikikv.search.ranking import search
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta, FileRecord

from .test_index import _raw_index


def _page(path: str, text: str, summary: str = "") -> FileRecord:
    return FileRecord(
        name=path.rsplit("/", 1)[1], path=path, text=text, meta=FileMeta(summary=summary)
    )


def _flush(kb: KnowledgeBase, pages: list[FileRecord]) -> None:
    with IndexWriter(kb) as writer:
        writer.add_all(pages)


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
