"""Fixtures of the schema-evolution tests: small generated wikis with a narrow fan-out bound, so
routing levels, splits and merges appear at a size that compiles in a fraction of a second."""

from __future__ import annotations

from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.evolve.replay import replay
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.store.store import Store
from wikikv.testing.evolve_workload import (
    generated_corpus,
    generated_queries,
    generated_workload,
)


def build_generated(
    store: Store,
    name: str,
    seed: int,
    docs: int,
    fanout: int,
    queries: int,
    index: bool = False,
    semantic: bool = True,
) -> KnowledgeBase:
    """A compiled generated wiki with ``queries`` queries recorded: replayed through nav when
    the search index is built, else a generated workload (faster, and the properties do not
    depend on ranking). ``semantic=False`` builds it without evolution (name ranges)."""
    kb = store.create_kb(name)
    corpus = generated_corpus(seed, docs)
    options = CompileOptions(fanout=fanout, index=index, semantic_routing=semantic)
    Compiler(kb, options=options).add(corpus)
    if queries and index:
        replay(kb, generated_queries(corpus, seed, queries))
    elif queries:
        generated_workload(kb, seed, queries)
    return kb


def entity_pages(kb: KnowledgeBase) -> dict[str, str]:
    """Every entity page reachable from the root by listings: path → title."""
    out: dict[str, str] = {}
    for path in kb.walk("/"):
        if path.startswith("/sources"):
            continue
        rec = kb.get(path, follow_redirects=False)
        if isinstance(rec, FileRecord):
            out[path] = rec.meta.title or rec.name
    return out
