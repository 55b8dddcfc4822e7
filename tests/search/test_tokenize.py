"""Tokenization: English, Chinese word segmentation, mixed text, typo helpers."""

from __future__ import annotations

import pytest

from wikikv.search.tokenize import (
    BIGRAM_QUERY_WEIGHT,
    deletes,
    edit_distance,
    fuzzy_eligible,
    joined_name,
    query_terms,
    stem,
    tokenize,
)
from wikikv.store.keys import fold_name


def test_english_lowercase_split_stopwords_and_stems() -> None:
    text = "The Director's FILMS: boxes, studies and classes of Jean-Paul"
    assert tokenize(text) == ["director", "film", "box", "study", "class", "jean", "paul"]


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [
        ("films", "film"),
        ("studies", "study"),
        ("boxes", "box"),
        ("churches", "church"),
        ("glass", "glass"),
        ("status", "status"),
        ("paris", "paris"),
        ("gas", "gas"),
        ("shaw's", "shaw"),
        ("directors'", "director"),
    ],
)
def test_light_stemming(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


def test_nfkc_folding_matches_the_name_index() -> None:
    # Full-width letters and digits fold to ASCII, as the store's name index folds them.
    assert tokenize("ＦＵＬＬ Ｗｉｄｔｈ ２０２３") == ["full", "width", "2023"]
    assert fold_name("ＬＵ  Ｘｕｎ") == "lu xun"


def test_chinese_is_segmented_into_words_not_only_characters() -> None:
    terms = tokenize("鲁迅是中国现代文学的奠基人")
    assert "鲁迅" in terms
    assert "文学" in terms
    assert "现代文学" in terms  # search mode keeps the compound too
    assert "的" not in terms  # stopwords
    assert "是" not in terms
    assert any(len(t) >= 2 for t in terms)


def test_chinese_bigrams_cover_out_of_vocabulary_names() -> None:
    # A made-up name jieba cannot know still yields its character bigrams.
    terms = tokenize("瞿秋白与阎瑞生")
    assert "阎瑞" in terms or "阎瑞生" in terms
    assert "瑞生" in terms or "阎瑞生" in terms


def test_mixed_text() -> None:
    terms = tokenize("Lu Xun（鲁迅）wrote 狂人日记 in 1918")
    assert {"lu", "xun", "鲁迅", "wrote", "狂人日记", "1918"} <= set(terms)


def test_query_terms_weigh_bigrams_less_and_keep_all_stopword_queries() -> None:
    weights = dict(query_terms("鲁迅的小说"))
    assert weights["鲁迅"] == 1.0
    assert weights["小说"] == 1.0
    assert all(w in (1.0, BIGRAM_QUERY_WEIGHT) for w in weights.values())
    assert [t for t, _ in query_terms("The Who")] == ["the", "who"]
    assert query_terms("   ") == []


def test_joined_name() -> None:
    assert joined_name("Lu Xun") == "luxun"
    assert joined_name("Shaoxing") is None
    assert joined_name("鲁 迅") is None


def test_edit_distance_and_deletes() -> None:
    assert edit_distance("shaoxing", "shaoxnig") == 1  # transposition
    assert edit_distance("sartre", "satre") == 1
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("abcdefgh", "zzzzzzzz", cap=2) == 3
    assert set(deletes("abc")) == {"abc", "ab", "ac", "bc"}
    assert fuzzy_eligible("sartre")
    assert not fuzzy_eligible("lu")
    assert not fuzzy_eligible("1918")


def test_accents_are_folded() -> None:
    assert tokenize("Pál Gábor, naïve Ünïcödé") == ["pal", "gabor", "naive", "unicode"]
    assert tokenize("Ωmega") == ["ωmega"]
