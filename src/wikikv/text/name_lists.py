"""A cue that says "person" before a list of names says it of every name of the list.

"starring Rachel Chagall, Norma Aleandro, Liv Ullmann, and Robert Loggia": the word before a
name types only the first one (:func:`wikikv.text.entities._person_context`), so a name met
only inside such lists had no cue at all and was filed as a topic. The list is read forward
from the cue: names joined by commas (past a bracketed aside) and closed by "and"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

# Words after which a list of people follows ("starring A, B and C", "The film stars A and B",
# "Among his company of actors were A, B, …"). Not "produced by" nor "featuring": companies and bands follow them as
# often as people (see docs/entities.md for "directed / written by").
_LIST_VERBS = frozenset({"starring", "co-starring", "stars", "starred", "co-starred"})
# A company closing a list of people ("written by A and B, and Scott Free Productions").
_COMPANY = frozenset(
    "Productions Pictures Studios Studio Entertainment Animation Films Television Media Bros "
    "Records Ministries".split()
)
_PLURAL_PEOPLE = frozenset(
    "actors actresses singers musicians members players cast sons daughters children".split()
)
_INCLUDE = frozenset({"were", "are", "included", "including", "include"})
_ASIDE = re.compile(r"\s?\([^()]{0,200}\)")
_SEP = re.compile(r",\s(?:and\s)?|\sand\s|\s&\s")
_MAX_WORDS = 4


class _Mention(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def gaz(self) -> bool | None: ...
    @property
    def surface(self) -> str: ...


def opens_list(toks: Sequence[tuple[str, int, int]], k: int) -> bool:
    """Whether the name starting at token ``k`` follows a word that opens a list of people."""
    prev = toks[k - 1][0] if k >= 1 else ""
    before = toks[k - 2][0].lower() if k >= 2 else ""
    return prev in _LIST_VERBS or (prev in _INCLUDE and before in _PLURAL_PEOPLE)


def listed_people(text: str, out: Sequence[_Mention], openers: set[int]) -> set[int]:
    """The indices into ``out`` of the names of a list of people opened at one of ``openers``
    (indices too) that have no kind of their own: the list closes with "and"."""
    typed: set[int] = set()
    for i in sorted(openers):
        members = [i]
        pos = out[i].end
        closed = False
        for j in range(i + 1, len(out)):
            m = out[j]
            aside = _ASIDE.match(text, pos)
            if aside is not None and m.start < aside.end():
                continue  # a name inside the aside: "Rachel Chagall (who … Rachel Levin)"
            start = aside.end() if aside is not None else pos
            sep = _SEP.fullmatch(text, start, m.start)
            if sep is None or m.kind not in ("", "person"):
                break  # no list separator, or a place, a work …: the list of people ends
            closed = closed or "and" in sep.group() or "&" in sep.group()
            members.append(j)
            pos = m.end
        if closed:
            typed.update(members)
    return {
        j
        for j in typed
        if not out[j].kind
        and not out[j].gaz
        and len(out[j].surface.split()) <= _MAX_WORDS
        and out[j].surface.split()[-1].rstrip(".") not in _COMPANY
        and not out[j].surface.startswith("The ")  # "The Stereophonics": a band
    }
