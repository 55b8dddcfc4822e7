"""Reader pass of 2026-11-27 (late morning), Chinese side: names the tagger cut one character
short, a dynasty glued to a surname, kinds of land, a writing that 'says', and a question mark
in brackets — each on a small text written here."""

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


def test_a_dynasty_glued_to_a_surname_is_no_name() -> None:
    # 宋庄|季裕: 'Zhuang Jiyu of the Song', jieba's 宋庄 (nr) before 季裕 (nr)
    assert "宋庄" not in keys(
        "近来却另有一部了，是商务印书馆印的《鸡肋编》，宋庄季裕著，每本只要五角。"
    )
    assert "宋庄" not in keys("说起。\n\u3000\u3000宋庄季裕《鸡肋编》中云：“浙人以鸭儿为大讳。”")


def test_two_kinds_of_land_make_no_place() -> None:
    # 山水 'landscape' is jieba's ns
    text = "老屋离我愈远了；故乡的山水也都渐渐远离了我。歌咏山水花草的美丽。"
    assert "山水" not in keys(text)


def test_a_writing_that_says_is_no_person() -> None:
    # 原文说 'the original says', eight times a text about translating
    text = (
        "乃是原文原是易解的缘故。简直比原文还难读。或者取一本原文，比照了日译本来直译。"
        "因为对于原文太不忠实。保存了原文的一些语法结构。这段话的原文如下：“无产。”"
        "《文学是有阶级性的吗？》，原文说：“好的作品。”《文学与革命》，原文说：“文艺是武器。”"
    )
    assert "原文" not in keys(text)


def test_a_question_mark_in_brackets_ends_no_sentence() -> None:
    text = "邢子才（４９６—？），名邵，河间人。陈源教授的许多（？）书出现。他真的来了？我不信。"
    found = [s.text for s in dg.split_sentences(text, "zh")]
    assert found == [
        "邢子才（４９６—？），名邵，河间人。",
        "陈源教授的许多（？）书出现。",
        "他真的来了？",
        "我不信。",
    ]


def test_a_verb_and_the_head_of_a_word_is_no_name() -> None:
    # 讲|公道话 'speak up for fairness', four times: 公 ends names (鲁哀公), not here
    text = (
        "他们就出来讲公道话，倒不在乎有没有酒喝。七大人是最爱讲公道话的，你们也知道。"
        "我要细细地对七大人说，他会讲公道话的。知书识理的人是专替人家讲公道话的。"
    )
    assert "讲公" not in keys(text)
    # a name whose head is a verb is followed by varied characters (爱姑 of 离婚)
    text = "爱姑的父亲来了。爱姑说。爱姑笑了起来。爱姑在船上坐着。"
    assert "爱姑" in keys(text)


def test_a_reign_a_note_gives_years_is_no_person() -> None:
    # 正始 (240-249): the years read as a lifespan, the note says they are a reign's
    text = (
        "他们都是生于正始的，所以又名曰“正始名士”。正始名士服药，竹林名士饮酒。"
        "正始名士和竹林名士的精神灭后，敢于师心使气的作家也没有了。正始初，曹爽辅政。"
        "王辅嗣为正始名士。按正始（240-249），魏废帝齐王曹芳的年号。王思，正始中为大司农。"
    )
    assert "正始" not in keys(text)
