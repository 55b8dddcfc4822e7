"""Reader pass of 2026-11-27 (evening, reader7), Chinese summaries: what says what a work or a
term is when no "X是…" does — a bibliography's entry, a title with its kind after it or its
publisher before it, a note's head word in quotes or under a circled mark, a name given in
quotes, 'X指Y' — each on sentences of the corpus."""

from __future__ import annotations

from wikikv.text import digest as dg
from wikikv.text import entities_zh_pieces as pieces
from wikikv.text.definitions import defining_score, summary_sentences
from wikikv.text.entities_zh import chinese_mentions
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words
from wikikv.text.note_glosses import in_note


def keys(text: str) -> set[str]:
    sents = dg.split_sentences(text, "zh")
    found = chinese_mentions(text, sents, jieba_pos(text), {}, jieba_words(), jieba_freq(), "")
    return {m.key for m in found}


def test_a_bibliography_entry_says_what_the_title_is() -> None:
    # 鲁迅译著书目: the title opens its line, its bracket gives the author and the kind
    poem = "　　《十二个》（苏联ＡA勃洛克作长诗，胡译。"
    assert defining_score(poem, ["十二个"]) == 2
    assert defining_score("《古小说钩沈》三十六卷（辑周至隋散逸小说。", ["古小说钩沈"]) == 2
    assert defining_score("《莽原》（周刊。北京《京报》附送，后停刊。）", ["莽原"]) == 2
    assert defining_score(poem, ["十二个"], person=True) == 0
    # a bracket of the original's title says no kind
    assert defining_score("《俾士麦》（Ｂｉｓｍａｒｃｋ）者，单为了那制作，…", ["俾士麦"]) == 0
    # an editors' note on the title says more and wins
    note = "〔3〕《奔流》文艺月刊，鲁迅、郁达夫编辑，一九二八年六月在上海创刊。"
    assert defining_score(note, ["奔流"]) == 3


def test_a_summary_goes_on_to_the_close_of_the_bracket_it_opens() -> None:
    text = "　　《华盖集》（短评集之二，皆一九二五年作。印行所同上。）\n　　《华盖集续编》（…）\n"
    end = text.index("。") + 1
    assert (
        summary_sentences(text, 2, end, ["华盖集"])
        == "《华盖集》（短评集之二，皆一九二五年作。印行所同上。）"
    )
    far = "《穷人》（俄国ＦA陀思妥夫斯基作小说，韦丛芜译。未名社印行。\n下一行）"
    assert summary_sentences(far, 0, far.index("。") + 1, ["穷人"]).endswith("韦丛芜译。")


def test_a_title_with_its_kind_after_it_or_its_publisher_before_it() -> None:
    essay = "这里是指他的《怎样地建设革命文学》一文。"
    assert defining_score(essay, ["怎样地建设革命文学"]) == 1
    assert defining_score("辛克莱在《拜金艺术》一书中曾说：“一切的艺术是宣传”。", ["拜金艺术"]) == 1
    said = "他在《洪水》第三卷第二十九期（一九二七年四月）发表《在方向转换的途中》，认为…。"
    assert defining_score(said, ["在方向转换的途中"]) == 1
    carried = "〔10〕“学匪”…《国魂》旬刊第九期上，载有姜华的《学匪与学阀》一文，咒骂…。"
    assert defining_score(carried, ["学匪与学阀"]) == 1
    assert defining_score(essay, ["怎样地建设革命文学"], person=True) == 0
    # not 一部分 'a part of', not someone's postscript 'when it was published', not in quotes
    assert defining_score("这是《史记》一部分的内容。", ["史记"]) == 0
    postscript = "本文发表时篇末有作者的《附记》如下：今天到东城去教书。"
    assert defining_score(postscript, ["附记"]) == 0
    assert defining_score("他说：“我读了《红楼梦》一书，很好。", ["红楼梦"]) == 0


def test_a_notes_head_in_quotes_or_under_a_circled_mark_is_glossed() -> None:
    gang = "〔２〕　“公民团”　指袁世凯雇用的流氓打手，他们在一九一三年十月六日自称“公民团”。"
    assert defining_score(gang, ["公民团"]) == 2
    opera = "③《小孤孀上坟》：当时流行的一出绍兴地方戏。"
    text = "唱着《小孤孀上坟》③到酒店去。\n" + opera + "\n"
    assert in_note(text, text.index(opera))
    assert defining_score(opera, ["小孤孀上坟"], mid_note=True) == 3
    # after a full stop the circled mark is the inline mark of the sentence before
    assert defining_score("⑥单是禁止，还不根本的办法。", ["单是禁止"]) == 0


def test_what_a_note_says_a_name_refers_to() -> None:
    pseudonym = "⑤金心异指钱玄同，当时《新青年》的编辑委员之一。"
    assert defining_score(pseudonym, ["金心异"], mid_note=True) >= 2
    assert defining_score("先帝爷，指刘备。", ["先帝爷"], mid_note=True) == 3
    assert defining_score("先帝爷，指刘备。", ["先帝爷"]) == 0  # outside a note
    assert defining_score("老钵指着高老夫子，向毛家的大儿子说。", ["老钵"], mid_note=True) == 0


def test_a_name_given_in_quotes_or_as_another_name() -> None:
    called = "林纾曾写过一篇笔记体小说《荆生》，其中有一个人物叫“金心异”，即影射钱玄同。"
    assert defining_score(called, ["金心异"]) == 2
    assert defining_score("“非革命”即是“反革命”，可就险了。", ["反革命"]) == 0
    war = (
        "〔5〕南北战争也叫“美国内战”（1861—1865），美国北部资产阶级对南部种植园奴隶主所进行的战争。"
    )
    assert defining_score(war, ["南北战争"]) == 4
    assert defining_score("舜爷也称赞道。", ["舜爷"]) == 0


def test_a_note_on_a_longer_term_opening_with_the_title_is_not_the_titles() -> None:
    note = "〔2〕《呐喊》印行第二版　一九三○年一月《呐喊》第十三次印刷时，作者将《不周山》篇抽出。"
    assert defining_score(note, ["呐喊"]) < 3


def test_a_title_ending_in_shuo_does_not_make_its_middle_speak() -> None:
    # 《摩罗诗力说》 'On the power of Mara poetry': jieba cuts 摩|罗诗力|说, and 说 after 罗诗力
    # read as his speech kept /人物/罗诗力 (坟: 题记, 杂亿)
    text = "文章要长，愈长，稿费便愈多。所以如《摩罗诗力说》那样，简直是生凑。"
    assert "罗诗力" not in keys(text)


def test_a_body_named_by_a_word_in_general_use_after_a_noun_is_a_tail() -> None:
    # 研究社 (/机构) of 广州国际社会问题研究社 and 小说研究社, 评论社 of 现代评论社 (beside the
    # journal 《现代评论》), 纪念会 of 复校纪念会: each named once, glued to what makes the longer name
    translated = (
        "名《国际劳动问题》，日本浅利顺次郎著。张秀哲的译本于一九二七年由广州国际社会问题研究社"
        "出版，署张月澄译。\n"
    )
    assert "研究社" not in keys(translated)
    quoted = (
        "\u3000\u3000〔１０〕\u3000“水平线”\u3000这是从当时现代评论社出版的《现代丛书》广告中引用来"
        "的。\n在《现代评论》第一卷第九期（一九二五年"
    )
    assert "评论社" not in keys(quoted)
    # after a word of another kind the body is itself: 'such as the Creation Society'
    known, freq = jieba_words(), jieba_freq()
    for text in ("乱用谁也不懂的生语如创造社一流的文字", "前年创造社和太阳社向我进攻"):
        tokens, at = {}, 0
        for word, flag in jieba_pos(text):
            tokens[at] = (word, flag)
            at += len(word)
        assert not pieces.generic_body_tail("创造社", text, tokens, known, freq), text
