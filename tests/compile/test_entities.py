from __future__ import annotations

from wikikv.text import entities as ents
from wikikv.text.digest import digest, split_sentences
from wikikv.text.entities_zh import chinese_mentions
from wikikv.text.jieba_tags import jieba_pos, jieba_pos_fast, jieba_words


def _gaz(titles: list[str]) -> ents.Gazetteer:
    variants = ents.title_variants(titles)
    display = {ents.fold(t): t for t in titles}
    for variant, key in variants.items():
        display.setdefault(variant, ents.split_qualifier(display[key])[0])
    return ents.build_gazetteer(variants, display)


def test_fold_handles_width_case_and_articles() -> None:
    assert ents.fold("ＬＵ  Xun") == ents.fold("lu xun")
    assert ents.fold("The Beatles") == ents.fold("Beatles")
    assert ents.fold("鲁迅（坟）") == "鲁迅(坟)"


def test_name_variants_fold_into_one_entity() -> None:
    text = (
        "Sherlock Holmes is a detective. Holmes lives in London. Mr. Holmes plays the "
        "violin. Dr. Watson admires Holmes."
    )
    found = ents.english_mentions(
        text, split_sentences(text, "en"), _gaz(["London"]), about="Sherlock Holmes"
    )
    keys = {m.surface: m.key for m in found}
    assert keys["Sherlock Holmes"] == keys["Holmes"] == keys["Mr. Holmes"] == "sherlock holmes"
    assert keys["London"] == "london"
    for m in found:
        assert text[m.start : m.end] == m.surface


def test_qualifier_alias_only_when_unique_and_homonyms_apart() -> None:
    variants = ents.title_variants(["Heat (film)", "Heat (novel)", "Titanic (1997 film)"])
    assert variants["titanic"] == "titanic (1997 film)"
    assert "heat" not in variants  # two homonyms: the bare name belongs to neither
    assert ents.ambiguous_bases(["Heat (film)", "Heat (novel)"]) == {"heat"}
    text = "Titanic won many awards. The film Titanic was long."
    found = ents.english_mentions(
        text,
        split_sentences(text, "en"),
        _gaz(["Heat (film)", "Heat (novel)", "Titanic (1997 film)"]),
    )
    # a one-word title opening a sentence is the title when the document never writes the word
    # in lower case (issue 8: "London rebuilt the docks")
    assert [m.key for m in found] == ["titanic (1997 film)", "titanic (1997 film)"]
    text = "Heat rises, the heat stays. Titanic won awards; the titanic ship sank. The film Titanic was long."
    found = ents.english_mentions(
        text, split_sentences(text, "en"), _gaz(["Heat (film)", "Titanic (1997 film)"])
    )
    # "Heat" and "Titanic" open sentences; "titanic" is also a common word here: neither is kept
    assert [(m.surface, m.start) for m in found] == [("Titanic", text.rindex("Titanic"))]


def test_title_inside_a_longer_name_is_not_matched() -> None:
    text = "He played with Blue Murder and Vanilla Fudge in the 1980s."
    found = ents.english_mentions(text, split_sentences(text, "en"), _gaz(["Blue (album)"]))
    assert "blue (album)" not in {m.key for m in found}
    assert "blue murder" in {m.key for m in found}


def test_dates_are_not_names_but_titles_with_numbers_are() -> None:
    text = (
        "Christian of Anhalt (11 May 1568 - 17 April 1630) was a prince. He wrote to "
        "Anna Maria in April 1590. He liked the band 2 Chainz and the film 3096 Days."
    )
    found = ents.english_mentions(text, split_sentences(text, "en"), _gaz(["3096 Days"]))
    keys = {m.key for m in found}
    assert not keys & {"17 april", "11 may", "april", "may 1568", "april 1590", "17 april 1630"}
    assert {"anna maria", "2 chainz", "3096 days"} <= keys


def test_kind_of_a_title() -> None:
    assert ents.classify_title("Heat (film)", "Heat is a crime film.", "en") == "work"
    assert (
        ents.classify_title(
            "Jeff Porcaro",
            "Jeffrey Thomas Porcaro (April 1, 1954 – August 5, 1992) was an American drummer.",
            "en",
        )
        == "person"
    )
    assert (
        ents.classify_title(
            "Port Blair", "Port Blair is the capital of the Andaman and Nicobar Islands.", "en"
        )
        == "place"
    )


def test_chinese_mentions_from_pos_tags_and_book_titles() -> None:
    text = "鲁迅在北京写了《呐喊》，许广平后来在上海整理了他的文章。"
    sents = split_sentences(text, "zh")
    found = chinese_mentions(text, sents, jieba_pos(text), {"呐喊": "呐喊"})
    by_key = {m.key: m for m in found}
    assert {"鲁迅", "北京", "上海", "呐喊"} <= set(by_key)
    assert by_key["北京"].kind == "place"
    assert by_key["呐喊"].kind == "work"
    for m in found:
        assert text[m.start : m.end] == m.surface


def test_circa_born_died_before_a_year_end_no_sentence() -> None:
    en = "Edwin (c. 586 – 633) was King of Deira. Ma Lin (b. 1939) is a director. He left."
    assert [s.text for s in split_sentences(en, "en")] == [
        "Edwin (c. 586 – 633) was King of Deira.",
        "Ma Lin (b. 1939) is a director.",
        "He left.",
    ]
    # a word that only ends in one of those letters still ends its sentence
    assert len(split_sentences("It rained in the land of Od. 1900 was dry.", "en")) == 2


def test_a_court_case_and_a_title_before_a_name_end_no_sentence() -> None:
    """HotpotQA's Waite Court article lists "United States v. Reese" cases: cut after "v." the
    United States page was summarised as 'United States" (1878), "Wilkerson v.'."""
    en = (
        'Notable cases include "United States v. Cruikshank" (1875), "Reynolds v. United '
        'States" (1878). Gov. Smith and Sen. Jones came. It ended.'
    )
    assert [s.text for s in split_sentences(en, "en")] == [
        'Notable cases include "United States v. Cruikshank" (1875), "Reynolds v. United '
        'States" (1878).',
        "Gov. Smith and Sen. Jones came.",
        "It ended.",
    ]
    # a title that ends in a question mark, then its gloss in brackets, is one sentence
    film = 'What Ever Happened to Baby Toto? (Italian: "Che fine ha fatto Totò Baby?") is a film.'
    assert [s.text for s in split_sentences(film + " Who? (Nobody.)", "en")] == [
        film,
        "Who? (Nobody.)",
    ]


def test_circa_in_the_quotes_of_lost_italics_ends_no_sentence() -> None:
    """2Wiki writes the italic "c." as '(" c". 1195–1254/63)': Richard Filangieri's summary
    began at "1195–1254/63) was …". A quoted word that is no abbreviation still ends one."""
    en = 'Richard Filangieri(" c". 1195–1254/63) was a nobleman. He fought.'
    assert [s.text for s in split_sentences(en, "en")] == [
        'Richard Filangieri(" c". 1195–1254/63) was a nobleman.',
        "He fought.",
    ]
    assert len(split_sentences('It was shown on the" televisor". The film was made.', "en")) == 2


def test_sentences_and_digest_keep_exact_offsets() -> None:
    en = "Mr. Smith went to Washington. He met the U.S. president there! Then he left."
    sents = split_sentences(en, "en")
    assert [s.text for s in sents] == [
        "Mr. Smith went to Washington.",
        "He met the U.S. president there!",
        "Then he left.",
    ]
    zh = "我冒了严寒，回到故乡去。“你好！”他说。\n\n闰土来了？是的。"
    zsents = split_sentences(zh, "zh")
    assert [s.text for s in zsents] == [
        "我冒了严寒，回到故乡去。",
        "“你好！”",
        "他说。",
        "闰土来了？",
        "是的。",
    ]
    for s in sents + zsents:
        assert (en if s in sents else zh)[s.start : s.end] == s.text
    picked = digest(sents, "en", "Smith", k=2)
    assert picked == sorted(picked)
    assert len(picked) == 2


def test_fast_chinese_tagging_covers_the_text_and_finds_names() -> None:
    text = "鲁迅在北京写了《呐喊》，杨荫榆和胡也频都在上海。我们喝咖啡。"
    tags = jieba_pos_fast(text)
    assert "".join(w for w, _ in tags) == text
    found = chinese_mentions(text, split_sentences(text, "zh"), tags, {}, jieba_words())
    surfaces = {m.surface for m in found}
    assert {"鲁迅", "北京", "上海", "胡也频", "呐喊"} <= surfaces
    assert "喝咖啡" not in surfaces
