"""What an entity page's key facts leave out or put last: colophons, lines that only point
back, near repeats and lines with nothing but a name. The sentences are the corpus's own (the
signing lines and editors' notes of the Lu Xun collections)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.compile.wiki_pages import build_zh_folder, pages_by_title, section
from wikikv.compile import state
from wikikv.compile.check import check
from wikikv.compile.model import DocAnalysis, article_path
from wikikv.compile.pages import listing_of_lines
from wikikv.llm.base import SentenceSpan
from wikikv.store.records import FileRecord
from wikikv.store.store import KnowledgeBase, Store, open_store
from wikikv.text.definitions import defining_score, names_a_time
from wikikv.text.fact_lines import (
    NearRepeats,
    is_colophon,
    is_cross_reference,
    points_back,
    says_nothing,
)
from wikikv.text.note_glosses import note_lead, note_mark_length

LU_XUN = ["鲁迅", "鲁迅先生"]


@pytest.mark.parametrize(
    "line",
    [
        "一九二九年八月二十日，鲁迅记于上海。",
        "一九三二年四月二十九日，鲁迅于沪北寓楼记。",
        "一九三○年五月八日之夜，鲁迅校毕记于上海闸北寓庐。",
        "鲁迅一九三一，十二，二八。",
        "一九二五年五月十四日，鲁迅上。",
        "一九二六年十月十四日，鲁迅附记。",
        "一九二七年四月十一日，鲁迅识于广州中山大学。",
    ],
)
def test_a_signing_line_is_a_colophon(line: str) -> None:
    assert is_colophon(line, LU_XUN)


@pytest.mark.parametrize(
    "line",
    [
        "一九一九年十二月，鲁迅回绍兴接母亲等家眷到北京，同住八道湾。",  # what he did
        "一九二四年九月，鲁迅辑成《俟堂砖文杂集》一书。",
        "鲁迅于十三日被推举为委员。",  # no year
        "一九二七年十二月七日，许广平记于上海。",  # someone else signed
    ],
)
def test_a_dated_fact_is_no_colophon(line: str) -> None:
    assert not is_colophon(line, LU_XUN)


def test_pointing_back_is_told_from_should() -> None:
    assert points_back("鲁迅经常为该刊写稿。")
    assert points_back("鲁迅是它的发起人之一。")
    assert not points_back("鲁迅应该写稿。")
    assert not points_back("鲁迅为《莽原》写稿。")


def test_a_person_is_not_defined_by_a_line_about_an_unnamed_journal() -> None:
    line = "鲁迅是主要撰稿者和支持者之一，并于该刊在上海出版后一度担任编辑。"
    assert defining_score(line, LU_XUN, person=True) == 0
    assert defining_score("鲁迅是浙江绍兴人。", LU_XUN, person=True) > 0


def test_a_persons_lifespan_and_home_outrank_a_copula_said_in_passing() -> None:
    gloss = "〔30〕胡适（1891—1962）　字适之，安徽绩溪人，现代评论派主要成员之一。"
    passing = "胡适是杜威学说的宣传者。"
    assert defining_score(gloss, ["胡适"], person=True) > defining_score(
        passing, ["胡适"], person=True
    )


def test_a_persons_death_or_rule_as_a_time() -> None:
    """ "袁世凯死后，在日本帝国主义支持下，几次把持北洋政府" is 段祺瑞's doing; "段祺瑞执政之际，虽颇有
    人造了谣言" is the writer's."""
    for after in ("死后，在日本", "执政之际", "窃国后，", "逝世以后"):
        assert names_a_time(after), after
    for after in ("后来", "死了", "执政府", "上台讲话"):
        assert not names_a_time(after), after


def test_a_note_that_sends_the_reader_elsewhere() -> None:
    assert is_cross_reference("〔16〕吴稚晖参看本卷第215页注。")
    assert is_cross_reference("李大钊（1889—1927），参看本卷第66页注。")
    assert not is_cross_reference("鲁迅对这种论调的批评，可参看本书《这个与那个》第四节。")
    assert note_mark_length("〔２〕　袁世凯（１８５９—１９１６）") == 4
    assert note_mark_length("袁世凯（1859—1916）") == 0


def test_a_note_opening_is_quoted_when_it_says_what_the_sentence_is_about() -> None:
    book = "　　〔16〕《苦闷的象征》文艺论文集，日本文艺评论家厨川白村作。鲁迅曾译成中文，一九二四年出版。"
    at = note_lead(book, book.index("鲁迅曾译"), LU_XUN)
    assert at is not None
    assert book[at:].startswith("《苦闷的象征》")
    assert note_lead(book, book.index("《苦闷"), LU_XUN) is None  # the note's first sentence
    sends = "　　〔9〕“拳匪”　反动派对义和团的蔑称。参看本卷第295页注。陈西滢在《闲话》里说过。"
    assert note_lead(sends, sends.index("陈西滢"), ["陈西滢"]) is None
    own = "　　〔3〕鲁迅，浙江绍兴人。他在北京教书。"
    assert note_lead(own, own.index("他在"), LU_XUN) is None  # the note is about him
    assert note_lead("鲁迅曾译成中文。", 0, LU_XUN) is None  # no note


def test_lines_with_nothing_but_a_name() -> None:
    for line in ("鲁迅。", "鲁迅先生：", "他说：", "鲁迅启上。", "He said:", "Holmes said."):
        assert says_nothing(line, [*LU_XUN, "Holmes"]), line
    for line in ("鲁迅于十三日被推举为委员。", "Holmes went home."):
        assert not says_nothing(line, [*LU_XUN, "Holmes"]), line


def test_near_repeats_are_quoted_once() -> None:
    near = NearRepeats()
    assert not near.repeats("鲁迅是主要撰稿者和支持者之一，并于该刊在上海出版后一度担任编辑。")
    assert near.repeats("鲁迅是它的主要撰稿人和支持者之一，并于该刊在上海出版后一度担任编辑。")
    assert not near.repeats("鲁迅曾为该刊撰稿，并校阅过自创刊号至第十六号中的一些稿件。")
    # a number that differs is a different fact
    assert not near.repeats("He was born in 1950 in London, England.")
    assert not near.repeats("He was born in 1951 in London, England.")
    # one year in two widths is one year
    assert not near.repeats("〔24〕吴稚晖（1865—1953）名敬恒，江苏武进人，国民党政客。")
    assert near.repeats("吴稚晖（１８６５—１９５３），名敬恒，江苏武进人，国民党反动政客。")
    # too short to judge: kept
    assert not near.repeats("鲁迅到了。")
    assert not near.repeats("鲁迅到了！")


NOTES = """# 杂记

　　〔1〕《晨钟》：文艺周刊，一九二五年创刊于北京。周明是主要撰稿者和支持者之一，并于该刊在上海出版后一度担任编辑。
　　〔2〕《晨钟》：文艺周刊，一九二五年创刊于北京。周明是它的主要撰稿人和支持者之一，并于该刊在上海出版后一度担任编辑。
　　〔3〕周明，浙江山阴人，一九二三年到北京教书，后来常为各报撰稿。
　　〔4〕周明参看本卷第215页注。
　　〔7〕周明，浙江山阴人，一九二三年到北京教书，后来常为各报撰稿。
　　〔5〕《夕照》文艺论文集，日本人山田作。周明曾译成中文，一九二四年出版。
　　〔6〕文学社著名的文学团体，一九二一年一月成立于北京，由甲、乙、丙等人发起，主张“为人生的艺术”，提倡现实主义的为改造社会服务的新文学，反对把文学当作游戏或消遣的东西。同时努力介绍弱小民族的文学作品。周明是该社的支持者。
周明常在夜里写文章，写完便放在桌上。
周明死后，报馆便由王五一手把持，再不登别人的文章了。
周明说：
一九二七年十二月七日，周明记于上海。
"""


@pytest.fixture
def store() -> Store:
    return open_store("memory://")


def test_a_person_page_leads_with_what_stands_alone(store: Store, tmp_path: Path) -> None:
    kb = build_zh_folder(store, tmp_path, "notes", {"杂记": NOTES})
    _, rec = pages_by_title(kb)["周明"]
    assert rec.meta.summary.startswith("周明，浙江山阴人"), rec.text
    facts = section(rec.text, "## 要点")
    quotes = [f.rsplit(" [^", 1)[0][2:] for f in facts]
    # the near repeat is quoted once; the line about the unnamed journal comes after the
    # lines a reader can take alone; the colophon is no key fact
    assert sum("主要撰稿" in q for q in quotes) == 1, facts
    # …and the repeat's source is still cited, among the mentions
    assert sum("主要撰稿" in m for m in section(rec.text, "## 提及")) == 1
    # a sentence later in a note is quoted with the note's opening, which says what it is about
    assert "《晨钟》：文艺周刊，一九二五年创刊于北京。周明是主要撰稿者" in "\n".join(quotes)
    assert "《夕照》文艺论文集，日本人山田作。周明曾译成中文，一九二四年出版。" in quotes
    # …unless the opening is long: then it only points back, and comes after the rest
    leaning = next(i for i, q in enumerate(quotes) if "该社" in q)
    assert quotes[leaning] == "周明是该社的支持者。"
    alone = next(i for i, q in enumerate(quotes) if "在夜里写文章" in q)
    assert alone < leaning
    assert not any("记于上海" in q or "参看本卷" in q or "一手把持" in q for q in quotes)
    # a quote starts at its words, not at the note's mark, and its citation says so
    assert not any(q.startswith("〔") for q in quotes), quotes
    assert check(kb).ok
    # the colophon is still where he is mentioned; the bare speech tag is nowhere
    assert any("记于上海" in m for m in section(rec.text, "## 提及"))
    assert "- 周明说：" not in rec.text
    # one gloss under two notes' marks is one line, whichever section it would go to
    lines = rec.text.split("\n")
    assert sum(ln.startswith("- 周明，浙江山阴人，一九二三年") for ln in lines) == 1


def test_a_quote_past_its_note_mark_counts_as_its_sentence_quoted(
    store: Store, tmp_path: Path
) -> None:
    """``check``'s fact coverage counts a sentence quoted from past its note mark: the same
    share as counting every informative sentence that some citation of its article covers."""
    kb = build_zh_folder(store, tmp_path, "notes", {"杂记": NOTES})
    cited: set[tuple[str, int, int]] = set()
    for _, rec in pages_by_title(kb).values():
        for path, a, b in re.findall(
            r"\[\[(/sources/articles/[^\]]+)\]\] chars (\d+)-(\d+)", rec.text
        ):
            cited.add((path, int(a), int(b)))
    docs = state.load_docs(kb)
    informative = [(d, d.sentences[i]) for d in docs.values() for i in d.informative]
    texts = {d.id: _article(kb, d.id) for d in docs.values()}
    marked = [s for d, s in informative if texts[d.id][s.start : s.end].startswith("〔")]
    assert marked  # the notes' sentences open with their marks…
    # a sentence's words start past its note mark; a citation that covers them quotes it
    mark = re.compile(r"[\s\u3000]*〔[0-9０-９]+〕[\s\u3000]*")

    def words_at(d: DocAnalysis, s: SentenceSpan) -> int:
        opened = mark.match(texts[d.id], s.start)
        return opened.end() if opened else s.start

    hits = sum(
        any(p == article_path(d.id) and a <= words_at(d, s) and s.end <= b for p, a, b in cited)
        for d, s in informative
    )
    assert hits
    assert check(kb).fact_coverage == pytest.approx(hits / len(informative))


def _article(kb: KnowledgeBase, doc_id: str) -> str:
    rec = kb.get(article_path(doc_id))
    assert isinstance(rec, FileRecord)
    return rec.text


def test_a_listing_of_one_says_one_entry() -> None:
    one = listing_of_lines("Poets", "people who write poems", ["- [[/p/A|A]]"], "en")
    assert "(1 entry)" in one
    two = listing_of_lines("Poets", "people", ["- [[/p/A|A]]", "- [[/p/B|B]]"], "en")
    assert "(2 entries)" in two
