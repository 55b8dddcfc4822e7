"""NameIndex.opening looks up only the lengths its names have; it finds what a lookup at every
length from the longest name down finds (the longest name wins, "Keith" is not "Keith Moon")."""

from __future__ import annotations

from wikikv.quality.claims import KEYWORDS, NAME_MIN, NameIndex, may_claim
from wikikv.search.tokenize import has_cjk
from wikikv.text.entities import fold

_NAMES = {
    "/p/keith": ["Keith"],
    "/p/keith-moon": ["Keith Moon", "Moon"],
    "/p/lu-xun": ["Lu Xun", "鲁迅", "周树人"],
    "/p/lu": ["Lu"],
    "/p/shaoxing": ["绍兴", "Shaoxing"],
    "/p/twin-a": ["Twin"],
    "/p/twin-b": ["Twin"],
    "/p/long": ["The Very Long Name of a Company Limited"],
    "/p/ada": ["Ada"],
    "/p/ada-lovelace": ["Ada Lovelace", "Ada L."],
}


def _every_length(
    names: NameIndex, keys: dict[str, set[str]], quote: str
) -> tuple[str, int] | None:
    """opening() as it was: every length from the longest name down to 2."""
    longest = max(len(k) for k in keys)
    head = fold(quote[: longest + 2])
    for key_len in range(min(len(head), longest), 1, -1):
        owners = keys.get(head[:key_len])
        if owners is None or len(owners) != 1:
            continue
        rest = quote[key_len : key_len + 2]
        if rest[:1].isascii() and rest[:1].isalnum():
            continue
        if rest[:1] == " " and rest[1:2].isupper():
            continue
        return next(iter(owners)), key_len
    return None


def test_opening_is_the_every_length_lookup() -> None:
    names = NameIndex()
    keys: dict[str, set[str]] = {}
    for path, spelled in _NAMES.items():
        names.add(path, spelled)
        for s in spelled:
            if len(fold(s)) >= (2 if has_cjk(s) else NAME_MIN):
                keys.setdefault(fold(s), set()).add(path)
    quotes = [
        "Keith Moon was born in 1946.",
        "Keith was born in 1946.",
        "Keith Richards was born in 1943.",
        "Lucky was born.",
        "Lu Xun was born in Shaoxing.",
        "Lu was born.",
        "鲁迅出生于绍兴。",
        "绍兴",
        "Twin was born.",
        "Moon",
        "M",
        "",
        "The Very Long Name of a Company Limited was founded in 1900.",
        "The Very Long Name of a Company",
        "Ada Lovelace was born in 1815.",
        "Ada L. was born in 1815.",
        "Ada was born in 1815.",
        "Ada",
        "Adam was born.",
        "周树人生于绍兴",
    ]
    found = [names.opening(q) for q in quotes]
    assert found == [_every_length(names, keys, q) for q in quotes]
    assert found[:3] == [("/p/keith-moon", 10), ("/p/keith", 5), None]
    assert found[4] == ("/p/lu-xun", 6)
    assert found[8] is None
    assert found[14:17] == [("/p/ada-lovelace", 12), ("/p/ada-lovelace", 5), ("/p/ada", 3)]


def test_may_claim_is_a_keyword_anywhere_in_the_quote() -> None:
    quotes = ["He was born.", "Ada (1815–1852)", "鲁迅生于绍兴", "卒", "（", "Nothing here.", ""]
    assert [may_claim(q) for q in quotes] == [any(k in q for k in KEYWORDS) for q in quotes]
    assert [may_claim(q) for q in quotes] == [True, True, True, True, True, False, False]
