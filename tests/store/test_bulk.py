"""BulkWriter: the same tree as kb.put would build, in large batches, parent-after-child."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from wikikv.config import StoreSettings
from wikikv.errors import IsADirectory, LeaseHeld, NotADirectory, RecordTooLarge
from wikikv.store.backends.base import Op, Put
from wikikv.store.bulk import BulkWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.lease import FENCE_NAME
from wikikv.store.paths import join
from wikikv.store.records import (
    DirPage,
    DirRecord,
    FileMeta,
    FileRecord,
    RedirectRecord,
    decode,
)
from wikikv.store.store import Store, open_store
from wikikv.testing.stateful import tree_problems

SETTINGS = StoreSettings(dir_page_entries=50)


@pytest.fixture(params=["memory", "lmdb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = "memory://" if request.param == "memory" else f"lmdb://{tmp_path}/db?sync=false"
    s = open_store(url, SETTINGS)
    yield s
    s.close()


def sample_pages() -> list[tuple[str, str, FileMeta]]:
    """Pages over a few levels, one directory with several continuation pages, CJK names."""
    pages = []
    for i in range(180):
        pages.append((f"/big/p{i:03d}", f"page {i} " * 40, FileMeta(title=f"Page {i}")))
    for dim in ("人物", "places", "Events"):
        for j in range(12):
            meta = FileMeta(title=f"{dim} {j}", aliases=[f"alias-{dim}-{j}", f"ALIAS-{dim}-{j}"])
            pages.append((f"/{dim}/g{j % 3}/e{j}", f"{dim} entity {j}\n" * 20, meta))
    pages.append(("/a/b/c/d/e", "deep", FileMeta()))
    return pages


def snapshot(kb: KnowledgeBase) -> dict[str, tuple[object, ...]]:
    """Everything observable about a kb, without versions and timestamps."""
    out: dict[str, tuple[object, ...]] = {}
    for path in kb.walk("/"):
        rec = kb.get(path)
        assert rec is not None, path
        if isinstance(rec, DirRecord):
            full = kb.ls_all(path)
            out[path] = ("dir", rec.text, sorted(full.sub_dirs), sorted(full.files))
        else:
            assert isinstance(rec, FileRecord)
            m = rec.meta
            out[path] = ("file", rec.text, m.title, m.aliases, m.kind, m.tags)
    out["<prefix>"] = tuple(kb.prefix("/"))
    out["<names>"] = tuple(sorted((h.name.casefold(), h.path) for h in kb.find_names("")))
    return out


def test_bulk_equals_kb_put(store: Store) -> None:
    one, two = store.create_kb("by-put"), store.create_kb("by-bulk")
    one.mkdir("/places", "All the places")
    for path, text, meta in sample_pages():
        one.put(path, text, meta)
    with BulkWriter(two, job="load", chunk=64) as bw:
        bw.mkdir("/places", "All the places")
        for path, text, meta in sample_pages():
            bw.put_file(path, text, meta)
    assert bw.stats.records == len(sample_pages()) + 1
    assert bw.stats.chunks > 1
    assert tree_problems(two) == []
    assert snapshot(two) == snapshot(one)
    big = two.ls("/big")
    assert big.pages > 1  # 180 children at 50 per record
    assert all(len(two.ls("/big", n)) <= SETTINGS.dir_page_entries for n in range(big.pages))


def test_bulk_into_existing_tree(store: Store) -> None:
    kb = store.create_kb("kb")
    for i in range(70):  # /d already has continuation pages
        kb.put(f"/d/old{i}", "old")
    kb.put("/d/keep", "v1", FileMeta(title="Keep", created_at=123.0))
    with BulkWriter(kb, chunk=25) as bw:
        for i in range(60):
            bw.put_file(f"/d/new{i}", "new")
        bw.put_file("/d/keep", "v2", FileMeta(title="Kept"))
        bw.put_file("/d/old3", "updated")
    assert tree_problems(kb) == []
    full = kb.ls_all("/d")
    assert sorted(full.files) == sorted(
        [f"old{i}" for i in range(70)] + [f"new{i}" for i in range(60)] + ["keep"]
    )
    kept = kb.get("/d/keep")
    assert isinstance(kept, FileRecord)
    assert (kept.text, kept.meta.title, kept.version) == ("v2", "Kept", 2)
    assert kept.meta.created_at == 123.0
    kb.put("/d/other", "o", FileMeta(title="Keeper"))
    assert {h.name for h in kb.find_names("ke")} == {"keep", "Kept", "Keeper"}
    entries = kb.audit(limit=None)
    assert any(e.op == "update" and e.path == "/d/keep" and e.old_version == 1 for e in entries)


def test_bulk_writes_over_a_redirect(store: Store) -> None:
    kb = store.create_kb("kb")
    kb.put("/x/page", "text")
    kb.move("/x", "/y")
    with BulkWriter(kb) as bw:
        bw.put_file("/x/page", "new text")
    assert isinstance(kb.get("/x", follow_redirects=False), DirRecord)
    assert kb.ls_all("/x").files == ["page"]
    assert tree_problems(kb) == []


def test_bulk_holds_the_lease(store: Store) -> None:
    kb = store.create_kb("kb")
    other = KnowledgeBase(store, "kb")
    with BulkWriter(kb, job="build") as bw:
        bw.put_file("/p", "x")
        with pytest.raises(LeaseHeld):
            other.put("/q", "y")
        with pytest.raises(LeaseHeld):
            BulkWriter(other).__enter__()
    other.put("/q", "y")
    assert kb.exists("/p")


@pytest.mark.parametrize(
    ("setup", "writes", "error"),
    [
        (["/f"], [("file", "/f/child")], NotADirectory),
        ([], [("file", "/f"), ("file", "/f/child")], NotADirectory),
        (["/f"], [("dir", "/f")], NotADirectory),
        ([], [("dir", "/d"), ("file", "/d")], None),  # the last write of a path wins
    ],
)
def test_refused_chunk_writes_nothing(
    store: Store, setup: list[str], writes: list[tuple[str, str]], error: type[Exception] | None
) -> None:
    kb = store.create_kb("kb")
    for path in setup:
        kb.put(path, "file")
    before = list(store.backend.scan(*kb.keys.all_range()))
    bw = BulkWriter(kb)
    if error is None:
        with bw:
            for kind, path in writes:
                (bw.mkdir if kind == "dir" else bw.put_file)(path, "")
        assert isinstance(kb.get(writes[-1][1]), FileRecord)
        return
    with bw:
        bw.put_file("/ok", "fine")
        for kind, path in writes:
            (bw.mkdir if kind == "dir" else bw.put_file)(path, "")
        with pytest.raises(error):
            bw.flush()
    # The lease was released too; only its fence stays, by design (its version only grows).
    fence = kb.keys.system(FENCE_NAME)
    after = [kv for kv in store.backend.scan(*kb.keys.all_range()) if kv[0] != fence]
    assert after == before
    assert tree_problems(kb) == []


def test_file_over_directory_is_refused(store: Store) -> None:
    kb = store.create_kb("kb")
    kb.mkdir("/d")
    with BulkWriter(kb) as bw:
        bw.put_file("/d", "x")
        with pytest.raises(IsADirectory):
            bw.flush()
        with pytest.raises(IsADirectory):
            bw.put_file("/", "x")
    assert isinstance(kb.get("/d"), DirRecord)


def test_oversized_record_is_refused(tmp_path: Path) -> None:
    store = open_store("memory://", StoreSettings(max_record_bytes=2000))
    kb = store.create_kb("kb")
    with BulkWriter(kb, chunk=10) as bw:
        bw.put_file("/small", "x")
        bw.put_file("/big", "x" * 5000)
        with pytest.raises(RecordTooLarge):
            bw.flush()
    assert not kb.exists("/small")
    assert not kb.exists("/big")


def test_parents_are_written_after_children(store: Store) -> None:
    """Watch every batch: none lists a child whose record is not written already (or in it)."""
    kb = store.create_kb("kb")
    written = {k for k, _ in store.backend.scan(*kb.keys.space_range("N"))}
    real_batch = store.backend.batch
    batches = 0

    def checking_batch(ops: Sequence[Op]) -> list[int]:
        nonlocal batches
        batches += 1
        mine = {op.key for op in ops if isinstance(op, Put)}
        for op in ops:
            if not isinstance(op, Put) or op.key[len(kb.keys.prefix)] not in b"ND":
                continue
            rec = decode(op.value)
            if isinstance(rec, (DirRecord, DirPage)):
                for name in rec.sub_dirs + rec.files:
                    key = kb.keys.node(join(rec.path, name))
                    assert key in written or key in mine, (rec.path, name)
        result = real_batch(ops)
        written.update(mine)
        return result

    store.backend.batch = checking_batch  # type: ignore[method-assign]
    with BulkWriter(kb, chunk=7) as bw:
        for path, text, meta in sample_pages()[::3]:
            bw.put_file(path, text, meta)
    assert batches > 10
    assert tree_problems(kb) == []


def test_writer_needs_its_context(store: Store) -> None:
    kb = store.create_kb("kb")
    with pytest.raises(RuntimeError):
        BulkWriter(kb).put_file("/p", "x")
    with pytest.raises(ValueError, match="chunk"):
        BulkWriter(kb, chunk=0)


def test_redirect_records_stay_unlisted(store: Store) -> None:
    kb = store.create_kb("kb")
    kb.put("/a/x", "x")
    kb.move("/a/x", "/a/y")
    with BulkWriter(kb) as bw:
        bw.put_file("/a/z", "z")
    assert isinstance(kb.get("/a/x", follow_redirects=False), RedirectRecord)
    assert sorted(kb.ls_all("/a").files) == ["y", "z"]
    assert tree_problems(kb) == []


@pytest.mark.parametrize("collecting", [True, False])
def test_a_flush_leaves_the_collector_as_it_found_it(store: Store, collecting: bool) -> None:
    """A flush pauses the cyclic garbage collector (see BulkWriter.flush) and must hand it back
    in the state it found, also when the chunk is refused."""
    import gc

    kb = store.create_kb("gc")
    seen: list[bool] = []
    real = BulkWriter._write_records

    def spy(self: BulkWriter, items: Sequence[tuple[str, object]]) -> object:
        seen.append(gc.isenabled())
        return real(self, items)  # type: ignore[arg-type]

    was = gc.isenabled()
    (gc.enable if collecting else gc.disable)()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(BulkWriter, "_write_records", spy)
            with BulkWriter(kb, job="gc", chunk=2) as bw:
                bw.put_file("/a/x", "x")
                bw.put_file("/a/y", "y")
            assert gc.isenabled() is collecting
            with pytest.raises(NotADirectory), BulkWriter(kb, job="gc") as bw:
                bw.put_file("/a/x/under-a-file", "z")
            assert gc.isenabled() is collecting
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [False, False]  # paused while the chunks were written
    assert kb.get("/a/y") is not None
