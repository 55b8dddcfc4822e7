"""KnowledgeBase behaviour: writes, listings and their pages, prefix, CAS, leases, audit."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from wikikv.config import StoreSettings
from wikikv.errors import (
    AlreadyExists,
    ConflictError,
    CorruptRecord,
    DirectoryNotEmpty,
    InvalidKBName,
    InvalidPath,
    IsADirectory,
    KBExists,
    LeaseHeld,
    NotADirectory,
    NotFound,
    RecordTooLarge,
    UnknownKB,
)
from wikikv.store.backends.base import ABSENT, Put
from wikikv.store.kb import KnowledgeBase
from wikikv.store.lease import Lease
from wikikv.store.records import DirRecord, FileMeta, FileRecord, RedirectRecord
from wikikv.store.store import Store, open_store
from wikikv.testing.stateful import tree_problems


@pytest.fixture(params=["memory", "lmdb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = "memory://" if request.param == "memory" else f"lmdb://{tmp_path}/db?sync=false"
    s = open_store(url)
    yield s
    s.close()


@pytest.fixture
def kb(store: Store) -> KnowledgeBase:
    return store.create_kb("test")


def file_at(kb: KnowledgeBase, path: str) -> FileRecord:
    rec = kb.get(path)
    assert isinstance(rec, FileRecord), path
    return rec


def raw_snapshot(store: Store) -> list[tuple[bytes, int, bytes]]:
    return [(k, i.version, i.value) for k, i in store.backend.scan(b"", b"\xff\xff")]


# ------------------------------------------------------------------ create / update
def test_put_creates_parents_and_lists_child(kb: KnowledgeBase) -> None:
    rec = kb.put("/people/li-bai", "poet", FileMeta(title="Li Bai", aliases=["李白"]))
    assert rec.version == 1
    assert rec.meta.created_at > 0
    assert kb.ls("/").sub_dirs == ["people"]
    assert kb.ls("/people").files == ["li-bai"]
    assert file_at(kb, "/people/li-bai").text == "poet"
    assert kb.exists("/people/li-bai")
    assert kb.version("/people/li-bai") == 1
    assert kb.version("/nothing") == 0
    assert [r.path for r in kb.read_children("/people")] == ["/people/li-bai"]
    assert tree_problems(kb) == []


def test_update_bumps_version_and_keeps_created_at(kb: KnowledgeBase) -> None:
    first = kb.put("/p", "v1")
    second = kb.put("/p", "v2", FileMeta(title="P"))
    assert second.version == 2
    assert second.meta.created_at == first.meta.created_at
    assert file_at(kb, "/p").text == "v2"
    assert kb.ls("/").files == ["p"]  # listed once


def test_get_many_and_skip_on_miss(kb: KnowledgeBase) -> None:
    kb.put("/d/a", "A")
    kb.put("/d/b", "B")
    got = kb.get_many(["/d/a", "/d/missing", "/d/b"])
    assert [r.path if r else None for r in got] == ["/d/a", None, "/d/b"]
    # A child that vanished after the listing was read is dropped, never an error.
    kb.backend.batch([Put(kb.keys.node("/d/c"), b"", ABSENT)])
    kb.backend.delete_if(kb.keys.node("/d/c"))
    listing = kb.ls("/d")
    kb.delete("/d/a")
    assert [r.path for r in kb.get_many(listing.child_paths()) if r] == ["/d/b"]


def test_wrong_kinds_are_refused(kb: KnowledgeBase) -> None:
    kb.put("/f", "file")
    kb.mkdir("/d")
    with pytest.raises(NotADirectory):
        kb.put("/f/child", "x")
    with pytest.raises(NotADirectory):
        kb.mkdir("/f")
    with pytest.raises(IsADirectory):
        kb.put("/d", "x")
    with pytest.raises(IsADirectory):
        kb.put("/", "x")
    with pytest.raises(NotADirectory):
        kb.ls("/f")
    with pytest.raises(NotFound):
        kb.ls("/nothing")
    with pytest.raises(AlreadyExists):
        kb.mkdir("/d", exist_ok=False)
    with pytest.raises(NotFound):
        kb.put("/x/y", "no parents", create_parents=False)
    assert not kb.exists("/x/y")


def test_mkdir_and_dir_text(kb: KnowledgeBase) -> None:
    d = kb.mkdir("/topics", "All topics")
    assert d.text == "All topics"
    assert kb.mkdir("/topics").text == "All topics"  # exist_ok keeps it
    kb.put("/topics/t1", "x")
    updated = kb.set_dir_text("/topics", "Topics, revised")
    assert updated.text == "Topics, revised"
    assert kb.ls("/topics").files == ["t1"]
    with pytest.raises(ConflictError):
        kb.set_dir_text("/topics", "stale", expect=1)


def test_invalid_paths_change_nothing(store: Store, kb: KnowledgeBase) -> None:
    kb.put("/a", "x")
    before = raw_snapshot(store)
    for bad in [
        "",
        "a",
        "/a/",
        "/a//b",
        "/..",
        "/a\x00",
        "/\ud800",
        "/" + "x" * 300,
        "/1/2/3/4/5/6",
    ]:
        with pytest.raises(InvalidPath):
            kb.put(bad, "x")
    assert raw_snapshot(store) == before


def test_oversized_record_is_refused(tmp_path: Path) -> None:
    store = open_store("memory://", StoreSettings(max_record_bytes=4096))
    kb = store.create_kb("small")
    before = raw_snapshot(store)
    with pytest.raises(RecordTooLarge) as info:
        kb.put("/big", "x" * 5000)
    assert info.value.limit == 4096
    assert raw_snapshot(store) == before
    kb.put("/fits", "x" * 3000)


def test_corrupt_record_raises(kb: KnowledgeBase) -> None:
    kb.backend.put_if(kb.keys.node("/bad"), b"\xc1 not msgpack")
    with pytest.raises(CorruptRecord):
        kb.get("/bad")


# -------------------------------------------------------------------- delete
def test_delete(kb: KnowledgeBase) -> None:
    kb.put("/d/a", "A")
    kb.put("/d/e/f", "F")
    with pytest.raises(DirectoryNotEmpty):
        kb.delete("/d")
    kb.delete("/d/a")
    assert kb.get("/d/a") is None
    assert kb.ls("/d").files == []
    with pytest.raises(NotFound):
        kb.delete("/d/a")
    with pytest.raises(IsADirectory):
        kb.delete("/")
    kb.delete("/d", recursive=True)
    assert kb.get("/d/e/f") is None
    assert kb.get("/d") is None
    assert kb.ls("/").sub_dirs == []
    assert kb.prefix("/d") == []
    assert tree_problems(kb) == []


# --------------------------------------------------------------------- move
def test_move_file_leaves_redirect(kb: KnowledgeBase) -> None:
    kb.put("/a/x", "text", FileMeta(title="Ex"))
    kb.move("/a/x", "/b/y")
    moved = file_at(kb, "/b/y")
    assert (moved.text, moved.meta.title, moved.path) == ("text", "Ex", "/b/y")
    assert file_at(kb, "/a/x").path == "/b/y"  # follows the redirect
    red = kb.get("/a/x", follow_redirects=False)
    assert isinstance(red, RedirectRecord)
    assert red.target == "/b/y"
    assert kb.ls("/a").files == []
    assert kb.ls("/b").files == ["y"]
    assert kb.prefix("/a/") == []
    assert kb.prefix("/b/") == ["/b/y"]
    assert {h.path for h in kb.find_names("ex")} == {"/b/y"}
    assert kb.find_names("x", exact=True) == []
    assert tree_problems(kb) == []


def test_move_directory_and_chained_redirects(kb: KnowledgeBase) -> None:
    kb.put("/old/a", "A")
    kb.put("/old/sub/b", "B")
    kb.move("/old", "/new")
    assert sorted(kb.walk("/new")) == ["/new", "/new/a", "/new/sub", "/new/sub/b"]
    assert file_at(kb, "/old/sub/b").path == "/new/sub/b"
    kb.move("/new", "/newer")
    assert file_at(kb, "/old/sub/b").path == "/newer/sub/b"  # two hops
    assert tree_problems(kb) == []


def test_resolve_many_says_what_get_finds_without_decoding_pages(kb: KnowledgeBase) -> None:
    kb.put("/a/x", "x")
    kb.put("/b", "b")
    kb.move("/a/x", "/c/y")
    kb.move("/c/y", "/d/z")  # /a/x -> /c/y -> /d/z: two hops
    kb.put("/e", "e")
    kb.move("/e", "/f")
    kb.delete("/f")  # /e is a redirect to nothing
    paths = ["/a/x", "/b", "/a", "/e", "/missing", "/d/z", "/c/y"]
    assert kb.resolve_many(paths) == [True, True, True, False, False, True, True]
    assert kb.resolve_many(paths) == [kb.get(p) is not None for p in paths]
    assert kb.resolve_many([]) == []


def test_move_without_redirect_and_errors(kb: KnowledgeBase) -> None:
    kb.put("/a", "A")
    kb.put("/b", "B")
    kb.move("/a", "/c", redirect=False)
    assert kb.get("/a", follow_redirects=False) is None
    with pytest.raises(AlreadyExists):
        kb.move("/b", "/c")
    with pytest.raises(NotFound):
        kb.move("/a", "/d")
    kb.mkdir("/dir")
    with pytest.raises(InvalidPath) as info:
        kb.move("/dir", "/dir/inside")
    assert info.value.rule == "move-into-self"
    with pytest.raises(NotADirectory):
        kb.move("/b", "/c/under-a-file")
    assert tree_problems(kb) == []


def test_move_over_depth_bound_changes_nothing(store: Store, kb: KnowledgeBase) -> None:
    kb.put("/a/b/c/d", "deep")
    before = raw_snapshot(store)
    with pytest.raises(InvalidPath) as info:
        kb.move("/a", "/x/y/z")
    assert info.value.rule == "too-deep"
    assert raw_snapshot(store) == before


# ----------------------------------------------------------------- listings
def test_paged_directory(tmp_path: Path) -> None:
    store = open_store("memory://", StoreSettings(dir_page_entries=100))
    kb = store.create_kb("paged")
    names = [f"child-{i:04d}" for i in range(2500)]
    for name in names[:2450]:
        kb.put(f"/big/{name}", name)
    for name in names[2450:]:
        kb.mkdir(f"/big/{name}")
    first = kb.ls("/big")
    assert first.pages == 25
    seen: Counter[str] = Counter()
    for page in range(first.pages):
        listing = kb.ls("/big", page)
        assert len(listing) <= 100
        seen.update(listing.sub_dirs + listing.files)
    assert seen == Counter(names)  # every child exactly once
    for key, item in store.backend.scan(*kb.keys.space_range("D")):
        assert len(item.value) < 100 * 40, key  # bounded by the page size, not the directory
    node = store.backend.get(kb.keys.node("/big"))
    assert node is not None
    assert len(node.value) < 100 * 40
    with pytest.raises(NotFound):
        kb.ls("/big", 25)
    all_children = kb.ls_all("/big")
    assert len(all_children) == 2500
    assert len(kb.read_children("/big", 7)) == 100

    # delete from the first record and from later pages, then add again
    gone = [names[0], names[150], names[1999], names[2499]]
    for name in gone:
        kb.delete(f"/big/{name}")
    listed = kb.ls_all("/big")
    assert sorted(listed.sub_dirs + listed.files) == sorted(set(names) - set(gone))
    assert listed.record.meta.entry_count == 2496
    kb.put("/big/late-arrival", "x")
    kb.put(f"/big/{names[150]}", "back")
    listed = kb.ls_all("/big")
    assert Counter(listed.sub_dirs + listed.files) == Counter(
        [*(set(names) - set(gone)), "late-arrival", names[150]]
    )
    assert tree_problems(kb) == []


# ------------------------------------------------------------------- prefix
def test_prefix_on_paths(kb: KnowledgeBase) -> None:
    for p in ["/a", "/a/x", "/ab", "/ab/y", "/b", "/人物/李白", "/人物/李清照", "/人物/杜甫"]:
        kb.put(p + ("/p" if p in ("/a", "/ab") else ""), "x")
    assert kb.prefix("/a/") == ["/a/p", "/a/x"]
    assert kb.prefix("/a") == ["/a", "/a/p", "/a/x", "/ab", "/ab/p", "/ab/y"]
    assert kb.prefix("/a", limit=2) == ["/a", "/a/p"]
    assert kb.prefix("/人物/李") == ["/人物/李清照", "/人物/李白"]
    assert kb.prefix("/A") == []  # paths are case-sensitive
    assert kb.prefix("/zzz") == []


def test_find_names_folds_case_and_width(kb: KnowledgeBase) -> None:
    kb.put("/people/alice", "x", FileMeta(title="Alice Liddell", aliases=["ＡＬＩＣＥ　Ｌ."]))
    kb.put("/people/bob", "x", FileMeta(title="Bob", aliases=["Robert"]))
    kb.put("/人物/李白", "x", FileMeta(title="Li Bai", aliases=["李太白"]))
    hits = kb.find_names("alice")
    assert {h.path for h in hits} == {"/people/alice"}
    assert {h.name for h in hits} == {"alice", "Alice Liddell", "ＡＬＩＣＥ　Ｌ."}
    assert {h.path for h in kb.find_names("ａｌｉｃｅ l")} == {"/people/alice"}  # width + case
    assert {h.path for h in kb.find_names("ALICE   L")} == {"/people/alice"}  # spaces collapse
    assert [h.path for h in kb.find_names("robert", exact=True)] == ["/people/bob"]
    assert kb.find_names("rob", exact=True) == []
    assert {h.path for h in kb.find_names("李")} == {"/人物/李白"}
    assert {h.name for h in kb.find_names("李")} == {"李白", "李太白"}
    assert len(kb.find_names("", limit=3)) == 3
    kb.put("/people/bob", "x", FileMeta(title="Bobby"))
    assert kb.find_names("robert") == []
    assert [h.name for h in kb.find_names("bobby")] == ["Bobby"]


def test_fold_twins_survive_updates(kb: KnowledgeBase) -> None:
    """The segment ``alice`` and the title ``Alice`` share one name-index key; dropping the
    title must keep the segment's entry."""
    kb.put("/p/alice", "x", FileMeta(title="Alice"))
    kb.put("/p/alice", "x", FileMeta(title="Someone"))
    assert [h.path for h in kb.find_names("alice", exact=True)] == ["/p/alice"]
    kb.put("/p/alice", "x", FileMeta(aliases=["ALICE", "alice"]))
    kb.put("/p/alice", "x", FileMeta())
    assert [h.path for h in kb.find_names("alice", exact=True)] == ["/p/alice"]
    assert tree_problems(kb) == []


# ---------------------------------------------------------------------- CAS
def test_conditional_writes(store: Store, kb: KnowledgeBase) -> None:
    kb.put("/p", "v1", expect=ABSENT)
    with pytest.raises(ConflictError):
        kb.put("/p", "again", expect=ABSENT)
    kb.put("/p", "v2", expect=1)
    before = raw_snapshot(store)
    with pytest.raises(ConflictError) as info:
        kb.put("/p", "stale", expect=1)
    assert (info.value.expected, info.value.actual) == (1, 2)
    with pytest.raises(ConflictError):
        kb.delete("/p", expect=1)
    assert raw_snapshot(store) == before
    assert kb.ls("/").files == ["p"]
    kb.delete("/p", expect=2)
    assert kb.get("/p") is None


def test_update_retries_on_conflict(kb: KnowledgeBase) -> None:
    calls = 0

    def bump(cur: FileRecord | None) -> tuple[str, FileMeta | None]:
        nonlocal calls
        calls += 1
        if calls == 1:  # a concurrent writer sneaks in between our read and our write
            kb.put("/counter", "10")
        return str(int(cur.text if cur else "0") + 1), None

    rec = kb.update("/counter", bump)
    assert calls == 2
    assert rec.text == "11"


def test_update_counter_from_threads(kb: KnowledgeBase) -> None:
    def worker() -> None:
        for _ in range(40):
            kb.update("/counter", lambda c: (str(int(c.text if c else "0") + 1), None), retries=200)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert file_at(kb, "/counter").text == "120"


def test_update_gives_up_after_its_retries(kb: KnowledgeBase) -> None:
    kb.put("/p", "0")

    def always_conflict(cur: FileRecord | None) -> tuple[str, FileMeta | None]:
        kb.put("/p", "moved on")
        return "mine", None

    with pytest.raises(ConflictError):
        kb.update("/p", always_conflict, retries=3)


# -------------------------------------------------------------------- lease
def test_lease_blocks_other_writers(store: Store, kb: KnowledgeBase) -> None:
    other = KnowledgeBase(store, "test")
    with kb.lease("build"):
        kb.put("/mine", "holder writes")
        with pytest.raises(LeaseHeld):
            other.put("/theirs", "x")
        with pytest.raises(LeaseHeld):
            other.mkdir("/d")
        with pytest.raises(LeaseHeld):
            other.delete("/mine")
        with pytest.raises(LeaseHeld):
            other.lease("second job")
        assert other.get("/mine") is not None  # reads are never blocked
    other.put("/theirs", "after release")
    assert kb.exists("/theirs")


def test_lease_of_a_dead_holder_expires(store: Store, kb: KnowledgeBase) -> None:
    other = KnowledgeBase(store, "test")
    lease = kb.lease("build", ttl=0.3)
    # Simulate a killed job: renewals stop, nothing releases the lease.
    lease._stop.set()
    assert lease._thread is not None
    lease._thread.join()
    kb._lease = None
    with pytest.raises(LeaseHeld):
        other.put("/x", "blocked while the lease is live")
    deadline = time.monotonic() + 10
    while True:
        try:
            other.put("/x", "the lease expired")
            break
        except LeaseHeld:
            assert time.monotonic() < deadline, "the lease never expired"
            time.sleep(0.05)
    with other.lease("next job"):
        other.put("/y", "y")


def test_lease_held_write_conflicts_instead_of_interleaving(
    store: Store, kb: KnowledgeBase
) -> None:
    """A lease taken between a writer's lease check and its commit makes the commit fail."""
    other = KnowledgeBase(store, "test")
    real_commit = other.backend.batch
    taken: list[object] = []

    def commit_after_lease(ops: object) -> list[int]:
        if not taken:  # the first commit of `other`: another job takes the lease just before
            taken.append("in progress")
            taken[0] = kb.lease("sneaky")
        return real_commit(ops)  # type: ignore[arg-type]

    other.backend.batch = commit_after_lease  # type: ignore[method-assign]
    try:
        with pytest.raises((ConflictError, LeaseHeld)):
            other.put("/x", "x", expect=ABSENT)
    finally:
        other.backend.batch = real_commit  # type: ignore[method-assign]
        lease = taken[0]
        assert isinstance(lease, Lease)
        lease.release()
    assert kb.get("/x") is None


# ------------------------------------------------------------------- store/kb
def test_kbs_side_by_side(store: Store) -> None:
    a, b = store.create_kb("a"), store.create_kb("b")
    a.put("/p", "in a")
    b.put("/p", "in b")
    assert file_at(a, "/p").text == "in a"
    assert file_at(b, "/p").text == "in b"
    assert store.kbs() == ["a", "b"]
    with pytest.raises(KBExists):
        store.create_kb("a")
    assert store.create_kb("a", exist_ok=True).name == "a"
    assert store.drop_kb("b") > 0
    assert store.kbs() == ["a"]
    assert file_at(a, "/p").text == "in a"


def test_unknown_kb(store: Store) -> None:
    with pytest.raises(UnknownKB) as info:
        store.kb("nope")
    assert isinstance(info.value, NotFound)
    assert "nope" in str(info.value)


@pytest.mark.parametrize("name", ["", "Bad", "-x", ".x", "a/b", "a b", "é", "a" * 65, 7, None])
def test_invalid_kb_names(store: Store, name: object) -> None:
    before = raw_snapshot(store)
    with pytest.raises(InvalidKBName):
        store.create_kb(name)  # type: ignore[arg-type]
    with pytest.raises(InvalidKBName):
        store.kb(name)  # type: ignore[arg-type]
    assert raw_snapshot(store) == before


# -------------------------------------------------------------------- audit
def test_audit_trail(kb: KnowledgeBase) -> None:
    kb.actor = "tester"
    kb.put("/p", "v1")
    kb.put("/p", "v2")
    kb.move("/p", "/q")
    kb.delete("/q")
    entries = kb.audit(limit=None, path_prefix="/")
    mine = [(e.op, e.path, e.old_version, e.new_version) for e in entries if e.actor == "tester"]
    ops_on_pages = [m for m in mine if m[1] in ("/p", "/q")]
    assert ops_on_pages == [
        ("delete", "/q", 1, 0),
        ("move", "/p", 2, 3),
        ("create", "/q", 0, 1),
        ("update", "/p", 1, 2),
        ("create", "/p", 0, 1),
    ]
    assert all(e.ts > 0 for e in entries)
    assert len(kb.audit(limit=2)) == 2
    assert {e.path for e in kb.audit(limit=None, path_prefix="/q")} == {"/q"}


def test_records_are_typed(kb: KnowledgeBase) -> None:
    kb.put("/d/f", "x")
    assert isinstance(kb.get("/d"), DirRecord)
    assert isinstance(kb.get("/d/f"), FileRecord)
