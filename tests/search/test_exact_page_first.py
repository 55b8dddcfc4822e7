"""A name typed into search finds the wiki's page on it before the source texts of the same
title: the page is what a reader or an agent wants first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wikikv.search.index import IndexWriter
from wikikv.search.ranking import search
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta, FileRecord
from wikikv.store.store import open_store


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store = open_store("memory://")
    kb = store.create_kb("w")
    # the source text titled 鲁迅 says the name far more often than the page does
    kb.put(
        "/sources/articles/zh%2F鲁迅",
        "鲁迅，原名周树人。" + "鲁迅写了小说。" * 6,
        FileMeta(kind="article", title="鲁迅"),
    )
    kb.put(
        "/people/Lu Xun",
        "Lu Xun was the pen name of Zhou Shuren.",
        FileMeta(kind="entity", title="Lu Xun", aliases=["鲁迅", "Zhou Shuren"]),
    )
    with IndexWriter(kb) as writer:
        for path in ("/sources/articles/zh%2F鲁迅", "/people/Lu Xun"):
            rec = kb.get(path)
            assert isinstance(rec, FileRecord)
            writer.add(rec)
    yield kb
    store.close()


def test_the_page_comes_before_a_text_of_the_same_name(kb: KnowledgeBase) -> None:
    hits = search(kb, "鲁迅")
    assert [h.path for h in hits[:2]] == ["/people/Lu Xun", "/sources/articles/zh%2F鲁迅"]
    assert all(h.why[0] == "exact name '鲁迅'" for h in hits[:2])
