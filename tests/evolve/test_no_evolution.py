"""The wiki without evolution (``CompileOptions(semantic_routing=False)``, the ablation baseline of
``wikikv bench evolve``): an overflowing dimension is cut into plain name ranges, the choice
survives later builds, and evolution passes over that wiki replace the ranges with semantic
sub-dimensions."""

from __future__ import annotations

from wikikv.bench.evolve import semantic_labels
from wikikv.compile import state
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.evolve.commit import evolve_pass
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import unescape_segment
from wikikv.store.records import DirRecord
from wikikv.store.store import open_store
from wikikv.testing.evolve_workload import CATEGORIES, generated_corpus

from .conftest import build_generated, entity_pages

# The plural category nouns the generated lead sentences define their subjects by.
KINDS = {f"{noun}s" for nouns in CATEGORIES.values() for noun in nouns}


def routing_labels(kb: KnowledgeBase) -> dict[str, list[str]]:
    """dimension → the labels of the directories listed under it."""
    schema = state.load_schema(kb)
    assert schema is not None
    out: dict[str, list[str]] = {}
    for dim in schema.routing:
        rec = kb.get("/" + dim)
        assert isinstance(rec, DirRecord)
        out[dim] = [unescape_segment(d) for d in rec.sub_dirs]
    return out


def names_a_kind(label: str) -> bool:
    return any(kind in label for kind in KINDS)


def test_a_build_without_evolution_has_only_name_ranges() -> None:
    with open_store("memory://") as store:
        plain = build_generated(store, "plain", 3, 90, 10, 0, semantic=False)
        default = build_generated(store, "default", 3, 90, 10, 0)
        schema = state.load_schema(plain)
        assert schema is not None
        assert not schema.semantic_routing
        assert schema.routing, "the generated wiki overflows the fan-out bound"
        for dim, labels in routing_labels(plain).items():
            plan = schema.routing[dim]
            assert not plan.groups  # no sub-dimension, only ranges of names
            assert labels
            assert set(labels) <= plan.range_labels()
            assert not any(names_a_kind(label) for label in labels)
        assert semantic_labels(plain)["range_dirs"] > 0
        # The same corpus built by default is routed by kind, not by name.
        assert semantic_labels(default)["range_dirs"] < semantic_labels(plain)["range_dirs"]
        assert any(names_a_kind(lab) for labs in routing_labels(default).values() for lab in labs)
        # Both wikis hold the same entities.
        assert sorted(entity_pages(plain).values()) == sorted(entity_pages(default).values())


def test_later_builds_of_a_wiki_without_evolution_keep_name_ranges() -> None:
    docs = generated_corpus(4, 100)
    with open_store("memory://") as store:
        kb = store.create_kb("k")
        compiler = Compiler(kb, options=CompileOptions(fanout=10, index=False))
        # The choice is the kb's (its schema record), not the options of a later build.
        Compiler(kb, options=CompileOptions(fanout=10, index=False, semantic_routing=False)).add(
            docs[:40]
        )
        compiler.add(docs[40:])
        schema = state.load_schema(kb)
        assert schema is not None
        assert schema.routing
        assert all(not plan.groups for plan in schema.routing.values())


def test_evolution_turns_the_name_ranges_into_semantic_sub_dimensions() -> None:
    with open_store("memory://") as store:
        kb = build_generated(store, "g", 3, 90, 10, 40, index=True, semantic=False)
        before = semantic_labels(kb)
        pages = entity_pages(kb)
        assert before["range_dirs"] > 0
        for _ in range(4):
            if not evolve_pass(kb).committed:
                break
        after = semantic_labels(kb)
        assert after["range_dirs"] < before["range_dirs"]
        assert after["semantic_share"] > before["semantic_share"]
        labels = [lab for labs in routing_labels(kb).values() for lab in labs]
        assert any(names_a_kind(lab) for lab in labels), labels
        # Every entity is still there, each old path resolves.
        assert sorted(entity_pages(kb).values()) == sorted(pages.values())
        for old in pages:
            assert kb.get(old) is not None
