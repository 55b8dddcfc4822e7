"""Properties of evolution passes over generated wikis and workloads (hypothesis): J never
increases across passes, every entity reachable before a pass is reachable after, old paths
resolve through redirects, and a killed pass resumes to the result of an uninterrupted one."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from wikikv.bench.compile import snapshot
from wikikv.errors import SimulatedCrash
from wikikv.evolve.commit import evolve_pass, load_journal
from wikikv.evolve.cost import Weights, schema_terms, total
from wikikv.evolve.layout import load_view
from wikikv.store.access_stats import load_stats
from wikikv.store.fsck import fsck
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord, RedirectRecord
from wikikv.store.store import open_store

from .conftest import build_generated, entity_pages

SETTINGS = settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def actual_j(kb: KnowledgeBase) -> float:
    w = Weights()
    return total(schema_terms(load_view(kb), load_stats(kb), w), w)["J"]


@SETTINGS
@given(
    seed=st.integers(0, 10_000),
    docs=st.integers(40, 110),
    fanout=st.sampled_from([10, 16, 24]),
    queries=st.integers(0, 80),
    semantic=st.booleans(),  # built with semantic routing, or without evolution (name ranges)
)
def test_passes_never_raise_j_and_keep_every_entity_reachable(
    seed: int, docs: int, fanout: int, queries: int, semantic: bool
) -> None:
    with open_store("memory://") as store:
        kb = build_generated(store, "g", seed, docs, fanout, queries, semantic=semantic)
        j = actual_j(kb)
        before = entity_pages(kb)
        titles = sorted(before.values())
        for _ in range(3):
            report = evolve_pass(kb, max_ops=3, index=False)
            now = actual_j(kb)
            assert now <= j + 1e-6, f"J rose from {j} to {now}"
            if report.committed:
                assert now < j  # every committed operator had ΔJ < 0
                assert now == pytest.approx(report.j_after, abs=1e-6)  # the Critic is exact
            j = now
            after = entity_pages(kb)
            assert sorted(after.values()) == titles  # the same entities, all reachable
            for old, title in before.items():  # old paths resolve (through redirects)
                rec = kb.get(old)
                assert isinstance(rec, FileRecord)
                assert (rec.meta.title or rec.name) == title
            assert fsck(kb).clean
            if not report.committed:
                break


@SETTINGS
@given(seed=st.integers(0, 10_000), kill_after=st.integers(1, 60), semantic=st.booleans())
def test_a_killed_pass_resumes_to_the_same_result(
    seed: int, kill_after: int, semantic: bool
) -> None:
    with open_store("memory://") as store:
        whole = build_generated(store, "whole", seed, 60, 10, 60, semantic=semantic)
        killed = build_generated(store, "killed", seed, 60, 10, 60, semantic=semantic)
        done = evolve_pass(whole, max_ops=4, index=False)
        assume(done.committed)  # a wiki the pass leaves alone proves nothing here
        try:
            evolve_pass(killed, max_ops=4, fail_after=kill_after, index=False)
        except SimulatedCrash:
            journal = load_journal(killed)
            assert journal is not None
            assert journal.state != "done"
            resumed = evolve_pass(killed, max_ops=4, index=False)
            assert resumed.resumed
        assert tree(killed) == tree(whole)
        assert redirects(killed) == redirects(whole)
        assert load_stats(killed).access == load_stats(whole).access


def tree(kb: KnowledgeBase) -> dict[str, object]:
    """Every node's content, without the root (its title is the kb's name)."""
    return {p: v for p, v in snapshot(kb).items() if p != "/"}


def redirects(kb: KnowledgeBase) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in _all_paths(kb):
        rec = kb.get(path, follow_redirects=False)
        if isinstance(rec, RedirectRecord):
            out[path] = rec.target
    return out


def _all_paths(kb: KnowledgeBase) -> list[str]:
    """Every path a redirect could sit at: the entity and directory paths any journal moved."""
    journal = load_journal(kb)
    if journal is None:
        return []
    return [old for old, _ in journal.moves] + [d for d, _ in journal.dir_redirects]
