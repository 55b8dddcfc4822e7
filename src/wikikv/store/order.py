"""The order a directory lists its children in: a reader's, and a function of the names alone.

A listing is not kept in the order its children were written: a wiki built at once and the same
wiki built document by document must list the same directory the same way. Sub-directories and
pages are kept apart (sub-directories first, as every listing shows them). Both fold Unicode
compatibility forms (full-width ``Ｑ`` is ``q``) and ignore case; the name itself breaks ties.
Chinese keeps its code-point order, the radical-and-stroke order of a character dictionary.

Pages are titles, filed as an index files them, in *natural* order: digit runs compare as numbers
(``Chapter 2`` before ``Chapter 10``), punctuation and symbols do not count (``《呐喊》自序`` under
呐, ``"Heroes"`` under H), and a Chinese numeral is a number where it can only be one — a run of
numeral characters with a unit in it (``三十三``, ``五十七现在的屠杀者``, ``一千零一夜``), or one that
ends the title or a bracket (``之二``, ``（三）``): 热风's 随感录 go 三十三, 三十五, …, 六十六, and
``之二`` comes before ``之三``. A numeral opening a word (``一件小事``, ``五四运动``) stays a
character.

Sub-directories are the compiler's labels, in the order of their characters. A last-resort name
range (``A–K``, ``二–后``, ``“–《朝``, ``201–2``) holds the names between its ends in the order
ranges are cut in, and is listed in that order: by its low end, then its high end (numbers read as
numbers, or a skipped ``“``, would put ``201–2`` or ``“–《朝`` out of place), then its repeat
(the third range of names beginning "The" is ``The 3``: after ``The 2``, before ``The–Tho``).
Those that gather what fits nowhere else come last, after the groups a reader looks under first.
They are the compiler's catch-all groups, known by their labels (:mod:`wikikv.compile.categories`,
:func:`wikikv.compile.schema.other_label`; a test holds the two in step): first the groups of
names met in one work or kind of article (``见于《呐喊》``, ``in articles on films``), then those
met all over the corpus (``见于多个集子``, ``in articles on many subjects``), then the rest
(``其他作品``, ``other people``, ``other kinds of people``); at the root, ``sources`` (the
documents, not a dimension) is last. Pages are never tiered: a novel called *Other Voices, Other
Rooms* is filed under O.

A directory that outgrew one record (:mod:`wikikv.store.listing`) keeps each page in this order;
later children go to its last page, so only a directory of at most one record's children is in
order as a whole.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Collection, Sequence

from wikikv.store.paths import ROOT, unescape_segment

# Tiers of a sub-directory: 0 an ordinary group, then the catch-alls in the order a reader
# meets them. The labels are the compiler's (see the module docstring).
_NAMED_IN = ("见于《", "in articles on ")
_SPREAD = ("见于多个集子", "in articles on many subjects")
_OTHER = ("其他", "other ")
_SOURCES = "sources"

_DIGITS = re.compile(r"(\d+)")
# What a title's order skips: neither a letter, a digit nor a space (the underscore neither).
_PUNCTUATION = re.compile(r"[^\w\s]|_")
_ZH_NUMERAL = re.compile(r"[〇零一二两三四五六七八九十百千]+")
_ZH_DIGIT = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000}
_CLOSING = ("Pe", "Pf")  # a closing bracket or quotation mark
_RANGE_DASH = "–"  # between the ends of a name range (wikikv.compile.schema.plan_ranges)
_NUMBERED = re.compile(r"(.*\S) (\d+)")

NaturalKey = tuple[str | int, ...]
NameKey = tuple[int, NaturalKey, str]


def _folded(name: str) -> str:
    name = unescape_segment(name)
    return (name if name.isascii() else unicodedata.normalize("NFKC", name)).casefold()


def _runs(text: str) -> NaturalKey:
    """Text and number runs alternating, text first: ``"a10b"`` → ``("a", 10, "b")``."""
    parts: list[str | int] = list(_DIGITS.split(text))
    parts[1::2] = [int(p) for p in parts[1::2]]
    return tuple(parts)


@functools.lru_cache(maxsize=1 << 16)
def _label_key(label: str, repeat: int) -> NaturalKey:
    """(low end, high end, repeat): ``"films a–k"`` → ``("films a", "k", 1)``; a label that is
    no range has no high end (it comes before a range from the same low end)."""
    low, _, high = _folded(label).partition(_RANGE_DASH)
    return (low, high, repeat)


def _title_key(name: str) -> NaturalKey:
    folded = _folded(name)
    if not folded.isascii():
        folded = _ZH_NUMERAL.sub(_zh_number, folded)
    return _runs(" ".join(_PUNCTUATION.sub("", folded).split()))


@functools.lru_cache(maxsize=1 << 16)
def _page_key(name: str) -> NameKey:
    return (0, _title_key(name), name)


def _zh_number(m: re.Match[str]) -> str:
    """A run of Chinese numerals as Arabic digits where it can only be a number (see the
    module docstring), else as it is."""
    run, after = m.group(), m.string[m.end() : m.end() + 1]
    has_unit = any(c in _ZH_UNIT for c in run)
    closes = not after or unicodedata.category(after) in _CLOSING
    if not (has_unit and len(run) > 1) and not closes:
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


def sort_key(parent: str, names: Collection[str], is_dir: bool) -> Callable[[str], NameKey]:
    """The sort key of children of ``parent`` that are among ``names`` (all directories or all
    pages). A label ending in `` <number>`` whose label without it is among ``names`` is the
    repeat of that label (``The 2``, ``其他作品 3``: the second range of names beginning "The"
    after ``The``), not a range whose low end is the number (``films 8``)."""
    if not is_dir:
        return _page_key
    given = set(names)

    def key(name: str) -> NameKey:
        label, repeat = name, 1
        numbered = _NUMBERED.fullmatch(name)
        if numbered is not None and numbered.group(1) in given:
            label, repeat = numbered.group(1), int(numbered.group(2))
        return (tier(parent, name), _label_key(label, repeat), name)

    return key


def arrange(parent: str, names: list[str], is_dir: bool) -> None:
    """Put the children ``names`` of ``parent`` (all directories or all pages) in order, in
    place. Sorting an already ordered list with one name added costs one pass."""
    names.sort(key=sort_key(parent, names, is_dir))


def ordered(parent: str, names: Sequence[str], is_dir: bool) -> list[str]:
    """``names`` in listing order, as a new list."""
    out = list(names)
    arrange(parent, out, is_dir)
    return out
