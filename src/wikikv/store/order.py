"""The order a directory lists its children in: a reader's, and a function of the names alone.

A listing is not kept in the order its children were written: a wiki built at once and the same
wiki built document by document must list the same directory the same way. Sub-directories and
pages are kept apart (sub-directories first, as every listing shows them); each list is in
*natural* order — Unicode compatibility forms folded (full-width ``Ｑ`` is ``q``), case ignored,
punctuation and symbols ignored (``《呐喊》自序`` files under 呐, ``"Heroes"`` under H), digit runs
compared as numbers (``2 …`` before ``10 …``), the name itself breaking ties. Chinese names keep
their code-point order, which is the radical-and-stroke order of a character dictionary, except
that a Chinese numeral is a number too where it can only be one: a run of numeral characters with
a unit in it (``三十三``, ``五十七现在的屠杀者``, ``一千零一夜``), or one that ends the name or stands
before punctuation (``之二``, ``（三）``) — so 热风's 随感录 go 三十三, 三十五, …, 六十六, and
``之二`` comes before ``之三``. A numeral opening a word (``一件小事``, ``三闲集``, ``五四运动``)
stays a character.

Sub-directories that gather what fits nowhere else come last, after the groups a reader looks
under first. These are the compiler's catch-all groups, known by their labels
(:mod:`wikikv.compile.categories`, :func:`wikikv.compile.schema.other_label`; a test holds the
two in step): first the groups of names met in one work or kind of article (``见于《呐喊》``,
``in articles on films``), then those met all over the corpus (``见于多个集子``, ``in articles
on many subjects``), then the rest (``其他作品``, ``other people``, ``other kinds of people``);
at the root, ``sources`` (the documents, not a dimension) is last. Pages are never tiered: a
novel called *Other Voices, Other Rooms* is filed under O.

A directory that outgrew one record (:mod:`wikikv.store.listing`) keeps each page in this order;
later children go to its last page, so only a directory of at most one record's children is in
order as a whole.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from wikikv.store.paths import ROOT, unescape_segment

# Tiers of a sub-directory: 0 an ordinary group, then the catch-alls in the order a reader
# meets them. The labels are the compiler's (see the module docstring).
_NAMED_IN = ("见于《", "in articles on ")
_SPREAD = ("见于多个集子", "in articles on many subjects")
_OTHER = ("其他", "other ")
_SOURCES = "sources"

# Punctuation and symbols (what is neither a letter, a digit nor a space; the underscore too).
_DROPPED = re.compile(r"[^\w\s]|_")
_DIGITS = re.compile(r"(\d+)")
_ZH_NUMERAL = re.compile(r"[〇零一二两三四五六七八九十百千]+")
_ZH_DIGIT = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000}

NameKey = tuple[int, tuple[str | int, ...], str]


@functools.lru_cache(maxsize=1 << 16)
def _natural(name: str) -> tuple[str | int, ...]:
    """Text and number runs alternating, text first: ``"a10b"`` → ``("a", 10, "b")``."""
    name = unescape_segment(name)
    if name.isascii():
        folded = name.casefold()
    else:
        folded = _ZH_NUMERAL.sub(_zh_number, unicodedata.normalize("NFKC", name).casefold())
    text = " ".join(_DROPPED.sub("", folded).split())
    parts: list[str | int] = list(_DIGITS.split(text))
    parts[1::2] = [int(p) for p in parts[1::2]]
    return tuple(parts)


def _zh_number(m: re.Match[str]) -> str:
    """A run of Chinese numerals as Arabic digits where it can only be a number (see the
    module docstring), else as it is."""
    run, after = m.group(), m.string[m.end() : m.end() + 1]
    has_unit = any(c in _ZH_UNIT for c in run)
    if not (has_unit and len(run) > 1) and after.isalnum():
        return run
    if not has_unit:  # 一九二四: digit by digit
        return "".join(str(_ZH_DIGIT[c]) for c in run)
    total = digit = 0
    for c in run:
        if c in _ZH_UNIT:
            total += (digit or 1) * _ZH_UNIT[c]
            digit = 0
        else:
            digit = _ZH_DIGIT[c]
    return str(total + digit)


def tier(parent: str, name: str) -> int:
    """Where a sub-directory ``name`` of ``parent`` stands: 0 first, 3 last."""
    if parent == ROOT and name == _SOURCES:
        return 3
    low = unescape_segment(name).casefold()
    if low.startswith(_SPREAD):
        return 2
    if low.startswith(_NAMED_IN):
        return 1
    return 3 if low.startswith(_OTHER) else 0


def name_key(parent: str, name: str, is_dir: bool) -> NameKey:
    """The sort key of a child ``name`` of directory ``parent``."""
    return (tier(parent, name) if is_dir else 0, _natural(name), name)


def arrange(parent: str, names: list[str], is_dir: bool) -> None:
    """Put the children ``names`` of ``parent`` (all directories or all pages) in order, in
    place. Sorting an already ordered list with one name added costs one pass."""
    names.sort(key=lambda n: name_key(parent, n, is_dir))


def ordered(parent: str, names: Sequence[str], is_dir: bool) -> list[str]:
    """``names`` in listing order, as a new list."""
    out = list(names)
    arrange(parent, out, is_dir)
    return out
