"""What a reader is told first: a page's summary is in the author's voice (a defining sentence
inside someone's quoted words, a critic's "X是…", is that speaker's claim, never the summary),
and the corpus overview's common names are the ones many documents name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.compile.wiki_pages import build_zh_folder, pages_by_title
from wikikv.compile import state
from wikikv.store.store import Store, open_store
from wikikv.text.definitions import defining_score, opens_with, summary_sentences
from wikikv.text.note_glosses import glosses_another, in_note
from wikikv.text.summary_line import clean_summary

CARTER = """# 赶车

阿贵是赶车的，每天一早便到石桥村的桥头。
阿贵说：“今天的路不好走。”
阿贵把车停在桥头，坐着吃饭。
"""

# The quoted sentence would win on its own: the name opens it, a copula follows, and it ends
# like what it defines (…的人), where the narrative one above does not.
RUMOUR = """# 谣言

镇上的绅士却写信来说：“我们不可不防。阿贵是一个偷东西的人。”
阿贵听了，只是笑，仍旧每天赶车到镇上去。
阿贵后来便不大进镇了。
"""


@pytest.fixture
def store() -> Iterator[Store]:
    s = open_store("memory://")
    yield s
    s.close()


def test_a_definition_inside_quoted_words_is_not_the_summary(store: Store, tmp_path: Path) -> None:
    kb = build_zh_folder(store, tmp_path, "carter", {"赶车": CARTER, "谣言": RUMOUR})
    _, page = pages_by_title(kb)["阿贵"]
    assert "阿贵是一个偷东西的人" in page.text  # the claim is on the page, as a fact or mention
    assert page.meta.summary == "阿贵是赶车的，每天一早便到石桥村的桥头。"


def test_the_corpus_common_names_count_documents_not_mentions(store: Store, tmp_path: Path) -> None:
    # 七斤 speaks again and again in one story; 阿贵 is in each of three short texts; 临河 is
    # a dictionary word with no sign of a name
    story = "# 赶车\n\n" + "".join(f"七斤说：“今天第{n}次赶车了。”\n" for n in range(1, 13))
    files = {"赶车": story}
    for title in ("桑叶", "桥头", "渡口"):
        files[title] = (
            f"# {title}\n\n那地方是一个临河的小村庄。\n阿贵说：“{title}的路不好走。”\n阿贵又说：“明天再来。”\n阿贵便走了。\n"
        )
    kb = build_zh_folder(store, tmp_path, "village", files)
    descriptor = state.load_descriptor(kb)
    assert descriptor is not None
    names = descriptor.top_entities
    assert names[:2] == ["阿贵", "七斤"]
    assert "临河" not in names


def test_a_definition_that_points_back_at_its_context_defines_nothing() -> None:
    assert defining_score("鲁迅是它的发起人之一。", ["鲁迅"]) == 0
    assert defining_score("鲁迅是这个文学团体的支持者。", ["鲁迅"]) == 0
    assert defining_score("鲁迅是浙江绍兴人，一九一八年开始写小说。", ["鲁迅"]) > 0


def test_the_editors_an_inside_a_note_glosses_like_a_note() -> None:
    """ "按任鸿隽，四川巴县人，科学家。" — the second sentence of a note says who he was; "按" as
    "according to" or "on time" defines nothing."""
    gloss = defining_score("按任鸿隽，四川巴县人，科学家。", ["任鸿隽"], person=True)
    plain = defining_score("〔２〕任鸿隽，四川巴县人，科学家。", ["任鸿隽"], person=True)
    assert gloss == plain > 0
    assert defining_score("按鲁迅说的办。", ["鲁迅"]) == 0
    assert defining_score("按时吃饭。", ["时"]) == 0


def test_ji_as_at_once_or_even_if_is_no_copula() -> None:
    assert defining_score("章士钊即潜逃天津，并在周刊上宣称。", ["章士钊"]) == 0
    assert defining_score("西滢即使不说，大家也知道。", ["西滢"]) == 0
    assert defining_score("〔2〕柏生即孙伏园（1894—1966），浙江绍兴人。", ["柏生"]) > 0
    assert defining_score("西滢即陈源。", ["西滢"]) > 0


def test_a_sentence_opening_with_a_name_as_a_time_does_not_speak_of_it() -> None:
    assert not opens_with("辛亥革命后任绍兴军政分府都督。", ["辛亥革命"])
    assert opens_with("辛亥革命以后，绍兴换了都督。", ["绍兴"]) is False  # not at the start
    assert opens_with("上海后来成了大都会。", ["上海"])


def test_a_page_with_no_sentence_about_its_subject_says_so(store: Store, tmp_path: Path) -> None:
    # 石桥村 is only ever the place someone goes or a possessor: no key fact of its own
    story = (
        "# 赶车\n\n阿贵说：“今天的路不好走。”\n阿贵每天一早便到石桥村去。\n"
        "石桥村的桥很旧了。\n阿贵说：“石桥村的人都认得我。”\n阿贵又到石桥村去了。\n"
    )
    pages = pages_by_title(build_zh_folder(store, tmp_path, "carter", {"赶车": story}))
    _, page = pages["石桥村"]
    facts = page.text.split("## 要点\n", 1)[1].split("\n## ", 1)[0]
    assert "原文中没有以石桥村为主语的句子" in facts
    assert "## 提及" in page.text


def test_a_note_giving_the_usual_spelling_defines_the_name_it_gives() -> None:
    note = "〔13〕陀思妥夫斯奇（Ｆ．Ｄｏｓｔｏｅｖｓｋｙ，1821—1881）\u3000通译陀思妥耶夫斯基，俄国作家。"
    assert defining_score(note, ["陀思妥耶夫斯基"]) >= 3
    book = "〔4〕《易经》，即《周易》，大约产生于殷周时代，是古代记载占卜的书。"
    assert defining_score(book, ["周易"]) >= 3
    assert defining_score("〔4〕《易经》即《周易·系辞》，是解说卦象的文字。", ["周易"]) == 0
    # only another name, no gloss: weaker than a lifespan, still more than a count of documents
    alias_only = defining_score("〔3〕Fraeulein H．\u3000德语：H女士（即许广平）。", ["许广平"])
    lifespan = defining_score("〔5〕景宋许广平（1898—1968），广东番禺人，鲁迅夫人。", ["许广平"])
    assert 0 < alias_only < lifespan
    # outside a note, "即" + a name is what someone says in passing
    assert defining_score("他通译陀思妥耶夫斯基，大家都知道。", ["陀思妥耶夫斯基"]) == 0


def test_a_lifespan_after_a_long_latin_gloss_is_still_a_lifespan() -> None:
    note = "〔2〕卢骚（ＪAＪAＲｏｕｓｓｅａｕ，1712—1778）通译卢梭，法国启蒙思想家。"
    assert defining_score(note, ["卢骚"]) > defining_score("〔2〕卢梭又译卢骚。", ["卢骚"])


def test_a_summary_keeps_the_gloss_of_a_note_that_holds_the_name() -> None:
    two = "〔4〕《论语》\u3000记录孔丘言行的书；《易经》，即《周易》，大约产生于殷周时代，是古代记载占卜的书。"
    text = f"正文。\n{two}\n"
    start = text.index("〔")
    end = start + len(two)
    assert summary_sentences(text, start, end, ["周易"]).endswith(
        "《易经》，即《周易》，大约产生于殷周时代，是古代记载占卜的书。"
    )
    assert "易经" not in summary_sentences(text, start, end, ["论语"])
    # a semicolon that goes on about the same person, or inside a quotation, is no border
    same = "〔7〕王羲之（321—379）\u3000字逸少；琅邪临沂人，东晋文学家、书法家。"
    text = f"{same}\n"
    assert summary_sentences(text, 0, len(same), ["王羲之"]) == same
    quote = "〔2〕《太平御览》卷四二五引谢承《后汉书》：“范丹姊病，姊设食；《列女传》亦载之。”"
    assert summary_sentences(quote, 0, len(quote), ["太平御览"]) == quote


def test_a_summary_line_drops_the_editors_an_and_garbled_latin() -> None:
    """The summaries built from "按X，…" kept the 按; a Russian name's original reached the
    corpus garbled ("（[．X．BEGHESTGOPI，1821—1881）") and was shown as it is. The years stay; a
    real Latin name, an acronym and a bracket of Chinese words stay too."""
    assert (
        clean_summary("按任鸿隽，四川巴县人，科学家。", ["任鸿隽"])
        == "任鸿隽，四川巴县人，科学家。"
    )
    assert clean_summary("按时吃饭。", ["时"]) == "按时吃饭。"
    assert (
        clean_summary(
            "陀思妥夫斯奇（[．X．BEGHESTGOPI，1821—1881） 通译陀思妥耶夫斯基，俄国作家。", []
        )
        == "陀思妥夫斯奇（1821—1881） 通译陀思妥耶夫斯基，俄国作家。"
    )
    assert (
        clean_summary(
            "高尔基（Ｍ．BCDEFGH，１８６８—１９３６） 原名彼什科夫（Ａ．Ｍ．IJKFCL），作家。", []
        )
        == "高尔基（１８６８—１９３６） 原名彼什科夫，作家。"
    )
    for kept in (
        "卢骚（ＪAＪAＲｏｕｓｓｅａｕ，1712—1778），法国思想家。",
        "《博徒别传》（Rodney　Stone），小说。",
        "苏联（USSR）的作家。",
        "所谓“四凶”（浑沌、穷奇、[木寿]杌、饕餮）之一。",
    ):
        assert clean_summary(kept, []) == kept


def test_a_note_on_another_term_does_not_summarise_a_name_it_mentions() -> None:
    """俞复's summary was the note on 灵学派, and 中国共产党's the second sentence of the note on
    自由大同盟 (the league, 'under the party's lead', is its dropped subject)."""
    ling = "正文。\n　　〔４〕　灵学派　一九一七年十年，俞复、陆费逵等人在上海设盛德坛扶乩。\n"
    assert glosses_another(ling, ling.index("〔"), ["俞复"])
    assert not glosses_another(ling, ling.index("〔"), ["灵学派"])
    fu = "正文。\n　　〔5〕伏羲八卦体　伏羲，我国古代传说中的帝王。\n"
    assert not glosses_another(fu, fu.index("〔"), ["伏羲"])  # the gloss opens with the name
    league = (
        "　　〔8〕自由大同盟中国自由运动大同盟的简称。中国共产党支持和领导下的一个革命群众团体，"
        "一九三○年二月成立于上海。鲁迅是它的发起人之一。\n"
    )
    assert glosses_another(league, league.index("中国共产党"), ["中国共产党"])
    assert not glosses_another(league, league.index("鲁迅是"), ["鲁迅"])
    story = "中国共产党支持和领导下的一个革命群众团体，成立于上海。\n"
    assert not glosses_another(story, 0, ["中国共产党"])  # not a note
    unindented = "〔1〕灵学派　俞复等人设坛扶乩。\n〔2〕新青年　综合性月刊，胡适等人编辑。\n"
    assert glosses_another(unindented, unindented.index("〔2〕"), ["胡适"])  # its own note's head
    half = "　　〔3〕《三侠五义》，小说。前半部主要写包拯审案的故事，后半部写侠客。\n"
    assert not glosses_another(half, half.index("前半部"), ["前半部"])  # 写 takes the 的 phrase


def test_a_gloss_later_in_a_hard_wrapped_note_defines() -> None:
    """ "俞复，江苏无锡人，当时“灵学派”的重要人物之一。" stands mid-note, on a line the note's
    first line wraps into: it says who he was as a note's head would."""
    text = (
        "　　〔１１〕　《灵学杂志》　应为《灵学丛志》，是当时宣传迷信的一种刊物，上海灵学\n"
        "会编，一九一八年一月发刊。俞复，江苏无锡人，当时“灵学派”的重要人物之一。一九一\n"
        "七年十月在上海设立盛德坛。\n"
        "　　俞复，江苏无锡人，这样说。\n"
    )
    at = text.index("俞复，江苏")
    assert in_note(text, at)
    assert not in_note(text, text.rindex("俞复"))  # a paragraph of its own
    sentence = "俞复，江苏无锡人，当时“灵学派”的重要人物之一。"
    assert defining_score(sentence, ["俞复"], True, mid_note=True) > 0
    assert defining_score(sentence, ["俞复"], True) == 0


def test_a_name_founded_or_broken_out_is_a_time() -> None:
    """ "中国共产党成立后，任党的总书记。" and "抗日战争爆发后回国" tell of someone else."""
    assert not opens_with("中国共产党成立后，任党的总书记。", ["中国共产党"])
    assert not opens_with("抗日战争爆发后回国，组织文化人士。", ["抗日战争"])
    assert opens_with("中国共产党成立于一九二一年。", ["中国共产党"])


def test_a_title_with_its_kind_before_it_says_what_it_is() -> None:
    """Works named in passing kept "在 N 篇文章中提到": "他的剧本《玩偶之家》，写娜拉…" says it is
    a play. Weakest of the definitions; not a title in a list of titles, not the line before
    someone's words, never a person's."""
    play = "他的剧本《玩偶之家》，写娜拉不甘做丈夫的玩偶而离家出走的故事。"
    assert defining_score(play, ["玩偶之家"]) == 1
    assert defining_score(play, ["玩偶之家"], person=True) == 0
    listed = "著有长篇小说《战争与和平》、《安娜·卡列尼娜》、《复活》等。"
    assert defining_score(listed, ["战争与和平"]) == 0
    assert defining_score(listed, ["复活"]) == 0
    said = "他在短篇小说集《荆棘》的代序《自招》里说：“得朋友的一株霸王鞭是今年。”"
    assert defining_score(said, ["荆棘"]) == 0
    assert defining_score("参看本书《忽然想到》之十一及其注。", ["忽然想到"]) == 0
