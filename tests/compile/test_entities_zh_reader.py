"""Issue 8, Chinese compile side (second round): a dictionary noun that acts in a story is no
entity, a journal cited in 《》 is filed with the organizations when the text shows it is a
periodical, an organ a text gives an owner is no page, and a page with no document of its own
is summarised by the sentence that says what it is — on small corpora written here."""

from __future__ import annotations

from pathlib import Path

from tests.compile.wiki_pages import build_zh_folder, pages_by_title
from wikikv.store.records import DirRecord
from wikikv.store.store import Store
from wikikv.text import entities_zh_reader as reader
from wikikv.text.definitions import defining_score, without_note_mark

# Two stories: a carter and his horsewhip. 马鞭 is a word jieba's dictionary tags as a person
# (nr); it is raised, cracks, breaks and is bought, but it never speaks, is never spoken to and
# has no kin. 阿贵 speaks. The village is defined once, in a sentence that names it.
CARTER = """# 赶车

那地方叫石桥村，是一个临河的小村庄。
石桥村只有一条大路通到镇上，路边是桑树。
阿贵是赶车的，每天一早便到石桥村的桥头。
马鞭在空中一响，马便走了。
阿贵说：“今天的路不好走。”
马鞭又响了一下，车便到了桥头。
马鞭便落在车上，阿贵去吃饭。
马鞭也断了，阿贵又去买了一根。
阿贵说：“这一根比先前的好。”
马鞭还挂在墙上，阿贵坐着看它。
第二天，马鞭又响起来了。
马鞭就飞了出去，落在河边。
马鞭却不见了，阿贵便回到石桥村去了。
"""

MARKET = """# 赶集

镇上的集很热闹，阿贵也来了。
阿贵说：“石桥村的桑叶今年好。”
卖马鞭的老头子说：“马鞭要不要？”
马鞭挂了一排，马鞭都是新的。
阿贵看了看马鞭，没有买。
马鞭在风里摇着，阿贵便走了。
"""

# Essays that cite a journal: one says when a piece appeared in it (a date right before the
# title, "（周刊）" after it), and then names it again without a periodical word; the other
# names it once, bare. A student council has an owner every time.
ESSAY_A = """# 说山风

本篇最初发表于一九二五年五月四日《山风》（周刊）。
那时《山风》里的文章，我大抵都看过，《山风》的文章也不坏。
北京大学评议会开会，评议会的人都来了，东方大学评议会也开了会。
北京大学评议会后来又议决了一件事。
"""

ESSAY_B = """# 再说山风

我在《山风》上看见他的信，说的还是旧话。
东方大学评议会的人说，评议会不管这件事，这是北京大学评议会的事。
"""


def test_a_dictionary_noun_acting_in_a_story_gets_no_page(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(
        build_zh_folder(store, tmp_path, "carter", {"赶车": CARTER, "赶集": MARKET})
    )
    assert "阿贵" in pages  # speaks: a name
    assert pages["阿贵"][0].startswith("/人物/")
    assert "马鞭" not in pages  # acts, but shows no sign of a name
    assert reader.name_signs("阿贵", "阿贵说：“今天的路不好走。”")
    assert reader.name_signs("闰土", "“闰土，你来了？”")  # addressed
    assert reader.name_signs("七斤", "七斤的女儿六斤。")  # kin
    assert not reader.name_signs("马鞭", "马鞭在空中一响，马便走了。他拿起马鞭。")
    # a piece of a title only ever inside it (罗诗力 of 《摩罗诗力说》), and not a name inside
    # a title that stands alone too
    assert reader.in_book_title("罗诗力", "如《摩罗诗力说》那样。", whole=True)
    assert not reader.in_book_title("陶渊明", "《陶渊明集》里，陶渊明说。", whole=True)


def test_a_journal_with_periodical_evidence_is_an_organization(
    store: Store, tmp_path: Path
) -> None:
    pages = pages_by_title(
        build_zh_folder(store, tmp_path, "essays", {"说山风": ESSAY_A, "再说山风": ESSAY_B})
    )
    assert "山风" in pages
    assert pages["山风"][0].startswith("/机构/")
    # a council a text always gives an owner (北京大学评议会) is an organ, not one body
    assert "评议会" not in pages


def test_a_page_without_its_own_article_is_summarised_by_its_definition(
    store: Store, tmp_path: Path
) -> None:
    pages = pages_by_title(
        build_zh_folder(store, tmp_path, "village", {"赶车": CARTER, "赶集": MARKET})
    )
    path, page = pages["石桥村"]
    assert path.startswith("/地点/")
    assert page.meta.summary == "那地方叫石桥村，是一个临河的小村庄。"
    lines = page.text.split("\n")
    assert f"> {page.meta.summary}" in lines
    # the summary's sentence is the first key fact, with its citation
    first_fact = lines[lines.index("## 要点") + 1]
    assert first_fact.startswith("- 那地方叫石桥村，是一个临河的小村庄。 [^")
    # and the directory listing shows the same summary
    listing = store.kb("village").get(path.rsplit("/", 1)[0])
    assert isinstance(listing, DirRecord)
    assert "那地方叫石桥村" in (listing.text or "")


def test_what_defines_and_what_only_mentions() -> None:
    assert defining_score("那地方叫平桥村，是一个临河的小村庄。", ["平桥村"]) > 0
    assert defining_score("这少年便是闰土。", ["闰土"]) > 0
    assert defining_score("〔2〕柏生即孙伏园（1894—1966），浙江绍兴人。", ["孙伏园"]) > 0
    assert defining_score("鲁迅，原名周树人，浙江绍兴人。", ["鲁迅"]) > 0
    assert defining_score("平桥村只有一只早出晚归的航船是大船。", ["平桥村"]) == 0
    assert defining_score("闰土是谁呢？", ["闰土"]) == 0
    assert defining_score("母亲叫闰土坐，他迟疑了一回。", ["闰土"]) == 0
    assert defining_score("“自传”么，我又并非就是阿Ｑ。", ["阿Ｑ"]) == 0
    assert defining_score("我叫阿毛，没有应。", ["阿毛"]) == 0
    assert defining_score("〔22〕美国退还的赔款　指庚子赔款。", ["美国"]) == 0
    assert defining_score("〔３〕　嫦娥　古代神话中的人物。", ["嫦娥"]) > 0
    # the name with an honorific as the subject outranks "…说：这就是刘和珍。"
    said = "才有人指着一个学生告诉我，说：这就是刘和珍。"
    own = "在四十余被害的青年之中，刘和珍君是我的学生。"
    assert defining_score("刘和珍君是我的学生。", ["刘和珍"]) > defining_score(said, ["刘和珍"]) > 0
    assert defining_score(own, ["刘和珍"]) > defining_score(said, ["刘和珍"])
    assert without_note_mark("〔2〕柏生即孙伏园。") == "柏生即孙伏园。"
    assert without_note_mark("“闰土哥，——你来了？”") == "“闰土哥，——你来了？”"


def test_notes_are_read_by_their_head_word_in_any_note_of_the_text() -> None:
    text = (
        "正文里说到都城，也说到嫦娥和钩拒。\n"
        "〔1〕钩拒\u3000古代的一种兵器。\n"
        "〔2〕都城\u3000泛指国都。\n"
        "〔3〕\u3000嫦娥\u3000古代神话中人物。\n"
        "⑷嫦娥奔月\u3000故事名。\n"
        "〔5〕后羿"
    )
    assert reader.glossed_term("都城", text)  # the second note, not the first
    assert not reader.glossed_term("钩拒", text)  # a weapon: no term gloss
    assert reader.noted("嫦娥", text)  # spaces after the mark
    assert not reader.noted("钩拒", text)
    assert not reader.noted("嫦娥奔", text)  # a head word is whole: 嫦娥奔|月 is no head
    assert not reader.noted("后羿", text)  # a head with nothing after it says nothing
    assert not reader.glossed_term("都城", text.replace("〔", "（"))  # no notes at all
