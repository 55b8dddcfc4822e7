"""Chinese questions are answered documents first: the search over the documents' texts fused
with the documents the named entity pages cite most, a hub weighing by its specificity."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import small_kb
from wikikv.bench.retrieval import nav_ranking
from wikikv.query.budget import Budget
from wikikv.query.evidence import by_citations, cited_counts, fuse, specificity
from wikikv.query.nav import FEW_SOURCES, OTHER_PAGES, NavResult, nav
from wikikv.search import IndexWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta
from wikikv.store.store import Store

DOCS = {
    # Written about 鲁迅 under his pen name only: the text search for 周树人 cannot find it.
    "a1": "鲁迅在北京教书。鲁迅又编杂志。鲁迅后来到了上海。",
    "a2": "周树人是他的本名，一九一八年起用笔名发表文章。",
    # The only text about 目连戏; it names 绍兴 once.
    "g": "目连戏是绍兴的社戏，戏台上有无常。",
    # About 绍兴 at length, never about 目连戏.
    "h": "绍兴的酒，绍兴的桥，绍兴的船，绍兴的戏台。",
    "n1": "北京的冬天很冷，文章写得很长。",
    "n2": "上海的书店很多，文章也多。",
}


def page(title: str, cites: list[str], aliases: tuple[str, ...] = ()) -> tuple[str, FileMeta]:
    facts = "\n".join(f"- {title}的一句话。 [^{i}]" for i in range(1, len(cites) + 1))
    notes = "\n".join(
        f"[^{i}]: [[/sources/articles/{doc}]] chars 0-5" for i, doc in enumerate(cites, 1)
    )
    meta = FileMeta(
        kind="entity",
        title=title,
        aliases=list(aliases),
        summary=f"{title}的页面",
        sources=[f"/sources/articles/{d}" for d in dict.fromkeys(cites)],
    )
    return f"# {title}\n\n## 要点\n{facts}\n\n{notes}\n", meta


PAGES = {
    "/人物/鲁迅": page("鲁迅", ["a1", "a1", "a1", "a2"], aliases=("周树人",)),
    # A hub: cites every document, h most often, g least.
    "/地点/绍兴": page("绍兴", ["h", "h", "h", "h", "n1", "n1", "n2", "n2", "g", "a1", "a2"]),
}


def make_kb() -> tuple[Store, KnowledgeBase]:
    return small_kb("zh", "一个小小的中文知识库。", DOCS, PAGES)


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = make_kb()
    yield kb
    store.close()


def run(kb: KnowledgeBase, question: str, reads: int = 24) -> list[NavResult]:
    return list(nav(kb, question, Budget(max_reads=reads)))


def test_a_named_entity_brings_the_documents_it_is_cited_from_under_another_name(
    kb: KnowledgeBase,
) -> None:
    results = run(kb, "周树人出现在哪些文章里？")
    ranked = nav_ranking(results)
    assert "a1" in ranked[:2]  # only the page of 鲁迅 (alias 周树人) says a1 is about him
    assert "a2" in ranked[:2]  # the text that spells 周树人
    assert "/人物/鲁迅" in [r.path for r in results if r.level == "entity"]


def test_a_hub_named_in_passing_does_not_outrank_the_text_about_the_subject(
    kb: KnowledgeBase,
) -> None:
    ranked = nav_ranking(run(kb, "哪些文章写到了绍兴的目连戏？"))
    assert ranked[0] == "g"
    assert ranked.index("g") < ranked.index("h")


def test_documents_come_after_the_pages_coarse_to_fine_and_within_the_budget(
    kb: KnowledgeBase,
) -> None:
    full = run(kb, "周树人出现在哪些文章里？", reads=40)
    levels = [r.granularity for r in full]
    assert levels == sorted(levels)
    assert any(r.level == "article" for r in full)
    for reads in range(0, 10):
        budget = Budget(max_reads=reads)
        part = list(nav(kb, "周树人出现在哪些文章里？", budget))
        assert [r.path for r in part] == [r.path for r in full[: len(part)]]
        assert budget.reads <= reads + 1


def test_an_entity_page_lists_only_its_sources_among_the_best_documents(
    kb: KnowledgeBase,
) -> None:
    results = run(kb, "哪些文章写到了绍兴的目连戏？")
    hub = next(r for r in results if r.path == "/地点/绍兴")
    best = [r.path for r in results if r.level == "article"][:FEW_SOURCES]
    assert hub.sources  # the hub cites g, the best document
    assert hub.sources[0] == "/sources/articles/g"
    assert set(hub.sources) <= set(best)  # not the documents it cites most


def test_cited_counts_reads_the_footnotes() -> None:
    text, _ = PAGES["/地点/绍兴"]
    counts = cited_counts(text)
    assert counts["/sources/articles/h"] == 4
    assert counts["/sources/articles/g"] == 1
    # z, which the text search found, before y, which the page cites more
    assert by_citations({"x": 1, "y": 3, "z": 1}, {"z": 0}) == ["z", "y", "x"]
    assert by_citations({"x": 1, "y": 3, "z": 1}, {}) == ["y", "x", "z"]


def test_specificity_falls_as_a_page_cites_more_of_the_documents() -> None:
    assert specificity(1, 100) == 1.0
    assert specificity(100, 100) == 0.0
    assert 0.0 < specificity(50, 100) < specificity(5, 100) < 1.0
    assert specificity(0, 100) == 0.0


def test_fusion_prefers_agreement_and_respects_weights() -> None:
    assert fuse([(1.0, ["a", "b", "c"]), (1.0, ["b", "a"])])[:2] in (["a", "b"], ["b", "a"])
    assert fuse([(1.0, ["a", "b"]), (1.0, ["b", "c"])])[0] == "b"  # in both lists
    assert fuse([(1.0, ["a", "b"]), (0.0, ["b", "a"])]) == ["a", "b"]  # weight 0: no say
    assert fuse([]) == []


def test_pages_the_question_does_not_name_leave_the_budget_to_the_documents() -> None:
    store, kb = make_kb()
    for i in range(8):  # pages that say 目连戏 and 文章 more than any document does
        kb.put(
            f"/作品/注{i}", "目连戏 目连戏 文章 目连戏。", FileMeta(kind="entity", title=f"注{i}")
        )
    with IndexWriter(kb) as writer:
        for i in range(8):
            writer.add(kb.get(f"/作品/注{i}"))  # type: ignore[arg-type]
    results = run(kb, "哪些文章写到了目连戏？", reads=14)
    unnamed = [r for r in results if r.level == "entity" and r.path.startswith("/作品/")]
    assert len(unnamed) <= OTHER_PAGES
    assert "g" in nav_ranking(results)
    store.close()
