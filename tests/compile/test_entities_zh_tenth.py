"""Reader pass of 2026-11-27 (late morning), Chinese side: names the tagger cut one character
short — each on a small text written here."""

from __future__ import annotations

from wikikv.text import digest as dg
from wikikv.text import entities_zh_completed as completed
from wikikv.text.entities import Mention
from wikikv.text.entities_zh import chinese_mentions
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words


def mentions(text: str) -> list[Mention]:
    sents = dg.split_sentences(text, "zh")
    return chinese_mentions(text, sents, jieba_pos(text), {}, jieba_words(), jieba_freq(), "")


def keys(text: str) -> set[str]:
    return {m.key for m in mentions(text)}


def test_a_name_a_note_gives_with_one_more_character_is_that_name() -> None:
    # jieba cuts 邢子|才 ('only then'); the note gives 邢子才 a lifespan
    text = (
        "记北魏邢子才“以为妇人不可保”。邢子才的话虽然说不定是否出于愤激。"
        "但没有邢子才的文才。\n〔１１〕邢子才（４９６—？），名邵，河间人，北魏无神论者。"
    )
    found = keys(text)
    assert "邢子才" in found
    assert "邢子" not in found
    # a name with a note of its own keeps it (胡适 is no piece of 胡适之)
    text = "胡适之先生说过。胡适之的文章。\n〔１〕胡适（1891—1962）安徽绩溪人。胡适之（1891—1962）"
    assert completed.noted_completion("胡适", text) is None


def test_a_name_followed_by_and_then_by_no_second_member_ends_in_and() -> None:
    # 陶孟|和: what follows 和 is a title, a preposition, an adverb — no 'A and B'
    text = (
        "风闻二○二五年一到，陶孟和教授要发表一部著作。百年以后，将有陶孟和教授的一部书出现。"
        "〔19〕陶孟和在《现代教育界的特色》一文中说。"
    )
    found = keys(text)
    assert "陶孟和" in found
    assert "陶孟" not in found
    tokens: dict[int, tuple[str, str]] = {}
    at = 0
    for word, flag in jieba_pos(text):
        tokens[at] = (word, flag)
        at += len(word)
    assert completed.ends_in_and("陶孟", text, tokens)
    # a real 'A and B' stays two people
    text = "张三和李四在路上走。张三和李四都笑了。"
    tokens, at = {}, 0
    for word, flag in jieba_pos(text):
        tokens[at] = (word, flag)
        at += len(word)
    assert not completed.ends_in_and("张三", text, tokens)
