"""The evolution operators (WikiKV paper §III-D): PageSplit as Architect → Critic → Arbiter,
and DimensionMerge on co-access mutual information.

Every proposal is a new routing plan for one dimension (the support of an operator is the
dimension's subtree, so proposals on different dimensions are node-disjoint and their cost
changes add up). The Critic prices a proposal exactly under the cost model of
:mod:`wikikv.evolve.cost`; the Arbiter keeps, per dimension, the best proposal with ΔJ < 0 that
keeps every entity reachable within the bounds, and at most ``max_ops`` of them per pass — so J
never increases across passes (Theorem 1).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wikikv.compile import categories
from wikikv.compile.schema import ROUTE_FILL, RoutingPlan, plan_routing
from wikikv.evolve.cost import Weights, dim_terms
from wikikv.evolve.layout import DimView, View, dir_path, route
from wikikv.store.access_stats import AccessStats, rekey

SPLIT_MIN = 64  # the Architect's judgment: a directory this wide may hold separable groups
SPLIT_CAPS = (3 / 8, 3 / 16)  # sub-dimension sizes tried below the bound (96, 48 of 256)
TAU = 0.05  # DimensionMerge: mutual information (nats) of co-access to merge siblings
MAX_OPS = 8


@dataclass
class Proposal:
    op: str  # "split" | "merge"
    dim: str
    target: str  # the directory the operator acts on
    plan: RoutingPlan | None
    detail: str = ""
    delta: float = 0.0
    terms_before: dict[str, float] = field(default_factory=dict)
    terms_after: dict[str, float] = field(default_factory=dict)
    reachable: bool = True
    renames: dict[str, str] = field(default_factory=dict)  # directories this operator retires

    def to_dict(self) -> dict[str, object]:
        return {
            "op": self.op,
            "dim": self.dim,
            "target": self.target,
            "detail": self.detail,
            "delta_j": round(self.delta, 3),
            "reachable": self.reachable,
            "before": self.terms_before,
            "after": self.terms_after,
        }


# An LLM Architect: given a dimension and a sample of its children, a plan (or None).
LLMArchitect = Callable[[DimView, str], RoutingPlan | None]


def _keys_chains(
    dim: DimView,
) -> tuple[list[str], dict[str, list[str]], list[dict[str, int]]]:
    """Keys, chains, and the two places routing may start each entity: its own kind (the
    build's choice) and its broad kind (fewer, wider sub-dimensions refined where they
    overflow: on a large dimension the wide fan-out of many small kinds can cost more descent
    than the kinds save)."""
    fine = {m.key: categories.start_level(m.chain) for m in dim.members}
    coarse = {m.key: categories.coarse_level(m.chain) for m in dim.members}
    starts = [fine] if coarse == fine else [fine, coarse]
    return [m.key for m in dim.members], {m.key: m.chain for m in dim.members}, starts


def architect(
    view: View, dim: DimView, fanout: int, llm: LLMArchitect | None = None
) -> list[Proposal]:
    """PageSplit candidates for one dimension: triggered by a directory over the bound, by a
    range-labelled directory, or by judgment (a directory wider than ``SPLIT_MIN``)."""
    labels = route(dim, dim.plan)
    sizes = Counter(labels.values())
    ranges = dim.plan.range_labels() if dim.plan is not None else set()
    judged = min(SPLIT_MIN, fanout // 2)
    wide = [lab for lab, n in sizes.items() if n > judged or n > fanout]
    if not wide and not ranges:
        return []
    keys, chains, start_sets = _keys_chains(dim)
    lang = view.language
    out: list[Proposal] = []
    targets = sorted({dir_path(dim, lab) for lab in wide} | {dir_path(dim, r) for r in ranges})
    seen: set[bytes] = set()
    for i, starts in enumerate(start_sets):
        for cap in (int(fanout * ROUTE_FILL), *(max(2, int(fanout * f)) for f in SPLIT_CAPS)):
            plan = plan_routing(keys, fanout, chains, dim.name, lang, cap=cap, starts=starts)
            detail = f"{'broad ' if i else ''}sub-dimensions of at most {cap}"
            _add(out, seen, Proposal("split", dim.name, ", ".join(targets), plan, detail))
    if llm is not None:
        for target in targets:
            proposed = llm(dim, target)
            if proposed is not None:
                _add(out, seen, Proposal("split", dim.name, target, proposed, "LLM architect"))
    return out


def _add(out: list[Proposal], seen: set[bytes], p: Proposal) -> None:
    import msgspec

    sig = msgspec.msgpack.encode(p.plan)
    if sig not in seen:
        seen.add(sig)
        out.append(p)


def mutual_information(q: int, na: int, nb: int, nab: int) -> float:
    """I(X_a; X_b) in nats of the per-query co-access indicators (paper eq. 2)."""
    if q <= 0:
        return 0.0
    cells = (
        (nab, na, nb),
        (na - nab, na, q - nb),
        (nb - nab, q - na, nb),
        (q - na - nb + nab, q - na, q - nb),
    )
    mi = 0.0
    for n, ma, mb in cells:
        if n > 0 and ma > 0 and mb > 0:
            mi += (n / q) * math.log(n * q / (ma * mb))
    return mi


def merge_label(a: str, b: str, lang: str) -> str:
    return f"{a}、{b}" if lang == "zh" else f"{a} and {b}"


def merges(
    view: View, dim: DimView, stats: AccessStats, fanout: int, tau: float = TAU
) -> list[Proposal]:
    """DimensionMerge candidates: sibling routing directories whose co-access MI passes τ."""
    plan = dim.plan
    if plan is None or not plan.groups or stats.queries == 0:
        return []
    labels = route(dim, plan)
    sizes = Counter(labels.values())
    cap = int(fanout * ROUTE_FILL)
    subs = sorted(
        lab for lab in sizes if lab and lab != plan.other and lab not in plan.range_labels()
    )
    out: list[Proposal] = []
    for i, a in enumerate(subs):
        pa = dir_path(dim, a)
        for b in subs[i + 1 :]:
            pb = dir_path(dim, b)
            nab = stats.pair(pa, pb)
            if nab == 0 or sizes[a] + sizes[b] > cap:
                continue
            mi = mutual_information(
                stats.queries, stats.visits.get(pa, 0), stats.visits.get(pb, 0), nab
            )
            if mi < tau:
                continue
            merged = merge_label(a, b, view.language)
            new = RoutingPlan(
                other=plan.other,
                groups={k: (merged if v in (a, b) else v) for k, v in plan.groups.items()},
                cuts=dict(plan.cuts),
                notes={k: v for k, v in plan.notes.items() if k not in (a, b)},
            )
            # The merged directory's description joins the two it replaces.
            new.notes[merged] = " ".join(view.schema.describe_route(dim.name, x) for x in (a, b))
            prop = Proposal("merge", dim.name, f"{pa} + {pb}", new, f"MI {mi:.3f} ≥ τ {tau}")
            prop.renames = {pa: dir_path(dim, merged), pb: dir_path(dim, merged)}
            out.append(prop)
    return out


def critic(
    view: View,
    dim: DimView,
    proposal: Proposal,
    stats: AccessStats,
    w: Weights,
    fanout: int,
    max_depth: int,
) -> Proposal:
    """ΔJ of a proposal from the statistics, and whether it keeps every entity reachable."""
    root_fanout = len(view.dims) + 1
    before = dim_terms(dim, dim.plan, stats, w, root_fanout)
    # A merged directory inherits the statistics of the two it replaces (as the commit does).
    after_stats = rekey(stats, proposal.renames) if proposal.renames else stats
    after = dim_terms(dim, proposal.plan, after_stats, w, root_fanout)
    proposal.delta = after.j(w) - before.j(w)
    proposal.terms_before = before.to_dict(w)
    proposal.terms_after = after.to_dict(w)
    labels = route(dim, proposal.plan)
    sizes = Counter(labels.values())
    fan_dim = sum(1 for lab in sizes if lab) + sizes.get("", 0)
    proposal.reachable = (
        len(labels) == len(dim.members)
        and all(n <= fanout for lab, n in sizes.items() if lab)
        and fan_dim <= fanout
        and (max_depth >= 3)
    )
    return proposal


def arbiter(proposals: Sequence[Proposal], max_ops: int = MAX_OPS) -> list[Proposal]:
    """A node-disjoint commit set: per dimension the best admissible proposal (ΔJ < 0, every
    entity reachable), then the ``max_ops`` best of those."""
    best: dict[str, Proposal] = {}
    for p in proposals:
        if p.delta >= 0 or not p.reachable:
            continue
        cur = best.get(p.dim)
        if cur is None or p.delta < cur.delta:
            best[p.dim] = p
    return sorted(best.values(), key=lambda p: p.delta)[:max_ops]


def propose(
    view: View,
    stats: AccessStats,
    w: Weights,
    fanout: int,
    max_depth: int,
    tau: float = TAU,
    llm: LLMArchitect | None = None,
) -> list[Proposal]:
    """Every priced proposal of one pass (Architect + DimensionMerge, then the Critic)."""
    out: list[Proposal] = []
    for name in sorted(view.dims):
        dim = view.dims[name]
        for p in architect(view, dim, fanout, llm) + merges(view, dim, stats, fanout, tau):
            out.append(critic(view, dim, p, stats, w, fanout, max_depth))
    return out
