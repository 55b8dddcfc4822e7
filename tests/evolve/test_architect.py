"""The offline Architect proposes, besides the build's own kinds, plans that start at the broad
kinds: on a large dimension many small kinds make a wide listing that costs more descent than
they save, and a few broad sub-dimensions (refined where they overflow) price lower."""

from __future__ import annotations

from collections import Counter

from wikikv.compile.model import Model
from wikikv.compile.schema import Schema
from wikikv.evolve.cost import Weights
from wikikv.evolve.layout import DimView, Member, View, route
from wikikv.evolve.operators import architect, critic
from wikikv.store.access_stats import AccessStats

BROAD = [
    "athletes and sportspeople",
    "musicians and singers",
    "writers and journalists",
    "scientists and scholars",
    "royalty and nobility",
]
FANOUT = 256


def wide_dimension() -> View:
    """600 people of 150 kinds, four each; each kind belongs to one of five broad kinds."""
    members = [
        Member(f"p{i:03d}", f"P{i}", [f"kind{i // 4}s", BROAD[(i // 4) % 5]], f"/people/P{i}")
        for i in range(600)
    ]
    schema = Schema(language="en", fanout=FANOUT, max_depth=5, dimensions=[], fallback="people")
    dim = DimView("people", members)
    return View(schema, {"people": dim}, Model({}, {}), {})


def test_broad_kinds_are_proposed_and_priced_lower_than_many_small_kinds() -> None:
    view = wide_dimension()
    dim = view.dims["people"]
    proposals = architect(view, dim, FANOUT)
    broad = [p for p in proposals if p.detail.startswith("broad")]
    fine = [p for p in proposals if not p.detail.startswith("broad")]
    assert broad
    assert fine
    for p in broad:
        assert set(Counter(route(dim, p.plan).values())) <= set(BROAD)
    priced = [critic(view, dim, p, AccessStats(), Weights(), FANOUT, 5) for p in proposals]
    best = min((p for p in priced if p.reachable), key=lambda p: p.delta)
    assert best.detail.startswith("broad")
