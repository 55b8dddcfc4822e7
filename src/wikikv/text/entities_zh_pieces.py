"""Chinese words the tagger calls names that are pieces of something longer or phrases of another
shape (reader pass of 2026-11-27, morning): the head of a longer name (萧伯|纳, 高尔斯|华绥), a
dynasty glued to a reign's era (明崇祯|十七年), 'A not A' (似通非通), a verb and its object
filed by the object's ending (解散国会 'dissolve parliament'). Each test is of a shape, never
of a listed word; see docs/entities.md."""

from __future__ import annotations

import re

from wikikv.text import entities_zh_common as common_words
from wikikv.text import entities_zh_reader as reader

_NAME_TAGS = ("nr", "nrt", "nrfg")
# What may follow a name inside one token and leave the same person: 伏羲|氏, 刘伶|传.
_SAME_PERSON_AFTER = ("氏", "传", "君", "先生", "女士")


def glued_head(
    word: str,
    text: str,
    tokens_at: dict[int, tuple[str, str]],
    known: dict[str, str],
    translit: frozenset[str],
) -> bool:
    """Whether ``word`` is, in half of its occurrences or more, the head of a longer name: a word
    the dictionary does not hold inside a person's name it holds (萧伯 of 萧伯纳; not 董卓 of
    the entry 董卓欲, 'Dong Zhuo wanted'), before one character the tagger
    leaves no word of its own (萧伯|讷: jieba's z), or, spelled mostly in the characters of
    transliterations (``translit``), before a name the tagger guessed (高尔斯|华绥). A name in
    a list of names without commas (管叔蔡叔, 韩愈苏轼) is followed by a name the dictionary
    holds or by a Chinese one; a foreign word before two transliteration characters the
    dictionary files as a place is cut from a longer word (普罗列塔|利亚). ``tokens_at``: the tagger's (token, tag) by where it starts."""
    foreign = 3 * sum(ch in translit for ch in word) >= 2 * len(word)  # 高尔斯: 高 is no such
    total = glued = 0
    for start, end in common_words.occurrences(word, text):
        total += 1
        same = tokens_at.get(start)
        if same is not None and len(same[0]) > len(word) and same[0].startswith(word):
            extra = same[0][len(word) :]
            whole = known.get(same[0], "").startswith(_NAME_TAGS)
            glued += whole and word not in known and not extra.endswith(_SAME_PERSON_AFTER)
            continue
        nxt = tokens_at.get(end)
        if nxt is None or not ("\u4e00" <= nxt[0][:1] <= "\u9fff"):
            continue
        if len(nxt[0]) == 1 and nxt[1] == "z":
            glued += 1
        elif foreign and nxt[1] in _NAME_TAGS and nxt[0] not in known:
            glued += 1
        elif foreign and nxt[1] == "ns" and len(nxt[0]) == 2 and set(nxt[0]) <= translit:
            glued += 1  # 普罗列塔|利亚 'proletaria': a 'place' of transliteration characters
    return total > 0 and glued * 2 >= total


_DYNASTIES = frozenset("汉晋隋唐宋元明清")
# What follows a reign's name: a year of it ("十七年", "元年"), its beginning or end, "时".
_OF_A_REIGN = re.compile(r"[元正一二三四五六七八九十廿百]{1,4}年|初|末|时|间|年间")


def reign_era(word: str, text: str, known: dict[str, str]) -> bool:
    """Whether ``word`` is a dynasty and a reign the dictionary holds (明|崇祯, 清|光绪) that
    ``text`` follows with a year, 初, 末 or 时 in half of its occurrences or more: a date
    ("明崇祯十七年"), not the emperor (唐太宗 'Taizong of Tang' is said of a man)."""
    if len(word) < 3 or word[0] not in _DYNASTIES or word[1:] not in known:
        return False
    total = dated = 0
    for _, end in common_words.occurrences(word, text):
        total += 1
        dated += _OF_A_REIGN.match(text, end) is not None
    return total > 0 and dated * 2 >= total


def dynasty_before_name(
    word: str, text: str, tokens_at: dict[int, tuple[str, str]], known: dict[str, str]
) -> bool:
    """Whether ``word`` is a dynasty and a surname the tagger took for one name (宋庄 of "宋庄季裕
    著", 'Zhuang Jiyu of the Song'): two characters the dictionary does not hold, the first a
    dynasty's, followed by a name the tagger guessed (季裕) in half of its occurrences or more.
    The name a reader knows is the surname and what follows, never the dynasty's piece."""
    if len(word) != 2 or word[0] not in _DYNASTIES or word in known:
        return False
    total = glued = 0
    for _, end in common_words.occurrences(word, text):
        total += 1
        nxt = tokens_at.get(end)
        glued += nxt is not None and nxt[1] in _NAME_TAGS and nxt[0] not in known
    return total > 0 and glued * 2 >= total


def verb_and_word_head(word: str, text: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """Whether ``word`` is a verb the dictionary holds and one character that, in every
    occurrence, makes a word in general use with the next (讲|公道话 'speak up for fairness':
    公 ends names like 鲁哀公, but here it is the head of 公道). Names whose head is a verb
    (爱姑, 招儿, 通伯) are followed by varied characters."""
    if len(word) < 2 or not known.get(word[:-1], "").startswith("v"):
        return False
    total = cut = 0
    for _, end in common_words.occurrences(word, text):
        total += 1
        after = text[end : end + 1]
        cut += "\u4e00" <= after <= "\u9fff" and freq.get(word[-1] + after, 0) >= _COMMON_FREQ
    return total > 0 and cut == total


# 小/老 before a common noun for people in general use: a kind of person or a form of
# address, no one's name (小市民 'petty bourgeois', 老大人 'old sir'); 小栓, 老拱 put it before a
# single character, and 小尼姑 'the little nun' of 阿Q before a word the tagger files as a name.
_PERSON_NOUN_FREQ = 1000


def prefixed_common_noun(word: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """Whether ``word`` is 小 or 老 before a common noun (tagged n) in general use."""
    rest = word[1:]
    return (
        len(word) == 3
        and word[0] in "小老"
        and known.get(rest) == "n"
        and freq.get(rest, 0) >= _PERSON_NOUN_FREQ
    )


def a_not_a(word: str) -> bool:
    """'A not A' (似通非通 'half literate', 不三不四 is four): a phrase, whatever its tag."""
    return len(word) == 3 and word[0] == word[2] and word[1] in "非不没未"


def verb_and_object(word: str, known: dict[str, str]) -> bool:
    """Whether ``word`` is a verb the dictionary holds followed by a noun it holds that names an
    institution (解散|国会 'dissolve parliament'): an act, though its ending names a body. (An
    event may be named so: 独立|战争 'the war of independence'.)"""
    if len(word) < 4:
        return False
    rest = word[2:]
    return (
        known.get(word[:2]) == "v"
        and known.get(rest, "").startswith("n")
        and reader.kind_by_suffix(rest) == "org"
    )


_COMMON_FREQ = 50  # a dictionary word this frequent is in general use


def person_cut_on_left(word: str, text: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """Whether a rare ``word`` the tagger calls a person is, in half of its occurrences or
    more, the tail of a longer word: its first character and the one before make a word in
    general use (爱|国之士 'patriots': 爱国) while the two characters before it make none (英国|
    王尔德 is Wilde after 'England': 国王 'king' is no cut there)."""
    if freq.get(word, 0) >= _COMMON_FREQ:
        return False
    total = cut = 0
    for start, _ in common_words.occurrences(word, text):
        total += 1
        before = text[start - 1] if start else ""
        if not ("\u4e00" <= before <= "\u9fff") or freq.get(before + word[0], 0) < _COMMON_FREQ:
            continue
        if start >= 2 and text[start - 2 : start] in known:
            continue
        cut += 1
    return total > 0 and cut * 2 >= total


_AND = frozenset("和与及同")
# Titles after 和 say a name ends in 和 (陶孟|和教授: jieba cuts 陶孟和 so), not 'and a thing'.
_TITLES = frozenset("教授 先生 女士 博士 君子 大臣 将军 皇帝 总长 校长".split())


def joined_to_things(word: str, text: str, known: dict[str, str]) -> bool:
    """Whether ``text`` joins ``word``, in half of its occurrences or more, by 'and' to a common
    noun or an adjective of the dictionary ("在严威和冷眼中" 'amid sternness and cold looks'):
    a thing or a quality among things. People are joined to people (阿Q和小D) or to pronouns."""
    total = joined = 0
    for _, end in common_words.occurrences(word, text):
        total += 1
        if text[end : end + 1] not in _AND:
            continue
        noun = text[end + 1 : end + 3]
        if known.get(noun, "") in ("n", "a", "an", "ng") and noun not in _TITLES:
            joined += 1
    return total > 0 and joined * 2 >= total


# A word in general use that heads a body's name (研究|社 'research society', 评论|社): this often
# used, it is what the body does, and the name it ends is longer.
_GENERAL_USE = 1000
_RARE = 50
_NOUN_TAGS = ("n", "vn", "nz", "nt")


def generic_body_tail(
    word: str,
    text: str,
    tokens_at: dict[int, tuple[str, str]],
    known: dict[str, str],
    freq: dict[str, int],
) -> bool:
    """Whether ``word``, a three-character body ending in 社/会/馆…, is the tail of a longer name
    in ``text``: a word in general use (研究, 评论) and the ending, named once, right after a
    noun (革命文艺|研究社, 广州国际社会问题|研究社, 小说|研究社) or after what makes with its head a
    title the text gives in 《》 (现代|评论社 beside 《现代评论》: the journal's society). Not after
    a word of another kind ("如创造社", "前年创造社"). The dictionary holds such a name seldom if at
    all (研究社: 6)."""
    if len(word) != 3 or freq.get(word, 0) >= _RARE:
        return False
    if reader.kind_by_suffix(word, weak=False) != "org":
        return False
    head = word[:2]
    tag = known.get(head, "")
    if not tag.startswith(("n", "v")) or tag.startswith(("nr", "ns", "nt", "nz")):
        return False
    if freq.get(head, 0) < _GENERAL_USE:
        return False
    spots = list(common_words.occurrences(word, text))
    if len(spots) != 1:
        return False
    start = spots[0][0]
    for size in range(1, 5):
        token = tokens_at.get(start - size)
        if token is not None and len(token[0]) == size:
            return token[1] in _NOUN_TAGS or f"《{token[0]}{head}》" in text
    return False
