"""nav uses the semantic sub-dimensions a question names (issue 9): an enumeration over a split
dimension reads the pages of the matching sub-dimension, a question that names a work reaches the
characters filed under it, and a collection named in a Chinese question puts its texts first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wikikv.bench.retrieval import nav_ranking
from wikikv.query.budget import Budget
from wikikv.query.nav import NavResult, label_named, nav
from wikikv.search import IndexWriter, tokenize
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import escape_segment
from wikikv.store.records import FileMeta
from wikikv.store.store import Store, open_store

# Documents by title only (so the text search cannot match a collection in their names).
ZH_DOCS = {
    # The two stories of the collection call him 庄周; only his page says they are about him.
    "起死": "庄周遇见一个骷髅，请司命大神把他复活。",
    "出关": "老子骑青牛出关，又说到庄周。",
    # Outside the collection: names 庄子 often.
    "杂感": "庄子说，庄子又说，庄子还说，庄子的话很多。",
    "故乡": "闰土在海边的沙地上看瓜。",
}


def art(doc: str) -> str:
    return "/sources/articles/" + escape_segment(doc)


def entity(title: str, cites: list[str], text: str = "") -> tuple[str, FileMeta]:
    facts = "\n".join(f"- {title}的一句话。 [^{i}]" for i in range(1, len(cites) + 1))
    notes = "\n".join(f"[^{i}]: [[{art(d)}]] chars 0-5" for i, d in enumerate(cites, 1))
    body = text or f"# {title}\n\n## 要点\n{facts}\n\n{notes}\n"
    meta = FileMeta(
        kind="entity",
        title=title,
        summary=f"{title}的页面",
        sources=[art(d) for d in dict.fromkeys(cites)],
    )
    return body, meta


ZH_PAGES = {
    # Collections as the build files them (a text under its collection), characters under the
    # work they appear in.
    "/作品/故事新编/起死": entity("起死", ["起死"]),
    "/作品/故事新编/出关": entity("出关", ["出关"]),
    "/作品/热风/杂感": entity("杂感", ["杂感"]),
    "/作品/呐喊/故乡": entity("故乡", ["故乡"]),
    "/人物/见于《故事新编》/庄子": entity("庄子", ["杂感"] * 4 + ["起死", "出关"]),
    "/人物/见于《故事新编》/司命大神": entity("司命大神", ["起死"]),
    "/人物/见于《呐喊》/闰土": entity("闰土", ["故乡"]),
}

EN_DOCS = {
    "hook": "Hook is a 1991 fantasy by Spielberg.",
    "jaws": "Jaws is a 1975 thriller by Spielberg.",
    "brazil": "Brazil is a film by Terry Gilliam, an American-born director.",
}
EN_PAGES = {
    "/works/American films/Hook": ("Hook is a 1991 fantasy by Spielberg.", "hook"),
    "/works/American films/Jaws": ("Jaws is a 1975 thriller by Spielberg.", "jaws"),
    "/works/British films/Brazil": ("Brazil is a film by Terry Gilliam.", "brazil"),
}


def index(kb: KnowledgeBase) -> None:
    with IndexWriter(kb) as writer:
        for p in kb.prefix("/"):
            rec = kb.get(p)
            if rec is not None and p != "/":
                writer.add(rec)  # type: ignore[arg-type]


def make_zh() -> tuple[Store, KnowledgeBase]:
    store = open_store("memory://")
    kb = store.create_kb("zh")
    kb.set_dir_text("/", "鲁迅的作品与人物。")
    for doc, text in ZH_DOCS.items():
        kb.put(art(doc), text, FileMeta(kind="article", title=doc))
    for path, (text, meta) in ZH_PAGES.items():
        kb.put(path, text, meta)
    index(kb)
    return store, kb


def make_en() -> tuple[Store, KnowledgeBase]:
    store = open_store("memory://")
    kb = store.create_kb("en")
    kb.set_dir_text("/", "Films.")
    for doc, text in EN_DOCS.items():
        kb.put(art(doc), text, FileMeta(kind="article", title=doc))
    for path, (text, doc) in EN_PAGES.items():
        title = path.rsplit("/", 1)[-1]
        kb.put(path, text, FileMeta(kind="entity", title=title, sources=[art(doc)]))
    index(kb)
    return store, kb


@pytest.fixture
def zh() -> Iterator[KnowledgeBase]:
    store, kb = make_zh()
    yield kb
    store.close()


@pytest.fixture
def en() -> Iterator[KnowledgeBase]:
    store, kb = make_en()
    yield kb
    store.close()


def run(kb: KnowledgeBase, question: str) -> list[NavResult]:
    return list(nav(kb, question, Budget(max_reads=24)))


def test_an_enumeration_over_a_split_dimension_reads_the_sub_dimension(en: KnowledgeBase) -> None:
    results = run(en, "Which American films are in the wiki?")
    listed = [r.path for r in results if r.level == "dimension"]
    assert "/works/American films" in listed
    pages = [r.path for r in results if r.level == "entity"]
    # Neither page says "American" or "film": only the hierarchy says what they are.
    assert {"/works/American films/Hook", "/works/American films/Jaws"} <= set(pages)
    assert "/works/British films" not in listed


def test_a_question_naming_a_work_reaches_the_characters_filed_under_it(
    zh: KnowledgeBase,
) -> None:
    results = run(zh, "《故事新编》里有哪些人物？")
    assert results[1].path == "/人物/见于《故事新编》"
    pages = [r.path for r in results if r.level == "entity"]
    assert set(pages) == {"/人物/见于《故事新编》/庄子", "/人物/见于《故事新编》/司命大神"}


def test_a_collection_named_in_the_question_puts_its_texts_first(zh: KnowledgeBase) -> None:
    results = run(zh, "庄子在《故事新编》的哪几篇里出场？")
    assert "/作品/故事新编" in [r.path for r in results if r.level == "dimension"]
    assert sorted(nav_ranking(results)[:2]) == ["出关", "起死"]


def test_which_labels_a_question_names() -> None:
    q = "Which American films are in the wiki?"
    terms = set(tokenize(q))
    assert label_named("American films", q, terms, loose=False)
    assert not label_named("films", q, terms, loose=False)  # one kind word: too common
    assert label_named("films", q, terms, loose=True)
    assert not label_named("in articles on films", q, terms, loose=True)  # where, not what
    assert label_named("directors and films", q, terms, loose=True)
    assert label_named("见于《故事新编》", "《故事新编》里有谁？", set(), loose=False)
    assert not label_named("见于《呐喊》", "《故事新编》里有谁？", set(), loose=True)


def test_a_one_character_collection_counts_between_title_marks() -> None:
    assert label_named("坟", "《坟》里哪几篇谈到了辫子？", set(), loose=False)
    assert label_named("见于《坟》", "《坟》里哪几篇谈到了辫子？", set(), loose=False)
    assert not label_named("坟", "上坟的时候想到了什么？", set(), loose=True)


def test_the_named_collection_restricts_but_does_not_vote(zh: KnowledgeBase) -> None:
    # The collection's own page cites its preface most (as the build's pages of 朝花夕拾 cite its
    # 简介 and 小引); asked about a subject inside the collection, the subject's texts come first.
    zh.put(
        art("序言"), "本书收小说八篇，取材于古代的传说。", FileMeta(kind="article", title="序言")
    )
    zh.put("/作品/故事新编/序言", *entity("序言", ["序言"]))
    zh.put("/作品/见于《故事新编》/故事新编", *entity("故事新编", ["序言"] * 6 + ["起死"]))
    index(zh)
    results = run(zh, "庄子在《故事新编》的哪几篇里出场？")
    assert "/作品/故事新编" in [r.path for r in results if r.level == "dimension"]
    assert sorted(nav_ranking(results)[:2]) == ["出关", "起死"]
