"""The rules of an add's update of an entity from its added documents alone (the add's result
is compared with a full build in test_persisted_model.py)."""

from __future__ import annotations

import pytest

from wikikv.compile import hub_merge
from wikikv.compile.model import Entity, Fact


def _old() -> Entity:
    return Entity(
        "london",
        "London",
        "place",
        mentioned_in={"d1": 0, "d3": 2},
        times_named={"d1": 1, "d3": 2},
        surfaces={"London": 3},
        links={"a": {"mentioned-by"}},
        facts=[Fact("d1", 0, 5), Fact("d3", 0, 4)],
        mentions=[Fact("d3", 9, 20)],
    )


def test_an_entity_with_an_old_document_resolved_again_is_recomputed() -> None:
    fresh = Entity("london", "London", "place")
    assert hub_merge.mergeable(_old(), fresh, {"d9"})
    assert not hub_merge.mergeable(_old(), fresh, {"d9", "d3"})


def test_a_subject_or_a_change_of_kind_is_recomputed() -> None:
    about = _old()
    about.about = ["d1"]
    assert not hub_merge.mergeable(about, Entity("london", "London", "place"), set())
    # a carried "He ..." is a fact of a person only: the old lists no longer hold
    assert not hub_merge.mergeable(_old(), Entity("london", "London", "person"), set())


def test_the_merge_sums_counts_and_keeps_document_order_under_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hub_merge, "MAX_FACTS", 2)
    added = hub_merge.blank(Entity("london", "London", "place"))
    added.mentioned_in, added.times_named = {"d2": 1}, {"d2": 4}
    added.surfaces, added.links = {"London": 1, "the City": 1}, {"b": {"mentioned-by"}}
    added.facts = [Fact("d2", 3, 8)]
    out = hub_merge.merge(_old(), Entity("london", "London", "place"), added)
    assert list(out.mentioned_in) == ["d1", "d2", "d3"]
    assert out.times_named == {"d1": 1, "d2": 4, "d3": 2}
    assert out.surfaces == {"London": 4, "the City": 1}
    assert set(out.links) == {"a", "b"}
    # d2's fact goes between d1's and d3's, and the bound then cuts d3's
    assert out.facts == [Fact("d1", 0, 5), Fact("d2", 3, 8)]
    assert out.mentions == [Fact("d3", 9, 20)]
