"""Offline ask answers with the sentences that hold what is asked: a page answers directly only
when it holds it (or the question asks only who or what the subject is), never an enumeration;
one passage is quoted once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import make_store
from wikikv.query.answer import ask, direct_page
from wikikv.query.sentences import Sentence, best_sentences
from wikikv.store.kb import KnowledgeBase


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = make_store()
    yield kb
    store.close()


def test_a_named_page_that_lacks_what_is_asked_gives_way_to_the_evidence(
    kb: KnowledgeBase,
) -> None:
    q = "鲁迅的故乡在哪里？"
    assert direct_page(kb, q) is not None  # the page of 鲁迅 is named, fit, and found first
    answer = ask(kb, q)
    assert answer.mode == "evidence"  # but it never says 故乡; the article about 绍兴 does
    assert "故乡" in answer.answer
    assert any(c.path == "/sources/articles/d5" for c in answer.citations if c.quote)


def test_a_question_only_about_the_subject_is_answered_from_its_page(kb: KnowledgeBase) -> None:
    answer = ask(kb, "鲁迅是谁？")
    assert answer.mode == "direct"
    assert answer.citations[0].path == "/人物/鲁迅"
    assert answer.answer


def test_an_enumeration_is_never_answered_from_one_page(kb: KnowledgeBase) -> None:
    q = "哪些文章写到鲁迅的原名？"
    assert direct_page(kb, q) is not None  # and its page says 原名: it would answer directly
    answer = ask(kb, q)
    assert answer.mode == "evidence"
    assert "/sources/articles/d4" in {c.path for c in answer.citations if c.quote}


def test_one_passage_is_quoted_once() -> None:
    a = Sentence("祥林嫂，你们的阿毛如果还在。", "/sources/articles/x", (100, 114), "/p", 0)
    b = Sentence("祥林嫂，你们的阿毛如果还在。”", "/sources/articles/x", (100, 115), "/p", 1)
    c = Sentence("阿毛被狼叼走了。", "/sources/articles/x", (200, 208), "/p", 2)
    best = best_sentences("祥林嫂的阿毛如果还在会怎样？", [a, b, c])
    assert best
    assert len([s for s in best if s.chars and s.chars[0] == 100]) == 1


def test_a_sentence_that_asks_does_not_answer() -> None:
    asking = Sentence("那边的村子叫什么名字？", "/sources/articles/y", (10, 21), "/p", 0)
    asked_in_speech = Sentence("“她叫什么名字？”", "/sources/articles/y", (30, 39), "/p", 1)
    telling = Sentence("那边的村子名字叫平桥村。", "/sources/articles/z", (5, 17), "/p", 2)
    best = best_sentences("那边的村子叫什么名字？", [asking, asked_in_speech, telling])
    assert best[0] is telling
