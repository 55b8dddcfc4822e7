"""Entity quality on English prose that is not a titled corpus, and on the bundled sample."""

from __future__ import annotations

from wikikv.compile.pipeline import Compiler
from wikikv.sample import CORPUS_DIR
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store
from wikikv.text import entities as ents
from wikikv.text.digest import split_sentences


def _mentions(text: str, titles: list[str] | None = None) -> list[ents.Mention]:
    gaz = ents.build_gazetteer(ents.title_variants(titles or []), {})
    return ents.english_mentions(text, split_sentences(text, "en"), gaz)


def test_titles_with_function_words_stay_whole() -> None:
    text = (
        "Doyle published A Study in Scarlet in 1887. Watson narrates A Study in Scarlet "
        "and The Hound of the Baskervilles."
    )
    surfaces = [m.surface for m in _mentions(text)]
    assert surfaces.count("A Study in Scarlet") == 2
    assert "The Hound of the Baskervilles" in surfaces
    assert not {"Study", "Scarlet", "The Hound", "Hound", "Baskervilles"} & set(surfaces)


def test_a_preposition_between_names_does_not_join_them() -> None:
    text = "He lived at 221B Baker Street in London for years."
    surfaces = {m.surface: m.kind for m in _mentions(text)}
    assert "221B Baker Street" in surfaces
    assert surfaces.get("London") == "place"


def test_declared_aliases() -> None:
    en = "Lu Xun was the pen name of Zhou Shuren, a Chinese writer."
    found = ents.declared_aliases("Lu Xun", en, split_sentences(en, "en"), "en")
    assert [(m.key, m.surface, m.kind) for m in found] == [("lu xun", "Zhou Shuren", "alias")]
    zh = "鲁迅，原名周树人，1881年生于浙江绍兴。"
    found = ents.declared_aliases("鲁迅", zh, split_sentences(zh, "zh"), "zh")
    assert [m.surface for m in found] == ["周树人"]


def test_chinese_people_and_places_are_not_works() -> None:
    assert (
        ents.classify_title("周作人", "# 周作人\n\n周作人是鲁迅的弟弟，1885年生于浙江", "zh")
        == "person"
    )
    assert ents.classify_title("鲁迅", "鲁迅，原名周树人，1881年生于浙江绍兴。", "zh") == "person"
    assert ents.classify_title("绍兴", "绍兴是浙江省的一座历史文化名城。", "zh") == "place"
    assert ents.classify_title("孔乙己", "《孔乙己》是鲁迅1919年发表的短篇小说。", "zh") == "work"
    assert ents.classify_title("秋夜", "在我的后园，可以看见墙外有两株树。", "zh") == "work"
    # Lu Xun corpus layout: the title, a space, then the text (here about someone else)
    assert ents.classify_title("柔石小传", "柔石小传 柔石，原名平复，1901年生于浙江。", "zh") == (
        "work"
    )
    assert ents.classify_title(
        "怎么写（夜记之一）", "怎么写（夜记之一）写什么是一个问题", "zh"
    ) == ("work")
    assert ents.classify_title(
        "John Watson", "# John Watson Dr. John Watson is the friend", "en"
    ) == ("person")


def test_sample_corpus_compiles_one_page_per_entity() -> None:
    kb = open_store("memory://").create_kb("sample")
    Compiler(kb).build(CORPUS_DIR)
    pages = {p for p in kb.prefix("/", 1000) if not p.startswith("/sources")}
    for path in [
        "/people/Sherlock Holmes",
        "/people/John Watson",
        "/people/Arthur Conan Doyle",
        "/people/Lu Xun",
        "/people/周作人",
        "/places/Shaoxing",
        "/places/London",
        "/works/A Study in Scarlet",
        "/works/The Hound of the Baskervilles",
    ]:
        assert path in pages, path
    names = {p.rsplit("/", 1)[1] for p in pages}
    assert not {"Holmes", "Study", "Scarlet", "The Hound", "Dr. John Watson"} & names
    holmes = kb.get("/people/Sherlock Holmes")
    assert isinstance(holmes, FileRecord)
    assert {"Holmes", "Mr. Holmes"} <= set(holmes.meta.aliases)
    lu = kb.get("/people/Lu Xun")
    assert isinstance(lu, FileRecord)
    assert "Zhou Shuren" in lu.meta.aliases
    # one person declared across languages ("Lu Xun (Chinese: 鲁迅)"): one page, both articles
    assert "/people/鲁迅" not in pages
    assert "/places/绍兴" not in pages  # "Shaoxing (Chinese: 绍兴)": one place too
    assert {"鲁迅", "周树人"} <= set(lu.meta.aliases)
    assert {"/sources/articles/en%2FLu Xun", "/sources/articles/zh%2F鲁迅"} <= set(lu.meta.sources)
    watson = kb.get("/people/John Watson")
    assert isinstance(watson, FileRecord)
    assert "/people/Sherlock Holmes" in watson.meta.links
