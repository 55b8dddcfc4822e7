"""A definitional question ("闰土是谁？", "Who is X?") is answered with the one sentence that says
what the subject is, not with the sentences that only repeat the name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import small_kb
from wikikv.query.answer import ask
from wikikv.query.sentences import (
    Sentence,
    definition_score,
    definitional,
    definitional_subject,
)
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta
from wikikv.store.store import Store

STORY = (
    "闰土说。闰土又对我说：这少年便是闰土。"
    "闰土在海边时，他们都和我一样只看见院子里高墙上的四角的天空，闰土心里有无穷无尽的希奇的事。"
)
LEAD = "Emma Thomas is an English film producer. Emma Thomas met Nolan in London."

# (sentence, start offset in its article) — key facts first, the defining one in the middle.
RUNTU = [
    ("闰土说。", 0),
    ("闰土又对我说：", 4),
    ("这少年便是闰土。", 11),
    (
        "闰土在海边时，他们都和我一样只看见院子里高墙上的四角的天空，闰土心里有无穷无尽的希奇的事。",
        19,
    ),
]
EMMA = [("Emma Thomas met Nolan in London.", 41), ("Emma Thomas is an English film producer.", 0)]


def entity(
    title: str, doc: str, facts: list[tuple[str, int]], summary: str
) -> tuple[str, FileMeta]:
    lines = "\n".join(f"- {text} [^{i}]" for i, (text, _) in enumerate(facts, 1))
    notes = "\n".join(
        f"[^{i}]: [[/sources/articles/{doc}]] chars {start}-{start + len(text)}"
        for i, (text, start) in enumerate(facts, 1)
    )
    meta = FileMeta(
        kind="entity",
        title=title,
        summary=summary,
        sources=[f"/sources/articles/{doc}"],
        lint_status="passed",
    )
    return f"# {title}\n\n## Key facts\n{lines}\n\n{notes}\n", meta


def make_kb() -> tuple[Store, KnowledgeBase]:
    # Summaries that say nothing of who they are (a page with no article of its own).
    pages = {
        "/人物/闰土": entity("闰土", "gx", RUNTU, "在 1 篇文章中提到，如《故乡》。"),
        "/people/Emma Thomas": entity("Emma Thomas", "et", EMMA, "Mentioned in 1 document."),
    }
    articles = {"gx": STORY, "et": LEAD}
    return small_kb("def", "人物与电影。", articles, pages, {"gx": "故乡", "et": "Emma Thomas"})


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = make_kb()
    yield kb
    store.close()


def test_who_is_a_character_is_answered_with_the_sentence_that_says_who_he_is(
    kb: KnowledgeBase,
) -> None:
    answer = ask(kb, "闰土是谁？")
    assert answer.mode == "direct"
    quotes = [c.quote for c in answer.citations if c.quote]
    assert quotes == ["这少年便是闰土。"]
    cited = next(c for c in answer.citations if c.quote)
    assert (cited.path, cited.chars) == ("/sources/articles/gx", "11-19")


def test_who_is_in_english_is_answered_with_the_lead_sentence(kb: KnowledgeBase) -> None:
    answer = ask(kb, "Who is Emma Thomas?")
    assert [c.quote for c in answer.citations if c.quote] == [
        "Emma Thomas is an English film producer."
    ]


def test_other_questions_about_the_subject_still_get_what_they_ask(kb: KnowledgeBase) -> None:
    answer = ask(kb, "闰土在海边看见什么？")
    assert "四角的天空" in answer.answer


def test_the_subject_of_a_definitional_question() -> None:
    assert definitional_subject("闰土是谁？") == "闰土"
    assert definitional_subject("谁是祥林嫂?") == "祥林嫂"
    assert definitional_subject("Who was Christopher Nolan?") == "Christopher Nolan"
    assert definitional_subject("Who directed Inception?") is None
    assert definitional_subject("闰土为什么哭？") is None


def test_what_counts_as_saying_what_the_subject_is() -> None:
    assert definition_score("孔乙己是站着喝酒而穿长衫的唯一的人。", ["孔乙己"]) == 3
    assert definition_score("爱罗先珂（1889—1952）俄国诗人、童话作家。", ["爱罗先珂"]) == 3
    assert definition_score("卫老婆子叫她祥林嫂，说是自己母家的邻舍。", ["祥林嫂"]) == 2
    assert definition_score("他便对父亲说，可以叫他的儿子闰土来管祭器的。", ["闰土"]) == 2
    assert definition_score("阿Q是否真要做革命党，现在姑且勿论。", ["阿Q"]) == 0
    assert definition_score("闰土说。", ["闰土"]) == 0
    assert definition_score("闰土又对我说：", ["闰土"]) == 0
    assert definition_score("Hook is a 1991 American film.", ["Hook"]) == 3
    assert definition_score("Hook was released in 1991.", ["Hook"]) == 0


def test_the_earliest_of_equally_plain_definitions_wins() -> None:
    late = Sentence("他叫闰土，是忙月的儿子。", "/a", (500, 512), "/p", 0)
    early = Sentence("这少年便是闰土。", "/a", (11, 19), "/p", 1)
    plain = Sentence("闰土说。", "/a", (0, 4), "/p", 2)
    assert definitional([late, plain, early], ["闰土"]) is early
    assert definitional([plain], ["闰土"]) is None
