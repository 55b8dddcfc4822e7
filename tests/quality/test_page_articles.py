"""A page's check looks each cited article up once, however many of its facts quote it (the
render gate's view makes a record on each lookup)."""

from __future__ import annotations

from collections import Counter

from wikikv.quality import validators as v
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord


class _Counting(v.View):
    def __init__(self, kb: KnowledgeBase) -> None:
        super().__init__(kb)
        self.asked: Counter[str] = Counter()

    def article(self, path: str) -> FileRecord | None:
        self.asked[path] += 1
        return super().article(path)


def test_each_cited_article_is_looked_up_once_per_page(clean_kb: KnowledgeBase) -> None:
    view = _Counting(clean_kb)
    quoting_one_article_twice = 0
    for path, rec in view.pages.items():
        page = view.parsed[path]
        view.asked.clear()
        found = v.check_page(view, path, rec, page)
        assert not [f for f in found if f.type in (v.UNSUPPORTED, v.SOURCE_DELETED)], path
        cited = Counter(n.path for n in page.notes.values())
        quoting_one_article_twice += any(n > 1 for n in cited.values())
        assert all(n == 1 for n in view.asked.values()), (path, view.asked)
    assert quoting_one_article_twice  # the corpus has pages that quote an article twice
