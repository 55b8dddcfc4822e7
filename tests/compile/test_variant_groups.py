"""Routing groups named as variants of each other become one directory (English)."""

from __future__ import annotations

from wikikv.compile.schema import plan_routing
from wikikv.compile.variant_groups import fold_variants, items

BROAD = "actors, presenters and entertainers"


def test_items_of_a_list_label() -> None:
    assert items(BROAD) == ["actors", "presenters", "entertainers"]
    assert items("in articles on musicians and singers") == [
        "in articles on musicians",
        "in articles on singers",
    ]
    assert items("sons and daughters born in the 11th century") == []
    assert items("actors") == []


def test_a_kind_the_broad_group_names_joins_it() -> None:
    groups = {"musicians": ["a", "b", "c"], "singers": ["d", "e"], "musicians and singers": ["f"]}
    assert fold_variants(groups, 10) == {
        "musicians": "musicians and singers",
        "singers": "musicians and singers",
    }
    assert groups == {"musicians and singers": ["f", "a", "b", "c", "d", "e"]}


def test_too_large_a_merge_renames_the_broad_group() -> None:
    groups = {"actors": ["a", "b", "c", "d"], BROAD: ["e", "f"]}
    assert fold_variants(groups, 5) == {BROAD: "presenters and entertainers"}
    assert set(groups) == {"actors", BROAD}


def test_the_routing_plan_holds_one_directory_per_kind() -> None:
    actors = [f"actor {i}" for i in range(5)]
    hosts = [f"host {i}" for i in range(2)] + [f"model {i}" for i in range(2)]
    keys = actors + hosts + [f"writer {i}" for i in range(8)]
    chains = {k: ["actors", BROAD] for k in actors}
    chains.update({k: [k.split()[0] + "s", BROAD] for k in hosts})
    chains.update({k: ["writers"] for k in keys if k.startswith("writer")})
    starts = {k: 0 for k in keys}
    plan = plan_routing(keys, 20, chains, "people", "en", starts=starts, min_group=3)
    dirs = {k: plan.bucket(k, chains[k]) for k in keys}
    assert {dirs[k] for k in actors + hosts} == {BROAD}
    assert set(plan.directories()) == {BROAD, "writers", "other people"}


def test_a_collective_noun_of_a_broad_label_holds_the_groups_of_its_members() -> None:
    # /people of 2Wiki 6k listed "nobles" (100) beside "royalty and nobility" (24)
    assert items("clergy and religious figures") == ["clergy", "religious figures"]
    groups = {
        "nobles": ["a", "b", "c"],
        "royals": ["d"],
        "royalty and nobility": ["e"],
        "in articles on nobles": ["f"],
        "in articles on royalty and nobility": ["g"],
    }
    assert fold_variants(groups, 10) == {
        "nobles": "royalty and nobility",
        "royals": "royalty and nobility",
        "in articles on nobles": "in articles on royalty and nobility",
    }
    assert groups["royalty and nobility"] == ["e", "d", "a", "b", "c"]
    # too large a merge: the broad group keeps the kind no group holds
    groups = {"clergymen": ["a", "b", "c", "d"], "clergy and religious figures": ["e", "f"]}
    assert fold_variants(groups, 5) == {"clergy and religious figures": "religious figures"}
