"""The bound on aliases per page, and an fsck whose cost does not grow with a page's aliases
squared."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from wikikv.config import StoreSettings
from wikikv.errors import TooManyAliases
from wikikv.store import fsck as fsck_module
from wikikv.store.bulk import BulkWriter
from wikikv.store.fsck import fsck
from wikikv.store.kb import names_of
from wikikv.store.records import FileMeta, NodeRecord
from wikikv.store.store import Store, open_store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(f"lmdb://{tmp_path / 'store'}?sync=false", StoreSettings(max_aliases=5))
    yield s
    s.close()


def _keys(store: Store) -> list[bytes]:
    return [k for k, _ in store.backend.scan(b"", b"\xff" * 8)]


def test_put_over_the_alias_bound_is_refused_and_changes_nothing(store: Store) -> None:
    kb = store.create_kb("wiki")
    kb.put("/p", "page", FileMeta(aliases=[f"a{i}" for i in range(5)]))  # at the bound: fine
    before = _keys(store)
    with pytest.raises(TooManyAliases, match=r"6 aliases, over the bound of 5"):
        kb.put("/p", "page", FileMeta(aliases=[f"a{i}" for i in range(6)]))
    with pytest.raises(TooManyAliases):
        kb.put("/q", "page", FileMeta(aliases=[f"b{i}" for i in range(6)]))
    assert _keys(store) == before


def test_bulk_chunk_over_the_alias_bound_writes_nothing(store: Store) -> None:
    kb = store.create_kb("wiki")
    before = _keys(store)

    def load() -> None:
        with BulkWriter(kb) as bw:
            bw.put_file("/ok", "fine")
            bw.put_file("/many", "page", FileMeta(aliases=[f"a{i}" for i in range(9)]))

    with pytest.raises(TooManyAliases):
        load()
    assert kb.get("/ok") is None
    assert len(_keys(store)) - len(before) <= 1  # at most the lease fence


def test_the_bound_is_configurable(tmp_path: Path) -> None:
    with open_store(f"memory://{tmp_path}", StoreSettings(max_aliases=20_000)) as store:
        kb = store.create_kb("wiki")
        kb.put("/p", "page", FileMeta(aliases=[f"a{i}" for i in range(12_000)]))
        assert len(kb.find_names("a1", exact=False)) > 1000


def test_fsck_reads_each_pages_names_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fsck compared every name-index entry of a page with a fresh list of the page's names:
    quadratic in its aliases (16k aliases: 45 s). Now each page's names are computed a bounded
    number of times, whatever the number of aliases."""
    aliases = 3000
    with open_store(f"memory://{tmp_path}", StoreSettings(max_aliases=aliases)) as store:
        kb = store.create_kb("wiki")
        kb.put("/p", "page", FileMeta(title="P", aliases=[f"alias {i}" for i in range(aliases)]))
        kb.put("/q", "page", FileMeta(title="Q"))
        calls: list[str] = []

        def counting(rec: NodeRecord) -> list[str]:
            calls.append(rec.path)
            return names_of(rec)

        monkeypatch.setattr(fsck_module, "names_of", counting)
        report = fsck(kb)
        assert report.clean
        assert calls.count("/p") <= 3
