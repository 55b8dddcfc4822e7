"""nav(query, budget): progressive order, valid prefixes, budgets, enumeration, Chinese, hops."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import make_store
from wikikv.query.budget import Budget
from wikikv.query.nav import FIRST_EVIDENCE_READS, NavResult, classify, coverage, nav
from wikikv.store.kb import KnowledgeBase


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = make_store()
    yield kb
    store.close()


def run(kb: KnowledgeBase, q: str, reads: int) -> tuple[list[NavResult], Budget]:
    budget = Budget(max_reads=reads)
    return list(nav(kb, q, budget)), budget


QUESTIONS = [
    "Who is the spouse of the director of Inception?",
    "Which films are in the wiki?",
    "鲁迅的故乡在哪里",
    "Emma Thomas",
    "something nobody wrote about",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_results_come_coarse_to_fine_and_start_with_the_root(
    kb: KnowledgeBase, question: str
) -> None:
    results, _ = run(kb, question, 30)
    assert results[0].level == "index"
    assert results[0].path == "/"
    levels = [r.granularity for r in results]
    assert levels == sorted(levels)
    assert len({r.path for r in results}) == len(results)  # nothing emitted twice


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_smaller_budget_gives_a_prefix_of_a_larger_one(
    kb: KnowledgeBase, question: str
) -> None:
    full, _ = run(kb, question, 40)
    for reads in range(0, 12):
        part, _ = run(kb, question, reads)
        assert [r.path for r in part] == [r.path for r in full[: len(part)]]
        assert all(r.text for r in part)  # each prefix is made of complete results


@pytest.mark.parametrize("reads", [0, 1, 2, 3])
def test_a_tiny_budget_returns_the_root_and_overruns_by_at_most_one_read(
    kb: KnowledgeBase, reads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    page_reads = 0
    real_get = kb.get

    def counting_get(path: str, **kw: bool) -> object:
        nonlocal page_reads
        page_reads += 1
        return real_get(path, **kw)

    monkeypatch.setattr(kb, "get", counting_get)
    results, budget = run(kb, "Who is the spouse of the director of Inception?", reads)
    assert results
    assert results[0].level == "index"
    assert budget.reads <= reads + 1
    assert page_reads <= reads + 1


def test_an_enumeration_question_is_answered_from_a_listing(kb: KnowledgeBase) -> None:
    assert classify("Which films are in the wiki?") == "enumeration"
    assert classify("列出所有人物") == "enumeration"
    assert classify("Who directed Inception?") == "lookup"
    results, _ = run(kb, "Which films are in the wiki?", 10)
    dims = [r for r in results if r.level == "dimension"]
    assert dims
    assert dims[0].path == "/films"
    assert "Inception" in dims[0].text
    assert "Dunkirk" in dims[0].text
    assert {r.path for r in results if r.level == "entity"} == {
        "/films/Inception",
        "/films/Dunkirk",
    }


def test_a_chinese_query_finds_its_chinese_page(kb: KnowledgeBase) -> None:
    results, _ = run(kb, "鲁迅的故乡在哪里", 10)
    entities = [r.path for r in results if r.level == "entity"]
    assert entities
    assert entities[0] == "/人物/鲁迅"


def test_a_bridge_question_follows_wikilinks_and_reaches_the_sources(kb: KnowledgeBase) -> None:
    results, _ = run(kb, "Who is the spouse of the director of Inception?", 30)
    by_path = {r.path: r for r in results}
    assert "/films/Inception" in by_path
    assert "/people/Christopher Nolan" in by_path
    articles = [r.path for r in results if r.level == "article"]
    assert "/sources/articles/d1" in articles
    assert "/sources/articles/d2" in articles


def test_coverage_is_the_extractive_needs_deeper_signal() -> None:
    assert coverage("Inception director", "Inception was made by a director") == 1.0
    assert coverage("Inception director spouse", "Inception") < 0.5


def test_a_spent_time_budget_still_returns_the_root_and_the_first_evidence(
    kb: KnowledgeBase,
) -> None:
    # However slow the machine, the first answer of the anytime operator arrives: the root and
    # the first evidence, and nothing after it.
    budget = Budget(ms=0.0)
    results = list(nav(kb, "Emma Thomas", budget))
    assert results[0].level == "index"
    assert results[-1].level == "entity"
    assert results[-1].path == "/people/Emma Thomas"
    assert budget.reads <= FIRST_EVIDENCE_READS
    # A read-count budget still caps them.
    assert [r.level for r in nav(kb, "Emma Thomas", Budget(ms=0.0, max_reads=1))] == ["index"]


def test_which_enumerates_only_before_a_plural_and_never_in_either_or() -> None:
    assert classify("Which films did Nolan direct?") == "enumeration"
    assert classify("Which film came out first, Inception or Dunkirk?") == "lookup"
    assert classify("Which country is Shaoxing in?") == "lookup"


def test_an_entity_pages_sources_are_ranked_by_the_facts_that_cite_them() -> None:
    from wikikv.query.nav import rank_sources

    text = (
        "## Key Facts\n- Nolan was born in London. [^1]\n- Nolan married Emma Thomas. [^2]\n\n"
        "[^1]: [[/sources/articles/a]] chars 0-10\n[^2]: [[/sources/articles/b]] chars 0-10\n"
    )
    sources = ["/sources/articles/a", "/sources/articles/b"]
    assert rank_sources(text, sources, {"married", "emma"}, {}) == sources[::-1]
    assert rank_sources(text, sources, {"london"}, {}) == sources
    # A source the search itself found comes first.
    assert rank_sources(text, sources, {"married"}, {"a": 0}) == sources
