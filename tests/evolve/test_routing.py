"""Semantic routing levels (compile/schema.plan_routing): sub-dimensions named by kind, small
groups merged upward, over-full groups refined, ranges only as a labelled last resort, and the
fan-out bound kept whatever the chains (hypothesis)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from wikikv.compile.categories import MENTION_PREFIX, leftover_labels, start_level
from wikikv.compile.schema import ROUTE_FILL, RoutingPlan, plan_routing


def route(plan: RoutingPlan, chains: dict[str, list[str]]) -> Counter[str]:
    return Counter(plan.bucket(k, c) for k, c in chains.items())


def test_groups_are_the_categories_and_small_ones_merge_upward() -> None:
    chains = {f"film {i}": ["films"] for i in range(30)}
    chains |= {f"song {i}": ["songs"] for i in range(12)}
    chains |= {"lone opera": ["operas"], "odd one": []}
    plan = plan_routing(list(chains), 16, chains, "works")
    sizes = route(plan, chains)
    assert set(plan.groups) >= {"songs"}
    assert sizes["other works"] == 2  # the opera (a group of one) and the entity without a kind
    assert not plan.range_labels() or all("films" in r for r in plan.range_labels())


def test_an_overfull_group_is_refined_along_the_chain_before_any_range() -> None:
    chains = {
        f"f{i}": [f"{['French', 'Polish', 'Danish'][i % 3]} films", "films"] for i in range(30)
    }
    plan = plan_routing(list(chains), 16, chains, "works")
    sizes = route(plan, chains)
    assert sizes == {"French films": 10, "Polish films": 10, "Danish films": 10}
    assert plan.range_labels() == set()


def test_a_range_is_the_last_resort_and_says_what_it_holds() -> None:
    chains = {f"{chr(97 + i % 26)}{i:03d}": ["films"] for i in range(40)}
    plan = plan_routing(list(chains), 16, chains, "works")
    ranges = plan.range_labels()
    assert ranges
    assert all(r.startswith("films ") for r in ranges)
    assert max(route(plan, chains).values()) <= int(16 * ROUTE_FILL)


def test_an_overfull_other_splits_by_what_is_known_before_any_range() -> None:
    # 3 x 8 leftovers, each of a kind of its own or named once: no group stands, "other" is
    # over the 12 a directory may hold, and it splits three ways instead of into ranges
    chains: dict[str, list[str]] = {f"own{i}": [f"kind{i}s"] for i in range(8)}
    chains |= {f"named{i}": [f"{MENTION_PREFIX}kind{i}s"] for i in range(8)}
    chains |= {f"bare{i}": [] for i in range(8)}
    plan = plan_routing(list(chains), 16, chains, "topics")
    own, named = leftover_labels("topics")
    assert route(plan, chains) == {own: 8, named: 8, "other topics": 8}
    assert plan.range_labels() == set()
    assert plan.notes[own]
    assert plan.notes[named]


def test_legacy_range_plans_still_route_by_name() -> None:
    plan = RoutingPlan(los=["", "m"], labels=["A–L", "M–Z"])
    assert plan.bucket("apple") == "A–L"
    assert plan.bucket("zebra") == "M–Z"
    assert plan.range_labels() == {"A–L", "M–Z"}


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text("abcdefgh", min_size=1, max_size=6),
        st.lists(st.sampled_from(["x", "y", "z", "w", "v"]), max_size=3),
        min_size=1,
        max_size=300,
    ),
    st.sampled_from([4, 8, 16, 32]),
)
def test_every_entity_is_routed_within_the_bound(raw: dict[str, list[str]], fanout: int) -> None:
    chains = {k: [f"{c} things" for c in v] for k, v in raw.items()}
    plan = plan_routing(list(chains), fanout, chains, "topics")
    sizes = route(plan, chains)
    assert sum(sizes.values()) == len(chains)
    if len(chains) <= fanout * int(fanout * ROUTE_FILL):  # it can fit at all
        assert len(plan.directories()) <= fanout
    assert max(sizes.values()) <= max(2, int(fanout * ROUTE_FILL))


def test_small_groups_pool_into_the_label_above_them_before_other() -> None:
    athletes = "athletes and sportspeople"
    chains = {f"climber {i}": ["mountaineers", athletes] for i in range(2)}
    chains |= {f"boxer {i}": ["boxers", athletes] for i in range(2)}
    chains |= {f"film {i}": ["films"] for i in range(12)}
    chains |= {"odd one": ["oddities"]}
    starts = {k: start_level(c) for k, c in chains.items()}
    assert starts["climber 0"] == 0  # routing starts at the noun, not at its broad kind
    plan = plan_routing(list(chains), 16, chains, "people", starts=starts)
    assert route(plan, chains) == {athletes: 4, "films": 12, "other people": 1}
