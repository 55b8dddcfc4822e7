"""The gazetteer's candidates for a position are the entries a whole-bucket scan would try and
could match there, in the bucket's order, so the first match — the mention — is the same."""

from __future__ import annotations

import itertools
from typing import Any

from wikikv.compile.title_index import GazEntry, StoredGazetteer, gaz_bucket, gaz_order
from wikikv.text.digest import split_sentences
from wikikv.text.entities import (
    Gazetteer,
    build_gazetteer,
    english_mentions,
    fold,
    gazetteer_tokens,
)

_TITLES = [
    "John Smith",
    "John Smith (actor)",
    "John",
    "John Smith Jr.",
    "John of Gaunt",
    "The Who",
    "Who",
    "Blue",
    "Blue Murder",
    "New York City",
    "New York",
    "York",
]


def _gazetteer() -> Gazetteer:
    variants = {fold(t): fold(t) for t in _TITLES}
    return build_gazetteer(variants, {fold(t): t for t in _TITLES})


def _scanned(gaz: Gazetteer, first: str, second: str | None) -> list[tuple[tuple[str, ...], str]]:
    """What the whole-bucket scan could match before ``second``."""
    return [
        e
        for e in gaz.by_first.get(first, ())
        if len(e[0]) == 1 or (second is not None and e[0][1] == second)
    ]


def test_candidates_keep_the_bucket_order() -> None:
    gaz = _gazetteer()
    words = ["john", "smith", "of", "who", "blue", "murder", "new", "york", "city", "x"]
    for first, second in itertools.product(words, [*words, None]):
        assert list(gaz.candidates(first, second)) == _scanned(gaz, first, second)


def test_a_bucket_not_longest_first_is_scanned_whole() -> None:
    gaz = Gazetteer()  # never finished: entries stay in the order they were added
    gaz.add("York", "york")
    gaz.add("York Minster", "york minster")
    assert list(gaz.candidates("york", "minster")) == [
        (("york",), "york"),
        (("york", "minster"), "york minster"),
    ]
    gaz.add("York Castle", "york castle")  # an add after a lookup is seen
    assert (("york", "castle"), "york castle") in list(gaz.candidates("york", "castle"))


def test_mentions_are_those_of_the_whole_bucket_scan() -> None:
    """Pinned from the code before candidates() (a scan of the first word's whole bucket)."""
    gaz = _gazetteer()
    text = (
        "John Smith met John of Gaunt in New York City. Later John went to York with "
        "The Who and Blue Murder. John"
    )
    found = [
        (m.key, m.surface, m.gaz) for m in english_mentions(text, split_sentences(text, "en"), gaz)
    ]
    assert found == [
        ("john smith", "John Smith", True),
        ("john of gaunt", "John of Gaunt", True),
        ("new york city", "New York City", False),
        ("john", "John", False),
        ("york", "York", True),
        ("who and blue murder", "The Who and Blue Murder", False),
        ("john", "John", False),
    ]


def _stored(
    variants: dict[str, str], display: dict[str, str], reads: list[list[str]]
) -> StoredGazetteer:
    """A gazetteer read from ``gz`` buckets (as :func:`build_gazetteer` spells the variants),
    each read's names kept in ``reads``."""
    buckets: dict[str, list[GazEntry]] = {}
    for variant, key in variants.items():
        e = GazEntry(variant, gazetteer_tokens(display.get(variant, variant)), key)
        buckets.setdefault(gaz_bucket(e.toks), []).append(e)

    def read(family: str, names: list[str], type_: Any) -> dict[str, Any]:
        assert family == "gz"
        reads.append(names)
        return {n: sorted(buckets[n], key=gaz_order) for n in names if n in buckets}

    return StoredGazetteer(read)


def test_a_stored_gazetteer_finds_the_same_mentions_from_one_read() -> None:
    """The buckets of every position the detector asks are read at once, before the scan (an
    honorific's next word too), and give the mentions the whole gazetteer gives."""
    text = (
        "John Smith met John of Gaunt in New York City. Later John went to York with "
        "The Who and Blue Murder. It was Dr. van Gogh who came with John Smith Jr. John"
    )
    titles = [*_TITLES, "Smith Jr.", "van Gogh"]
    variants = {fold(t): fold(t) for t in titles}
    display = {fold(t): t for t in titles}
    reads: list[list[str]] = []
    stored = _stored(variants, display, reads)
    full = build_gazetteer(variants, display)
    sentences = split_sentences(text, "en")
    assert english_mentions(text, sentences, stored) == english_mentions(text, sentences, full)
    assert len(reads) == 1, reads
    assert {"john\tsmith", "john\tof", "van\tgogh"} <= set(reads[0])
    assert ("van gogh", "Dr. van Gogh", True) in [
        (m.key, m.surface, m.gaz) for m in english_mentions(text, sentences, stored)
    ]
