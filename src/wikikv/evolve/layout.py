"""The navigational tree of a kb as the evolution operators see it: per dimension, its entities
(key, category chain, current path) and its routing plan; :func:`route` places the entities of a
dimension under any plan, so the Critic can price a plan before anything is written."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import msgspec

from wikikv.compile import categories, state
from wikikv.compile.model import DocAnalysis, Model, derive
from wikikv.compile.schema import RoutingPlan, Schema
from wikikv.errors import NotFound
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import escape_segment


@dataclass
class Member:
    key: str
    name: str
    chain: list[str]
    path: str


@dataclass
class DimView:
    name: str
    members: list[Member] = field(default_factory=list)
    plan: RoutingPlan | None = None

    @property
    def top(self) -> str:
        return "/" + escape_segment(self.name)


@dataclass
class View:
    schema: Schema
    dims: dict[str, DimView]
    model: Model
    docs: dict[str, DocAnalysis]

    @property
    def language(self) -> str:
        return self.schema.language


def copy_schema(schema: Schema) -> Schema:
    return msgspec.msgpack.decode(msgspec.msgpack.encode(schema), type=Schema)


def load_view(kb: KnowledgeBase, schema: Schema | None = None) -> View:
    """Derive the kb's entities from its stored analyses under ``schema`` (default: stored)."""
    docs = state.load_docs(kb)
    stored = schema or state.load_schema(kb)
    if stored is None:
        raise NotFound(f"kb {kb.name!r} has not been compiled (no schema record)")
    work = copy_schema(stored)
    model = derive(docs, work)
    return view_of(model, docs, work)


def view_of(model: Model, docs: dict[str, DocAnalysis], schema: Schema) -> View:
    cats = categories.doc_categories(docs)
    dims: dict[str, DimView] = {}
    by_dim: dict[str, list[Member]] = defaultdict(list)
    for ent in model.entities.values():
        chain = categories.entity_chain(ent, docs, cats, schema.language)
        by_dim[ent.dim].append(Member(ent.key, ent.name, chain, ent.path))
    for dim, members in by_dim.items():
        members.sort(key=lambda m: m.key)
        dims[dim] = DimView(dim, members, schema.routing.get(dim))
    return View(schema, dims, model, docs)


def route(view: DimView, plan: RoutingPlan | None) -> dict[str, str]:
    """entity key → directory label under ``plan`` ("" = directly in the dimension)."""
    if plan is None:
        return {m.key: "" for m in view.members}
    return {m.key: plan.bucket(m.key, m.chain) for m in view.members}


def dir_path(dim: DimView, label: str) -> str:
    return dim.top + ("/" + escape_segment(label) if label else "")
