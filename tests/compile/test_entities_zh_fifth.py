"""Issue 8, Chinese compile side (fifth round): classes of words that look like names and are not
— organs every body has, a determiner and an institution word, names the segmenter cut on either
side, 'X之Y' phrases, ABB adjectives, a noun and a locative — each on a small text written here,
with a name of the same shape beside it that stays."""

from __future__ import annotations

from wikikv.text import digest as dg
from wikikv.text import entities_zh_common as common_words
from wikikv.text import entities_zh_reader as reader
from wikikv.text.entities_zh import (
    _common_noun,
    _join_guessed_pieces,
    _not_a_name,
    chinese_mentions,
)
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words


def names(text: str) -> dict[str, str]:
    """Surface → type of the mentions of ``text`` that are not weak (weak ones make no page)."""
    sents = dg.split_sentences(text, "zh")
    found = chinese_mentions(text, sents, jieba_pos(text), {}, jieba_words(), jieba_freq(), "")
    return {m.surface: m.kind for m in found if not m.weak}


def test_an_organ_every_body_has_is_no_institution() -> None:
    text = (
        "我写信给发行部，发行部回信说书已售完。后来发行部又来信，说要再版。"
        "教育部下了命令，教育部的部员都去了。"
    )
    found = names(text)
    assert "发行部" not in found
    assert found.get("教育部") == "org"  # named by a field, not by a function every body has
    assert common_words.generic_organ("职员会")
    assert not common_words.generic_organ("光复会")


def test_a_determiner_and_an_institution_word_is_no_name() -> None:
    text = (
        "贵会同人，深知此事之难。贵会诸君又来信了。我们回信给贵会，说明原委。"
        "贵会的宗旨，我们是赞成的。"
    )
    assert "贵会" not in names(text)
    assert common_words.determiner_org("本社")
    assert common_words.determiner_org("该校")
    assert not common_words.determiner_org("新月社")


def test_a_name_cut_on_its_left_is_no_name() -> None:
    # 外国书店 and 中国书店 leave 国书店 (three times, varied neighbours) to the reader
    text = (
        "我常到外国书店去买书。外国书店的书很贵，中国书店的书便宜。"
        "北新书局也卖书，北新书局在上海。我托北新书局寄书。"
    )
    found = names(text)
    assert "国书店" not in found
    assert "北新书局" in found


def test_an_of_phrase_is_no_place() -> None:
    text = "文人说最好是搬入科学之宫，科学之宫里很安静。他们都住在科学之宫，不再出来。"
    assert "科学之宫" not in names(text)
    assert not common_words.of_phrase("张之洞", jieba_freq())


def test_a_phrase_cut_inside_a_word_is_no_person() -> None:
    # jieba reads 宋末元初 as 宋末元 (a person) + 初
    known, freq = jieba_words(), jieba_freq()
    assert common_words.cut_on_right(
        "汉末明", "《某书》，汉末明初某人作。", known, freq
    )  # 明初 'early Ming'
    assert not common_words.cut_on_right("鲁迅说", "鲁迅说：“是的。”", known, freq)
    assert not common_words.cut_on_right("周作人", "周作人，周作人的信。", known, freq)
    assert not common_words.cut_on_right("楚怀公", "要求楚怀公出兵，答楚怀公所问。", known, freq)


def test_an_abb_adjective_is_no_person() -> None:
    text = "他一摸，金灿灿的，也没有脉。背上金灿灿的还有许多汗。"
    assert "金灿灿" not in names(text)
    assert not common_words.reduplicated(
        "殷素素", "殷素素说：“走罢。”", jieba_words(), jieba_freq()
    )


def test_a_transliteration_cut_before_its_last_character_is_joined() -> None:
    known = jieba_words()
    tokens = jieba_pos("波兰诗人显克微支（Ｈ．Ｓｉｅｎｋｉｅｗｉｃｚ）")
    assert "显克微" in [w for w, _ in tokens]  # the tagger's cut
    joined = [w for w, _ in _join_guessed_pieces(tokens, known)]
    assert "显克微支" in joined
    assert "显克微" not in joined
    pieces = [("诗人", "n"), ("甲茨", "nrt"), ("凯乙", "nrt"), ("支", "v")]  # two guessed pieces
    assert ("甲茨凯乙支", "nrt") in _join_guessed_pieces(pieces, known)
    listed = jieba_pos("冯铿、殷夫五人遭逮捕")  # a Chinese name and a guessed 'five people'
    assert [w for w, _ in _join_guessed_pieces(listed, known)] == [w for w, _ in listed]


def test_a_noun_and_a_locative_is_no_place() -> None:
    known, freq = jieba_words(), jieba_freq()
    assert common_words.cut_on_left("国书店", "到外国书店去", known, freq)
    text = "他们逃入高山中，高山中没有人家。"
    assert _not_a_name("高山中", "place", text, known, freq)  # 高山 is the dictionary's ns
    assert not _not_a_name("关中", "place", "他到关中去了。", known, freq)


def test_a_determiner_before_a_settlement_is_no_place() -> None:
    known, freq = jieba_words(), jieba_freq()
    assert _common_noun("满镇", "place", "这时满镇都议论着。", known, freq)
    assert not _common_noun("鲁镇", "place", "这时鲁镇都议论着。", known, freq)


def test_yu_ending_a_conjunction_is_no_preposition() -> None:
    assert not reader.used_as_place("南洋", "他走了，由于南洋，一向如此。")
    assert reader.used_as_place("南洋", "他住在南洋，一向如此。")


def test_a_common_word_with_an_institution_s_ending_is_no_body() -> None:
    known, freq = jieba_words(), jieba_freq()
    assert common_words.common_org_word("从军", known, freq)
    assert not common_words.common_org_word("教育部", known, freq)


def test_a_title_word_before_a_compound_noun_is_no_evidence() -> None:
    # 作家保姆者 'a nanny to writers': the title word qualifies a compound, not a name
    assert not reader.person_evidence("保姆", "她是作家保姆者，又做饭。")
    assert reader.person_evidence("拜伦", "诗人拜伦死在希腊。")
