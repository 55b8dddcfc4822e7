"""IASI cold start (WikiKV paper §III-C) and the routing level that keeps the bounds.

On a fixed-size sample of the *filtered* corpus, the provider writes the positioning descriptor
(what the corpus is about, for whom, its bias), then the dimension scaffold from it. The scaffold
meets the fan-out bound by construction (one dimension per entity kind, a handful at most) and the
depth bound (``/<dim>/<entity>``, or ``/<dim>/<range>/<entity>`` once routed: depth 3 of 5).

When a dimension holds more entities than the fan-out bound allows, it gets a *routing level*
of semantic sub-dimensions (:func:`plan_routing`): each entity carries a chain of category labels
read from the corpus (specific first: "American films", "films"; see
:mod:`wikikv.compile.categories`), groups too small to stand alone merge upward into the next
label of their chain and finally into "other <dimension>", groups larger than ``ROUTE_FILL`` of
the bound split along the more specific label. Only when a group still overflows is it cut into
name ranges, and then the label says what the range holds ("films A–K"). The plan is part of the
schema record, so an entity's path does not depend on the order documents arrived in; a
directory that overflows later is re-planned, and the evolution operators (``wikikv evolve``)
refine it further from access statistics.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Mapping, Sequence

import msgspec

from wikikv.compile.variant_groups import fold_variants
from wikikv.config import FANOUT_BOUND, MAX_DEPTH
from wikikv.llm.base import CompileProvider, Descriptor, DimensionSpec, DocInput

SAMPLE_SIZE = 64
ROUTE_FILL = 0.75


class RangeCut(msgspec.Struct):
    """Contiguous name ranges of one over-full group: ``los[i]`` is the smallest key of range i."""

    los: list[str]
    labels: list[str]

    def bucket(self, key: str) -> str:
        i = bisect.bisect_right(self.los, key) - 1
        return self.labels[max(i, 0)]


class RoutingPlan(msgspec.Struct):
    """The routing level of one dimension.

    ``groups`` maps a category label (an element of an entity's chain) to the directory label
    that holds it; an entity goes to the directory of the first label of its chain found there,
    else to ``other``. A directory label in ``cuts`` is split further into name ranges (the
    last resort). ``notes`` describes each directory (what it holds), for its page. The
    legacy range-only form (``los``/``labels``) still decodes and routes by name."""

    los: list[str] = msgspec.field(default_factory=list)
    labels: list[str] = msgspec.field(default_factory=list)
    groups: dict[str, str] = msgspec.field(default_factory=dict)
    other: str = ""
    cuts: dict[str, RangeCut] = msgspec.field(default_factory=dict)
    notes: dict[str, str] = msgspec.field(default_factory=dict)

    def bucket(self, key: str, chain: Sequence[str] = ()) -> str:
        if not self.groups and self.los:
            return RangeCut(self.los, self.labels).bucket(key)
        label = self.other
        for c in chain:
            hit = self.groups.get(c)
            if hit is not None:
                label = hit
                break
        cut = self.cuts.get(label)
        return cut.bucket(key) if cut is not None else label

    def range_labels(self) -> set[str]:
        """The directory labels that name a range of names, not a kind (the last resort)."""
        out = set(self.labels) if not self.groups else set()
        for cut in self.cuts.values():
            out.update(cut.labels)
        return out

    def directories(self) -> list[str]:
        """Every directory label the plan can produce, in first-seen order."""
        # dicts, not a list's `in`: a split "other" maps every label of its members (100k+
        # at 100 MB of corpus) to a few directories, and the routing asks this per round
        out: dict[str, None] = {}
        for label in dict.fromkeys([*self.groups.values(), self.other, *self.labels]):
            cut = self.cuts.get(label)
            for lab in cut.labels if cut is not None else (label,):
                if lab:
                    out[lab] = None
        return list(out)


class Schema(msgspec.Struct):
    """The scaffold of one kb, stored as a system record beside the descriptor."""

    language: str
    fanout: int
    max_depth: int
    dimensions: list[DimensionSpec]
    fallback: str
    routing: dict[str, RoutingPlan] = msgspec.field(default_factory=dict)
    sample_ids: list[str] = msgspec.field(default_factory=list)
    folder_corpus: bool = False
    # False: an overflowing dimension is cut into plain name ranges, as builds were before
    # evolution existed (the "without evolution" wiki of the ablation, ``wikikv bench evolve``);
    # ``wikikv evolve`` then replaces them with semantic sub-dimensions.
    semantic_routing: bool = True

    def dimension_of(self, kind: str) -> str:
        for d in self.dimensions:
            if kind in d.kinds:
                return d.name
        return self.fallback

    def describe(self, name: str) -> str:
        for d in self.dimensions:
            if d.name == name:
                return d.description
        return ""

    def describe_route(self, dim: str, label: str) -> str:
        """What a routing directory holds, in the corpus language (its page's description)."""
        from wikikv.compile.categories import describe_label

        plan = self.routing.get(dim)
        if plan is not None and label in plan.notes:
            return plan.notes[label]
        ranges = plan.range_labels() if plan is not None else set()
        other = plan.other if plan is not None else ""
        return describe_label(dim, label, self.language, label in ranges, label == other)


def sample_documents(docs: Sequence[DocInput], size: int = SAMPLE_SIZE) -> list[DocInput]:
    """A fixed-size sample, the same for the same corpus: the documents with the smallest hash of
    their id (spread across the corpus, independent of its order)."""
    ranked = sorted(docs, key=lambda d: hashlib.blake2b(d.id.encode(), digest_size=8).digest())
    return ranked[:size]


def cold_start(
    provider: CompileProvider,
    sample: Sequence[DocInput],
    kinds: dict[str, int],
    top_entities: Sequence[str],
    documents: int,
    fanout: int = FANOUT_BOUND,
    max_depth: int = MAX_DEPTH,
    folder_corpus: bool = False,
) -> tuple[Descriptor, Schema]:
    """Descriptor first, then the scaffold from it (IASI). ``kinds`` counts the entity kinds seen
    in the sample."""
    descriptor = provider.descriptor(sample, kinds, top_entities, documents)
    scaffold = provider.schema(descriptor, kinds, fanout, max_depth)
    dims = [d for d in scaffold.dimensions if d.name != "sources"][: max(1, fanout - 1)]
    names = {d.name for d in dims}
    fallback = scaffold.fallback if scaffold.fallback in names else dims[-1].name
    schema = Schema(
        language=descriptor.language,
        fanout=fanout,
        max_depth=max_depth,
        dimensions=dims,
        fallback=fallback,
        sample_ids=[d.id for d in sample],
        folder_corpus=folder_corpus,
    )
    return descriptor, schema


def _first(key: str) -> str:
    c = key[:1]
    return "0-9" if c.isdigit() else (c if c.isalnum() else "#")


MIN_GROUP = 3  # a sub-dimension smaller than this merges upward


def other_label(dim: str, lang: str) -> str:
    return f"其他{dim}" if lang == "zh" else f"other {dim}"


def plan_routing(
    keys: Sequence[str],
    fanout: int,
    chains: Mapping[str, Sequence[str]] | None = None,
    dim: str = "",
    lang: str = "en",
    min_group: int = MIN_GROUP,
    cap: int | None = None,
    starts: Mapping[str, int] | None = None,
) -> RoutingPlan:
    """Semantic sub-dimensions for the entities ``keys`` of dimension ``dim`` (module docstring).

    ``chains[key]`` lists the category labels of an entity from the most specific to the most
    general. Each entity starts at the most general label of its chain; a group over
    ``ROUTE_FILL * fanout`` hands the members whose more specific label forms a group of at
    least ``min_group`` to that label; groups under ``min_group`` move to "other <dim>"; the
    smallest groups join "other" too while there are more directories than the bound allows.
    A group that still overflows is cut into name ranges labelled "<group> A–K". ``cap``
    (default ``ROUTE_FILL * fanout``) is the size above which a group is refined: PageSplit
    asks for less; ranges still cut only groups over ``ROUTE_FILL * fanout``."""
    hard = max(2, int(fanout * ROUTE_FILL))
    cap = min(cap or hard, hard)
    chains = chains or {}
    ordered = sorted(set(keys))
    other = other_label(dim, lang) if dim else "other"
    # Each entity starts at ``starts[key]`` on its chain (default: its most general label).
    starts = starts or {}
    level = {k: starts.get(k, len(chains.get(k, ())) - 1) for k in ordered}
    # Refine over-full groups along the chain, most general level first.
    while True:
        members: dict[str, list[str]] = {}
        for k in ordered:
            if level[k] >= 0:
                members.setdefault(chains[k][level[k]], []).append(k)
        refined = False
        for ks in members.values():
            if len(ks) <= cap:
                continue
            finer: dict[str, list[str]] = {}
            for k in ks:
                if level[k] > 0:
                    finer.setdefault(chains[k][level[k] - 1], []).append(k)
            for sub in finer.values():
                if len(sub) >= min_group and len(sub) < len(ks):
                    for k in sub:
                        level[k] -= 1
                    refined = True
        if not refined:
            break
    groups: dict[str, list[str]] = {}
    for k in ordered:
        label = chains[k][level[k]] if level[k] >= 0 else other
        groups.setdefault(label, []).append(k)
    _merge_upward(groups, level, chains, other, min_group)
    # "actors" beside "actors, presenters and entertainers": one group per kind of page
    renames = fold_variants(groups, hard) if lang != "zh" else {}
    while True:
        split = lang != "zh" and len(groups.get(other, ())) > hard
        plan = _cut_plan(ordered, groups, chains, other, dim, fanout, hard, split, renames)
        if split and len(plan.directories()) > fanout:
            # The split's directories would break the bound: ranges, as before it existed.
            plan = _cut_plan(ordered, groups, chains, other, dim, fanout, hard, False, renames)
        if len(plan.directories()) <= fanout or len(groups) <= 1:
            break
        # More directories than the bound: the smallest groups join "other".
        excess = len(plan.directories()) - fanout
        for label in sorted((g for g in groups if g != other), key=lambda g: (len(groups[g]), g))[
            : max(1, excess)
        ]:
            groups.setdefault(other, []).extend(groups.pop(label))
    return plan


def _cut_plan(
    ordered: Sequence[str],
    groups: Mapping[str, Sequence[str]],
    chains: Mapping[str, Sequence[str]],
    other: str,
    dim: str,
    fanout: int,
    hard: int,
    split: bool,
    renames: Mapping[str, str] | None = None,
) -> RoutingPlan:
    """The plan of ``groups`` (an over-full "other" split when ``split``), a group that still
    overflows cut into name ranges; ``renames`` maps a label to the directory that holds it
    (:func:`~wikikv.compile.variant_groups.fold_variants`)."""
    renames = renames or {}
    plan = RoutingPlan(
        other=other, groups={g: renames.get(g, g) for g in sorted(groups) if g != other}
    )
    for label, into in sorted(renames.items()):
        if label not in groups and into in groups and into != other:
            plan.groups[label] = plan.groups[into]
    if split:
        _split_other(plan, groups[other], chains, dim)
    # What the plan routes is what counts: an entity goes to the first label of its chain
    # that is a group, which may be more specific than the one it was counted under.
    routed: dict[str, list[str]] = {}
    for k in ordered:
        routed.setdefault(plan.bucket(k, chains.get(k, ())), []).append(k)
    for label, ks in routed.items():
        if len(ks) > hard:
            plan.cuts[label] = _cut(ks, hard, label)
    if len(plan.directories()) > fanout:
        # Cutting at initials made too many ranges: cut into even ranges instead.
        for label, ks in routed.items():
            if len(ks) > hard:
                plan.cuts[label] = _cut(ks, hard, label, initials=False)
    return plan


def _split_other(
    plan: RoutingPlan, keys: Sequence[str], chains: Mapping[str, Sequence[str]], dim: str
) -> None:
    """An "other" too large for one directory is split by what is known of its members before
    it would be cut into name ranges: those whose own article names a kind no other page
    shares, those only named in articles on other subjects, and the rest (no definition read).
    Their labels are mapped to those directories, so routing stays by chain; a label some
    member outside "other" also carries is left alone (it routes that member)."""
    from wikikv.compile.categories import MENTION_PREFIX, leftover_labels

    own, named = leftover_labels(dim)
    inside = set(keys)
    taken = {c for k, chain in chains.items() if k not in inside for c in chain}
    for k in keys:
        for c in chains.get(k, ()):
            if c not in plan.groups and c not in taken:
                plan.groups[c] = named if c.startswith(MENTION_PREFIX) else own
    plan.notes[own] = f"{dim.capitalize()} whose articles define them as a kind no other page is."
    plan.notes[named] = f"{dim.capitalize()} without an article of their kind, named in articles."


def range_routing(keys: Sequence[str], fanout: int) -> RoutingPlan:
    """The routing level of a build without semantic routing: the dimension's names cut into
    ranges of at most ``ROUTE_FILL`` of the bound, labelled by their first characters only."""
    cut = plan_ranges(keys, max(2, int(fanout * ROUTE_FILL)))
    return RoutingPlan(los=cut.los, labels=cut.labels)


def _merge_upward(
    groups: dict[str, list[str]],
    level: dict[str, int],
    chains: Mapping[str, Sequence[str]],
    other: str,
    min_group: int,
) -> None:
    """Small groups merge upward, smallest first: each member into the first more general label
    of its chain that stands as a group, else into the next more general label (a group formed
    by pooling: "mountaineers" and "boxers" into "athletes and sportspeople"), else into
    ``other``; pooled groups that stay small merge upward in turn."""
    while True:
        small = [
            g
            for g in sorted(groups, key=lambda g: (len(groups[g]), g))
            if g != other and len(groups[g]) < min_group
        ]
        if not small:
            return
        for label in small:
            members = groups.pop(label, None)
            if members is None:
                continue
            for k in members:
                chain = chains.get(k, ())
                rest = [(i, c) for i, c in enumerate(chain) if i > level[k] and c != label]
                up = next(((i, c) for i, c in rest if c in groups), rest[0] if rest else None)
                if up is None:
                    level[k] = len(chain)
                    groups.setdefault(other, []).append(k)
                else:
                    level[k] = up[0]
                    groups.setdefault(up[1], []).append(k)


def _cut(ordered: list[str], cap: int, label: str, initials: bool = True) -> RangeCut:
    """Name ranges of ``ordered`` keys, at most ``cap`` each, labelled "<label> A–K"."""
    ranges = plan_ranges(ordered, cap, initials)
    return RangeCut(ranges.los, [f"{label} {lab}" for lab in ranges.labels])


def plan_ranges(keys: Sequence[str], cap: int, initials: bool = True) -> RangeCut:
    """Cut sorted ``keys`` into ranges of at most ``cap``, preferring (with ``initials``) cuts
    where the first character changes; every range gets a readable label."""
    ordered = sorted(set(keys))
    groups: list[list[str]] = []
    for k in ordered:
        if groups and (not initials or _first(groups[-1][-1]) == _first(k)):
            groups[-1].append(k)
        else:
            groups.append([k])
    chunks: list[list[str]] = []
    for g in groups:
        for i in range(0, len(g), cap):
            part = g[i : i + cap]
            if chunks and len(chunks[-1]) + len(part) <= cap and len(g) <= cap:
                chunks[-1].extend(part)
            else:
                chunks.append(list(part))
    los: list[str] = []
    labels: list[str] = []
    for i, chunk in enumerate(chunks):
        prev_last = chunks[i - 1][-1] if i else ""
        next_first = chunks[i + 1][0] if i + 1 < len(chunks) else ""
        lo = _distinguish(chunk[0], prev_last)
        hi = _distinguish(chunk[-1], next_first)
        los.append(lo if i else "")
        short_lo, short_hi = _label(lo[:3]), _label(hi[:3])
        label = short_lo if short_lo == short_hi else f"{short_lo}–{short_hi}"
        labels.append(_unique(label, labels))
    if not los:
        los, labels = [""], ["all"]
    return RangeCut(los=los, labels=labels)


def _distinguish(key: str, other: str) -> str:
    """The shortest prefix of ``key`` that differs from ``other``'s prefix of the same length."""
    for n in range(1, len(key) + 1):
        if key[:n] != other[:n]:
            return key[:n].strip() or key[:n]
    return key


def _label(text: str) -> str:
    text = text.strip(" ,.;:") or text
    return text[:1].upper() + text[1:] if text.isascii() else text


def _unique(label: str, taken: list[str]) -> str:
    out, n = label, 2
    while out in taken:
        out = f"{label} {n}"
        n += 1
    return out
