"""Chinese named entities: jieba part-of-speech tags (nr person, ns place, nt organization, nz
other proper noun) and 《书名》 titles, with the filters that keep jieba's frequent false
positives out of the wiki."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Sequence

from wikikv.text import entities_zh_common as common_words
from wikikv.text import entities_zh_completed as completed
from wikikv.text import entities_zh_pieces as pieces
from wikikv.text import entities_zh_reader as reader
from wikikv.text.digest import Sentence
from wikikv.text.entities import Mention, fold, has_han, sentence_of

_ZH_TAGS = {
    "nr": "person",
    "nrt": "person",
    "nrfg": "person",
    "ns": "place",
    "nt": "org",
    "nz": "topic",
}
# Words jieba commonly mis-tags as proper nouns in modern prose.
_ZH_STOP = frozenset(
    """东西 明白 宣言 文明 言语 英雄 太阳 爱国 令人 卢布 诺夫 左翼 高兴 时光 外国 中外 南北 东方
    西方 华人 国人 本国 全国 各国 世界 天下 人类 社会 国家 政府 文学 文艺 文章 白话 古人 今人
    新月 青年 老爷 先生 太太 小姐 夫人 同志 阿Q 金钱 和平 自由 光明 黑暗 北方 南方 大众 天才
    圣人 孔孟 马上 东洋 西洋 大家 上帝 神仙 如来 观音 罗汉 武士 诗人 学者 名人 中华 民国 从此
    于是 万一 一向 余地 石头 公理 正人君子 正人 君子 杂志 日报 周刊 报章 作家 文人 批评家""".split()
)
# Common single-character surnames (百家姓 head) and compound ones: a short word jieba tags nr
# (dictionary or HMM) must start with one, which removes most of its false persons ("喝咖啡",
# "祖传") while keeping 杨荫榆 or 胡也频; transliterations carry nrt and are kept.
_SURNAMES = frozenset(
    "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜戚谢邹喻柏水窦章云苏潘"
    "葛奚范彭郎鲁韦昌马苗凤花方俞任袁柳鲍史唐费廉岑薛雷贺倪汤滕殷罗毕郝邬安常乐于时傅皮卞齐"
    "康伍余元卜顾孟平黄和穆萧尹姚邵湛汪祁毛禹狄米贝明臧计伏成戴谈宋茅庞熊纪舒屈项祝董梁杜阮"
    "蓝闵席季麻强贾路娄危江童颜郭梅盛林刁钟徐邱骆高夏蔡田樊胡凌霍虞万支柯管卢莫经房裘缪干解"
    "应宗丁宣邓郁单杭洪包诸左石崔吉钮龚程嵇邢滑裴陆荣翁荀羊惠甄曲封芮储靳汲邴糜松井段富巫"
    "乌焦巴弓牧隗山谷车侯宓蓬全郗班仰秋仲伊宫宁仇栾暴甘厉戎祖武符刘景詹束龙叶幸司韶郜黎蓟薄"
    "印宿白怀蒲邰从鄂索咸籍赖卓蔺屠蒙池乔阴胥能苍双闻莘党翟谭贡劳逄姬申扶堵冉宰郦雍桑桂濮牛"
    "寿通边扈燕冀郏浦尚农温别庄晏柴瞿阎充慕连茹习宦艾鱼容向古易慎戈廖庾终暨居衡步都耿满弘匡"
    "国文寇广禄阙东欧殳沃利蔚越夔隆师巩厍聂晁勾敖融冷訾辛阚那简饶空曾沙乜养鞠须丰巢关蒯相查"
    "荆红游竺权逯盖益桓公"
)
_COMPOUND_SURNAMES = (
    "欧阳",
    "司马",
    "诸葛",
    "上官",
    "东方",
    "皇甫",
    "尉迟",
    "公孙",
    "令狐",
    "慕容",
    "长孙",
    "宇文",
    "司徒",
    "夏侯",
    "公输",
)
# A commentator's name is followed by what he wrote on a classic: 注 note, 疏 sub-commentary, 笺 gloss.
_SCHOLIUM = frozenset("注疏笺")
_ZH_HONORIFIC_SUFFIX = ("先生", "女士", "小姐", "君", "氏")
_BOOK = re.compile(r"《([^《》\n]{1,30})》")
# After a title in book quotes: it is a periodical ("登在《语丝》上", "《莽原》第三期", "《现代评论》
# 周刊"), which the wiki files under organizations with the societies that publish them.
_PERIODICAL = re.compile(
    r"(?:上[发登载，。的]|第[一二三四五六七八九十百\d]+(?:卷第[一二三四五六七八九十百\d]+)?[期号]|周刊|月刊|半月刊|旬刊|季刊|日报|杂志|副刊|社"
    r"|总?编辑|记者|主笔|撰稿|英文部"
    r"|[（(](?:周刊|月刊|半月刊|旬刊|季刊|日刊|期刊)"  # 《诗刊》（周刊）
    r"|[一二三四五六七八九十百\d]+期|的(?:编者|编辑|投稿|撰稿|记者|主编)|(?:创|停|终)刊|出到\S{1,3}期)"
)
# Before a title: a periodical is where a text was published on a date, or what someone wrote
# for ("一九二九年八月五日《语丝》", "载《莽原》", "发表于《新青年》", "投稿《奔流》").
_PERIODICAL_BEFORE = re.compile(
    r"(?:[\d〇一二三四五六七八九十]日|刊于|刊载于?|登载于?|登在|^载|[，。、（(]载|发表于|发表在|投稿于?"
    r"|寄稿于?|创办|期刊)$"
)
# Agent and abstract endings: 文学者, 经验家, 国民性 are kinds of people or things, not names.
_COMMON_ENDINGS = reader.COMMON_ENDINGS


def looks_like_name(word: str) -> bool:
    """A 2-3 character Han word starting with a surname (a guess for words jieba does not know)."""
    return (
        2 <= len(word) <= 3
        and all("\u3400" <= c <= "\u9fff" for c in word)
        and (word[0] in _SURNAMES or word.startswith(_COMPOUND_SURNAMES))
    )


def chinese_mentions(
    text: str,
    sentences: Sequence[Sentence],
    words: Sequence[tuple[str, str]],
    titles: dict[str, str],
    known: dict[str, str] | None = None,
    freq: dict[str, int] | None = None,
    title: str = "",
) -> list[Mention]:
    """Mentions from jieba (word, flag) pairs covering ``text`` in order, plus 《书名》 titles,
    plus the names central to the document (:mod:`wikikv.text.entities_zh_reader`).
    ``titles`` maps folded corpus titles → their key, so a piece's title links to its page;
    with ``known`` (the tagger's dictionary; its presence turns the rules on) a short nr word
    must start with a surname, and a word the dictionary knows as a common word (``freq``:
    its general frequency) must be used as a name here. A person named by the document's own
    ``title`` (范爱农 in the memoir 范爱农) is central to it: the text is about them."""
    central: dict[str, str] = {}
    places_at: set[int] = set()  # where a word jieba tags as a place starts
    owners_end: set[int] = set()  # where a person's or an institution's name ends
    tokens_at: dict[int, tuple[str, str]] = {}  # the tagger's token starting at an offset
    if known is not None and freq is not None:
        tags_at: dict[int, str] = {}
        at = 0
        for word, flag in words:
            tags_at[at] = flag
            tokens_at[at] = (word, flag)
            if flag.startswith("ns") and len(word) >= 2:
                places_at.add(at)  # (a one-character ns is mostly a noun: 蓬 of 蓬草)
            at += len(word)
            if len(word) >= 2 and (
                flag.startswith(("nt", "nr", "j"))  # not a place: 上海中华书局 is where it is
                or reader.kind_by_suffix(word, weak=False) == "org"
            ):
                owners_end.add(at)
        central = reader.central_names(text, known, freq, _SURNAMES, tags_at)
        for name in [n for n in central if n in _COMPOUND_SURNAMES or _two_words(n)]:
            del central[name]  # 公输 of 公输般; 相尚于 'esteem each other for'
        for name in [n for n in central if _not_a_name(n, central[n], text, known, freq)]:
            del central[name]  # 敝会, 盟会 of 同盟会, 艺术之宫: see entities_zh_common
        for name in [
            n for n, k in central.items() if k == "person" and _cut_name(n, text, known, freq)
        ]:
            del central[name]  # 步声 of 脚步声 ('footsteps'): the tail of a word, no name
        for name in [
            n
            for n, k in central.items()
            if k == "person" and pieces.prefixed_common_noun(n, known, freq)
        ]:
            del central[name]  # 小市民 'petty bourgeois': a kind of person, no name
        for name in [n for n, k in central.items() if k == "person" and _translit_tail(n, text)]:
            del central[name]  # 卜生 of 伊卜生 and 易卜生: the tail of foreign names
        for name in [
            n
            for n, k in central.items()
            if k == "person" and _piece_or_phrase(n, text, known, tokens_at)
        ]:
            del central[name]  # 萧伯 of 萧伯纳, 明崇祯 of 明崇祯十七年
        for name in [
            n
            for n, k in central.items()
            if k == "person"
            and n not in known
            and pieces.joined_to_things(n, text, known)
            and not reader.name_signs(n, text)
        ]:
            del central[name]  # 严威 'sternness', said again and again with 冷眼 'cold looks'
        for name in [n for n, k in central.items() if k == "place" and len(n) >= 3]:
            if reader.life_sign(name, text) or reader.titled(name, text):
                central[name] = "person"  # 德富苏峰（1863—1957）: ends like a peak
        for name in [n for n, k in central.items() if k == "org"]:
            if _owned(name, text, owners_end):
                del central[name]  # 北京大学评议会: the council of a university, no body of its own
    short: dict[str, str | None] = {}  # a name → the place or body it is the short name of
    for name in [n for n, k in central.items() if k == "person"]:
        long = short[name] = _short_name_of(name, text, known or {})
        if long is not None:
            central[name] = reader.kind_by_suffix(long) or "place"  # 咸亨 of 咸亨酒店
    out = _central_mentions(text, sentences, central, short)
    taken = [(m.start, m.end) for m in out]
    pos = 0
    hint = 0
    verdict: dict[str, bool] = {}
    owned: dict[str, bool] = {}
    evidence: dict[str, str] = {}
    common: dict[str, bool] = {}
    signs: dict[str, bool] = {}
    joined = _join_transliterations(_join_guessed_pieces(words, known), known)
    for word, flag in _join_suffixed(joined):
        start = pos
        pos += len(word)
        kind = _ZH_TAGS.get(flag)
        plain_noun = (
            kind is None
            and flag == "n"
            and len(word) == 3
            and word[0] in _SURNAMES
            and freq is not None
            and 0 < freq.get(word, 0) < 100
        )
        if plain_noun:
            kind = "person"  # 周作人: a name jieba's dictionary files as a plain noun (weak
            # where this document shows no evidence of a name)
        if kind is None or len(word) < 2 or word in _ZH_STOP or not has_han(word):
            continue
        if word in _COMPOUND_SURNAMES:
            continue  # 司马, 欧阳 alone: a surname, not a person
        if word not in (known or {}) and (
            word[0] in reader.BAD_FIRST | {"时"} or (len(word) == 2 and word[0] in _PREPOSITIONS)
        ):
            continue  # 时鲁国, 于章 (请愿于章先生): a word glued to a function character
        if text[start - 1 : start] == "《" and text[pos : pos + 1] == "》":
            continue  # 《何典》: a whole book title, which the book route reads
        if kind in ("place", "org") and word[-1] in "里内外" and len(word) == 2:
            continue  # 庙里 'in the temple': a noun and a locative
        if kind == "person" and word.endswith(_ZH_HONORIFIC_SUFFIX) and len(word) <= 3:
            continue
        if (
            flag == "nr"
            and known is not None
            and len(word) <= 3
            and not (word[0] in _SURNAMES or word.startswith(_COMPOUND_SURNAMES))
            and not (len(word) == 3 and all(ch in _TRANSLIT for ch in word))
        ):
            continue  # jieba's nr on a short word without a surname: 喝咖啡, 祖传 (not 达尔文)
        if word in reader.KINSHIP or any(ch in reader.NOT_IN_NAME for ch in word):
            continue
        if (
            flag == "nt"
            and known is not None
            and word in known
            and len(word) >= 3
            and reader.kind_by_suffix(word) is None
        ):
            continue  # 爱国心, 社会科学, 外国文学: jieba's nt on words no institution ends like
        if kind == "person" and len(word) >= 3 and word[-1] in _SCHOLIUM:
            continue  # 郭璞注 'Guo Pu's note': a name glued to the note it wrote
        if kind == "person" and known is not None and word not in known and _unlikely_name(word):
            continue
        if kind == "person" and known is not None and _two_words(word):
            continue  # 梁与籍 'Liang and Ji', 王之弟 'Wang's brother', 那可真, 相尚于
        if (
            kind == "person"
            and known is not None
            and freq is not None
            and (
                common_words.reduplicated(word, text, known, freq)
                or common_words.cut_on_right(word, text, known, freq)
            )
        ):
            continue  # an ABB adjective ('ice-cold'), 元末明|初
        if kind == "person" and known is not None and _common_person_word(word, known):
            continue
        if (
            kind == "person"
            and known is not None
            and freq is not None
            and (
                _piece_or_phrase(word, text, known, tokens_at)
                or pieces.person_cut_on_left(word, text, known, freq)
            )
        ):
            continue  # 萧伯|讷, 高尔斯|华绥, 明崇祯|十七年, 似通非通, 爱|国之士
        if kind != "person" and known is not None and pieces.verb_and_object(word, known):
            continue  # 解散国会 'dissolve parliament': an act, though 国会 ends it
        if known is not None and word not in known and _translit_fragment(text, start, pos):
            continue  # 尔斯基 of 卢那察尔斯基: a piece of a longer transliteration
        if (
            kind != "person"
            and known is not None
            and known.get(word) == "nrt"  # the dictionary's transliterated name
            and pieces.glued_head(word, text, tokens_at, known, _TRANSLIT)
        ):
            continue  # 普罗列塔|利亚: a transliteration's head, a 'place' by its 塔
        if known is not None and freq is not None:
            ok = common.get(word)
            if ok is None:
                ok = common[word] = _common_noun(word, kind, text, known, freq)
            if ok:
                continue  # 都城, 教育局, 象牙塔, 满口: a kind, a term or a phrase, no name
        if known is not None and freq is not None:
            ok = verdict.get(word)
            if ok is None:
                ok = verdict[word] = _used_as_name(word, flag, kind, text, freq)
            if not ok:
                continue
        if _overlaps(taken, start, pos):
            continue
        if (
            kind in ("place", "person")
            and known is not None
            and common_words.institution_prefix(word, text, pos)
        ):
            continue  # 宁海|中学, 广东省|立第一中学校: a school's name, not the place it is in
        suffix = reader.kind_by_suffix(word)
        if suffix is not None and not (kind == "person" and reader.weak_place(word)):
            kind = suffix
        weak = False
        by_ending = reader.kind_by_suffix(word, False)
        if by_ending == "person" and len(word) == 2:
            by_ending = None  # 师爷, 屠伯: a role or kinship word, not a name with an ending
        if by_ending is not None and known is not None and reader.fragment_of_longer(word, text):
            continue  # 文学社 of 革命文学社, 医学专门学校 of 金泽医学专门学校
        if (
            by_ending == "org"
            and known is not None
            and freq is not None
            and pieces.generic_body_tail(word, text, tokens_at, known, freq)
        ):
            continue  # 研究社 of 革命文艺研究社, 评论社 of 现代评论社
        if (
            kind in ("org", "place")
            and known is not None
            and freq is not None
            and _not_a_name(word, kind, text, known, freq)
        ):
            continue  # 编辑部, 敝会, 陆军, 国银行 of 外国银行, 深山中
        if known is not None and freq is not None and by_ending is None:
            ev = evidence.get(word)
            if ev is None:
                ev = evidence[word] = _name_evidence(
                    word, kind, text, known, freq, plain_noun, places_at
                )
            if ev == "fragment":
                continue
            if ev == "place":
                kind = "place"  # 爱尔兰, 阿拉伯: tagged as persons, used as places
            weak = ev == ""
            if weak and reader.always_quoted(word, text):
                continue  # ‘龙虎斗’, a dish: a term the text quotes, with no sign of a name
            if (
                weak
                and kind == "person"
                and freq.get(word, 0) >= _IN_GENERAL_USE
                and reader.listed_with_nouns(word, text, known)
            ):
                continue  # 深渊，荆棘，狭谷: a common word among things, with no sign of a name
        if kind == "place" and known is not None and len(word) >= 3:
            sign = signs.get(word)
            if sign is None:
                sign = signs[word] = reader.life_sign(word, text) or reader.titled(word, text)
            if sign:
                kind, weak = "person", False  # 莎士比亚（…，１５６４—１６１６）, 作家法朗士: ns
        if kind == "org" and known is not None:
            if word not in owned:
                owned[word] = _owned(word, text, owners_end)
            weak = weak or owned[word]  # 评议会, 全国代表大会: an organ a text gives an owner

        if kind == "topic" and known is not None:
            continue  # jieba's nz: 佛法, 深信, 曙光, 搜神 — a name only with an event's ending
        if (
            kind == "person"
            and len(word) >= 2  # 唐人 'the people of Tang'
            and word.endswith("人")
            and not word.endswith("夫人")
            and not plain_noun  # 周作人 is a name; 江阴人 is where someone is from
        ):
            continue  # 江阴人: where someone is from
        hint = sentence_of(sentences, start, hint)
        key = fold(_bare(word) if kind == "person" else word)
        if kind == "person" and known is not None:
            if word not in short:
                short[word] = _short_name_of(word, text, known)
            long = short[word]
            if long is not None:
                key, kind = fold(long), reader.kind_by_suffix(long) or "place"
        own = kind == "person" and bool(title) and key == fold(title)
        out.append(Mention(key, word, kind, hint, start, pos, weak=weak, central=own))
    # A book the document names again and again is central to it (何典 in the preface to 何典).
    book_counts = Counter(m.group(1).strip() for m in _BOOK.finditer(text))
    periodicals = _periodicals(text)
    hint = 0
    for m in _BOOK.finditer(text):
        name = m.group(1).strip()
        if not name:
            continue
        key = titles.get(fold(name), fold(name))
        hint = sentence_of(sentences, m.start(1), hint)
        kind = "org" if name in periodicals else "work"
        out.append(
            Mention(
                key,
                name,
                kind,
                hint,
                m.start(1),
                m.start(1) + len(name),
                key in titles.values(),
                central=book_counts[name] >= reader.MIN_CENTRAL,
            )
        )
    out.sort(key=lambda m: (m.start, m.end))
    if known is not None:
        out = completed.complete_names(out, text, tokens_at, known)  # 陶孟|和, 邢子|才
    return _declared_same(text, sentences, out, title)


# "长妈妈即阿长": the text gives a person a second name. Each occurrence of it in the document is
# a mention of that person (so the page carries the name as an alias), not a name of its own.
_SAME_AS = re.compile(r"即([\u4e00-\u9fff]{2,3})(?=[，,。；;、）)]|$)")


def _declared_same(
    text: str, sentences: Sequence[Sentence], out: list[Mention], title: str
) -> list[Mention]:
    by_end = {m.end: m for m in out if m.kind == "person" and not m.weak}
    same: dict[str, Mention] = {}
    for g in _SAME_AS.finditer(text):
        first, other = by_end.get(g.start()), g.group(1)
        if first is None or fold(other) == first.key or other in same:
            continue
        if not (other[0] in "阿小老" or looks_like_name(other)):
            continue  # 罗汉豆即蚕豆: a gloss of a thing, not a second name
        same[other] = first
    if not same:
        return out
    rx = re.compile("|".join(re.escape(n) for n in sorted(same, key=len, reverse=True)))
    # not on the title line ("阿长与山海经" names the work, and says nothing of her)
    body = sentences[1].start if len(sentences) > 1 and sentences[0].text.strip() == title else 0
    spans = [(g.start(), g.end(), g.group()) for g in rx.finditer(text, body)]
    gone = {fold(n) for n in same}

    def replaced(m: Mention) -> bool:
        # the name itself, or the name glued to one character before it (连阿长 'even 阿长')
        return m.key in gone or any(
            s <= m.end and m.start < e and m.end == e and m.end - m.start == e - s + 1
            for s, e, _ in spans
        )

    kept = [m for m in out if not replaced(m)]
    hint = 0
    for s, e, name in spans:
        if text[s - 1 : s] == "《" or any(m.start < e and s < m.end for m in kept):
            continue
        hint = sentence_of(sentences, s, hint)
        first = same[name]
        kept.append(Mention(first.key, name, "person", hint, s, e, False, False))
    kept.sort(key=lambda m: (m.start, m.end))
    return kept


def _periodicals(text: str) -> set[str]:
    """The titles in 《》 that ``text`` shows to be periodicals at least once (see
    :data:`_PERIODICAL`, :data:`_PERIODICAL_BEFORE`): every mention of such a title in the
    document is the periodical, filed with the organizations ("报刊社团"), not with the works."""
    out: set[str] = set()
    for m in _BOOK.finditer(text):
        name = m.group(1).strip()
        if name in out:
            continue
        before = text[max(0, m.start() - 6) : m.start()]
        if _PERIODICAL.match(text, m.end()) or _PERIODICAL_BEFORE.search(before):
            out.add(name)
        elif _PERIODICAL_NEAR_AFTER.match(text, m.end()) or _PERIODICAL_NEAR_BEFORE.search(
            text, max(0, m.start() - 10), m.start()
        ):
            out.add(name)  # 《萌芽》文艺月刊, 第四期起改名《汉声》
    return out


# A periodical word a few characters away from the title, within its clause: after it ("《萌芽》
# 文艺月刊，鲁迅、冯雪峰编辑", or alone after a comma: "《湘君》，季刊，…"), or before it when the
# title renames it ("第四期起改名《汉声》", "的特刊，所以名曰《汉声》") or follows it directly
# ("该报副刊《循环世界》") — not an article in an issue ("第五十四号）上有一篇《…》") nor the next
# item of a list ("旬刊十二期，及《艺苑朝华》").
_PERIODICAL_WORD = (
    r"(?:半月刊|月刊|周刊|旬刊|季刊|日刊|副刊|特刊|画报|期刊|刊物|杂志|日报|晚报|周报)"
)
_PERIODICAL_NEAR_AFTER = re.compile(
    r"[^。；，,《》\n在登载发表于上]{0,4}"
    + _PERIODICAL_WORD
    # the kind alone as the clause after a comma ("《二月》，中篇小说，" is no periodical)
    + r"|[，,][^。；，,《》\n在登载发表于上]{0,4}"
    + _PERIODICAL_WORD
    + r"(?=[，,。；;]|$)"
)
_PERIODICAL_NEAR_BEFORE = re.compile(
    r"(?:(?<!》)(?:第[一二三四五六七八九十百\d]+[期号]|半月刊|月刊|周刊|旬刊|季刊|副刊|特刊)"
    r"[^。；《》\n上篇文的]{0,4}(?:改名|名曰|名为|叫做|称为|易名)"
    r"|(?:半月刊|月刊|周刊|旬刊|季刊|副刊|特刊|杂志|画报))$"  # 月刊杂志《眉语》
)


# Characters of Chinese transliterations of foreign names (阿尔志跋绥夫, 爱罗先珂, 白璧德).
_TRANSLIT = frozenset(
    "阿尔志跋绥夫爱罗先珂白璧德斯基托泰耶娃诺维奇列宁达文林肯克勒伊卢梭梅里兰亚历山巴莎士比歌"
    "雪莱拜伦易卜生娜拉契诃普希金果戈屠格涅马思但丁雨左萧伯纳哈代海席采叔本华黑康柏图苏底荷"
    "奥利安瓦西米洛科森顿逊姆布迪蒂妮丽莉菲弗沃蒲汗凯赛培勃洛茨妥也夫霍特厄罗曼尼采察陀"
)
_NAME_TAGS = ("nr", "nrt", "nrfg", "ns", "nz")
# Endings of Russian and other foreign names that jieba cuts off a name it does not know whole
# (蒲力汗/诺夫, 卢那/卡尔斯基): the name before them is a truncated one, never a page.
_TRANSLIT_TAILS = frozenset(
    "诺夫 斯基 维奇 耶夫 洛夫 科夫 托夫 罗夫 诺娃 斯卡娅 卡尔斯基 尔斯基 夫斯基 斯泰 耶娃".split()
)


# A noun ending like an institution (教育部, 语丝社, 三味书屋) names one unless it is one of
# the generic words below; the tokens before an institution ending that jieba cuts off (语丝/社,
# 左翼/作家/联盟) are joined to it.
_SUFFIX_TOKENS = frozenset(
    "社 联盟 同盟 大学 学堂 学校 学院 书屋 书局 书店 党 部 会 学会 协会 政府 银行 公司".split()
)
_JOINABLE = ("n", "nz", "nr", "ns", "nt", "j", "vn", "an", "nrt", "nrfg")
_GENERIC = frozenset(
    """出版社 委员会 研究会 研究院 图书馆 博物馆 大会 报社 该社 本社 学会 协会 公司 银行 学校 大学
    中学 小学 学院 书局 书店 政府 政党 文学社 国会 议会 社会 教会 工会 商会 机会 宴会 会社 全会
    总会 分会 年会 集会 聚会 开会 庙会 都会 省会 学部 外部 内部 全部 局部 部会 本部 干部 政治部
    大部 一部 这部 那部 内阁 书坊 结社 诗社 报馆 学校 私塾 学堂 半月刊 月刊 周刊 旬刊 季刊 副刊
    纪念会 追悼会 联合会 旧社会 评议会 讲演会 展览会 欢迎会 同乡会 校务会 董事会 新文学
    小学校 中学校 大学校 女学校 男学校 高等学校 专门学校 师范学校""".split()
)


def _join_suffixed(words: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for word, flag in words:
        if word in _SUFFIX_TOKENS and flag[:1] in ("n", "j") and out:
            parts = [word]
            k = len(out)
            while (
                k > 0
                and len(parts) < 3
                and out[k - 1][1].startswith(_JOINABLE)
                and has_han(out[k - 1][0])
                and sum(len(p) for p in parts) + len(out[k - 1][0]) <= 8
            ):
                k -= 1
                parts.insert(0, out[k][0])
            joined = "".join(parts)
            if len(parts) > 1 and joined not in _GENERIC and len(parts[0]) >= 2:
                del out[k:]
                out.append((joined, "nt"))
                continue
        if (
            (flag[:1] == "n" or (flag in ("l", "j") and word.endswith("社")))  # 未名社: l
            and len(word) >= 3
            and word not in _GENERIC
            and reader.kind_by_suffix(word, weak=False) in ("org", "place")
        ):
            flag = "nt" if reader.kind_by_suffix(word, weak=False) == "org" else "ns"
        out.append((word, flag))
    return out


def _common_person_word(word: str, known: dict[str, str]) -> bool:
    """A dictionary word tagged as a person that no name looks like: four characters or more
    (封建礼教, 广大群众), or an agent or abstract ending (文学者, 国民性)."""
    if all(ch in _TRANSLIT for ch in word) or word.startswith(_COMPOUND_SURNAMES):
        return False
    if len(word) >= 3 and word.endswith(_COMMON_ENDINGS):
        return True
    return word in known and len(word) >= 4


# Characters that join two words, and pieces that follow a name: a three-character unknown word
# with one in its middle is two words the tagger took for a name.
_JOINING = frozenset("与及或的")  # (not 和: 刘和珍)
_WORDS_AFTER_A_NAME = frozenset("之弟 之兄 之子 之女 之妻 之母 之父 可真 可是 也是".split())


def _unlikely_name(word: str) -> bool:
    """An unknown word the tagger calls a person but no Chinese name looks like: glued to a
    function character (但娜拉, 和帝), or four characters and more that are neither a
    transliteration nor a compound surname's name (广大群众, 沙皇统治)."""
    if (word[0] in reader.BAD_FIRST and word[0] not in _SURNAMES) or word[-1] in reader.BAD_LAST:
        return True
    return (
        len(word) >= 4
        and not all(ch in _TRANSLIT for ch in word)
        and not word.startswith(_COMPOUND_SURNAMES)
        and not word.endswith(tuple(_TRANSLIT_TAILS))  # 蒲力汗诺夫
    )


def _two_words(word: str) -> bool:
    """A three-character word with a joining character in its middle, or a piece that follows a
    name: two words the tagger (or its dictionary: 王之弟 and 那可真 are entries) took for one name;
    a two-character one that starts with a locative (中曾 of "书中曾说") or is a surname glued to
    a verb of saying (胡说 'nonsense', 'Hu said')."""
    if len(word) == 2:
        return word[0] in "中里内" or word[1] in "说道问答曰"
    return len(word) == 3 and (
        word[1] in _JOINING or word[1:] in _WORDS_AFTER_A_NAME or word[2] == "于"
    )


def _piece_or_phrase(
    word: str, text: str, known: dict[str, str], tokens_at: dict[int, tuple[str, str]]
) -> bool:
    """A person's name that is the head of a longer name, a dynasty and a reign used as a date,
    a dynasty glued to a surname, or 'A not A' (:mod:`wikikv.text.entities_zh_pieces`)."""
    return (
        pieces.a_not_a(word)
        or pieces.dynasty_before_name(word, text, tokens_at, known)
        or pieces.glued_head(word, text, tokens_at, known, _TRANSLIT)
        or pieces.reign_era(word, text, known)
    )


def _translit_fragment(text: str, start: int, end: int) -> bool:
    word = text[start:end]
    if not all(ch in _TRANSLIT for ch in word):
        return False
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    return before in _TRANSLIT and before != "" or (after in _TRANSLIT and after != "")


# Transliteration characters that are also words before a name: 但 'but', 也 'also', 爱 'love'.
_BEFORE_A_NAME = frozenset("但也爱先")


def _translit_tail(word: str, text: str) -> bool:
    """Whether a repeated ``word`` spelled in transliteration characters follows another such
    character in half of its occurrences or more: the tail of longer foreign names (伊|卜生 and
    易|卜生 make 卜生 three times, 泰|戈尔 and 戈尔基 make 戈尔), not a name of its own."""
    if not all(ch in _TRANSLIT for ch in word):
        return False
    total = tail = 0
    for start, _ in common_words.occurrences(word, text):
        total += 1
        before = text[start - 1] if start else ""
        if before in _TRANSLIT and before not in _BEFORE_A_NAME:
            tail += 1
    return total > 0 and tail * 2 >= total


def _whole_name(token: tuple[str, str], known: dict[str, str] | None) -> bool:
    """A name the dictionary knows whole (达尔文, 易卜生)."""
    return known is not None and token[1] in ("nr", "nrt", "nrfg", "ns") and token[0] in known


def _join_runs(
    words: Sequence[tuple[str, str]], run_end: Callable[[int], int | None]
) -> list[tuple[str, str]]:
    """``words`` with each run ``words[i:run_end(i)]`` joined into one foreign name tagged
    ``nrt``; where ``run_end`` gives None the word stays as it is."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(words)
    while i < n:
        j = run_end(i)
        if j is None:
            out.append(words[i])
            i += 1
            continue
        out.append(("".join(w for w, _ in words[i:j]), "nrt"))
        i = j
    return out


def _join_transliterations(
    words: Sequence[tuple[str, str]], known: dict[str, str] | None = None
) -> list[tuple[str, str]]:
    """Adjacent pieces of one transliterated name, which jieba cuts (阿尔志跋/绥夫, 爱罗先/珂,
    白璧/德), joined into one word tagged ``nrt`` — a truncated name is never a page."""
    n = len(words)

    def run_end(i: int) -> int | None:
        if (
            i + 1 < n
            and words[i][1] in ("nr", "nrt", "nrfg")
            and len(words[i][0]) >= 2
            and has_han(words[i][0])
            and (
                words[i + 1][0] in _TRANSLIT_TAILS
                or (words[i + 1][0] == "夫" and len(words[i][0]) >= 3)
            )
        ):
            return i + 2  # 蒲力汗/诺夫, 安德烈/夫
        if (
            i + 1 < n
            and len(words[i][0]) == 1
            and words[i][1] in ("v", "c", "d", "p")
            and _whole_name(words[i + 1], known)
        ):
            # 爱|莎士比亚 'love Shakespeare', 但|娜拉 'but Nora': a verb or a conjunction before a
            # name the dictionary has (not 米 of 刈米达夫, a measure word to the tagger)
            return None
        j = i
        while j < n and words[j][0] and all(ch in _TRANSLIT for ch in words[j][0]):
            if j > i and _whole_name(words[j - 1], known) and _whole_name(words[j], known):
                break  # 达尔文 then 易卜生: two names side by side, not one
            j += 1
        if j - i >= 2 and any(words[k][1].startswith(_NAME_TAGS) for k in range(i, j)):
            if sum(len(w) for w, _ in words[i:j]) >= 3:
                return j
        return None

    return _join_runs(words, run_end)


# Characters of foreign names the tagger leaves out of a transliteration it cuts (密茨凯维|支).
_TRANSLIT_TAIL_CHARS = frozenset("支茨斯基夫")
_CUT_TAIL = frozenset("支茨")  # never a word after a name (支持, 支配 are tokens of their own)


def _join_guessed_pieces(
    words: Sequence[tuple[str, str]], known: dict[str, str] | None
) -> list[tuple[str, str]]:
    """Adjacent transliteration pieces no dictionary holds (the tagger's guesses), and one
    trailing character of transliterations, are one foreign name: 密茨|凯维|支 → 密茨凯维支
    (issue 8, fifth round; runs before :func:`_join_transliterations`)."""
    if known is None:
        return list(words)
    n = len(words)

    def run_end(i: int) -> int | None:
        j = i
        while (
            j < n
            and (words[j][1] == "nrt" or (j == i and words[j][1] == "nr"))
            and words[j][0] not in known
            and len(words[j][0]) >= 2
            and all("\u4e00" <= ch <= "\u9fff" for ch in words[j][0])
        ):
            j += 1
        # 显克微|支: one guessed piece and the transliteration's last character
        single = j - i == 1 and i + 1 < n and words[i + 1][0] in _CUT_TAIL
        multi = j - i >= 2 and all(t == "nrt" for _, t in words[i:j])  # not 殷夫(nr)|五人
        if not (multi or single):
            return None
        if j < n and len(words[j][0]) == 1 and words[j][0] in _TRANSLIT_TAIL_CHARS:
            j += 1
        return j

    return _join_runs(words, run_end)


def _used_as_name(word: str, flag: str, kind: str, text: str, freq: dict[str, int]) -> bool:
    """A word jieba tags as a name but its dictionary knows as a word in general use (麻木 nr,
    哥哥 ns, 普通 nz) is never one where this text uses it as an adjective or a verb ("很麻木",
    "陶醉了")."""
    if freq.get(word, 0) < 50 or reader.kind_by_suffix(word, weak=False) is not None:
        return True
    if reader.used_as_common_word(word, text):
        return False
    # whether the text uses it as a name at all is :func:`_name_evidence`'s question, asked
    # of the whole corpus: one document with evidence makes the page, the others link to it
    return flag == "nt" or kind != "topic"


_PLACE_WELL_KNOWN = 10_000
_IN_GENERAL_USE = 50  # a dictionary word this frequent is a word, whatever its tag
_PREPOSITIONS = frozenset("于为以将对向从把被给")


def _whereabouts(word: str, text: str, places_at: set[int]) -> bool:
    """Whether ``text`` puts ``word`` somewhere: "鲁迅在北京", "胡适到上海" — a word jieba tags as
    a place right after 在/到/往/赴/回 (what a person does, and a common word does not)."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if text[end : end + 1] in ("在", "到", "往", "赴", "回") and end + 1 in places_at:
            return True
        start = text.find(word, end)
    return False


def _name_evidence(
    word: str,
    kind: str,
    text: str,
    known: dict[str, str],
    freq: dict[str, int],
    needs: bool = False,
    places_at: set[int] | None = None,
) -> str:
    """What ``text`` shows of a jieba-tagged name: "fragment" (a piece of a longer name), "name"
    (evidence it is used as one, or none needed), "place" (tagged as a person, used as a place)
    or "" (no evidence: a weak mention). A person's name needs evidence when it has two
    characters, reads as a compound (古体诗, 赵钱孙) or is a plain noun to the dictionary
    (``needs``: 周作人); a place's
    when the dictionary knows it or it has two characters — 北京 meets 在/到 somewhere, 之列 never."""
    if reader.fragment_of_longer(word, text):
        return "fragment"  # 亨利 of 亨利·福特
    if word not in known and reader.in_book_title(word, text):
        return "fragment"  # 陶庵梦 of 《陶庵梦忆》 (林黛玉 of 《林黛玉日记》 is a name)
    if kind == "person" and reader.in_book_title(word, text, whole=True):
        # a title ending in 说 'On …' (《摩罗诗力说》) does not make its middle speak
        if not reader.name_signs(word, _TITLE_ON.sub("\u3000》", text)):
            return "fragment"  # 罗诗力: only ever a piece of 《摩罗诗力说》 here
    if kind == "person":
        if known.get(word, "").startswith("nr") and reader.foreign_place(word, text):
            return "place"  # 爱尔兰人, 高加索山, 爱尔兰剧作家: a country the dictionary tags nr
        somewhere = _whereabouts(word, text, places_at or set())
        if _dictionary_noun(word, known, freq) and not (somewhere or reader.name_signs(word, text)):
            # 马鞭, 罗汉豆: a word the dictionary knows that neither speaks, nor is spoken to,
            # nor has a title or a kin, nor goes to a place here is a noun, however much it
            # does in the story
            if len(word) >= 3 and reader.place_evidence(word, text):
                return "place"  # 宣武门: a gate the dictionary tags as a person
            return ""
        if somewhere or reader.person_evidence(word, text):
            return "name"
        if len(word) >= 3 and not needs and reader.place_evidence(word, text):
            return "place"  # 爱尔兰 (a two-character word after 在 is any noun: 在富豪)
        needs = needs or len(word) == 2 or reader.compound_word(word, known, freq, _SURNAMES)
        return "" if needs else "name"
    if kind == "place":
        if len(word) == 2 and all(ch in _GENERIC_PLACE for ch in word):
            return "fragment"  # 城市 'city', 乡村 'village': a common noun, never one place
        if freq.get(word, 0) >= _PLACE_WELL_KNOWN and known.get(word) == "ns":
            return "name"  # 湖北, 上海: places everyone knows, whatever this text does
        if (word in known or len(word) == 2) and not reader.place_evidence(word, text):
            return ""
    return "name"


_TITLE_ON = re.compile(r"[说论道](?=》)")  # the 说 of 《摩罗诗力说》: 'On …', a title's kind
_ORDINAL_BEFORE = re.compile(r"第[一二三四五六七八九十百\d]+[次届]$")
# Characters that each name a kind of settlement: two of them make a common noun (城市, 乡村).
_GENERIC_PLACE = frozenset("城市乡村镇庄都县省州郡邑")
# A determiner or a verb of motion before a realm or a settlement makes a phrase, not a name:
# 诸国, 各国, 古国, 全屯, 满城 'the whole town'; 上城 'go up to town', 回京 'return to the capital'.
_NOT_A_PLACE_HEAD = frozenset("诸各列古外本敌某该此邻全满上下回进出入赴离往")
_REALM = _GENERIC_PLACE | frozenset("国京屯邦")
_LOCATIVE = frozenset("前中后边旁口里内外上下")
# Kinds of land and water: two of them make a common noun (山水, 江山, 山川), never one place.
_TERRAIN = frozenset("山水江河湖海川林田野岭峰谷泉溪")


# Endings of a local office: every town has its 教育局 and 警察厅, so a dictionary noun that ends
# so names a kind of office, not one body (教育部, the Ministry, stands alone: 部 is no such ending).
_LOCAL_OFFICE = ("局", "厅", "处", "所", "科")


def _common_noun(
    word: str, kind: str, text: str, known: dict[str, str], freq: dict[str, int]
) -> bool:
    """A word jieba tags as a name that is a kind, a term or a phrase in ``text``: a common noun
    made of settlement characters whatever its ending (都城 'capital city', 县城); a dictionary
    noun that names a kind of local office (教育局); a word a note explains as a term or a
    figure of speech (都城　指宋国的国都, 象牙塔 …用以比喻); a role (一个书记, 账房先生);
    a phrase used as a predicate (我是仇猫的)."""
    if kind == "place" and len(word) == 2 and all(ch in _GENERIC_PLACE for ch in word):
        return True
    if kind == "place" and len(word) == 2 and word[0] in _NOT_A_PLACE_HEAD and word[1] in _REALM:
        return True  # 诸国 'the states', 古国 'an old country', 上城 'go to town', 回京
    if kind == "place" and word[-1] in _LOCATIVE and known.get(word[:-1]) == "n":
        return True  # 庙前 'before the temple', 大门口 'at the gate': a spot by a thing
    if known.get(word) == "n" and len(word) <= 3 and word.endswith(_LOCAL_OFFICE):
        return True
    if reader.glossed_term(word, text):
        return True
    if kind == "person" and (
        reader.role_word(word, text, known, freq) or reader.noted_as_kind(word, text)
    ):
        return True
    return reader.used_as_predicate(word, text)


def _not_a_name(
    word: str, kind: str, text: str, known: dict[str, str], freq: dict[str, int]
) -> bool:
    """An institution or a place of a class that names none (entities_zh_common): an organ
    every body has, a determiner and a bare institution word, a common word with an
    institution's ending, a name cut on its left, an 'X之Y' phrase, a noun and a locative, a
    determiner and a settlement (全屯)."""
    if common_words.of_phrase(word, freq):
        return True  # 'the palace of art'
    if kind == "org" and (
        common_words.generic_organ(word)
        or common_words.determiner_org(word)
        or common_words.common_org_word(word, known, freq)
    ):
        return True
    if kind == "place" and len(word) >= 3 and word[-1] == "中" and word[:-1] in known:
        return True  # 'in the deep mountains': a noun and a locative
    if kind == "place" and len(word) == 2 and word[0] in _NOT_A_PLACE_HEAD and word[1] in _REALM:
        return True  # 全屯 'the whole village', which a story may say again and again
    if kind == "place" and len(word) == 2 and all(ch in _TERRAIN for ch in word):
        return True  # 山水 'landscape', 江山, 山川: kinds of land, though jieba tags some ns
    by_ending = kind in ("org", "place") and reader.kind_by_suffix(word) is not None
    return by_ending and common_words.cut_on_left(word, text, known, freq)


def _owned(word: str, text: str, owners_end: set[int]) -> bool:
    """Whether ``text`` gives the institution ``word`` an owner in a third of its occurrences or
    more: a name or an institution right before it, or 的 ("北京大学评议会", "国民党第二次全国代表
    大会", "女师大的学生会"). A council, a congress or an editorial office of something is a
    generic organ, not one body a reader looks up; 教育部 and 语丝社 stand alone."""
    total = owned = 0
    start = text.find(word)
    while start >= 0:
        total += 1
        ordinal = _ORDINAL_BEFORE.search(text, max(0, start - 6), start)
        at = ordinal.start() if ordinal else start  # 国民党第一次全国代表大会
        if at in owners_end or text[at - 1 : at] in ("的", "之"):
            owned += 1
        start = text.find(word, start + len(word))
    return total > 0 and owned * 3 >= total


def _dictionary_noun(word: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """A word jieba's dictionary holds whose person tag is a guess the text has to confirm
    (:func:`reader.name_signs`): two characters (马鞭, 笨牛), four or more (打落水狗), or three
    that start with a common word (罗汉+豆, 毛瑟+枪) — not a surname and a given name (汪精卫,
    曹雪芹, whose first two characters are no word), nor a transliteration (尼采 nrt)."""
    tag = known.get(word)
    if tag is None or all(ch in _TRANSLIT for ch in word):
        return False
    if tag == "nrt" and 3 * sum(ch in _TRANSLIT for ch in word) >= 2 * len(word):
        return False  # 威尔斯, 哈姆雷特: spelled in the characters of transliterations
    # (jieba's nrt on 崇拜 'worship', 豪杰 'heroes', 中庸 is a guess like any other)
    return tag == "nrt" or len(word) != 3 or reader.common_head(word, known, freq)


def _bare(name: str) -> str:
    """A person's name without an honorific (向培良君 → 向培良, 西滢先生 → 西滢)."""
    for suffix in _ZH_HONORIFIC_SUFFIX:
        if name.endswith(suffix) and len(name) - len(suffix) >= 2:
            return name[: -len(suffix)]
    return name


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    i = bisect.bisect_right(taken, (start, 1 << 62))
    if i and taken[i - 1][1] > start:
        return True
    return i < len(taken) and taken[i][0] < end


def _cut_name(word: str, text: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """A person-shaped word no dictionary holds whose first character makes a word in general
    use with the one before it in half of its occurrences (脚|步声, 'footsteps'): the tail of a
    longer word (:func:`common_words.cut_on_left`); or a piece of a longer word in half of them
    (曾|游行, 唯物|史观: :func:`common_words.cut_word`). A name with a person's ending is whole
    unless it is a verb and the head of a word (讲|公道话: :func:`pieces.verb_and_word_head`)."""
    if reader.kind_by_suffix(word) is not None:
        return pieces.verb_and_word_head(word, text, known, freq)  # 讲|公道话
    if word.startswith(("阿", "小", "老")):
        return False
    return common_words.cut_on_left(word, text, known, freq) or common_words.cut_word(
        word, text, known, freq
    )


def _short_name_of(word: str, text: str, known: dict[str, str]) -> str | None:
    """The tavern, inn or guild hall a person-shaped ``word`` names in ``text``: the text also
    writes it with the place's ending ("一家是咸亨酒店" … "咸亨也关上门了"), no dictionary holds
    it as a word (段祺瑞 of 段祺瑞政府 is the man) and the text shows no sign of a person's name
    (a man may give his name to a house: 中山 of 中山大学 is 中山先生)."""
    if word in known or reader.kind_by_suffix(word) is not None:
        return None
    long = reader.suffixed_form(word, text)
    if long is None or reader.name_signs(word, text):
        return None
    return long


def _central_mentions(
    text: str,
    sentences: Sequence[Sentence],
    central: dict[str, str],
    short: dict[str, str | None] | None = None,
) -> list[Mention]:
    """Every occurrence of the central names, longest name first where they overlap. A name
    with an honorific (鲁迅先生, 刘和珍君) is keyed by the bare name, a short name by the place
    it names (``short``: 咸亨 → 咸亨酒店)."""
    if not central:
        return []
    rx = re.compile("|".join(re.escape(n) for n in sorted(central, key=len, reverse=True)))
    out: list[Mention] = []
    hint = 0
    for m in rx.finditer(text):
        surface = m.group()
        if text[m.start() - 1 : m.start()] == "《" and text[m.end() : m.end() + 1] == "》":
            continue  # 《阿Ｑ正传》 is the book, not its hero
        base = (short or {}).get(surface) or _bare(surface)
        hint = sentence_of(sentences, m.start(), hint)
        out.append(
            Mention(fold(base), surface, central[surface], hint, m.start(), m.end(), False, True)
        )
    return out
