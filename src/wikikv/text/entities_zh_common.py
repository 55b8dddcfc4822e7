"""Classes of Chinese words that look like names and are not (issue 8, fifth round): the organs
every body has, names cut off by the segmenter on either side, and common words jieba's
dictionary tags as names. Each test is of a class, never of a listed word; see
docs/entities.md ("Fifth round")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from wikikv.text import entities_zh_reader as reader

# What a body has whoever it is: an office named by a function every society, school or party
# has (an editorial office, a publishing department), a council of its members, its party
# organ. 教育部 (the Ministry) is named by a field, not by such a function, and stands alone.
_ORGAN_HEADS = frozenset(
    """编辑 出版 发行 宣传 组织 总务 庶务 会计 交际 营业 印刷 学生 职员 教职员 会员 理事 校友
    机关""".split()
)
_ORGAN_ENDINGS = ("部", "处", "科", "股", "会", "报", "刊")
# A body's own or the reader's body named by a determiner: 敝会 'our society' (a letter's
# humble self-reference), 本社, 该校, 贵报: whichever body the text is about, never a name.
_DETERMINERS = frozenset("敝本该此贵我其彼某各")
_BARE_ORG = frozenset("会 社 党 部 校 报 刊 馆 局 院 团 军 报社 学会 协会 公司 书局 学校".split())
_COMMON_FREQ = 50  # a dictionary word this frequent is in general use


def generic_organ(word: str) -> bool:
    """An organ every body has: a function or its members and an office's ending (编辑部 of
    whichever journal, 学生会 of whichever school)."""
    return any(word.endswith(e) and word[: -len(e)] in _ORGAN_HEADS for e in _ORGAN_ENDINGS)


def determiner_org(word: str) -> bool:
    """A determiner and a bare institution word: 敝会, 本社, 该校 — 'this/our/that body'."""
    return 2 <= len(word) <= 3 and word[0] in _DETERMINERS and word[1:] in _BARE_ORG


def common_org_word(word: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """A two-character word in general use that only its last character makes an institution
    (陆军 'the army' of any state, 从军 'to enlist'): not one body."""
    tag = known.get(word, "")
    return len(word) == 2 and freq.get(word, 0) >= _COMMON_FREQ and not tag.startswith(("nt", "j"))


def cut_on_left(word: str, text: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """Whether ``word`` (a name typed by its ending) is in most of its occurrences the tail of a
    longer name: its first character and the one before it make a word in general use (同盟 of
    同盟会 leaves 盟会, 外国 of 外国银行 leaves 国银行). A name starts after a boundary or a
    function character, whose pair with its first character is seldom such a word."""
    if word in known:
        return False
    total = cut = 0
    for start, _ in occurrences(word, text):
        total += 1
        before = text[start - 1] if start else ""
        pair = before + word[0]
        if "\u4e00" <= before <= "\u9fff" and freq.get(pair, 0) >= _COMMON_FREQ:
            cut += 1
    return total > 0 and cut * 2 >= total


def cut_on_right(word: str, text: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """Whether a rare three-character ``word`` the tagger calls a person ends, in every
    occurrence, with the first character of a word the dictionary holds together with the next
    character, while its first two characters are no name of their own: a phrase cut inside a
    word (元末明|初: 明初 'early Ming'), not a name followed by a verb (鲁迅说)."""
    if len(word) != 3 or freq.get(word, 0) >= _COMMON_FREQ:
        return False  # (jieba's dictionary holds such cuts as rare names: 元末明 nr)
    if reader.kind_by_suffix(word) == "person":
        return False  # 鲁哀公|出兵: a name with a person's ending is whole
    total = cut = 0
    start = text.find(word)
    while start >= 0:
        total += 1
        end = start + len(word)
        after = text[end : end + 1]
        if "\u4e00" <= after <= "\u9fff" and (word[-1] + after) in known:
            cut += 1
        start = text.find(word, end)
    return total > 0 and cut == total


def cut_word(word: str, text: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """Whether a repeated ``word`` no dictionary holds as a common word is in half of its
    occurrences or more a piece of a longer word: its last character makes a word in general use
    with the next one (曾|游行, 唐人|小说 'Tang fiction'), or the occurrence lies inside a longer
    word the dictionary holds (唯物史观 'historical materialism', 投畀豺虎). A name is followed
    and framed by varied characters, which seldom make such words with it."""
    if freq.get(word, 0) >= _COMMON_FREQ:
        return False
    total = cut = 0
    for start, end in occurrences(word, text):
        total += 1
        after = text[end : end + 1]
        if "\u4e00" <= after <= "\u9fff" and freq.get(word[-1] + after, 0) >= _COMMON_FREQ:
            cut += 1
        elif _inside_longer(text, start, end, known):
            cut += 1
    return total > 0 and cut * 2 >= total


def occurrences(word: str, text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``word``'s occurrences in ``text``, left to right, not overlapping."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        yield start, end
        start = text.find(word, end)


def _inside_longer(text: str, start: int, end: int, known: dict[str, str]) -> bool:
    """Whether ``text[start:end]`` lies inside a word of up to four characters that the
    dictionary holds and that is no name (唯物|史观, 投畀|豺虎)."""
    n = end - start
    for size in range(n + 1, 5):
        for lo in range(max(0, end - size), start + 1):
            piece = text[lo : lo + size]
            if len(piece) == size and piece in known and not known[piece].startswith("nr"):
                return True
    return False


def of_phrase(word: str, freq: dict[str, int]) -> bool:
    """A four-character 'X之Y' whose X is a word in general use: 'the Y of X', a phrase or a figure
    of speech (the palace of art, the tower of ivory), not a name (张之洞 has three)."""
    return len(word) == 4 and word[2] == "之" and freq.get(word[:2], 0) >= _COMMON_FREQ


def reduplicated(word: str, text: str, known: dict[str, str], freq: dict[str, int]) -> bool:
    """A dictionary word in general use of the shape ABB that ``text`` follows with 的 or 地 in
    half of its occurrences or more: a descriptive adjective ('ice-cold', 'golden-bright'),
    whatever name tag jieba gives it (a name of that shape is seldom always followed so)."""
    if not (len(word) == 3 and word[1] == word[2] != word[0] and freq.get(word, 0) >= _COMMON_FREQ):
        return False
    total = described = 0
    for _, end in occurrences(word, text):
        total += 1
        described += text[end : end + 1] in ("的", "地")
    return total > 0 and described * 2 >= total and word in known


# The head of a school's, a hospital's or a library's name right after a place or a person: the
# name is the institution's (宁海中学, 德国医院, 北京图书馆, 广慈医院), not a mention of what it
# is named after. A province, county or city before 立 'established by' and such a head is the
# same ("广东省立第一中学校", "广州市立师范学校"); 国立 after a city is not ("北京国立各校": the
# national schools in Peking).
_INSTITUTION_HEAD = r"(?:中学校?|小学校?|大学校?|学校|学堂|师范|医院|图书馆|学院|学园)"
_INSTITUTION_AFTER = re.compile(_INSTITUTION_HEAD)
_ESTABLISHED_BY = re.compile(r"立(?:第[一二三四五六七八九十\d]{1,3})?" + _INSTITUTION_HEAD)
_ESTABLISHERS = frozenset("省县市")


def institution_prefix(word: str, text: str, end: int) -> bool:
    """Whether ``word``, ending at ``end`` of ``text``, opens the name of a school, a hospital
    or a library there (宁海|中学, 广东省|立第一中学校) rather than naming a place or a person."""
    if _INSTITUTION_AFTER.match(text, end):
        return True
    return word[-1] in _ESTABLISHERS and _ESTABLISHED_BY.match(text, end) is not None
