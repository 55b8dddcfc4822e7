"""Documents whose full-text scores are near-equal share a rank in the fusion, so the named
pages' citations order them — not the noise in the scores (the search's statistics are over
every page of the wiki, and an unrelated page change moves them)."""

from __future__ import annotations

from tests.query.test_nav_documents import page
from tests.query.wiki_fixture import small_kb
from wikikv.bench.retrieval import nav_ranking
from wikikv.query.budget import Budget
from wikikv.query.evidence import SCORE_TIE, fuse, tied_ranks
from wikikv.query.nav import nav

# Two long texts that hold the question's words equally; p2 is two characters longer, so the
# search scores it a little (0.4%) lower. And others.
BODY = "那年冬天他在山里住着，每天读书写字，看云看水，很少出门。" * 8
DOCS = {
    "p1": "硬译的论争，文章说到翻译甲。" + BODY,
    "p2": "硬译的论争，文章说到翻译乙，丙。" + BODY,
    "n1": "北京的冬天很冷，文章写得很长。",
    "n2": "上海的书店很多，文章也多。",
    "n3": "绍兴的酒，绍兴的桥，绍兴的船。",
    "n4": "杭州的湖，杭州的塔，杭州的雨。",
}
# The page of the person the question names cites p2 most: it is the text about him.
PAGES = {"/人物/梁实秋": page("梁实秋", ["p2", "p2", "p1"])}


def test_scores_within_the_tolerance_share_a_rank() -> None:
    near = 10.0 * (1.0 - SCORE_TIE / 2)
    ranks = tied_ranks([("a", 10.0), ("b", near), ("c", 9.0), ("d", 9.0), ("e", 1.0)])
    assert ranks == {"a": 0, "b": 0, "c": 2, "d": 2, "e": 4}
    # A group is measured from its first score: no chain of small steps joins far scores.
    step = 1.0 - SCORE_TIE * 0.6
    chain = tied_ranks([("a", 10.0), ("b", 10.0 * step), ("c", 10.0 * step * step)])
    assert chain == {"a": 0, "b": 0, "c": 2}
    assert tied_ranks([]) == {}


def test_fusion_of_tied_ranks_lets_the_other_list_decide() -> None:
    # As a list, a's rank lead outweighs a weaker list's preference for b ...
    assert fuse([(1.0, ["a", "b"]), (0.3, ["b", "a"])]) == ["a", "b"]
    # ... tied, the weaker list decides.
    assert fuse([(1.0, {"a": 0, "b": 0}), (0.3, ["b", "a"])]) == ["b", "a"]


def test_a_named_page_orders_documents_the_text_search_scores_alike() -> None:
    store, kb = small_kb("zh", "一个小小的中文知识库。", DOCS, PAGES)
    try:
        results = list(nav(kb, "梁实秋关于硬译的论争写在哪些文章里？", Budget(max_reads=24)))
    finally:
        store.close()
    assert nav_ranking(results)[:2] == ["p2", "p1"]
