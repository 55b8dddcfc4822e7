"""A wikilink is indexed by the words it shows, not by its target's path: the directories a
linked page is filed under are not words of the linking page, and re-filing the linked page
(a schema evolution pass) leaves the linking page's ranking as it was."""

from __future__ import annotations

from wikikv.search.analysis import analyze, readable_body
from wikikv.search.index import index_page
from wikikv.search.ranking import search
from wikikv.store.records import FileMeta, FileRecord
from wikikv.store.store import open_store


def test_links_read_as_the_words_they_show() -> None:
    text = (
        "Born in [[/places/cities in Europe/Paris|Paris]]; see [[/people/composers/Eve Beglarian]]"
        " and [[/works/films A–K/Hook%2FPan#plot|]]."
    )
    assert readable_body(text) == "Born in Paris; see Eve Beglarian and Hook/Pan."
    assert readable_body("no links here") == "no links here"


def test_the_target_directories_do_not_count_and_a_move_changes_nothing() -> None:
    def page(target: str) -> FileRecord:
        text = f"Alder Vale is a film shot near [[{target}/Harrow Lake|Harrow Lake]]."
        meta = FileMeta(kind="entity", title="Alder Vale")
        return FileRecord("Alder Vale", "/works/Alder Vale", text, meta)

    before = analyze(page("/places/reservoirs"))
    after = analyze(page("/places/other places M–Z"))
    assert before == after  # the linked page moved; the linking page's terms did not
    with open_store("memory://") as store:
        kb = store.create_kb("k")
        kb.put("/works/Alder Vale", page("/places/reservoirs").text, FileMeta(kind="entity"))
        rec = kb.get("/works/Alder Vale")
        assert isinstance(rec, FileRecord)
        index_page(kb, rec)
        assert [h.path for h in search(kb, "Harrow Lake")] == ["/works/Alder Vale"]
        assert search(kb, "reservoirs") == []  # a word of the target's directory only
