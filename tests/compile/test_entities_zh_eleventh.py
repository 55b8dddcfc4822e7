"""Reader pass of 2026-11-27 (midday), Chinese side: a kind of person made with 小 or 老, and
the head of a longer transliteration that ends like a place — each on a small text written
here."""

from __future__ import annotations

from wikikv.text import digest as dg
from wikikv.text import entities_zh_pieces as pieces
from wikikv.text.entities import Mention
from wikikv.text.entities_zh import chinese_mentions
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words


def mentions(text: str) -> list[Mention]:
    sents = dg.split_sentences(text, "zh")
    return chinese_mentions(text, sents, jieba_pos(text), {}, jieba_words(), jieba_freq(), "")


def keys(text: str) -> set[str]:
    return {m.key for m in mentions(text)}


def test_xiao_or_lao_before_a_common_noun_for_people_is_no_name() -> None:
    # 小市民 'petty bourgeois' (二心集) was a person: 小 makes names (小栓), but 市民 'townsfolk'
    # is a noun in general use
    text = (
        "而他们，小市民和无产阶级，早已渐渐地觉察出有产阶级的诡计来了。小市民看了电影，"
        "便说好。小市民是这样的。"
    )
    assert "小市民" not in keys(text)
    known, freq = jieba_words(), jieba_freq()
    assert pieces.prefixed_common_noun("老大人", known, freq)  # 'old sir', a form of address
    for name in ("小栓", "老拱", "小尼姑", "小约翰"):  # one character, or a word tagged a name
        assert not pieces.prefixed_common_noun(name, known, freq), name


def test_the_head_of_a_transliteration_before_a_place_of_its_characters_is_no_name() -> None:
    # 普罗列塔|利亚 'proletaria': jieba's nrt before 利亚, which its dictionary files as a place;
    # the page was /地点/普罗列塔 (by its 塔)
    text = "但他也并不只画流氓的，有一个时期也画过普罗列塔利亚，不过所画的工人也还是斜视眼。"
    assert "普罗列塔" not in keys(text)
