"""The typo vocabulary (``I v`` keys) follows the postings: a word's neighbourhood goes with its
last posting, and stays while another page still carries the word."""

from __future__ import annotations

from wikikv.search.index import IndexKeys, index_page, remove_page
from wikikv.search.ranking import search
from wikikv.store.backends.base import prefix_end
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta, FileRecord


def _vocabulary(kb: KnowledgeBase) -> set[str]:
    """The words that have a neighbourhood (``I v`` + variant + NUL + word)."""
    start = IndexKeys(kb.name).base + b"v"
    return {
        key.rsplit(b"\x00", 1)[1].decode("utf-8")
        for key, _ in kb.backend.scan(start, prefix_end(start))
    }


def _index(kb: KnowledgeBase, path: str) -> None:
    rec = kb.get(path)
    assert isinstance(rec, FileRecord)
    index_page(kb, rec)


def test_vocabulary_goes_with_the_last_posting(kb: KnowledgeBase) -> None:
    kb.put("/x/one", "text", FileMeta(title="Quintessential Zebra", aliases=["Marmalade"]))
    kb.put("/x/two", "text", FileMeta(title="Zebra Crossing"))
    _index(kb, "/x/one")
    _index(kb, "/x/two")
    assert {"quintessential", "zebra", "marmalade", "crossing"} <= _vocabulary(kb)
    assert search(kb, "quintesential")  # a typo finds it through the neighbourhood

    remove_page(kb, "/x/one")
    words = _vocabulary(kb)
    assert "quintessential" not in words
    assert "marmalade" not in words
    assert {"zebra", "crossing"} <= words  # /x/two still carries them

    remove_page(kb, "/x/two")
    assert not {"zebra", "crossing"} & _vocabulary(kb)


def test_reindexing_without_an_alias_drops_its_vocabulary(kb: KnowledgeBase) -> None:
    kb.put("/x/one", "text", FileMeta(title="Quintessential", aliases=["Marmalade"]))
    _index(kb, "/x/one")
    kb.put("/x/one", "text", FileMeta(title="Quintessential"))
    _index(kb, "/x/one")
    words = _vocabulary(kb)
    assert "marmalade" not in words
    assert "quintessential" in words
