"""Offline ask narrows its answer as the question does: a listing over a named place quotes each
text citing it, a named work's own sentences answer, a relation is answered by the relative (not
by the subject's own summary), and no quotation mark opens twice."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import small_kb
from wikikv.query.answer import Answer, ask
from wikikv.query.budget import Budget
from wikikv.query.sentences import Sentence, answer_text, balanced
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta

DOCS = {
    # Three stories set in 石镇 — the texts a listing over 石镇 should quote.
    "风灯": "石镇的夜很静。老周提着风灯走过石镇的桥。",
    "雪夜": "那年冬天我回到石镇。雪落在河上。",
    "渡船": "渡船每天从石镇开到城里。船上坐满了人。",
    # An essay full of the question's frame words, never naming 石镇.
    "杂谈": "有些小说写到了故乡，有些小说写到了城里；写到小说的人很多。",
    # The work a question names: its protagonist 秀姑, who never says 丈夫 or 女子.
    "离家": "木三和他的女儿秀姑上了船。秀姑要和那家人闹到底。秀姑说她不回去了。",
    # Another text heavy with the question's words.
    "论婚姻": "女子要和丈夫分开，在旧时是难的。女子和丈夫的事，外人常常议论。",
    # Two collections' texts (ids <collection>/<title>) about 庄子.
    "甲集%2F夜谈": "庄子在夜里对着骷髅说话。",
    "乙集%2F晨谈": "庄子说话。",
    # The subject of a relation question: what 阿水 is, where 阿水 is someone's son, and his son.
    "海边": "阿水是海边的一个渔夫。老张的儿子阿水常常出海。阿水带着他的孩子小满去赶集。",
}


def entity(
    title: str, text: str, cites: list[str], links: tuple[str, ...] = ()
) -> tuple[str, FileMeta]:
    facts = "\n".join(f"- {line} [^{i}]" for i, line in enumerate(text.split("|"), 1))
    notes = "\n".join(
        f"[^{i}]: [[/sources/articles/{doc}]] chars 0-5" for i, doc in enumerate(cites, 1)
    )
    meta = FileMeta(
        kind="entity",
        title=title,
        summary=text.split("|")[0],
        sources=[f"/sources/articles/{d}" for d in dict.fromkeys(cites)],
        links=list(links),
        lint_status="passed",
    )
    return f"# {title}\n\n## 要点\n{facts}\n\n{notes}\n", meta


PAGES = {
    "/地点/石镇": entity(
        "石镇",
        "石镇的夜很静。|那年冬天我回到石镇。|渡船每天从石镇开到城里。",
        ["风灯", "雪夜", "渡船"],
    ),
    "/作品/离家": entity(
        "离家", "木三和他的女儿秀姑上了船。", ["离家"], links=("/人物/秀姑", "/人物/木三")
    ),
    "/人物/秀姑": entity("秀姑", "秀姑说她不回去了。", ["离家"]),
    "/人物/阿水": entity("阿水", "阿水是海边的一个渔夫。", ["海边"]),
}


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = small_kb("zh", "一个小小的中文知识库。", DOCS, PAGES)
    yield kb
    store.close()


def offline(kb: KnowledgeBase, question: str) -> Answer:
    return ask(kb, question, None, Budget(max_reads=24))


def test_a_listing_over_a_place_quotes_each_text_that_cites_it(kb: KnowledgeBase) -> None:
    answer = offline(kb, "哪些小说写到了石镇？")
    cited = [c.path for c in answer.citations]
    assert sorted(cited) == sorted(f"/sources/articles/{d}" for d in ("风灯", "雪夜", "渡船"))
    assert all("石镇" in c.quote for c in answer.citations)  # each quote names the place


def test_a_question_naming_a_work_is_answered_from_that_work(kb: KnowledgeBase) -> None:
    answer = offline(kb, "《离家》里要和丈夫分开的女子叫什么？")
    assert answer.citations
    assert {c.path for c in answer.citations} == {"/sources/articles/离家"}
    assert "秀姑" in answer.answer  # a sentence naming the work's character, not 论婚姻's words
    # Not asking for a name: still only the work's sentences, though 渡船 says 船 more often.
    boat = offline(kb, "《离家》里的人上了什么船？")
    assert boat.citations
    assert {c.path for c in boat.citations} == {"/sources/articles/离家"}


def test_a_relation_is_answered_by_the_relative_not_by_the_subjects_summary(
    kb: KnowledgeBase,
) -> None:
    answer = offline(kb, "阿水的儿子叫什么名字？")
    assert answer.mode == "evidence"  # not the direct answer from 阿水's own page
    assert "小满" in answer.answer
    assert "渔夫" not in answer.answer  # what 阿水 is
    assert "老张的儿子阿水" not in answer.answer  # where 阿水 is the son
    # Seen from the other side: "木三和他的女儿秀姑" names 秀姑's father.
    father = offline(kb, "秀姑的父亲叫什么？")
    assert "木三" in father.answer.splitlines()[0]


def test_no_quotation_mark_opens_twice() -> None:
    cut = "孔乙己等了许久，很恳切的说道，“不能写罢？"  # a sentence cut inside someone's words
    assert balanced(cut) == cut + "”"
    assert balanced("不能写罢？”他说。") == "“不能写罢？”他说。"
    text = answer_text([Sentence(cut, "/sources/articles/x", (0, 20), "/p", 0)])
    assert "““" not in text
    assert text.count("“") == text.count("”")
    assert text == f"「{cut}”」 [1]"
    plain = answer_text([Sentence("雪落在河上。", "/sources/articles/x", (0, 6), "/p", 0)])
    assert plain == "“雪落在河上。” [1]"


def test_a_named_collection_restricts_the_answer_to_its_texts(kb: KnowledgeBase) -> None:
    answer = offline(kb, "《甲集》里庄子对什么说话？")
    assert answer.citations
    assert {c.path for c in answer.citations} == {"/sources/articles/甲集%2F夜谈"}
