"""The kind of a title with a comma when nothing else says it: "Weldon, California" is a place
(a name, then where it is), but a comma also stands in a noble's title ("John FitzAlan, 2nd
Baron Arundel", "John, King of England"), a dated event ("Florida Attorney General election,
2006") and a work's name ("Aye, and Gomorrah, and other stories", "Frankly, my dear, I don't
give a damn")."""

from __future__ import annotations

import re

from wikikv.text.nouns import kind_of_noun

# "2nd Baron Arundel", "King of England", "Count Palatine of Gelnhausen", "daughter of Lothair II"
_NOBLE_AFTER = re.compile(
    r"^(?:\d+(?:st|nd|rd|th) (?:and \d+(?:st|nd|rd|th) )?)?(?:Grand )?(?:Baron|Baroness|Earl|"
    r"Duke|Duchess|Count|Countess|Prince|Princess|King|Queen|Landgrave|Margrave|Marquess|"
    r"Marchioness|Viscount|Viscountess|Elector|Electress|Lord|Lady|Emperor|Empress|Baronet)\b"
    r"|^(?:daughter|son|wife|husband|widow) of\b"
)
# Lowercase words a place's qualifier may hold ("Santa Cruz de las Flores, …", "Newfoundland
# and Labrador").
_PLACE_CONNECT = frozenset("of de del la las los le and upon on am im".split())
_WORD = re.compile(r"[^\s,]+")


def kind_of_comma_title(base: str) -> str | None:
    """The kind a title with a comma (``base``: without its bracketed qualifier) names, or None
    when it has no comma."""
    if "," not in base:
        return None
    head, _, after = base.rpartition(",")
    after = after.strip()
    if _NOBLE_AFTER.match(after):
        return "person"
    words = _WORD.findall(after)
    if any(w[:1].isdigit() for w in words):
        # "… election, 2006", "… campaign, 1960", "String Quartets, Op. 64": no place is
        # qualified by a number; the head before the comma may say what it is
        first = _WORD.findall(head.split(",")[0])
        return kind_of_noun(first[-1]) if first else None
    if words and words[-1].endswith(("s", "ies")) and words[-1][:1].islower():
        plural = kind_of_noun(_singular(words[-1]))
        if plural is not None:
            return plural  # "… and other stories"
    if after[-1:] in "!?" or any(w[:1].islower() and w not in _PLACE_CONNECT for w in words):
        return None  # a phrase ("Duck, You Sucker!", "… my dear, I don't give a damn")
    return "place"


def _singular(word: str) -> str:
    return word[:-3] + "y" if word.endswith("ies") else word[:-1]
