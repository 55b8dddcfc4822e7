"""The schema cost J (WikiKV paper §III-B, eq. 1), computed from the stored access statistics.

    J = α·storage + β·descent − γ·quality, summed over the dimensions (the root is the same for
    every routing, so it only adds a constant).

- **storage**: records of the navigational tree — the dimension directory, its routing
  directories and its entity pages (each one key-value record).
- **descent** (access-weighted descent depth): each entity page weighs ``λ + reads`` (every page
  counts a little even when nobody read it yet, so a fresh wiki still has a shape), and pays for
  every directory on its way down ``1 + fan-out / F0`` — one step, plus scanning the listing
  (``F0`` entries read as one unit). A query that used two sibling directories together pays the
  parent's listing once more (what DimensionMerge saves).
- **quality**: the weight of entity pages whose every ancestor directory is labelled by what it
  holds rather than by a range of names (a label a reader or agent can route on).

Defaults: α = 1, β = 1, γ = 2, λ = 1, F0 = 32. With them a directory of 40 children is not
worth splitting into four of ten (ΔJ > 0), one of 150 is, and naming a range's pages is worth up
to two listing scans each.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

from wikikv.compile.schema import RoutingPlan
from wikikv.evolve.layout import DimView, View, dir_path, route
from wikikv.store.access_stats import AccessStats, pair_key


@dataclass(frozen=True)
class Weights:
    alpha: float = 1.0
    beta: float = 1.0
    gamma: float = 2.0
    prior: float = 1.0  # λ
    scan: float = 32.0  # F0

    def listing(self, fanout: int) -> float:
        return 1.0 + fanout / self.scan


@dataclass
class Terms:
    storage: float = 0.0
    descent: float = 0.0
    quality: float = 0.0
    entities: int = 0
    directories: int = 0
    max_fanout: int = 0
    range_dirs: int = 0
    semantic_share: float = 0.0

    def j(self, w: Weights) -> float:
        return w.alpha * self.storage + w.beta * self.descent - w.gamma * self.quality

    def to_dict(self, w: Weights) -> dict[str, float]:
        out = asdict(self)
        out["J"] = round(self.j(w), 3)
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}


def dim_terms(
    dim: DimView, plan: RoutingPlan | None, stats: AccessStats, w: Weights, root_fanout: int = 0
) -> Terms:
    """The terms of one dimension routed by ``plan`` (not necessarily its current one)."""
    labels = route(dim, plan)
    sizes = Counter(labels.values())
    ranges = plan.range_labels() if plan is not None else set()
    sub = [lab for lab in sizes if lab]
    fan_dim = len(sub) + sizes.get("", 0)
    c_root = w.listing(root_fanout) if root_fanout else 0.0
    c_dim = w.listing(fan_dim)
    t = Terms(entities=len(dim.members), directories=1 + len(sub))
    t.storage = 1 + len(sub) + len(dim.members)
    t.max_fanout = max([fan_dim, *sizes.values()]) if sizes else fan_dim
    t.range_dirs = sum(1 for lab in sub if lab in ranges)
    access = stats.access
    semantic_w = total_w = 0.0
    for m in dim.members:
        weight = w.prior + access.get(m.path, 0)
        lab = labels[m.key]
        cost = c_root + c_dim + (w.listing(sizes[lab]) if lab else 0.0)
        t.descent += weight * cost
        total_w += weight
        if lab not in ranges:
            semantic_w += weight
    t.quality = semantic_w
    t.semantic_share = semantic_w / total_w if total_w else 1.0
    # Sibling directories used together by one query: the dimension's listing is read again.
    if stats.co and sub:
        paths = sorted(dir_path(dim, lab) for lab in sub)
        for i, a in enumerate(paths):
            for b in paths[i + 1 :]:
                n = stats.co.get(pair_key(a, b), 0)
                if n:
                    t.descent += n * c_dim
    return t


def schema_terms(
    view: View, stats: AccessStats, w: Weights, plans: dict[str, RoutingPlan | None] | None = None
) -> dict[str, Terms]:
    """Terms per dimension; ``plans`` overrides some dimensions' plans."""
    plans = plans or {}
    root_fanout = len(view.dims) + 1  # + /sources
    out: dict[str, Terms] = {}
    for name, dim in sorted(view.dims.items()):
        plan = plans[name] if name in plans else dim.plan
        out[name] = dim_terms(dim, plan, stats, w, root_fanout)
    return out


def total(terms: dict[str, Terms], w: Weights) -> dict[str, float]:
    s = sum(t.storage for t in terms.values())
    d = sum(t.descent for t in terms.values())
    q = sum(t.quality for t in terms.values())
    n = sum(t.entities for t in terms.values())
    return {
        "J": round(w.alpha * s + w.beta * d - w.gamma * q, 3),
        "storage": s,
        "descent": round(d, 3),
        "quality": round(q, 3),
        "entities": n,
        "semantic_share": round(
            sum(t.semantic_share * t.entities for t in terms.values()) / n if n else 1.0, 4
        ),
    }
