"""A compiled page is indexed by what a reader reads of it: not its front matter (the kind, the
dates, the tags) nor its footnote markers and cited character spans, which every page has; a
footnote's article stays (Lu Xun's are named by the essay's title); an article is indexed as
its document was written."""

from __future__ import annotations

from wikikv.search.analysis import analyze, page_body
from wikikv.search.index import index_page
from wikikv.search.ranking import search
from wikikv.store.records import FileMeta, FileRecord
from wikikv.store.store import open_store

PAGE = """---
type: people
created: 2026-11-27
tags: ["person", "people"]
---
# Alder Vale
> Alder Vale was a surveyor. [^1]

## Key Facts
- Alder Vale mapped the Harrow Lake shore in 1907. [^2]

[^1]: [[/sources/articles/p01771]] chars 0-31
[^2]: [[/sources/articles/Quay Notes]] chars 32-80
"""


def test_the_body_is_the_page_without_front_matter_markers_or_spans() -> None:
    assert page_body(PAGE) == (
        "# Alder Vale\n> Alder Vale was a surveyor. \n\n## Key Facts\n"
        "- Alder Vale mapped the Harrow Lake shore in 1907. \n\n"
        " [[/sources/articles/p01771]]\n [[/sources/articles/Quay Notes]]\n"
    )
    assert page_body("no front matter [^x] here") == "no front matter  here"
    assert page_body("---\nnot closed") == "---\nnot closed"  # no block: kept as written


def test_front_matter_and_footnotes_are_not_searched_but_the_page_is() -> None:
    with open_store("memory://") as store:
        kb = store.create_kb("k")
        kb.put("/people/Alder Vale", PAGE, FileMeta(kind="entity", title="Alder Vale"))
        article = "---\nsource: the harbour ledger\n---\nThe memo was written in 2026."
        kb.put("/sources/articles/m1", article, FileMeta(kind="article", title="m1"))
        for path in ("/people/Alder Vale", "/sources/articles/m1"):
            rec = kb.get(path)
            assert isinstance(rec, FileRecord)
            index_page(kb, rec)
        assert [h.path for h in search(kb, "Harrow Lake 1907")] == ["/people/Alder Vale"]
        assert [h.path for h in search(kb, "quay notes")] == ["/people/Alder Vale"]
        for noise in ("chars", "31", "people 2026"):
            assert "/people/Alder Vale" not in [h.path for h in search(kb, noise)], noise
        # an article keeps every word its document wrote, its own front matter too
        assert [h.path for h in search(kb, "harbour ledger")] == ["/sources/articles/m1"]


def test_a_page_and_the_same_page_with_other_dates_index_alike() -> None:
    def page(day: str) -> FileRecord:
        text = PAGE.replace("2026-11-27", day)
        return FileRecord("Alder Vale", "/people/Alder Vale", text, FileMeta(kind="entity"))

    assert analyze(page("2026-11-27")) == analyze(page("2027-01-02"))
