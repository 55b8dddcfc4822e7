"""Reader pass of 2026-11-27 (morning), Chinese compile side: pieces of longer names and phrases
the tagger calls names, people filed as places, and the philosopher a note explains — each on a
small text written here."""

from __future__ import annotations

from wikikv.compile.model import CandidateCounts, candidate_entity
from wikikv.llm.base import MentionOut
from wikikv.text import digest as dg
from wikikv.text import entities_zh_pieces as pieces
from wikikv.text import entities_zh_reader as reader
from wikikv.text.entities import Mention
from wikikv.text.entities_zh import _SURNAMES, _TRANSLIT, chinese_mentions
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words


def mentions(text: str) -> list[Mention]:
    sents = dg.split_sentences(text, "zh")
    return chinese_mentions(text, sents, jieba_pos(text), {}, jieba_words(), jieba_freq(), "")


def keys(text: str) -> set[str]:
    return {m.key for m in mentions(text)}


def test_the_head_of_a_longer_name_is_no_name() -> None:
    # the tagger cuts 萧伯|讷 (讷 left a z of its own) and 高尔斯|华绥 (two nr)
    text = (
        "满贴着好招牌，法兰斯呀，萧伯讷呀，……研究萧伯讷，威尔士就不大。他翻译英国高尔斯华绥的剧本。"
    )
    found = keys(text)
    assert "萧伯" not in found
    assert "高尔斯" not in found
    # repeated, the head is central to a text; inside 萧伯纳 it is still no name of its own
    text = (
        "研究萧伯讷，威尔士就不大。可以讲讲萧伯讷，威尔士。他曾访问威尔士和萧伯纳；"
        "文章中还常谈到威尔士、萧伯纳和莎士比亚等以自炫。"
    )
    found = keys(text)
    assert "萧伯" not in found
    assert "萧伯纳" in found
    # a name followed by a verb is whole; so is one in a list of names without commas
    known = jieba_words()
    tokens = {0: ("萧伯纳", "nr"), 3: ("说", "v")}
    assert not pieces.glued_head("萧伯纳", "萧伯纳说", tokens, known, _TRANSLIT)
    text = "还有管叔蔡叔。管叔蔡叔是周武王的两个兄弟。"
    tokens = {0: ("还有", "v"), 2: ("管叔", "nr"), 4: ("蔡叔", "nr")}
    tokens |= {7: ("管叔", "nr"), 9: ("蔡叔", "nr")}
    assert not pieces.glued_head("管叔", text, tokens, known, _TRANSLIT)
    # a name the dictionary holds is whole inside its entries with a verb (董卓欲 'Dong Zhuo wanted')
    tokens = {0: ("董卓欲", "nr"), 3: ("谋", "v")}
    assert not pieces.glued_head("董卓", "董卓欲谋废立。", tokens, known, _TRANSLIT)
    # nor is 伏羲氏 a longer name than 伏羲's
    tokens = {0: ("伏羲氏", "nr")}
    assert not pieces.glued_head("伏羲", "伏羲氏。", tokens, known, _TRANSLIT)


def test_a_dynasty_and_a_reign_used_as_a_date_is_no_person() -> None:
    text = (
        "明崇祯二年起义，后被推为闯王。明崇祯十七年一月在西安建立大顺国。汤若望入中国还在明崇祯初。"
    )
    assert "明崇祯" not in keys(text)
    assert pieces.reign_era("明崇祯", "明崇祯十七年", jieba_words())
    # an emperor named by his dynasty and temple name acts: no date follows
    assert not pieces.reign_era("唐太宗", "唐太宗说：不可。唐太宗便去了。", jieba_words())


def test_a_not_a_is_no_name() -> None:
    assert "通非通" not in keys("当时报刊上常有似通非通的诗作发表，都是些似通非通的文字。")
    assert pieces.a_not_a("通非通")
    assert not pieces.a_not_a("周作人")


def test_the_tail_of_a_longer_word_is_no_person() -> None:
    # 爱|国之士 'patriots': 爱国 is a word; the two characters before 国 are none
    text = "是劬古爱国之士，略作考证。况且爱国之士不是已经说过。"
    assert "国之士" not in keys(text)
    known, freq = jieba_words(), jieba_freq()
    assert pieces.person_cut_on_left("国之士", text, known, freq)
    # Wilde after 'England': 国王 'king' is a word, but 英国 takes the 国
    assert not pieces.person_cut_on_left("王尔德", "英国王尔德的童话。", known, freq)


def test_a_quality_joined_to_things_is_no_person() -> None:
    text = (
        "负着虚空的重担，在严威和冷眼中走着所谓人生的路。她虽是想在严威和冷眼中负着虚空的重担来"
        "走所谓人生的路，也还是不行，而又即刻消失在周围的严威和冷眼里了。"
    )
    assert not [m for m in mentions(text) if m.key == "严威" and not m.weak]
    # 陶孟和教授, which jieba cuts 陶孟|和: a title after 和 is no thing
    text = "将有陶孟和教授的一部书出现。陶孟和教授要发表一部著作。陶孟和教授说过。"
    assert not pieces.joined_to_things("陶孟", text, jieba_words())
    # people joined to people are people
    text = "阿Ｑ和小Ｄ打起来了。阿Ｑ和王胡也打过。阿Ｑ说：“你敢！”"
    assert not pieces.joined_to_things("阿Ｑ", text, jieba_words())


def test_a_verb_and_its_object_is_no_body() -> None:
    text = "段祺瑞原想利用张勋来解散国会，推倒总统黎元洪。并下令废止《临时约法》和解散国会。"
    assert "解散国会" not in keys(text)
    assert pieces.verb_and_object("解散国会", jieba_words())
    assert not pieces.verb_and_object("北京大学", jieba_words())


def test_an_honorific_after_a_note_reference_makes_a_person() -> None:
    text = "他就不再有片纸只字；江绍原〔20〕先生绍介了一部书。"
    assert reader.titled("江绍原", text)
    assert not reader.titled("北京", "他到了北京〔3〕，住下。")
    assert {m.kind for m in mentions(text) if m.key == "江绍原"} == {"person"}


def test_a_name_ending_like_a_temple_with_every_use_a_person_stays_one() -> None:
    counts = CandidateCounts()
    author = MentionOut("施耐庵", "施耐庵", "person", 0, 0, 3)
    counts.add([author])
    counts.add([author])
    assert candidate_entity("施耐庵", counts).kind == "person"
    # one use as a place and the ending decides
    counts.add([MentionOut("施耐庵", "施耐庵", "place", 0, 0, 3, weak=True)])
    assert candidate_entity("施耐庵", counts).kind == "place"


def test_a_central_name_shaped_like_a_place_with_a_lifespan_is_a_person() -> None:
    text = (
        "据《国民新闻》的记载，是德富苏峰氏纠正我的错误。后归德富苏峰成篑堂文库。"
        "德富苏峰所藏的书。\n〔４〕德富苏峰（1863—1957）　日本历史学家。"
    )
    assert {m.kind for m in mentions(text) if m.key == "德富苏峰"} == {"person"}


def test_a_kinship_word_a_note_explains_as_one_person_is_a_name() -> None:
    known, freq = jieba_words(), jieba_freq()
    text = (
        "老子毫无动静的坐着，好像一段呆木头。“我总是这样子，”老子答道。老子说：“不。”"
        "老子也并不挽留他。老子才回进自己的屋里去。老子微微的叹一口气。老子笑了起来。"
        "老子又笑了起来。老子到了函谷关。\n〔２〕　老子　春秋时楚国人，我国古代思想家。"
    )
    assert reader.central_names(text, known, freq, _SURNAMES).get("老子") == "person"
    # a note on a kind of people is no note on one person
    text = text.replace("春秋时楚国人，我国古代思想家", "形体矮小、供君王娱乐消遣的人")
    assert "老子" not in reader.central_names(text, known, freq, _SURNAMES)
