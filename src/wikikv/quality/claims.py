"""Offline contradiction detection: the same attribute of the same entity with two values.

A *claim* is (subject page, attribute, value) read from one key fact. Attributes are the ones a
reader checks first and that sources disagree on most — birth and death years and places — in
English and Chinese. The subject is the entity whose name (title or alias) opens the quote, or
the page's own entity when the quote opens with a pronoun and cites the article about it. Years
conflict when they differ; places when neither names the other ("Shaoxing" and "Shaoxing,
Zhejiang" agree). Two claims that conflict on one page are an in-page contradiction (lint E3);
on two pages, a cross-page contradiction (E4).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from wikikv.text.entities import fold, other_script

YEAR = r"(1[0-9]{3}|20[0-9]{2})"
_PLACE = r"([A-Z][\w'.-]+(?:(?:,\s*|\s+)(?:[A-Z][\w'.-]+|of|de|del|upon))*)"
EN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "life",
        re.compile(rf"^\((?:born\s+)?[^()]*?{YEAR}[^()]*?[–—-][^()]*?{YEAR}[^()]*\)"),
    ),
    ("born_year", re.compile(rf"\bborn\b[^.;]{{0,40}}?\b{YEAR}\b")),
    ("born_place", re.compile(rf"\bborn\b[^.;]{{0,40}}?\bin {_PLACE}")),
    ("died_year", re.compile(rf"\bdied\b[^.;]{{0,40}}?\b{YEAR}\b")),
    ("died_place", re.compile(rf"\bdied\b[^.;]{{0,40}}?\bin {_PLACE}")),
)
ZH_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "life",
        re.compile(rf"^[（(]{YEAR}年?[^）)]{{0,12}}?[—\-–~～至]{{1,2}}{YEAR}年?[^）)]{{0,6}}[）)]"),
    ),
    ("born_year", re.compile(rf"{YEAR}年[^，。；]{{0,12}}?(?:出生|生于|诞生)|生于{YEAR}年")),
    (
        "born_place",
        re.compile(
            r"(?:出生于|生于)(?:\d+年(?:\d+月)?(?:\d+日)?)?([\u4e00-\u9fff]{2,8}?)(?:[，。、；]|的|$)"
        ),
    ),
    (
        "died_year",
        re.compile(
            rf"{YEAR}年[^，。；]{{0,12}}?(?:逝世|去世|病逝)|(?:逝世|去世|病逝|卒)于{YEAR}年"
        ),
    ),
    (
        "died_place",
        re.compile(
            r"(?:逝世|去世|病逝|卒)于(?:\d+年(?:\d+月)?(?:\d+日)?)?([\u4e00-\u9fff]{2,8}?)(?:[，。、；]|的|$)"
        ),
    ),
)
PRONOUNS = ("he ", "she ", "his ", "her ", "他", "她")
KEYWORDS = ("born", "died", "生", "逝", "卒", "(", "（")
# One search instead of a substring test per keyword: every fact of every page is tried.
_KEYWORD = re.compile("|".join(re.escape(k) for k in KEYWORDS))
_CJK = re.compile("[\u4e00-\u9fff]")
NAME_MIN = 3


@dataclass(frozen=True)
class Claim:
    subject: str  # page path of the entity the claim is about
    attribute: str
    value: str
    page: str  # page the fact is on
    fact: str  # its footnote number


def _cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def may_claim(quote: str) -> bool:
    """Whether ``quote`` holds a word a claim needs (a fact without one states none)."""
    return _KEYWORD.search(quote) is not None


def _values(quote: str, name_end: int) -> list[tuple[str, str]]:
    """Attribute values of ``quote``; a life span "(1881–1936)" only right after the name."""
    zh = _cjk(quote[:40])
    out: list[tuple[str, str]] = []
    rest = quote[name_end:].lstrip()
    for attr, pattern in ZH_PATTERNS if zh else EN_PATTERNS:
        if attr == "life" and not rest.startswith(("(", "（")):
            continue
        m = pattern.search(rest if attr == "life" else quote)
        if m is None:
            continue
        groups = [g for g in m.groups() if g]
        if attr == "life":
            if len(groups) >= 2:
                out += [("born_year", groups[0]), ("died_year", groups[1])]
            continue
        if groups and all(a != attr for a, _ in out):
            out.append((attr, groups[0].strip().rstrip(",")))
    return out


_LONG = 4


def _opening(key: str) -> str:
    """The bucket of a name's length in :class:`NameIndex` (see ``_lengths``)."""
    return key[:_LONG] if len(key) >= _LONG else key[:2]


class NameIndex:
    """Folded page names and aliases → the page they name (names two pages share are left out)."""

    def __init__(self) -> None:
        self._owners: dict[str, set[str]] = defaultdict(set)
        self._longest = 1
        # the lengths of the names, longest first, per opening (the first four characters of a
        # name that long, else the first two): opening() looks up only the lengths of the names
        # that open like the quote (the wiki's longest name is ~100 characters, so a quote
        # tried at every length cost ~50 lookups)
        self._lengths: dict[str, list[int]] = {}

    def add(self, path: str, names: list[str]) -> None:
        for name in names:
            key = fold(name)
            if len(key) >= (2 if _cjk(key) else NAME_MIN):
                self._owners[key].add(path)
                self._longest = max(self._longest, len(key))
                lengths = self._lengths.setdefault(_opening(key), [])
                if len(key) not in lengths:
                    lengths.append(len(key))
                    lengths.sort(reverse=True)

    def opening(self, quote: str) -> tuple[str, int] | None:
        """The page whose whole name opens ``quote`` (the longest name wins), and the name's
        length. A name a longer proper name continues ("Keith" of "Keith Moon") is no match."""
        head = fold(quote[: self._longest + 2])
        # the names of four characters or more, then the shorter ones: longest first still
        long = self._lengths.get(head[:_LONG], ()) if len(head) >= _LONG else ()
        for key_len in (*long, *self._lengths.get(head[:2], ())):
            if key_len > len(head):
                continue
            owners = self._owners.get(head[:key_len])
            if owners is None or len(owners) != 1:
                continue
            rest = quote[key_len : key_len + 2]
            if rest[:1].isascii() and rest[:1].isalnum():
                continue  # "Lu" must not match "Lucky"
            if rest[:1] == " " and rest[1:2].isupper():
                continue
            return next(iter(owners)), key_len
        return None

    def named_in(self, value: str) -> set[str]:
        """The pages a name of which occurs in ``value`` ("浙江绍兴" names the page of 绍兴)."""
        text = fold(value)
        out: set[str] = set()
        for i in range(len(text)):
            for key_len in range(2, min(self._longest, len(text) - i) + 1):
                owners = self._owners.get(text[i : i + key_len])
                if owners is not None and len(owners) == 1:
                    out |= owners
        return out


def claims_of(
    page: str, facts: list[tuple[str, str, str]], names: NameIndex, own_titles: set[str]
) -> list[Claim]:
    """Claims of one page's facts: (footnote number, quote, title of the cited article)."""
    out: list[Claim] = []
    for n, quote, cited_title in facts:
        if not may_claim(quote):
            continue
        opened = names.opening(quote)
        subject, name_end = opened if opened is not None else (None, 0)
        if subject is None and quote[:4].lower().startswith(PRONOUNS):
            if fold(cited_title) in own_titles:
                subject, name_end = page, 0
        if subject is None:
            continue
        values = _values(quote, name_end)
        out += [Claim(subject, attr, value, page, n) for attr, value in values]
    return out


def _agree(attr: str, a: str, b: str, names: NameIndex | None = None) -> bool:
    if attr.endswith("_year"):
        return a == b
    fa, fb = fold(a), fold(b)
    if fa in fb or fb in fa:
        return True
    if names is not None:
        # one place in two languages: "Shaoxing" and "浙江绍兴" both name the page of Shaoxing
        pa, pb = names.named_in(a), names.named_in(b)
        if pa & pb:
            return True
        if pa and pb:
            return False
    # values in two scripts that no page's names bridge cannot be compared as strings
    return other_script(a, b)


@dataclass(frozen=True)
class Conflict:
    subject: str
    attribute: str
    first: Claim
    second: Claim

    @property
    def in_page(self) -> bool:
        return self.first.page == self.second.page


def conflicts(claims: list[Claim], names: NameIndex | None = None) -> list[Conflict]:
    """One conflict per (subject, attribute, pair of pages) whose values disagree (values that
    name one page of ``names`` agree)."""
    by_key: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for c in claims:
        by_key[c.subject, c.attribute].append(c)
    out: list[Conflict] = []
    for (subject, attr), group in sorted(by_key.items()):
        seen: set[tuple[str, str]] = set()
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if _agree(attr, a.value, b.value, names):
                    continue
                pair = (min(a.page, b.page), max(a.page, b.page))
                if pair in seen:
                    continue
                seen.add(pair)
                out.append(Conflict(subject, attr, a, b))
    return out
