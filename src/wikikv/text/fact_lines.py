"""Which quoted sentences of an entity page tell a reader something on their own.

An entity page quotes the sentences whose subject the entity is. On a page many documents feed
(鲁迅 in his own collected works) three kinds crowd out the ones worth reading:

* a **colophon** — the date and place an article was signed: "一九二七年十二月七日，鲁迅记于上海。",
  "鲁迅一九三一，十二，二八。" It names the entity and says where it wrote one day; it belongs
  among the mentions, not the key facts;
* a sentence that **leans on its context** — an editors' note goes on about its head word with
  该刊 / 该书 / 它: "鲁迅经常为该刊写稿。" says nothing a reader can place without the note;
* a **near repeat** — the editors gloss one journal in several volumes with a word or two
  changed: "鲁迅是主要撰稿者和支持者之一，…" / "鲁迅是它的主要撰稿人和支持者之一，…".

And a mention with nothing in it besides the name ("鲁迅。", "鲁迅先生：", "他说：") is no
mention worth a line. Nothing here imports above :mod:`wikikv.errors`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# A year written out ("一九二七", "一九三○") or in digits, then the rest of a date: month, day,
# "之夜", or the bare numbers of "一九三一，十二，二八".
_NUMERALS = "〇○零一二三四五六七八九十廿卅\\d０-９"
_YEAR = re.compile(rf"(?:一九|[12][0-9])[{_NUMERALS}]{{2}}年?")
_DATE_PART = re.compile(
    rf"[{_NUMERALS}]+(?:年|月|日|号)?|之夜|深夜|夜|晨|午后|上午|下午|灯下|[，,、．.\s\u3000]"
)
# What is left of a colophon without its date and its name: the verb of signing, with where.
_SIGNED = re.compile(
    r"^(?:于[^。；]{0,14}?)?(?:校毕|校讫|译毕|编毕|写毕|校完|谨|附)?"
    r"(?:记|识|书|写|上|作|启|草|题|译|序|毕|订|校)(?:于[^。；]{0,14})?[。．.]?$"
)
_COLOPHON_CHARS = 48

# A thing the sentence points back at without naming it: 该刊 'the said journal', 它 'it'.
# Not 应该 / 活该 / 不该 ('should', 'deserved').
_POINTS_BACK = re.compile(
    r"(?<![应活不])该(?:刊|书|报|社|会|校|团|院|局|馆|店|厂|所|文|剧|诗|集|派|党|组织|杂志|刊物|团体|学会)"
    r"|它|本刊|此刊|此书"
)

_HAN = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[^\W_]+")
# A speech tag and the words of address that carry no content of their own.
_FILLER_ZH = re.compile(r"[说道问叫答又对我他她便着了们的和就是也还先生君氏启上\s\W]")
_FILLER_EN = frozenset(
    "he she they it him her them his said says asked replied wrote writes and then mr mrs".split()
)


def is_colophon(sentence: str, names: Iterable[str]) -> bool:
    """Whether ``sentence`` is an article's signing line: a date, the name, a verb of signing
    (记, 识, 上, 附记, 校毕记…) and where — "一九二七年四月十一日，鲁迅识于广州中山大学。"."""
    text = sentence.strip(" \t\u3000")
    if len(text) > _COLOPHON_CHARS or not _YEAR.search(text):
        return False
    rest = text
    named = False
    for name in sorted((n for n in names if n), key=len, reverse=True):
        if name in rest:
            rest = rest.replace(name, "", 1)
            named = True
            break
    if not named:
        return False
    rest = _DATE_PART.sub("", rest)
    return rest == "" or rest in ("。", ".") or _SIGNED.match(rest) is not None


# An editors' note that only sends the reader to another note: "〔16〕吴稚晖参看本卷第215页注。",
# "李大钊（1889—1927），参看本卷第66页注。"
_SEE_NOTE = re.compile(
    r"(?:参看|参见|参阅|见)(?:本卷|本书|本篇|下篇|上篇|前篇|第)[^。；]{0,40}?注(?:释)?[。．.]?$"
)
_CROSS_REFERENCE_CHARS = 60


def is_cross_reference(sentence: str) -> bool:
    """Whether ``sentence`` is a note sending the reader to another note ("参看本卷第215页注")."""
    text = sentence.strip(" \t\u3000")
    return len(text) <= _CROSS_REFERENCE_CHARS and _SEE_NOTE.search(text) is not None


def points_back(sentence: str) -> bool:
    """Whether ``sentence`` names a thing only by pointing back (该刊, 它, 此书): it reads
    whole only beside what came before it."""
    return _POINTS_BACK.search(sentence) is not None


# Punctuation, quotes and the words of a speech tag: what is left of "闰土又对我说：" without them
# and the name is nothing, so the line says nothing of him.
_SPEECH_FILLER = re.compile(r"[说道问叫答又对我他她便着了们的和就是也还\s\W]")


def _without_names(sentence: str, names: Iterable[str]) -> str:
    """``sentence`` with each of ``names`` (longest first) blanked out."""
    for name in sorted((n for n in names if n), key=len, reverse=True):
        sentence = sentence.replace(name, " ")
    return sentence


def says_something(quote: str, names: list[str]) -> bool:
    """Whether a sentence says something of the entity besides naming it: not a line that
    opens a speech ("...说：", "...said:"), and more than a name with a speech verb."""
    text = quote.strip().rstrip("”’\"'")
    if text.endswith(("：", ":")):
        return False
    rest = _without_names(text, names)
    if _HAN.search(rest):
        return len(_SPEECH_FILLER.sub("", rest)) >= 4
    # two words are enough: not every word of a long sentence
    first = _WORD.search(rest)
    return first is not None and _WORD.search(rest, first.end()) is not None


def says_nothing(sentence: str, names: Iterable[str]) -> bool:
    """Whether ``sentence`` holds nothing but a name, a speech tag or a form of address:
    "鲁迅。", "鲁迅先生：", "他说：", "He said:" (less than :func:`says_something` asks)."""
    rest = _without_names(sentence, names)
    if _HAN.search(rest):
        return len(_FILLER_ZH.sub("", rest)) == 0
    return all(w.casefold() in _FILLER_EN for w in _WORD.findall(rest))


# --------------------------------------------------------------------------- near repeats
_NEAR = 0.7  # share of two quotes' character pairs (word pairs) that makes them one
_NEAR_MIN = 8  # fewer units than this: short lines differ in a word that matters


def shingles(sentence: str) -> frozenset[str]:
    """The pairs of neighbouring units of ``sentence``: Han characters one by one, other words
    whole (case-folded); punctuation is no unit."""
    units: list[str] = []
    # NFKC: "１８６５" and "1865", one year in two widths, are one unit
    for word in _WORD.findall(unicodedata.normalize("NFKC", sentence).casefold()):
        if _HAN.search(word):
            units.extend(word)
        else:
            units.append(word)
    if len(units) < _NEAR_MIN:
        return frozenset()
    return frozenset(a + "\x00" + b for a, b in zip(units, units[1:], strict=False))


class NearRepeats:
    """The quotes kept so far on one page; :meth:`repeats` says whether a new one only
    repeats one of them with a word or two changed."""

    def __init__(self) -> None:
        self._kept: list[frozenset[str]] = []

    def repeats(self, sentence: str) -> bool:
        """Whether ``sentence`` nearly repeats a kept quote; if not, it is kept."""
        mine = shingles(sentence)
        if not mine:
            return False
        size = len(mine)
        for other in self._kept:
            n = len(other)
            if n < size * _NEAR or size < n * _NEAR:
                continue  # too different in length to share enough
            if len(mine & other) >= _NEAR * len(mine | other):
                return True
        self._kept.append(mine)
        return False
