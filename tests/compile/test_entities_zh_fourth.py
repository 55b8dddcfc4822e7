"""Issue 8, Chinese compile side (fourth round), each on a small corpus written here: a name the
dictionary tags as a place that a note gives a lifespan is a person, and documents that show no
sign of a name do not vote on its type; a second name the text declares ("长妈妈即阿长") is an
alias of the person, not a name of its own; a line that is only a name (the corpus's title line)
is no mention of anyone."""

from __future__ import annotations

from pathlib import Path

from tests.compile.wiki_pages import (
    KONG_STORY,
    build_zh_folder,
    entity_pages,
    pages_by_title,
    section,
)
from wikikv.compile.model import CandidateCounts, candidate_entity
from wikikv.llm.base import MentionOut
from wikikv.store.store import Store
from wikikv.text import entities_zh_reader as reader
from wikikv.text.definitions import defining_score, describes
from wikikv.text.entities_zh import _common_noun, _dictionary_noun, _two_words
from wikikv.text.jieba_tags import jieba_freq, jieba_words

# jieba tags 莎士比亚 and 罗曼罗兰 as places (ns); one essay's note gives their lifespans, two
# others name them in passing with no sign of a name.
NOTES = """# 题记

有人说，不爱莎士比亚你就是傻子。罗曼罗兰的话也被引来了。
〔1〕莎士比亚（Ｗ．Ｓｈａｋｅｓｐｅａｒｅ，１５６４—１６１６），欧洲文艺复兴时期英国戏剧家、诗人。
〔2〕罗曼罗兰　（Ｒｏｍａｉｎ　Ｒｏｌｌａｎｄ，１８６６—１９４４）　法国作家、社会活动家。
"""
PASSING_1 = """# 杂谈

我们在学堂里研究过莎士比亚，也谈罗曼罗兰。
"""
PASSING_2 = """# 闲话

他们常常以莎士比亚自炫，又说罗曼罗兰。
"""


def test_a_name_a_note_gives_a_lifespan_is_a_person(store: Store, tmp_path: Path) -> None:
    files = {"题记": NOTES, "杂谈": PASSING_1, "闲话": PASSING_2}
    pages = pages_by_title(build_zh_folder(store, tmp_path, "life", files))
    assert pages["莎士比亚"][0].startswith("/人物/")
    assert pages["罗曼罗兰"][0].startswith("/人物/")
    assert reader.life_sign("施耐庵", "《水浒传》　长篇小说，明代施耐庵著。")
    assert not reader.life_sign("伦敦", "伦敦（London）是英国的首都。")  # a place's gloss
    assert not reader.life_sign("北京", "北京（今北平）")


# The memoir calls its nurse 长妈妈 and, when cross with her, 阿长; it says the two are one.
NURSE = """                阿长与山海经

长妈妈，已经说过，是一个一向带领着我的女工，说得阔气一点，就是我的保姆。
只有祖母叫她阿长。
长妈妈说：“哥儿，你牢牢记住！”
长妈妈便叹一口气，长妈妈又说：“明天是正月初一。”
我平时叫她“阿妈”，到憎恶她的时候，就叫她阿长。
连阿长也来问《山海经》是怎么一回事。
阿长是不知道的，因为她毕竟不渊博。
我的保姆，长妈妈即阿长，辞了这人世，大概也有了三十年了罢。
"""


def test_a_second_name_the_text_declares_is_an_alias(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "nurse", {"阿长与山海经": NURSE}))
    _, nurse = pages["长妈妈"]
    assert "阿长" in nurse.meta.aliases
    assert not {"阿长", "连阿长"} & set(pages)
    facts = section(nurse.text, "## 要点") + section(nurse.text, "## 提及")
    assert any("阿长是不知道的" in line for line in facts)
    assert not any("阿长与山海经" in line for line in facts)  # the title line names the work
    # the name, an aside, then the copula says who she is (not "只有祖母叫她阿长。")
    assert nurse.meta.summary.startswith("长妈妈，已经说过，是一个一向带领着我的女工")


# The corpus's layout: the title alone on a line (no Markdown heading mark), then the text.
KONG = "                孔乙己\n\n" + KONG_STORY


def test_a_line_that_is_only_a_name_is_no_mention(store: Store, tmp_path: Path) -> None:
    kb = build_zh_folder(store, tmp_path, "kong", {"孔乙己": KONG})
    person = [
        rec
        for path, rec in entity_pages(kb).items()
        if path.startswith("/人物/") and rec.meta.title == "孔乙己"
    ]
    assert len(person) == 1
    lines = section(person[0].text, "## 要点") + section(person[0].text, "## 提及")
    assert any("站着喝酒" in line for line in lines)
    assert not any(line.split(" [^")[0] == "- 孔乙己" for line in lines)  # the title line


def test_common_words_jieba_tags_as_transliterations_need_a_name_s_signs() -> None:
    known, freq = jieba_words(), jieba_freq()
    assert known.get("崇拜") == "nrt"  # the dictionary's guess this rule is about
    assert _dictionary_noun("崇拜", known, freq)  # 'worship'
    assert _dictionary_noun("豪杰", known, freq)  # 'heroes'
    assert not _dictionary_noun("尼采", known, freq)  # spelled like a transliteration
    assert not _dictionary_noun("托尔斯泰", known, freq)


def test_phrases_of_a_place_word_are_no_places() -> None:
    known, freq = jieba_words(), jieba_freq()
    for phrase in ("诸国", "古国", "上城", "回京", "庙前", "大门口"):
        assert _common_noun(phrase, "place", "", known, freq), phrase
    for place in ("大沽口", "汉口", "北京", "京城", "关中", "辽东"):
        assert not _common_noun(place, "place", "", known, freq), place


def test_two_words_the_tagger_took_for_a_name_are_no_name() -> None:
    for phrase in ("梁与籍", "王之弟", "那可真", "相尚于", "中曾", "胡说"):
        assert _two_words(phrase), phrase
    for name in ("冯雪峰", "张之洞", "赵之谦", "于右任", "孙伏园", "刘和珍", "胡适", "中山樵"):
        assert not _two_words(name), name


def test_a_use_with_evidence_outweighs_a_bare_tag() -> None:
    counts = CandidateCounts()
    strong = MentionOut("罗曼罗兰", "罗曼罗兰", "person", 0, 0, 4)
    bare = MentionOut("罗曼罗兰", "罗曼罗兰", "place", 0, 0, 4, weak=True)
    counts.add([strong, strong])
    counts.add([bare, bare])
    counts.add([bare])
    assert candidate_entity("罗曼罗兰", counts).kind == "person"  # 2 x 2 against 3
    counts.add([strong, strong], -1)
    assert candidate_entity("罗曼罗兰", counts).kind == "place"


# A riddle's answer and a likeness name him, and a line before his words opens with him; the
# story tells of him in the sentence after.
EXAM = """# 白光

或者说这就是陈士成。
陈士成轻蔑的抬起眼来说。
“这回又完了！”
陈士成看过县考的榜，回到家里的时候，已经是下午了。
陈士成便走了，陈士成又回来了。
陈士成说：“我要去寻。”陈士成说：“这是我的。”
"""


def test_a_guess_or_the_line_before_a_speech_is_no_summary(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "exam", {"白光": EXAM}))
    _, chen = pages["陈士成"]
    assert chen.meta.summary.startswith("陈士成看过县考的榜")
    assert defining_score("禹也真好像是一条虫。", ["禹"]) == 0
    assert not describes("王胡轻蔑的抬起眼来说。", ["王胡"])
    assert defining_score("这少年便是闰土。", ["闰土"]) > 0
    assert describes("陈士成看过县考的榜，回到家里的时候，已经是下午了。", ["陈士成"])


# The story brings her in as 'a certain 杨二嫂' and says what people call her (伊, the stories'
# 'she'); later she acts.
TOFU = """# 故乡

我孩子时候，在斜对门的豆腐店里确乎终日坐着一个杨二嫂，人都叫伊“豆腐西施”。
杨二嫂发见了这件事，自己很以为功，便拿了那狗气杀，飞也似的跑了。
杨二嫂说：“忘了？这真是贵人眼高。”杨二嫂便走了。
杨二嫂又说：“阿呀阿呀，你放了道台了。”
"""


def test_a_story_bringing_someone_in_says_who_she_is(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "tofu", {"故乡": TOFU}))
    _, yang = pages["杨二嫂"]
    assert "坐着一个杨二嫂" in yang.meta.summary
    assert defining_score("所以他的父亲叫伊阿秀，是一个好人。", ["阿秀"]) > 0
    assert defining_score("又一个阿Ｑ来了。", ["阿Ｑ"]) == 0
    assert defining_score("全山村中，只有连殳是出外游学的学生。", ["连殳"]) > 0
    assert defining_score("另叫柳妈做帮手；然而柳妈是善女人，吃素，不杀生的。", ["柳妈"]) > 0
    assert defining_score("他们说柳妈是不会来的。", ["柳妈"]) == 0  # no clause starts at the name
