"""nav takes the pages a question names outright as candidates, even when the search's
candidates are crowded by pages that match the rest of the question."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wikikv.query.budget import Budget
from wikikv.query.nav import _Nav, extractive_needs_deeper, nav
from wikikv.search import IndexWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta
from wikikv.store.store import open_store

CROWD = [f"Film {i}" for i in range(6)]


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store = open_store("memory://")
    kb = store.create_kb("films")
    kb.set_dir_text("/", "Films.")
    pages = {f"/films/{t}": f"{t} is a film that came out first in a city." for t in CROWD}
    pages["/films/Kalavar King"] = "Kalavar King is a 2010 Telugu film that came out in May."
    pages["/films/Ogro"] = "Ogro is a 1979 drama by Gillo Pontecorvo."
    pages["/films/Northwest Passage (Song)"] = "Northwest Passage is a song by Stan Rogers."
    pages["/films/Salvador J. Lara"] = "Salvador J. Lara was a film director."
    for path, text in pages.items():
        title = path.rsplit("/", 1)[-1]
        kb.put(path, text, FileMeta(kind="entity", title=title))
    with IndexWriter(kb) as writer:
        for p in kb.prefix("/"):
            rec = kb.get(p)
            if rec is not None and p != "/":
                writer.add(rec)  # type: ignore[arg-type]
    yield kb
    store.close()


def test_a_page_the_question_names_is_read_though_the_search_crowds_it_out(
    kb: KnowledgeBase,
) -> None:
    q = "Which film came out first in the city, Kalavar King or Ogro?"
    results = list(nav(kb, q, Budget(max_reads=30), candidates=1))
    paths = [r.path for r in results if r.level == "entity"]
    assert "/films/Ogro" in paths
    assert "/films/Kalavar King" in paths


def test_named_pages_are_the_longest_capitalised_runs_that_are_page_names(
    kb: KnowledgeBase,
) -> None:
    q = "Who sang Northwest Passage (Song)? Which film came out first, Ogro?"
    run = _Nav(kb, q, Budget(max_reads=30), extractive_needs_deeper(), 8, 3)
    assert run.named_pages() == [
        ("Northwest Passage (Song)", "/films/Northwest Passage (Song)"),
        ("Ogro", "/films/Ogro"),
    ]


def test_a_name_with_an_initial_keeps_its_period(kb: KnowledgeBase) -> None:
    # "J." is part of the name; the period that ends the question is not
    q = "Who lived longer, Salvador J. Lara or the director of Ogro."
    run = _Nav(kb, q, Budget(max_reads=30), extractive_needs_deeper(), 8, 3)
    assert run.named_pages() == [
        ("Salvador J. Lara", "/films/Salvador J. Lara"),
        ("Ogro", "/films/Ogro"),
    ]
