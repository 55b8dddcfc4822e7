"""The cost J, term by term on a dimension small enough to price by hand."""

from __future__ import annotations

import pytest

from wikikv.compile.schema import RangeCut, RoutingPlan
from wikikv.evolve.cost import Weights, dim_terms
from wikikv.evolve.layout import DimView, Member
from wikikv.store.access_stats import AccessStats


def dim() -> DimView:
    members = [
        Member("a", "A", ["films"], "/works/A"),
        Member("b", "B", ["films"], "/works/B"),
        Member("c", "C", ["songs"], "/works/C"),
    ]
    return DimView("works", members)


def test_flat_dimension() -> None:
    w = Weights()
    stats = AccessStats(access={"/works/A": 3})
    t = dim_terms(dim(), None, stats, w)
    assert t.storage == 4  # the directory and three pages
    weights = [1 + 3, 1, 1]
    assert t.descent == pytest.approx(sum(weights) * (1 + 3 / 32))
    assert t.quality == pytest.approx(6)
    assert t.j(w) == pytest.approx(4 + 6 * (1 + 3 / 32) - 2 * 6)


def test_routed_dimension_with_co_access_and_a_range() -> None:
    w = Weights()
    plan = RoutingPlan(
        groups={"films": "films"},
        other="other works",
        cuts={"films": RangeCut(["", "b"], ["films A", "films B"])},
    )
    stats = AccessStats(co={"/works/films A\t/works/other works": 2})
    t = dim_terms(dim(), plan, stats, w)
    assert t.storage == 1 + 3 + 3
    c_dim = 1 + 3 / 32
    c_leaf = 1 + 1 / 32
    assert t.descent == pytest.approx(3 * (c_dim + c_leaf) + 2 * c_dim)
    assert t.quality == pytest.approx(1)  # only C sits under a label that names a kind
    assert t.range_dirs == 2
    assert t.semantic_share == pytest.approx(1 / 3)
