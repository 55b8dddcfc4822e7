"""Issue 8, Chinese compile side (reader pass of 2026-11-26, late night): a tavern's short name,
a thing a note calls a kind, the tail of a word, a term the text only quotes, a city after its
country, a writer the dictionary files as a place, a title glossed mid-note — each on a small
text written here."""

from __future__ import annotations

from wikikv.compile.model import CandidateCounts, candidate_entity
from wikikv.llm.base import MentionOut
from wikikv.text import digest as dg
from wikikv.text import entities_zh_reader as reader
from wikikv.text.definitions import defining_score
from wikikv.text.entities import Mention
from wikikv.text.entities_zh import chinese_mentions
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words


def mentions(text: str) -> list[Mention]:
    sents = dg.split_sentences(text, "zh")
    return chinese_mentions(text, sents, jieba_pos(text), {}, jieba_words(), jieba_freq(), "")


def names(text: str) -> dict[str, str]:
    """Surface → type of the mentions of ``text`` that are not weak (weak ones make no page)."""
    return {m.surface: m.kind for m in mentions(text) if not m.weak}


def test_a_short_name_of_a_tavern_is_the_tavern() -> None:
    text = (
        "镇上到夜里还开着的只有一家，是咸隆酒店。咸隆也熄了灯，咸隆的掌柜还在算账。"
        "阿五出了咸隆，唱着走了。后来咸隆也关上门了。"
    )
    found = [m for m in mentions(text) if m.surface == "咸隆"]
    assert found
    assert all(m.kind == "place" and m.key == "咸隆酒店" for m in found)
    assert reader.suffixed_form("咸隆", text) == "咸隆酒店"


def test_a_man_before_a_place_s_ending_stays_a_man() -> None:
    # a dictionary name (the man) before 政府 is no short name of the government
    # a name the dictionary holds (the man) before a place's ending is no short name of it
    text = "段祺瑞胡同在城西。段祺瑞的卫队开了枪，学生们都恨段祺瑞。"
    assert all(m.kind == "person" for m in mentions(text) if m.surface == "段祺瑞")


def test_a_thing_a_note_calls_a_kind_is_no_person() -> None:
    text = (
        "邹式柜也抬出了，邹式柜也卖掉了，连秀才娘子的邹式柜也搬走了。\n\n"
        "〔2〕　邹式柜　江南一带制作的一种漆柜。"
    )
    assert "邹式柜" not in names(text)
    assert reader.noted_as_kind("邹式柜", text)
    assert not reader.noted_as_kind("邹容", "〔1〕　邹容　四川巴县人，革命家。")
    # the bracketed note marks of one annotated story are notes too
    assert reader.noted_as_kind("邹式柜", "（⒉）邹式柜：江南一带制作的一种漆柜。")


def test_a_word_the_note_calls_a_figure_of_speech_is_a_term() -> None:
    text = (
        "你亲手造了孤灯笼，把自己关在里面。\n\n"
        "〔8〕　孤灯笼　方言里称孤独的人为孤灯。所以这里用“孤灯笼”比喻自甘孤独的人。"
    )
    assert reader.glossed_term("孤灯笼", text)
    assert not reader.glossed_term("孤灯笼", text.replace("比喻", "说"))


def test_the_tail_of_a_word_is_no_name() -> None:
    text = "门外一阵脚步声。又是脚步声，近了。随后是他的步声和咳嗽声，步声停了。"
    assert "步声" not in names(text)


def test_a_term_the_text_only_quotes_is_no_name() -> None:
    dish = "一碗‘龙虎斗’摆在桌子中央。他们说‘龙虎斗’是蛇和猫做的，‘龙虎斗’很贵。"
    assert not [m for m in mentions(dish) if m.surface == "龙虎斗"]
    assert reader.always_quoted("龙虎斗", "第一碗是‘龙虎斗’。这碗‘龙虎斗’是蛙和鳝鱼做的。")
    assert reader.always_quoted("龙虎斗", "这一场“龙虎斗”；《龙虎斗》里的唱词。")
    assert not reader.always_quoted("龙虎斗", "这一场“龙虎斗”，龙虎斗又来了。")
    assert not reader.always_quoted("鲁迅", "作者首次采用了“鲁迅”这一笔名。")  # a name, quoted


def test_a_city_after_its_country_or_with_a_direction_is_a_place() -> None:
    assert reader.used_as_place("莫斯科", "那消息起源于俄国莫斯科。")
    assert reader.used_as_place("莫斯科", "梁赞城在莫斯科之南。")
    assert not reader.used_as_place("莫斯科", "莫斯科说了一句话。")
    assert not reader.used_as_place("鲁迅", "在中国鲁迅是有名的。")


def test_a_writer_the_dictionary_files_as_a_place_is_a_person() -> None:
    text = "法国作家法朗士在书中说过这话。大文学家法朗士的话，常被人引用。"
    assert reader.titled("法朗士", text)
    assert reader.titled("法朗士", "他学法朗士的文章，已经有根了。")
    assert not reader.titled("诗人", "诗人崇拜者都来了。")
    assert not reader.fragment_of_longer("法朗士", text)  # 家 before it is a title's end
    assert names(text).get("法朗士") == "person"


def test_a_title_glossed_mid_note_is_defined() -> None:
    gloss = "《天演论》，严复于一八九五年翻译的赫胥黎一部论文集前两篇的题名，后来木刻印行。"
    assert defining_score(gloss, ["天演论"]) >= 3
    assert defining_score("《天演论》，我在南京时读过，很有趣。", ["天演论"]) == 0


def test_a_book_named_like_a_place_stays_a_book() -> None:
    counts = CandidateCounts()
    book = MentionOut("出了象牙之塔", "出了象牙之塔", "work", 0, 0, 6)
    counts.add([book, book])
    counts.add([book])
    assert candidate_entity("出了象牙之塔", counts).kind == "work"  # not a place for its 塔
    tower = MentionOut("雷峰塔", "雷峰塔", "place", 0, 0, 3, weak=True)
    counts = CandidateCounts()
    counts.add([tower])
    assert candidate_entity("雷峰塔", counts).kind == "place"


def test_a_word_listed_among_common_nouns_is_a_thing() -> None:
    known = {"悬崖": "n", "沼泽": "n", "鲁迅": "nr", "胡适": "nr"}
    assert reader.listed_with_nouns("荆丛", "前面是悬崖，荆丛，沼泽，都不怕。", known)
    assert not reader.listed_with_nouns("周作人", "鲁迅、周作人、胡适都来了。", known)
    assert not reader.listed_with_nouns("周作人", "沼泽、周作人、鲁迅都来了。", known)
    text = "前面是深渊，荆棘，狭谷，火坑，都由我自己负责。"
    assert not [m for m in mentions(text) if m.surface == "荆棘"]
