"""A page cited across a long controversy cites dozens of texts: on a question that says more than
its name, the texts it cites that also hold the question's other words rank first, before the
ones it merely cites more often."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import small_kb
from wikikv.bench.retrieval import nav_ranking
from wikikv.query.budget import Budget
from wikikv.query.nav import nav
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta

DOCS = {
    # Texts the page of 晨刊 cites most: about the journal (under another name), never about
    # its subsidy — the search over the texts does not find them.
    "x1": "那份周刊又登了一篇长文。编者说话很多。",
    "x2": "那份周刊的编者又写了一篇闲话。",
    # The one text about 晨刊's subsidy; the page cites it once.
    "j": "晨刊收受津贴的事，终于被人揭发了，晨刊的编者只好辩解。",
    # Texts with the question's other words, which the page does not cite.
    "k1": "收受津贴的报馆，各地都有。",
    "k2": "津贴的事，各报都有。",
    "k3": "收受礼物的人，总是说自己清白。",
}
# A corpus, not a handful: a page citing three texts of three hundred is specific.
DOCS |= {f"f{i}": f"第{i}篇闲谈，说些别的事情。" for i in range(300)}


def hub(cites: list[str]) -> tuple[str, FileMeta]:
    facts = "\n".join(f"- 晨刊的一句话。 [^{i}]" for i in range(1, len(cites) + 1))
    notes = "\n".join(
        f"[^{i}]: [[/sources/articles/{doc}]] chars 0-5" for i, doc in enumerate(cites, 1)
    )
    meta = FileMeta(
        kind="entity",
        title="晨刊",
        summary="一份周刊",
        sources=[f"/sources/articles/{d}" for d in dict.fromkeys(cites)],
    )
    return f"# 晨刊\n\n## 要点\n{facts}\n\n{notes}\n", meta


PAGES = {"/机构/晨刊": hub(["x1"] * 6 + ["x2"] * 5 + ["j"])}


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = small_kb("zh", "一个小小的中文知识库。", DOCS, PAGES)
    yield kb
    store.close()


def test_the_texts_a_page_cites_that_hold_the_questions_other_words_rank_first(
    kb: KnowledgeBase,
) -> None:
    ranked = nav_ranking(nav(kb, "晨刊收受津贴一事在哪些文章里提到？", Budget(max_reads=24)))
    assert ranked[0] == "j"
    # The page's most cited text, which holds none of 收受 / 津贴, comes after the texts that
    # hold them (cited or not): the page's texts the search found come first in its ranking.
    assert ranked.index("x1") > max(ranked.index(k) for k in ("k1", "k2", "k3"))


def test_words_for_how_a_text_holds_its_subject_rank_no_text() -> None:
    docs = {
        "m": "墨子到楚国去，要劝楚王不要攻宋。",
        "g": "新的问题又出现了，出现在报上，又出现在街头，人们都提到它。",
    }
    store, kb = small_kb("zh", "一个小小的中文知识库。", docs, {})
    try:
        ranked = nav_ranking(nav(kb, "墨子出现在哪些文章里？", Budget(max_reads=24)))
        assert ranked == ["m"]  # g holds only 出现 / 提到, which every kind of text may say
    finally:
        store.close()
