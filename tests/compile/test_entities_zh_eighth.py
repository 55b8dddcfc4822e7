"""Issue 8, Chinese compile side (reader pass of 2026-11-27, early morning): a journal named like
a person, a title defined after its other title, and repeated pieces of longer words — each on
a small text written here."""

from __future__ import annotations

from wikikv.compile.model import CandidateCounts, candidate_entity
from wikikv.llm.base import MentionOut
from wikikv.text import digest as dg
from wikikv.text import entities_zh_common as common_words
from wikikv.text import entities_zh_reader as reader
from wikikv.text.definitions import defining_score
from wikikv.text.entities import Mention
from wikikv.text.entities_zh import _SURNAMES, chinese_mentions
from wikikv.text.entities_zh_reader import central_names
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words


def mentions(text: str) -> list[Mention]:
    sents = dg.split_sentences(text, "zh")
    return chinese_mentions(text, sents, jieba_pos(text), {}, jieba_words(), jieba_freq(), "")


def test_a_journal_named_like_a_person_stays_a_journal() -> None:
    # 湘君 ends like 向培良君; the documents mark it as a title every time
    counts = CandidateCounts()
    journal = MentionOut("湘君", "湘君", "org", 0, 0, 2)
    counts.add([journal, journal, journal])
    assert candidate_entity("湘君", counts).kind == "org"
    book = MentionOut("湘君", "湘君", "work", 0, 0, 2)
    counts = CandidateCounts()
    counts.add([book, book])
    assert candidate_entity("湘君", counts).kind == "work"
    # Trotsky's 《文学与革命》 is a book, though it ends like 辛亥革命
    counts = CandidateCounts()
    counts.add([MentionOut("文学与革命", "文学与革命", "work", 0, 0, 5)])
    assert candidate_entity("文学与革命", counts).kind == "work"
    # a treaty in title marks stays an event of history
    counts = CandidateCounts()
    counts.add([MentionOut("辛丑条约", "辛丑条约", "work", 0, 0, 4)])
    assert candidate_entity("辛丑条约", counts).kind == "event"
    # a bare name with a person's ending is still a person
    counts = CandidateCounts()
    counts.add([MentionOut("向培良君", "向培良君", "person", 0, 0, 4, weak=True)])
    assert candidate_entity("向培良君", counts).kind == "person"


def test_a_note_giving_the_kind_after_a_comma_makes_a_periodical() -> None:
    text = "〔５〕《湘君》，季刊，一九二二年创刊，湖南长沙明德学校编辑。他说《湘君》求文艺之美。"
    kinds = {m.kind for m in mentions(text) if m.key == "湘君"}
    assert kinds == {"org"}
    # a novel's kind after the comma is no periodical
    text = "〔５〕《二月》，中篇小说，柔石作。他读过《二月》。"
    assert {m.kind for m in mentions(text) if m.key == "二月"} == {"work"}


def test_a_title_defined_after_its_other_title() -> None:
    laozi = "现存《老子》（一名《道德经》），分《道经》、《德经》上下两篇，是战国时人编纂的言论集。"
    assert defining_score(laozi, ["老子"]) >= 3
    # nor is a title whose sentence says no 是 of it
    assert defining_score("我读了《老子》（一名《道德经》），觉得很好。", ["老子"]) == 0
    # nor a title that closes a clause about someone else ("指他所著《道德经》")
    later = "“大著作”，指他所著《道德经》（即《老子》），是道家的主要经典。"
    assert defining_score(later, ["道德经"]) == 0


def test_a_repeated_piece_of_a_longer_word_is_no_name() -> None:
    known, freq = jieba_words(), jieba_freq()
    # 曾|游行, 曾|游说: a surname-shaped pair whose last character opens a common word
    text = "市民也曾游行欢呼过。苏秦曾游说六国；张仪曾游说六国归顺秦国。"
    assert common_words.cut_word("曾游", text, known, freq)
    assert "曾游" in central_names(text, known, freq, _SURNAMES)  # repeated, acting
    assert "曾游" not in {m.key for m in mentions(text)}
    # 唯物|史观: inside a longer word the dictionary holds
    text = "必用唯物史观的立场，并于和这违异的唯心史观对立，先于这一个唯物史观的命题。"
    assert common_words.cut_word("史观", text, known, freq)
    # a name followed by varied words stays
    text = "陈士成看过了榜。陈士成便回家去。陈士成说：“我不去了。”陈士成又坐下。"
    assert not common_words.cut_word("陈士成", text, known, freq)


def test_a_determiner_and_a_settlement_repeated_is_no_place() -> None:
    # 全屯 'the whole village' said again and again in a story, as 长明灯 does
    text = (
        "但当然并不是全屯的人们都如此。后来不是全屯动了公愤，和他老子去吵闹。"
        "然而全屯的空气也就紧张起来。阔亭和方头以守护全屯的劳绩，得了好处。"
    )
    assert "全屯" not in {m.key for m in mentions(text)}


def test_the_tail_of_foreign_names_is_no_name() -> None:
    # 卜生 three times, each the tail of 伊卜生 or 易卜生 (one man, two spellings)
    text = (
        "留心国学咧；伊卜生这样，罗曼罗兰那样。〔7〕伊卜生（H．Ibsen，1828—1906）　通译易卜生，"
        "挪威剧作家。"
    )
    assert "卜生" not in {m.key for m in mentions(text)}
    # a verb before a name the dictionary holds whole is no part of it
    text = "他说“不爱莎士比亚你就是傻子”。莎士比亚是英国的戏剧家。"
    keys = {m.key for m in mentions(text)}
    assert "爱莎士比亚" not in keys
    assert "莎士比亚" in keys


def test_the_yu_of_a_comparison_introduces_no_place() -> None:
    # "更远过于章炳麟" 'far worse than 章炳麟': a man, not somewhere one goes
    text = "造谣者的卑鄙龌龊更远过于章炳麟，因为他还敢说。"
    assert not reader.used_as_place("章炳麟", text)
    assert reader.used_as_place("北京", "他终于到北京，")  # 于 of 终于 aside, 到 still goes
