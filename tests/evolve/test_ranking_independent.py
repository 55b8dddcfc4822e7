"""Regrouping pages must not reorder the source texts: directories are indexed apart from pages
and texts (their own terms and statistics), and nav's candidate pages are not crowded out by
directory hits. The same wiki, before and after an evolution pass that moves its pages, ranks
the same texts with the same scores."""

from __future__ import annotations

from wikikv.bench.retrieval import nav_ranking
from wikikv.evolve.commit import evolve_pass
from wikikv.query.budget import Budget
from wikikv.query.nav import nav
from wikikv.search import search
from wikikv.search.analysis import IndexKeys
from wikikv.search.index import read_stats
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord
from wikikv.store.store import open_store
from wikikv.testing.evolve_workload import generated_corpus, generated_queries

from .conftest import build_generated

SOURCES = "/sources/"


def directories(kb: KnowledgeBase) -> set[str]:
    return {
        p
        for p in kb.walk("/")
        if not p.startswith("/sources") and isinstance(kb.get(p, follow_redirects=False), DirRecord)
    }


def text_rankings(kb: KnowledgeBase, queries: list[str]) -> dict[str, object]:
    """Per query: the texts search ranks (path, score), the pages and texts a search with
    directories apart returns, and the texts nav reaches in order."""
    out: dict[str, object] = {}
    for q in queries:
        texts = [(h.path, h.score) for h in search(kb, q, limit=10, kinds=("article",))]
        mixed = search(kb, q, limit=8, dir_limit=8)
        sources = [(h.path, h.score) for h in mixed if h.path.startswith(SOURCES)]
        pages = sorted(round(h.score, 9) for h in mixed if h.kind not in ("dir",))
        ranked = nav_ranking(nav(kb, q, Budget(max_reads=24)))
        out[q] = (texts, sources, pages, ranked)
    return out


def test_moving_pages_between_directories_does_not_reorder_the_texts() -> None:
    with open_store("memory://") as store:
        kb = build_generated(store, "g", 3, 90, 10, 40, index=True, semantic=False)
        queries = generated_queries(generated_corpus(3, 90), 5, 30)
        before = text_rankings(kb, queries)
        dirs_before = read_stats(kb.backend, IndexKeys(kb.name))[1]
        listed_before = directories(kb)
        moved = 0
        for _ in range(4):
            report = evolve_pass(kb)
            moved += report.moved
            if not report.committed:
                break
        dirs_after = read_stats(kb.backend, IndexKeys(kb.name))[1]
        # The pass regrouped the wiki: pages moved and the directories changed.
        assert moved > 0
        assert directories(kb) != listed_before
        # Pages and texts keep their statistics, so every text ranks as before.
        assert dirs_after.pages().n == dirs_before.pages().n
        assert dirs_after.pages().total == dirs_before.pages().total
        after = text_rankings(kb, queries)
        for q in queries:
            assert after[q] == before[q], q


def test_directories_are_still_found_by_their_labels() -> None:
    with open_store("memory://") as store:
        kb = build_generated(store, "g", 3, 90, 10, 0, index=True)
        stats = read_stats(kb.backend, IndexKeys(kb.name))[1]
        assert stats.dirs > 0
        dims = [d for d in kb.ls("/").sub_dirs if d != "sources"]
        listed = [d for dim in dims for d in kb.ls_all("/" + dim).sub_dirs]
        assert listed
        label = listed[0]
        hits = search(kb, label.replace("%2F", "/"), limit=5, kinds=("dir",))
        assert any(h.path.endswith("/" + label) for h in hits), (label, hits)
        # A search for texts alone never returns a directory.
        assert all(h.kind == "article" for h in search(kb, label, limit=20, kinds=("article",)))
