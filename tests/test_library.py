"""The library (``wikikv.open_store``): every page write through a kb keeps its search index
current — ``put``, ``update``, ``mkdir``, ``set_dir_text``, ``delete``, ``move``, ``redirect`` —
the cache tiers wrap the backend without the store knowing, and the storage layer opened alone
(``wikikv.store.store.open_store``) leaves the index to its caller."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import wikikv
from wikikv.cache.tiers import CachedBackend
from wikikv.config import CacheSettings
from wikikv.search import search
from wikikv.store.store import open_store as open_storage_only


def _found(kb: wikikv.KnowledgeBase, query: str) -> list[str]:
    return [hit.path for hit in search(kb, query)]


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[wikikv.KnowledgeBase]:
    store = wikikv.open_store(str(tmp_path / "store"))
    yield store.create_kb("lib")
    store.close()


def test_put_and_update_are_searchable_at_once(kb: wikikv.KnowledgeBase) -> None:
    kb.put("/people/Ada", "Ada wrote the first program for the analytical engine.")
    assert _found(kb, "analytical engine") == ["/people/Ada"]
    kb.put("/people/Ada", "Ada studied mathematics with De Morgan.")
    assert _found(kb, "analytical engine") == []
    assert _found(kb, "Morgan") == ["/people/Ada"]
    kb.update("/people/Ada", lambda cur: ("Ada corresponded with Babbage.", None))
    assert _found(kb, "Morgan") == []
    assert _found(kb, "Babbage") == ["/people/Ada"]


def test_delete_drops_the_page_and_its_subtree(kb: wikikv.KnowledgeBase) -> None:
    kb.put("/people/Ada", "Ada and the analytical engine.")
    kb.put("/places/London", "London, where the analytical engine was planned.")
    kb.put("/places/Paris/Louvre", "A museum; no analytical engine here.")
    kb.delete("/people/Ada")
    assert sorted(_found(kb, "analytical engine")) == ["/places/London", "/places/Paris/Louvre"]
    kb.delete("/places", recursive=True)
    assert _found(kb, "analytical engine") == []
    assert _found(kb, "museum") == []


def test_move_reindexes_under_the_new_paths(kb: wikikv.KnowledgeBase) -> None:
    kb.put("/drafts/notes/Engine", "The difference engine computed tables.")
    kb.put("/drafts/Loom", "The Jacquard loom read punched cards.")
    kb.move("/drafts/notes/Engine", "/machines/Engine")
    assert _found(kb, "difference engine") == ["/machines/Engine"]
    kb.move("/drafts", "/archive")
    assert _found(kb, "punched cards") == ["/archive/Loom"]


def test_directories_and_redirects(kb: wikikv.KnowledgeBase) -> None:
    kb.mkdir("/topics", "Topics about calculating machines.")
    assert "/topics" in _found(kb, "calculating machines")
    kb.set_dir_text("/topics", "Topics about weaving.")
    assert "/topics" not in _found(kb, "calculating machines")
    assert "/topics" in _found(kb, "weaving")
    kb.put("/old/Page", "A page about orreries.")
    kb.redirect("/old/Page", "/new/Page")
    assert _found(kb, "orreries") == []


def test_the_storage_layer_alone_leaves_the_index_to_its_caller(tmp_path: Path) -> None:
    """The mechanism can fail: without the library's wiring a write does not reach search."""
    store = open_storage_only(str(tmp_path / "bare"))
    kb = store.create_kb("bare")
    kb.put("/people/Ada", "Ada and the analytical engine.")
    assert _found(kb, "analytical engine") == []
    assert kb.observers == []
    store.close()
    library = wikikv.open_store(str(tmp_path / "bare"), search=False)
    kb = library.kb("bare")
    kb.put("/people/Ada", "Ada and the analytical engine, again.")
    assert _found(kb, "analytical engine") == []
    library.close()


def test_every_handle_on_a_library_store_keeps_search_current(tmp_path: Path) -> None:
    """A second KnowledgeBase object made on the same store (as the HTTP API makes one per
    writer) gets the same upkeep."""
    store = wikikv.open_store(str(tmp_path / "store"))
    store.create_kb("lib")
    view = wikikv.KnowledgeBase(store, "lib")
    view.put("/people/Ada", "Ada and the analytical engine.")
    assert _found(store.kb("lib"), "analytical engine") == ["/people/Ada"]
    store.close()


def test_cache_tiers_wrap_the_backend_and_writes_stay_searchable(tmp_path: Path) -> None:
    store = wikikv.open_store(str(tmp_path / "store"), cache=CacheSettings(follow=True))
    assert isinstance(store.backend, CachedBackend)
    kb = store.create_kb("lib")
    kb.put("/people/Ada", "Ada and the analytical engine.")
    assert kb.get("/people/Ada") is not None
    assert _found(kb, "analytical engine") == ["/people/Ada"]
    assert store.on_close  # the audit follower of the opened kb stops with the store
    store.close()
    assert not store.on_close
