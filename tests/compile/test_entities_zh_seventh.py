"""Issue 8, Chinese compile side (reader pass of 2026-11-27, small hours): a place that opens a
school's name, dictionary words with a name's prefix, a household, and titles a note names or
glosses — each on a small text written here."""

from __future__ import annotations

from wikikv.text import digest as dg
from wikikv.text import entities_zh_common as common_words
from wikikv.text import entities_zh_reader as reader
from wikikv.text.definitions import defining_score, describes
from wikikv.text.entities import Mention
from wikikv.text.entities_zh import _SURNAMES, chinese_mentions
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words


def mentions(text: str) -> list[Mention]:
    sents = dg.split_sentences(text, "zh")
    return chinese_mentions(text, sents, jieba_pos(text), {}, jieba_words(), jieba_freq(), "")


def test_a_place_that_opens_a_school_s_name_is_no_mention_of_the_place() -> None:
    text = (
        "一九二零年他考入江苏省立第三师范学校，后来在南通中学教书。"
        "他在江苏省住了十年，到南通去过三回。"
    )
    found = [(m.surface, text[m.end : m.end + 1]) for m in mentions(text)]
    assert ("江苏省", "立") not in found  # 江苏省立第三师范学校: the school's name
    assert ("南通", "中") not in found
    assert ("江苏省", "住") in found  # the province itself stays
    at = text.index("江苏省") + 3
    assert common_words.institution_prefix("江苏省", text, at)
    # 国立 after a city is the national schools there, and 立刻 after a name is 'at once'
    later = "致北京国立各校教职员。"
    assert not common_words.institution_prefix("北京", later, 3)
    assert not common_words.institution_prefix("孔乙己", "孔乙己立刻显出颓唐", 3)


def test_a_dictionary_word_with_a_name_s_prefix_needs_a_name_s_signs() -> None:
    # 老旦 (the old woman's role of an opera) acts on the stage but is no name: no one talks to
    # it, it has no kin, it never speaks
    text = (
        "戏台上先出来一个老旦。老旦坐下了，慢慢的唱。那老旦唱了许久，老旦终于进去了。"
        "我们骂着老旦，摇船回去了。"
    )
    assert "老旦" not in reader.central_names(text, jieba_words(), jieba_freq(), _SURNAMES)
    # 阿 makes names only: a rare dictionary word with it is left to the usual tests
    assert (
        reader.central_names(
            "阿Q说：“我去了。”阿Q便走了。阿Q又回来。阿Q终于睡着了。",
            jieba_words(),
            jieba_freq(),
            _SURNAMES,
        ).get("阿Q")
        == "person"
    )


def test_a_surname_and_jia_is_a_household() -> None:
    # 潘家 'the Pan household' (a doctor's house a mother runs to) acts like a name here
    text = (
        "她抱着孩子直向潘家奔过去。潘家已经坐着四个病人了。"
        "潘家与药店与自己的家，正是一个三角点。潘家又关了门。"
    )
    assert "潘家" not in reader.central_names(text, jieba_words(), jieba_freq(), _SURNAMES)


def test_a_title_a_note_names_defines_it() -> None:
    # "…的结集，名为《X》": the clause before says what X is
    assert defining_score(
        "〔3〕他在周刊上发表的短文的结集，名为《秋窗集》，一九三零年出版。", ["秋窗集"]
    )
    assert defining_score("他后来结集为《秋窗集》，一九三零年出版。", ["秋窗集"])
    assert defining_score("〔2〕《春草》原名《春草集》，清代笔记，共四卷。", ["春草集"])
    # a title that qualifies the noun after it says nothing of what it is
    assert not defining_score("他作了一次题为《秋窗集》的讲演。", ["秋窗集"])


def test_a_title_glossed_mid_note_by_its_kind_author_or_founding() -> None:
    assert defining_score("《晨光》，文艺月刊，一九二八年在杭州创刊。", ["晨光"])
    assert defining_score("《晨光》，一九二八年创刊于杭州，某某主编。", ["晨光"])
    assert defining_score("《西园记》，明代某某所著，共二卷。", ["西园记"])
    assert defining_score("《西园记》，原名《西园杂记》，明代笔记。", ["西园记"])
    # a list of titles after one another says nothing of any
    assert not defining_score("《晨光》，《西园记》，《春草》都是那时的书。", ["晨光"])


def test_a_title_given_in_marks_defines_no_person() -> None:
    # the story was titled after its hero: the sentence says what the story is, not who he is
    text = "那篇小说发表的时候题为《宴之敖》，后来才改了名。"
    assert defining_score(text, ["宴之敖"])
    assert not defining_score(text, ["宴之敖"], person=True)


def test_a_place_in_someone_s_gloss_or_a_longer_note_head_tells_nothing_of_it() -> None:
    # where someone was from, after a comma or a lifespan, is about that someone
    assert not describes("〔5〕丁某（1890—1950），湖北黄陂人。", ["湖北"])
    assert not describes("王某，字某某，湖北黄陂人，当时的教员。", ["湖北"])
    # a note on a longer term that starts with the name
    assert not describes("〔7〕　湖北水灾的捐启　指一九三一年湖北的一篇捐启。", ["湖北"])
    # a person's own native place, and a place that opens its own sentence, still tell
    assert describes("丁某湖北黄陂人，当时的教员。", ["丁某"])
    assert describes("湖北在长江中游，那一年水灾很大。", ["湖北"])
    # a longer head whose gloss opens with the name again says who it is
    assert describes("〔8〕　盘古开天　盘古，我国古代神话中开天辟地的人。", ["盘古"])


def test_the_one_spoken_to_before_yue_is_no_speaker() -> None:
    # 'he summoned the elders and the worthies and said': 贤士 is spoken to, not speaking
    assert not reader.person_evidence("贤士", "乃召诸乡父老贤士曰：‘吾来为民除害。’")
    assert not reader.person_evidence("仲由", "夫子谓仲由曰：‘由也果。’")
    # the speaker before 曰 still is one
    assert reader.person_evidence("仲由", "仲由曰：‘愿闻子之志。’")


def test_a_body_named_after_a_phrase_is_no_action_of_it() -> None:
    # “索饷会” 'the society for claiming pay': jieba's verb tag on 会 is no one acting
    text = (
        "那时的“索饷会”闹得很凶。我们这里没有“索饷会”，所以也没有头领。"
        "后来又有人说起“索饷会”的事，善于索饷的人都走了，同去索饷的人们也散了。"
    )
    words = jieba_pos(text)
    tags: dict[int, str] = {}
    at = 0
    for word, flag in words:
        tags[at] = flag
        at += len(word)
    assert "索饷" not in reader.central_names(text, jieba_words(), jieba_freq(), _SURNAMES, tags)
