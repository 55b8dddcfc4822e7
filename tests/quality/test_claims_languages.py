"""Claim values in two languages: they agree when one page's names bridge them, and a names
index that shows two different pages still makes them disagree."""

from __future__ import annotations

from wikikv.quality.claims import Claim, NameIndex, conflicts


def _claims(a: str, b: str) -> list[Claim]:
    return [
        Claim("/people/Lu Xun", "born_place", a, "/people/Lu Xun", "1"),
        Claim("/people/Lu Xun", "born_place", b, "/people/Lu Xun", "2"),
    ]


def test_one_place_named_in_two_languages_agrees() -> None:
    names = NameIndex()
    names.add("/places/Shaoxing", ["Shaoxing", "绍兴"])
    names.add("/places/London", ["London"])
    assert not conflicts(_claims("Shaoxing", "浙江绍兴"), names)
    assert conflicts(_claims("London", "浙江绍兴"), names)  # two pages: a real disagreement
    assert conflicts(_claims("London", "Shaoxing"), names)


def test_values_no_names_bridge_are_compared_only_in_one_script() -> None:
    assert not conflicts(_claims("Shaoxing", "浙江绍兴"))
    assert conflicts(_claims("Shaoxing", "London"))
    assert conflicts(_claims("绍兴", "北京"))
