"""A listing over a person that asks nothing else of them ("哪些文章写到了阿福？") quotes, per
text, the sentence that says who they are when the text has one; a listing that asks something
of them (…阿福的死) quotes what answers it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import small_kb
from wikikv.query.answer import ask
from wikikv.query.budget import Budget
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta

DOCS = {
    "旧友": "阿福说。阿福来了，阿福坐下，阿福喝茶。认识的人告诉我：他叫阿福，是老周的学生。"
    "后来阿福死在水里了。",
    "杂记": "阿福说。阿福又来了，阿福又坐下。",
    **{f"n{i}": f"北京的冬天第{i}天很冷。" for i in range(1, 8)},
}


def _page() -> tuple[str, FileMeta]:
    lines = [("阿福来了。", "旧友"), ("阿福又来了。", "杂记")]
    facts = "\n".join(f"- {text} [^{i}]" for i, (text, _) in enumerate(lines, 1))
    notes = "\n".join(
        f"[^{i}]: [[/sources/articles/{doc}]] chars 0-5" for i, (_, doc) in enumerate(lines, 1)
    )
    meta = FileMeta(
        kind="entity",
        title="阿福",
        summary="阿福来了。",
        sources=["/sources/articles/旧友", "/sources/articles/杂记"],
    )
    return f"# 阿福\n\n## 要点\n{facts}\n\n{notes}\n", meta


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = small_kb("zh", "一个小小的中文知识库。", DOCS, {"/人物/阿福": _page()})
    yield kb
    store.close()


def quotes(kb: KnowledgeBase, question: str) -> dict[str, str]:
    answer = ask(kb, question, None, Budget(max_reads=24))
    return {c.path.rsplit("/", 1)[-1]: c.quote for c in answer.citations}


def test_a_bare_listing_quotes_the_sentence_introducing_its_subject(kb: KnowledgeBase) -> None:
    got = quotes(kb, "哪些文章写到了阿福？")
    assert set(got) == {"旧友", "杂记"}  # one sentence per text
    assert "他叫阿福，是老周的学生" in got["旧友"]


def test_a_listing_asking_more_quotes_what_answers_it(kb: KnowledgeBase) -> None:
    got = quotes(kb, "哪些文章写到了阿福的死？")
    assert "死在水里" in got["旧友"]
