"""A save of the page signatures writes what changed since the last save, from the paths set or
removed since then (not by comparing the whole map), and the stored map is always the map."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from wikikv.compile import state
from wikikv.store.backends.base import Delete, Put
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store, open_store


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    store: Store = open_store(f"lmdb://{tmp_path / 's'}?sync=false")
    yield store.create_kb("kb")
    store.close()


def _save(kb: KnowledgeBase, pages: state.PageMap) -> tuple[int, int]:
    ops = state.pages_ops(kb, pages)
    state.write(kb, ops)
    return sum(isinstance(o, Put) for o in ops), sum(isinstance(o, Delete) for o in ops)


def test_a_save_writes_only_the_paths_changed_since_the_last(kb: KnowledgeBase) -> None:
    pages = state.PageMap()
    pages.sigs["/a"] = "1"
    pages.sigs["/b"] = "1"
    assert _save(kb, pages) == (2, 0)
    assert _save(kb, pages) == (0, 0)
    pages.sigs["/a"] = "2"
    pages.sigs["/b"] = "1"  # set again to what is stored: nothing to write
    pages.sigs["/c"] = "1"
    pages.sigs.pop("/c")  # set and removed before any save: nothing stored to delete
    assert _save(kb, pages) == (1, 0)
    del pages.sigs["/b"]
    assert _save(kb, pages) == (0, 1)
    assert state.load_pages(kb).sigs == {"/a": "2"}


def test_a_loaded_map_saves_nothing_until_it_changes(kb: KnowledgeBase) -> None:
    pages = state.PageMap()
    for i in range(5):
        pages.sigs[f"/p{i}"] = "x"
    _save(kb, pages)
    loaded = state.load_pages(kb)
    assert loaded.sigs.touched == {}
    assert _save(kb, loaded) == (0, 0)
    loaded.sigs.pop("/p1")
    loaded.sigs["/p2"] = "y"
    assert _save(kb, loaded) == (1, 1)
    assert state.load_pages(kb).sigs == {"/p0": "x", "/p2": "y", "/p3": "x", "/p4": "x"}


def test_a_lazy_map_saves_what_an_add_changed(kb: KnowledgeBase) -> None:
    pages = state.PageMap()
    pages.sigs["/a"] = "1"
    pages.sigs["/b"] = "1"
    _save(kb, pages)
    lazy = state.load_pages_lazily(kb)
    assert lazy is not None
    assert lazy.sigs.get("/a") == "1"  # read, not changed
    lazy.sigs["/b"] = "2"
    lazy.sigs["/n"] = "1"
    assert _save(kb, lazy) == (2, 0)
    assert state.load_pages(kb).sigs == {"/a": "1", "/b": "2", "/n": "1"}


def test_the_old_one_record_map_is_rewritten_one_record_per_page(kb: KnowledgeBase) -> None:
    old = msgspec.msgpack.encode({"sigs": {"/a": "1", "/b": "2"}})
    state.write(kb, [Put(kb.keys.system(state.PAGES), old)])
    pages = state.load_pages(kb)
    assert _save(kb, pages) == (2, 1)  # both pages keyed, the old record deleted
    assert state.load_pages_lazily(kb) is not None
    assert state.load_pages(kb).sigs == {"/a": "1", "/b": "2"}


def test_the_map_takes_changes_one_path_at_a_time(kb: KnowledgeBase) -> None:
    with pytest.raises(TypeError):
        state.PageMap().sigs.update({"/a": "1"})


class _NoScan(state.Sigs):
    """A map that fails when walked whole (once ``armed``)."""

    armed = False

    def items(self):  # type: ignore[no-untyped-def]
        assert not self.armed, "the save walked the whole map"
        return super().items()

    def __iter__(self):  # type: ignore[no-untyped-def]
        assert not self.armed, "the save walked the whole map"
        return super().__iter__()


def test_a_save_does_not_walk_the_whole_map(kb: KnowledgeBase) -> None:
    sigs = _NoScan()
    pages = state.PageMap(sigs)
    for i in range(100):
        pages.sigs[f"/p{i}"] = "x"
    sigs.armed = True
    assert _save(kb, pages) == (100, 0)
    pages.sigs["/p7"] = "y"
    assert _save(kb, pages) == (1, 0)
    sigs.armed = False
    assert state.load_pages(kb).sigs == {f"/p{i}": "y" if i == 7 else "x" for i in range(100)}
