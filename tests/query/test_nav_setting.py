"""A named page's citations weigh by what the question asks of it: a place that only qualifies a
subject without a page of its own ("绍兴的师爷") is the scene, and a page named among many other
words (…把托尔斯泰叫作卑污的说教人…) leaves those words to rank the texts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import cited_page, small_kb
from wikikv.bench.retrieval import nav_ranking
from wikikv.query.budget import Budget
from wikikv.query.evidence import declared_names, name_share, qualifiers
from wikikv.query.nav import nav, ranked_evidence
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store

DOCS = {
    # Texts about the town, and two that tell of its clerks (师爷), which have no page.
    **{f"sx{i}": f"绍兴的桥第{i}座，绍兴的船，绍兴的酒，绍兴的河。" for i in range(1, 4)},
    "sy1": "绍兴的师爷善于舞文弄法，下笔能定人祸福。",
    "sy2": "人们说绍兴出师爷，师爷的笔尖很厉害。",
    # A writer most texts name in passing, and two that report what he was called.
    **{f"t{i}": f"托尔斯泰的小说第{i}部，托尔斯泰的晚年，托尔斯泰的农庄。" for i in range(1, 13)},
    "q1": "有人把托尔斯泰叫作卑污的说教人，真是奇谈。",
    "q2": "卑污的说教人，这是他们给托尔斯泰的称号，说教人云云。",
    **{f"r{i}": f"卑污的说教人第{i}种，都是说教人。" for i in range(1, 4)},
    **{f"n{i}": f"北京的冬天第{i}天很冷。" for i in range(1, 13)},
}


PAGES = {
    # The town's page cites its own texts most, a clerk's text once.
    "/地点/绍兴": cited_page(
        "绍兴",
        [(f"绍兴的桥{i}。", f"sx{i}") for i in range(1, 4)] * 3 + [("绍兴的师爷。", "sy1")],
    ),
    # The writer's page cites the texts about his works most, one report of the name once.
    "/人物/托尔斯泰": cited_page(
        "托尔斯泰",
        [(f"托尔斯泰的小说{i}。", f"t{i}") for i in range(1, 13)] * 3
        + [("把托尔斯泰叫作卑污的说教人。", "q1")],
    ),
}


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store: Store
    store, kb = small_kb("zh", "一个小小的中文知识库。", DOCS, PAGES)
    yield kb
    store.close()


def ranked(kb: KnowledgeBase, question: str) -> list[str]:
    return nav_ranking(nav(kb, question, Budget(max_reads=24)))


def test_a_place_qualifying_a_subject_without_a_page_is_the_scene(kb: KnowledgeBase) -> None:
    assert sorted(ranked(kb, "哪些文章说到了绍兴的“师爷”？")[:2]) == ["sy1", "sy2"]
    # Asked about itself, the town still brings its own texts.
    assert sorted(ranked(kb, "哪些文章写到了绍兴？")[:3]) == ["sx1", "sx2", "sx3"]


def test_the_other_words_of_the_question_rank_a_hub_pages_texts(kb: KnowledgeBase) -> None:
    top = ranked(kb, "革命文学家把托尔斯泰叫作“卑污的说教人”，这件事在哪些文章里？")[:2]
    assert sorted(top) == ["q1", "q2"]


def test_qualifier_heads_need_no_page_but_a_party_is_no_scene() -> None:
    town = {"/地点/绍兴": ["绍兴"]}
    assert qualifiers("哪些文章说到了绍兴的“师爷”？", town, {"师爷"}) == {"/地点/绍兴"}
    assert qualifiers("哪些文章说到了绍兴的“师爷”？", town) == set()  # no head word given
    assert qualifiers("绍兴的哪些文章写到了桥？", town, {"桥梁"}) == set()  # 哪些: the frame
    two = {"/人物/鲁迅": ["鲁迅"], "/人物/高长虹": ["高长虹"]}
    assert qualifiers("鲁迅和高长虹的冲突见于哪些作品？", two, {"冲突"}) == set()


def test_a_declared_name_ends_where_the_name_does() -> None:
    assert declared_names("〔5〕电通社即日本电报通讯社，一九○一年创办。", ["日本"]) == []
    assert declared_names("〔17〕伊孛生即易卜生的旧译。", ["易卜生"]) == ["伊孛生"]


def test_name_share_weighs_a_page_by_how_much_of_the_question_it_names() -> None:
    assert name_share({"墨子"}, ["墨子"]) == 1.0
    assert name_share({"托尔斯泰", "卑污", "说教"}, ["托尔斯泰"]) == pytest.approx(0.5 + 0.5 / 3)
    assert name_share({"鲁迅", "照相"}, ["墨子"]) == 0.5
    assert name_share({"who"}, ["墨子"]) == 1.0  # no Chinese words: nothing to share


def test_a_page_lists_the_best_documents_only_in_the_streams_order() -> None:
    found = {"a": 0, "b": 1, "c": 2, "d": 3}
    cites_b_c = ["/sources/articles/c", "/sources/articles/b"]
    # The best document is cited by no page and not given yet: listing b first would put it
    # ahead of a in the stream.
    assert ranked_evidence(cites_b_c, found) == []
    assert ranked_evidence(cites_b_c, found, {"a"}) == cites_b_c[::-1]
    assert ranked_evidence(["/sources/articles/a", "/sources/articles/d"], found) == [
        "/sources/articles/a"
    ]
    assert ranked_evidence(cites_b_c, {}) == cites_b_c  # nothing ranked: every source
