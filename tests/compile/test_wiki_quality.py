"""Issue 8, compile side: the entity pages a reader expects, typed by what the text says, with
facts about their subject — on small corpora written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compile.wiki_pages import build_zh_folder, entity_pages, pages_by_title, section
from wikikv.compile.check import check
from wikikv.compile.pipeline import Compiler
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.store.store import Store
from wikikv.text import entities_zh_reader as reader
from wikikv.text.digest import Sentence, lead_sentence

# One story, one document: the woman it is about is named only here. Common words (时候, 孩子,
# 女人, 眼睛) recur as often as her name does.
STORY = """# 河边

桂生嫂是石桥村的女人，那一年冬天到镇上来做工。
桂生嫂说：“我的阿福不见了。”
那时候大家都不理她，孩子们只是笑。
她便走到长兴酒店的门口，向掌柜讨一碗热水。
掌柜说：“桂生嫂，你又来了。”
桂生嫂不答话，眼睛看着河边。
后来她又说起阿福，说阿福是在春天的时候走失的。
阿福说过要去河边捉鱼，那时候桂生嫂正在淘米。
阿福的哥哥阿贵在城里做学徒，很少回石桥村来。
孩子们的眼睛都看着她，女人们的眼睛也看着她。
桂生嫂便回到石桥村去了，时候已经不早。
桂生嫂想，阿福也许还会回来的。
第二天，桂生嫂又到长兴酒店来，掌柜只是摇头。
那时候的孩子，那时候的女人，都说桂生嫂太苦了。
这一年的冬天，石桥村下了很大的雪，孩子们在雪地里玩。
长兴酒店在河边，也是石桥村的人常去的地方。
"""

FAMILY = [
    {
        "id": "e1",
        "title": "Mary Carver",
        "text": "Mary Carver is an English singer from Leeds. She recorded three albums "
        "with the band Grey Harbour. Her brother, Tom Carver, was a painter in Bristol.",
    },
    {
        "id": "e2",
        "title": "Tom Carver",
        "text": "Tom Carver was an English painter. He lived in Bristol and taught at the "
        "Bristol School of Art. Tom Carver painted harbours and ships.",
    },
    {
        "id": "e3",
        "title": "Nick Hollis",
        "text": "Nick Hollis is a drummer from Leeds. Nick Hollis played with Grey Harbour "
        "and later with Mary Carver.",
    },
    {
        "id": "e4",
        "title": "Nick Barden",
        "text": "Nick Barden is a guitarist. Nick played on the first album of Grey "
        "Harbour. Nick Barden also wrote songs for Mary Carver.",
    },
]


@pytest.fixture
def story_kb(store: Store, tmp_path: Path) -> KnowledgeBase:
    corpus = tmp_path / "zh" / "小说"
    corpus.mkdir(parents=True)
    (corpus / "河边.md").write_text(STORY, encoding="utf-8")
    kb = store.create_kb("zh")
    Compiler(kb).build(tmp_path / "zh")
    return kb


def test_single_document_protagonist_gets_a_page_and_common_words_do_not(
    story_kb: KnowledgeBase,
) -> None:
    pages = pages_by_title(story_kb)
    assert "桂生嫂" in pages  # named in one document only
    assert "阿福" in pages
    for common in ("时候", "孩子", "女人", "眼睛", "孩子们", "掌柜"):
        assert common not in pages, common
    assert check(story_kb).ok


def test_types_follow_suffixes(story_kb: KnowledgeBase) -> None:
    pages = pages_by_title(story_kb)
    assert pages["桂生嫂"][0].startswith("/人物/")
    assert pages["石桥村"][0].startswith("/地点/")  # a village is never filed under people
    assert pages["长兴酒店"][0].startswith("/地点/")
    assert reader.kind_by_suffix("创造社") == "org"
    assert reader.kind_by_suffix("北京大学") == "org"
    assert reader.kind_by_suffix("鲁镇") == "place"
    assert reader.kind_by_suffix("九斤老太") == "person"
    # a given name that ends like a place is not a place by its ending alone
    assert reader.name_shape("冯雪峰", frozenset("冯")) == "person"
    assert reader.name_shape("寒石山", frozenset("冯")) == "place"


def test_facts_are_about_the_subject_and_mentions_go_apart(story_kb: KnowledgeBase) -> None:
    pages = pages_by_title(story_kb)
    page = pages["桂生嫂"][1].text
    facts = section(page, "## 要点")
    mentioned = section(page, "## 提及")
    assert any("桂生嫂说：“我的阿福不见了。”" in f for f in facts)
    # a pronoun sentence right after her is about her
    assert any("她便走到长兴酒店的门口" in f for f in facts)
    # the shopkeeper speaks to her: a mention, not a fact about her
    assert not any("掌柜说" in f for f in facts)
    assert any("掌柜说" in m for m in mentioned)
    # the brother's sentence is not a fact on 阿福's page
    afu = section(pages["阿福"][1].text, "## 要点")
    assert not any("阿福的哥哥阿贵" in f for f in afu)


def test_sibling_sentence_is_not_a_fact_of_the_page_it_mentions(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "family.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in FAMILY) + "\n", encoding="utf-8")
    kb = store.create_kb("en")
    Compiler(kb).build(path)
    pages = pages_by_title(kb)
    tom = pages["Tom Carver"][1].text
    mary = pages["Mary Carver"][1].text
    # Mary's article says something about her brother: a fact of his page, not of hers
    assert any("Her brother, Tom Carver" in f for f in section(tom, "## Key Facts"))
    assert not any("Her brother, Tom Carver" in f for f in section(mary, "## Key Facts"))
    assert any("Her brother, Tom Carver" in m for m in section(mary, "## Mentioned In"))
    assert any("She recorded three albums" in f for f in section(mary, "## Key Facts"))
    # and what is about Mary never lands on Tom's page as a fact
    assert not any(
        "Mary Carver is" in f or "She recorded" in f for f in section(tom, "## Key Facts")
    )
    # "Nick" is the first name of two people in this kb: an alias of neither
    for name in ("Nick Hollis", "Nick Barden"):
        assert "Nick" not in pages[name][1].meta.aliases
    assert check(kb).ok


def test_summaries_are_sentences_never_headings(story_kb: KnowledgeBase) -> None:
    for path in story_kb.prefix("/sources/"):
        rec = story_kb.get(path)
        if isinstance(rec, FileRecord):
            assert not rec.meta.summary.startswith("#"), (path, rec.meta.summary)
    for rec in entity_pages(story_kb).values():
        assert not rec.meta.summary.startswith("#")
        assert "\n> #" not in rec.text
    assert lead_sentence("# Title\n\nThe first real sentence is here.", "en") == (
        "The first real sentence is here."
    )


WATSON = """# John Watson

Dr. John Watson is the friend and biographer of Sherlock Holmes.
Watson served as an army surgeon before he met Holmes in London.

## Later years

Watson narrates most of the stories about Sherlock Holmes.
"""
HOLMES = """# Sherlock Holmes

Sherlock Holmes is a detective who lives in London with Dr. John Watson.
Holmes plays the violin when a case stalls.
"""


def test_a_sentence_several_sources_repeat_is_quoted_once(store: Store, tmp_path: Path) -> None:
    same = "Grey Harbour is an English rock band formed in Leeds in 1998."
    docs = [
        {"id": "b1", "title": "Grey Harbour", "text": same + " The band has made five albums."},
        {"id": "b2", "title": "Harbour Lights", "text": "Harbour Lights is an album. " + same},
        {"id": "b3", "title": "Leeds Sound", "text": "Leeds Sound is a scene. " + same},
    ]
    path = tmp_path / "band.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")
    kb = store.create_kb("band")
    Compiler(kb).build(path)
    for _, rec in pages_by_title(kb).values():
        lines = [ln.rsplit(" [^", 1)[0] for ln in rec.text.split("\n") if ln.startswith("- ")]
        quotes = [ln for ln in lines if not ln.startswith("- [[")]
        assert len(quotes) == len(set(quotes)), rec.text
    band = pages_by_title(kb)["Grey Harbour"][1].text
    assert sum(line.startswith("- ") and same in line for line in band.split("\n")) == 1
    assert check(kb).ok


def test_a_line_that_only_names_the_entity_is_no_line_of_its_page(
    store: Store, tmp_path: Path
) -> None:
    """ "阿贵说。" is neither a key fact nor a mention worth a line: the words said follow it,
    unquoted, and alone it tells a reader nothing."""
    story = (
        "# 渡口\n\n阿贵是渡口的船夫，每天撑船送人过河。\n阿贵说。\n阿贵又对我说：\n"
        "“明天要涨水了。”\n阿贵的船是祖父留下的，船头漆着红色。\n阿贵说着，把船撑到了对岸。\n"
        "阿贵在渡口住了三十年，从来没有离开过。\n阿贵说。\n阿贵又说：\n“你们城里人不懂。”\n"
    )
    kb = build_zh_folder(store, tmp_path, "ferry", {"渡口": story})
    page = pages_by_title(kb)["阿贵"][1].text
    facts = section(page, "## 要点")
    assert any("撑船送人过河" in f for f in facts)
    assert not any(f.startswith(("- 阿贵说。", "- 阿贵又对我说：", "- 阿贵又说：")) for f in facts)
    said = ("- 阿贵说。", "- 阿贵又对我说：", "- 阿贵又说：")
    assert not any(line.startswith(said) for line in page.split("\n")), page
    assert check(kb).ok


def _quoted(rec: FileRecord) -> list[str]:
    """Every quoted line of a page: key facts, mentions, digest lines, the summary line."""
    out = [line for line in rec.text.split("\n") if line.startswith(("- ", "> "))]
    return [*out, rec.meta.summary]


def test_no_heading_is_a_fact_summary_or_digest_line(store: Store, tmp_path: Path) -> None:
    corpus = tmp_path / "en"
    corpus.mkdir()
    (corpus / "John Watson.md").write_text(WATSON, encoding="utf-8")
    (corpus / "Sherlock Holmes.md").write_text(HOLMES, encoding="utf-8")
    kb = store.create_kb("en")
    Compiler(kb).build(corpus)
    pages = pages_by_title(kb)
    watson = pages["John Watson"][1]
    # the article's sentences are still there: the mechanism only drops the heading lines
    assert any("army surgeon" in f for f in section(watson.text, "## Key Facts"))
    recs = list(entity_pages(kb).values()) + [
        r for p in kb.prefix("/sources/") if isinstance(r := kb.get(p), FileRecord)
    ]
    for rec in recs:
        for line in _quoted(rec):
            body = line[2:] if line.startswith(("- ", "> ")) else line
            assert not body.lstrip().startswith("#"), (rec.path, line)


# Two essays: 叶子 (leaves) is a person to jieba's dictionary, next to 和/同 as a companion would
# be, but nothing names it; 罗素 is glossed as a person; 亨利 is the first half of 亨利·福特;
# 刘先生 and 章氏 are forms of address.
ESSAYS = {
    "甲": "秋天到了，树上的叶子黄了。叶子落在地上，和叶子在一起的是果子。罗素（Ｂ．Ｒｕｓｓｅｌｌ）是英国的"
    "哲学家。亨利·福特造了很多汽车。刘先生说：“明天再来。”刘先生便走了。刘先生又说：“我忘了伞。”"
    "章氏说过这话，章氏又说了一遍，章氏便不说了。他从爱尔兰来。\n",
    "乙": "风吹着叶子，他同叶子说话。他读过罗素的书，罗素说过很多话。亨利·福特是美国人。"
    "我们到爱尔兰去，爱尔兰人很和气。\n",
}
# One story: a one-character name of legend that speaks and acts, a book named again and again,
# and two dictionary words that act as often — one of them explained by a note as a person.
LEGEND = """羿回到家里。羿说：“我回来了。”嫦娥不理他。羿道：“今天又只打到乌鸦。”羿想，明天要走得更远。
羿便去睡了。第二天，羿说：“我去了。”羿骑着马走了。羿在路上看见一只鸡。羿又回来了。
羿说：“还是乌鸦。”他在灯下看《何典》，说《何典》写得好，又把《何典》放回架上。
嫦娥坐在窗前。嫦娥看着他。嫦娥不说话。嫦娥又看着窗外。月亮升起来了。月亮很圆。
嫦娥想起从前。嫦娥叹了一口气。月亮照着院子。嫦娥便睡了。月亮又落下去。月亮很远。月亮很冷。
月亮不动。月亮照着河。

〔１〕　嫦娥　古代神话中的人物，羿的妻子。
"""


def test_dictionary_words_need_evidence_and_pieces_of_names_are_no_pages(
    store: Store, tmp_path: Path
) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "essays", ESSAYS))
    assert "罗素" in pages
    assert pages["罗素"][0].startswith("/人物/")
    assert "叶子" not in pages  # a dictionary word no text uses as a name
    assert "亨利" not in pages  # half of 亨利·福特
    assert "刘先生" not in pages
    assert "章氏" not in pages
    # tagged as a person by jieba, used as a place by these texts: filed as a place
    assert pages["爱尔兰"][0].startswith("/地点/")
    assert reader.person_evidence("罗素", "如罗素（Ｂ．Ｒｕｓｓｅｌｌ）所说")
    assert reader.person_evidence("孟子", "孟子曰：")
    assert not reader.person_evidence("冷笑", "他冷笑道：“哼。”她冷笑说：“好。”")
    assert reader.fragment_of_longer("惠略夫", "绥惠略夫说。绥惠略夫走了。绥惠略夫笑了。")
    assert reader.kind_by_suffix("改造社会") is None
    assert reader.kind_by_suffix("教育当局") is None  # the authorities, not an office
    assert reader.in_book_title("陶庵梦", "张岱在《陶庵梦忆》上说，《陶庵梦忆》里也写过。")
    assert not reader.in_book_title("张岱", "张岱在《陶庵梦忆》上说，《陶庵梦忆》里也写过。")
    assert reader.fragment_of_longer("光社", "一九一七年为杭州晨光社之一员。")
    assert reader.used_as_place("北京", "他到北京去了。")
    assert not reader.used_as_place("拜寿", "他去拜寿，又去巴结奉承。")
    assert reader.kind_by_suffix("未名社") == "org"


def test_kinds_of_people_and_glued_words_are_not_central_names() -> None:
    from wikikv.text.entities_zh import _SURNAMES
    from wikikv.text.jieba_tags import jieba_freq, jieba_words

    acts = ("说", "便走了", "又来了", "笑了", "便坐下", "说完")
    text = "".join(f"国学家{act}。胡答：“{act}。”" for act in acts)
    central = reader.central_names(text, jieba_words(), jieba_freq(), _SURNAMES)
    assert "国学家" not in central  # an agent ending: a kind of person
    assert "胡答" not in central  # 胡 + 答 ('Hu answered')


def test_one_character_name_and_a_central_book_get_pages(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "legend", {"奔月": LEGEND}))
    assert "羿" in pages
    assert pages["羿"][0].startswith("/人物/")
    assert "何典" in pages
    assert pages["何典"][0].startswith("/作品/")
    assert "乌鸦" not in pages
    assert "他" not in pages
    # a dictionary word on the stage: a name when a note explains it, not otherwise
    assert "嫦娥" in pages
    assert pages["嫦娥"][0].startswith("/人物/")
    assert "月亮" not in pages


def test_common_word_usage_is_detected() -> None:
    assert reader.used_as_common_word("麻木", "他很麻木，大家都麻木了。")
    assert not reader.used_as_common_word("老栓", "老栓说，老栓便走了。老栓的儿子")
    assert reader.used_as_place("北京", "他到北京去了。")
    assert not reader.used_as_place("夕阳", "夕阳照着河面，夕阳很红。")
    assert isinstance(Sentence(0, 1, "x"), Sentence)
