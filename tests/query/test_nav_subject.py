"""Chinese questions rank the evidence of their subject first: a place that only sets the scene
("绍兴的目连戏") does not bring its own documents ahead of the subject's, and a subject known under
another name that its page declares ("伊孛生即易卜生") brings the texts written under that name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import cited_page, small_kb
from wikikv.bench.retrieval import nav_ranking
from wikikv.query.budget import Budget
from wikikv.query.evidence import declared_names, qualifiers
from wikikv.query.nav import nav
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store

DOCS = {
    # Texts on 目连戏 and on 绍兴 that spell neither as the question does (目莲, 会稽): only the
    # pages say what they are about.
    **{f"mu{i}": f"目莲的戏文第{i}出。" for i in range(1, 6)},
    "sx1": "会稽的桥，会稽的船，会稽的酒。",
    "sx2": "会稽的老屋，会稽的街，会稽的河。",
    # A play discussed under its older transliteration only; texts naming 易卜生 once in passing.
    "ib1": "伊孛生的娜拉出走了。伊孛生作玩偶之家。伊孛生的剧本。",
    "ib2": "易卜生是挪威的剧作家，易卜生作剧本。",
    **{f"e{i}": f"文中第{i}次提到易卜生。" for i in range(1, 4)},
    **{f"n{i}": f"北京的冬天第{i}天很冷。" for i in range(1, 13)},
}


PAGES = {
    # A small town, cited by fewer documents than the play staged there (so more specific),
    # most often by the texts about the town itself.
    "/地点/绍兴": cited_page(
        "绍兴", [("绍兴的桥。", "sx1")] * 4 + [("绍兴的街。", "sx2")] * 3 + [("在绍兴。", "mu1")]
    ),
    "/专名/目连戏": cited_page("目连戏", [(f"目连戏第{i}出。", f"mu{i}") for i in range(1, 6)]),
    "/人物/易卜生": cited_page(
        "易卜生",
        [("易卜生是剧作家。", "ib2")] * 2
        + [(f"提到易卜生{i}。", f"e{i}") for i in range(1, 4)]
        + [("〔2〕伊孛生（H. Ibsen）通译易卜生。", "ib1")],
    ),
    "/人物/伊孛生": cited_page("伊孛生", [("伊孛生的娜拉。", "ib1")] * 3),
}


def make_kb() -> tuple[Store, KnowledgeBase]:
    return small_kb("zh", "一个小小的中文知识库。", DOCS, PAGES)


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = make_kb()
    yield kb
    store.close()


def ranked(kb: KnowledgeBase, question: str) -> list[str]:
    return nav_ranking(nav(kb, question, Budget(max_reads=24)))


def test_the_subject_outranks_the_place_that_sets_its_scene(kb: KnowledgeBase) -> None:
    top = ranked(kb, "哪些文章写到了绍兴的目连戏？")[:5]
    assert sorted(top) == ["mu1", "mu2", "mu3", "mu4", "mu5"]


def test_a_place_asked_about_still_brings_its_own_documents(kb: KnowledgeBase) -> None:
    assert ranked(kb, "哪些文章写到了绍兴？")[:2] == ["sx1", "sx2"]


def test_the_name_a_page_declares_brings_the_texts_written_under_it(kb: KnowledgeBase) -> None:
    results = list(nav(kb, "哪些文章谈到易卜生？", Budget(max_reads=24)))
    assert "/人物/伊孛生" in [r.path for r in results if r.level == "entity"]
    assert "ib1" in nav_ranking(results)[:3]  # beside the texts that spell 易卜生


def test_declared_names_and_qualifiers_read_the_text() -> None:
    assert declared_names("〔7〕伊孛生（H. Ibsen）通译易卜生，挪威剧作家。", ["易卜生"]) == [
        "伊孛生"
    ]
    assert declared_names("〔17〕伊孛生即易卜生。", ["易卜生"]) == ["伊孛生"]
    assert declared_names("易卜生是剧作家。", ["易卜生"]) == []
    named = {"/地点/绍兴": ["绍兴"], "/专名/目连戏": ["目连戏"]}
    assert qualifiers("哪些文章写到了绍兴的目连戏？", named) == {"/地点/绍兴"}
    assert qualifiers("目连戏在绍兴的哪些文章里？", named) == set()
    assert qualifiers("绍兴在哪里？", {"/地点/绍兴": ["绍兴"]}) == set()


def test_a_name_right_before_another_qualifies_it_unless_something_joins_them() -> None:
    russia = {"/地点/俄国": ["俄国"], "/人物/阿尔志跋绥夫": ["阿尔志跋绥夫"]}
    # 俄国 qualifies the writer (a role word between): the writer is the subject.
    assert qualifiers("俄国作家阿尔志跋绥夫在哪些作品里被谈到？", russia) == {"/地点/俄国"}
    two = {"/人物/鲁迅": ["鲁迅"], "/人物/陈西滢": ["陈西滢"]}
    assert qualifiers("鲁迅和陈西滢的论争见于哪些文章？", two) == set()  # two subjects
    tokyo = {"/人物/鲁迅": ["鲁迅"], "/地点/东京": ["东京"]}
    assert qualifiers("鲁迅在东京留学时的事写在哪些文章里？", tokyo) == set()  # a place of his
