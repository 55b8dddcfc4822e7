"""Format 2 keeps a directory's children together in key order; a format 1 store (node keys hashed
from the path alone) is refused with the command that migrates it, and ``wikikv migrate`` moves
every node record, resumably, to a store that reads and checks exactly as before."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from wikikv.errors import FormatError, SimulatedCrash
from wikikv.interfaces.cli import main
from wikikv.store import migrate as mig
from wikikv.store.backends import open_backend
from wikikv.store.backends.base import Backend, Delete, Op, Put
from wikikv.store.fsck import fsck
from wikikv.store.keys import FORMAT_KEY, KBKeys, legacy_node_hash
from wikikv.store.records import DirRecord, FileMeta, FileRecord, RedirectRecord, decode
from wikikv.store.store import FORMAT_VERSION, FormatInfo, open_store

PAGES = {f"/d{d}/p{p}": f"page {d}.{p}" for d in range(4) for p in range(30)}


def _fill(url: str) -> dict[str, object]:
    store = open_store(url)
    for name in ("one", "two"):
        kb = store.create_kb(name)
        for path, text in PAGES.items():
            kb.put(path, text, FileMeta(title=path), create_parents=True)
        kb.move("/d0/p0", "/d0/moved")  # leaves a redirect record
    snapshot = {
        f"{name}:{p}": _view(store.kb(name).get(p, follow_redirects=False))
        for name in ("one", "two")
        for p in [*PAGES, "/", "/d0", "/d0/moved"]
    }
    store.close()
    return snapshot


def _view(rec: object) -> object:
    if isinstance(rec, FileRecord):
        return ("file", rec.text, rec.meta.title)
    if isinstance(rec, DirRecord):
        return ("dir", sorted(rec.sub_dirs), sorted(rec.files))
    if isinstance(rec, RedirectRecord):
        return ("redirect", rec.target)
    return rec


def _to_format_1(backend: Backend) -> int:
    """Rewrite a format 2 store as format 1 wrote it (node keys: the path's hash alone)."""
    moved = 0
    for name in ("one", "two"):
        keys = KBKeys(name)
        start, end = keys.space_range("N")
        items = list(backend.scan(start, end))
        ops: list[Op] = []
        for key, item in items:
            rec = decode(item.value)
            assert isinstance(rec, (DirRecord, FileRecord, RedirectRecord))
            ops += [Delete(key), Put(keys.prefix + b"N" + legacy_node_hash(rec.path), item.value)]
            moved += 1
        backend.batch(ops)
    backend.batch([Put(FORMAT_KEY, msgspec.msgpack.encode(FormatInfo(1, 0.0)))])
    return moved


def test_siblings_are_neighbours_in_key_order() -> None:
    keys = KBKeys("kb")
    siblings = sorted(keys.node(f"/people/p{i}") for i in range(50))
    others = [keys.node(f"/places/q{i}") for i in range(50)]
    assert all(not siblings[0] < k < siblings[-1] for k in others)
    assert len({k[:12] for k in siblings}) == 1  # kb prefix, N, the parent's hash
    assert keys.node("/") != keys.node("/people")


def test_format_1_is_refused_then_migrated(tmp_path: Path) -> None:
    url = f"lmdb://{tmp_path / 's'}"
    before = _fill(url)
    backend = open_backend(url)
    moved = _to_format_1(backend)
    backend.close()
    with pytest.raises(FormatError, match="wikikv migrate"):
        open_store(url)

    result = CliRunner().invoke(main, ["migrate", "--store", url, "--json"])
    assert result.exit_code == 0, result.output
    assert '"from": 1' in result.output
    store = open_store(url)
    after = {
        f"{name}:{p}": _view(store.kb(name).get(p, follow_redirects=False))
        for name in ("one", "two")
        for p in [*PAGES, "/", "/d0", "/d0/moved"]
    }
    assert after == before
    for name in ("one", "two"):
        kb = store.kb(name)
        assert fsck(kb).clean
        kb.put("/d1/p1", "edited", FileMeta(title="edited"))  # writes go on from version 1
        rec = kb.get("/d1/p1")
        assert isinstance(rec, FileRecord)
        assert rec.meta.version == 2
    store.close()
    # Every node record moved: 120 pages, 4 directories, the root and one redirect per kb.
    assert moved == 2 * (len(PAGES) + 4 + 1 + 1)


def test_an_interrupted_migration_finishes_when_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"lmdb://{tmp_path / 's'}"
    before = _fill(url)
    backend = open_backend(url)
    _to_format_1(backend)
    real = backend.batch
    calls = {"n": 0}

    def dies_on_third(ops: list[Op]) -> list[int]:
        calls["n"] += 1
        if calls["n"] == 3:
            raise SimulatedCrash("killed mid-migration")
        return real(ops)

    monkeypatch.setattr(mig, "BATCH", 40)
    monkeypatch.setattr(backend, "batch", dies_on_third)
    with pytest.raises(SimulatedCrash):
        mig.migrate(backend)
    monkeypatch.setattr(backend, "batch", real)
    backend.close()
    with pytest.raises(FormatError):
        open_store(url)  # still format 1 until the migration completes
    backend = open_backend(url)
    report = mig.migrate(backend)
    assert report.from_format == 1
    assert mig.migrate(backend).moved == {}  # already current: nothing to do
    backend.close()
    store = open_store(url)
    for key, view in before.items():
        name, path = key.split(":", 1)
        assert _view(store.kb(name).get(path, follow_redirects=False)) == view
    assert mig.CURRENT_FORMAT == FORMAT_VERSION
    store.close()
