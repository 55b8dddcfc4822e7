"""A directory lists its children in a reader's order, whatever order they were written in."""

from __future__ import annotations

import random

import pytest

from wikikv.config import StoreSettings
from wikikv.store.bulk import BulkWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.order import ordered
from wikikv.store.records import FileMeta
from wikikv.store.store import open_store


def test_numbers_compare_as_numbers_and_case_and_punctuation_do_not_count() -> None:
    names = ["Chapter 10", "chapter 2", '"Heroes"', "Chapter 1", "apple", "Zebra", "ant 3"]
    assert ordered("/d", names, False) == [
        "ant 3",
        "apple",
        "Chapter 1",
        "chapter 2",
        "Chapter 10",
        '"Heroes"',
        "Zebra",
    ]


def test_chinese_titles_file_under_their_first_character_numerals_where_numbers() -> None:
    names = ["药", "《呐喊》自序", "阿Ｑ正传", "一件小事", "三十七", "三十三", "四十"]
    names += ["随感录三十九", "随感录二十五", "五十七现在的屠杀者"]
    names += ["并非闲话（三）", "并非闲话（二）"]
    assert ordered("/作品", names, False) == [
        "三十三",
        "三十七",
        "四十",
        "五十七现在的屠杀者",
        "一件小事",  # a numeral opening a word is a character
        "《呐喊》自序",  # under 呐
        "并非闲话（二）",
        "并非闲话（三）",
        "药",
        "阿Ｑ正传",
        "随感录二十五",
        "随感录三十九",
    ]


def test_catch_all_groups_come_last_and_named_in_groups_after_the_others() -> None:
    zh = ["见于多个集子", "其他作品", "见于《呐喊》", "野草", "见于《坟》", "呐喊", "坟"]
    assert ordered("/作品", zh, True) == [
        "呐喊",
        "坟",
        "野草",
        "见于《呐喊》",
        "见于《坟》",
        "见于多个集子",
        "其他作品",
    ]
    en = ["other people", "in articles on many subjects", "writers", "in articles on films"]
    en += ["actors", "other kinds of people", "other people named in passing"]
    assert ordered("/people", en, True) == [
        "actors",
        "writers",
        "in articles on films",
        "in articles on many subjects",
        "other kinds of people",
        "other people",
        "other people named in passing",
    ]
    # a page is never a catch-all: a novel called "Other Voices" files under O
    assert ordered("/works", ["Other Voices", "Zorba", "Alpha"], False) == [
        "Alpha",
        "Other Voices",
        "Zorba",
    ]
    # the sources go last at the root only
    assert ordered("/", ["sources", "works", "people"], True) == ["people", "works", "sources"]
    assert ordered("/x", ["sources", "works"], True) == ["sources", "works"]


def test_name_ranges_are_listed_by_their_ends_and_repeats() -> None:
    cut = ["films “–《朝", "films 二–后", "films 201–2", "films 5", "films A–A n", "films A t–Ab"]
    cut += ["films The", "films The 2", "films The 10", "films The–Tho", "films Tr"]
    shuffled = cut[:]
    random.Random(3).shuffle(shuffled)
    want = ["films 201–2", "films 5", "films A–A n", "films A t–Ab", "films The", "films The 2"]
    want += ["films The 10", "films The–Tho", "films Tr", "films “–《朝", "films 二–后"]
    assert ordered("/works", shuffled, True) == want
    # a trailing number is a repeat only of a label that is there
    assert ordered("/works", ["films 8", "films 1–4"], True) == ["films 1–4", "films 8"]


NAMES = ["b 10", "b 2", "其他", "a", "见于《坟》", "坟", "C", "b 1"]
# directories are labels, in the order of their characters ("b 10" before "b 2": a name range
# "b 10–b 19" comes before "b 2–b 9" in the order ranges are cut in); pages are titles
WANT_DIRS = ["a", "b 1", "b 10", "b 2", "C", "坟", "见于《坟》", "其他"]


@pytest.fixture
def kb() -> KnowledgeBase:
    return open_store("memory://").create_kb("k")


def test_puts_in_any_order_list_the_same(kb: KnowledgeBase) -> None:
    for name in NAMES:
        kb.put(f"/one/{name}", "x")
    shuffled = NAMES[:]
    random.Random(7).shuffle(shuffled)
    for name in shuffled:
        kb.put(f"/two/{name}", "x")
    for name in reversed(NAMES):
        kb.mkdir(f"/three/{name}")
    want_files = ["a", "b 1", "b 2", "b 10", "C", "其他", "坟", "见于《坟》"]
    assert kb.ls("/one").files == kb.ls("/two").files == want_files
    assert kb.ls("/three").sub_dirs == WANT_DIRS


def test_bulk_writes_and_later_links_give_one_order(kb: KnowledgeBase) -> None:
    with BulkWriter(kb, chunk=3) as bw:
        for name in NAMES[:5]:
            bw.mkdir(f"/d/{name}")
            bw.put_file(f"/d/{name}/page", "x", FileMeta())
    kb.mkdir("/d/" + NAMES[5])
    with BulkWriter(kb) as bw:
        for name in NAMES[6:]:
            bw.mkdir(f"/d/{name}")
    assert kb.ls("/d").sub_dirs == WANT_DIRS


def test_a_moved_directory_lists_in_order(kb: KnowledgeBase) -> None:
    for name in NAMES:
        kb.put(f"/d/{name}", "x")
    kb.move("/d", "/e")
    assert kb.ls("/e").files == ["a", "b 1", "b 2", "b 10", "C", "其他", "坟", "见于《坟》"]


def test_a_paged_directory_keeps_each_page_in_order() -> None:
    kb = open_store("memory://", settings=StoreSettings(dir_page_entries=4)).create_kb("k")
    with BulkWriter(kb) as bw:  # arriving together: the pages fill in order
        for i in reversed(range(10)):
            bw.put_file(f"/d/p{i}", "x", FileMeta())
    pages = [kb.ls("/d", n).files for n in range(kb.ls("/d").pages)]
    assert pages == [["p0", "p1", "p2", "p3"], ["p4", "p5", "p6", "p7"], ["p8", "p9"]]
    kb.put("/d/p10", "x")
    kb.put("/d/a", "x")  # later arrivals go to the last page, in its order
    assert kb.ls("/d", 2).files == ["a", "p8", "p9", "p10"]
