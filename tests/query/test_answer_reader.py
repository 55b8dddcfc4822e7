"""What a reader of offline answers should not meet: a denial read as a definition (我又并非就是
阿Ｑ), a question's 阿Q missing the texts' 阿Ｑ, a "X是谁？" answered with lines that only name X
when X's own page says who X is, and a text's title line quoted as a sentence."""

from __future__ import annotations

from wikikv.query.budget import Budget
from wikikv.query.narrow import focused_sentences
from wikikv.query.nav import NavResult
from wikikv.query.sentences import (
    Sentence,
    best_sentences,
    character_runs,
    definition_score,
    page_sentences,
)
from wikikv.store.store import open_store


def test_a_denial_identifies_no_one() -> None:
    assert definition_score("“自传”么，我又并非就是阿Ｑ。", ["阿Ｑ"]) == 0
    assert definition_score("这少年便是闰土。", ["闰土"]) == 2


def test_full_width_letters_meet_their_ascii_form() -> None:
    assert definition_score("这少年便是阿Ｑ。", ["阿Q"]) == 2
    # Full-width punctuation is what the patterns read: it stays.
    assert definition_score("认识的人告诉我说：他叫范爱农，是徐伯荪的学生。", ["范爱农"]) == 2


def test_a_texts_title_line_is_no_sentence() -> None:
    text = "藤野先生\n\n·鲁迅·\n\n东京也无非是这样。上野的樱花烂熳的时节。\n\n一九二六年十月十二日"
    got = [s.text for s in page_sentences("/sources/articles/a", text, "article", 0)]
    assert got == ["东京也无非是这样。", "上野的樱花烂熳的时节。"]


def test_the_compilers_notice_is_no_sentence() -> None:
    text = (
        "# 石桥村\n> 在 2 篇文章中提到。\n\n## 要点\n"
        "_原文中没有以石桥村为主语的句子；提到它的句子见“提及”。_\n\n## 提及\n"
        "- 阿贵每天到石桥村去。 [^1]\n\n[^1]: [[/sources/articles/a]] chars 0-9\n"
    )
    got = [s.text for s in page_sentences("/地点/石桥村", text, "entity", 0)]
    assert "阿贵每天到石桥村去。" in got
    assert not any("主语" in t for t in got)


def _lines(path: str, texts: list[str]) -> list[Sentence]:
    return [Sentence(t, path, (i, i + len(t)), path, 1) for i, t in enumerate(texts)]


def test_who_is_x_with_nothing_defining_x_gets_the_summary_of_xs_page() -> None:
    page = NavResult(
        "entity",
        "/人物/阿Ｑ",
        "阿Ｑ",
        "# 阿Ｑ\n> 阿Ｑ没有家，住在未庄的土谷祠里。\n\n## 要点\n- 阿Ｑ说。 [^1]\n",
        1.0,
        0.0,
    )
    text = "/sources/articles/story"
    candidates = _lines(text, ["阿Ｑ说。", "第三，我又不知道阿Ｑ的名字是怎么写的。"])
    store = open_store("memory://")
    kb = store.create_kb("zh")
    got = focused_sentences(kb, "阿Q是谁？", [page], candidates, Budget(max_reads=4))
    assert [s.text for s in got] == ["阿Ｑ没有家，住在未庄的土谷祠里。"]
    # A page summary that does not name its subject introduces no one: the evidence answers.
    page.text = "# 阿Ｑ\n> 在 3 篇文章中提到。\n"
    got = focused_sentences(kb, "阿Q是谁？", [page], candidates, Budget(max_reads=4))
    assert "在 3 篇文章中提到。" not in [s.text for s in got]
    store.close()


def test_the_characters_of_one_name_count_once() -> None:
    # jieba cuts the unknown 咸亨酒店 into 咸/亨/酒店: one term per character made any sentence
    # naming the tavern outscore the one answering the rest of the question.
    path = "/sources/articles/story"
    candidates = _lines(
        path,
        ["咸亨酒店里的人，都说要的。", "因为咸亨酒店是消息灵通的所在。"]
        + ["掌柜说，孔乙己还欠十九个钱呢！"]
        + [f"孔乙己喝了第{i}碗酒。" for i in range(10)],
    )
    best = best_sentences("孔乙己欠了咸亨酒店多少钱？", candidates, 1)
    assert [s.text for s in best] == ["掌柜说，孔乙己还欠十九个钱呢！"]
    assert character_runs("孔乙己欠了咸亨酒店多少钱？") == ["咸亨"]
