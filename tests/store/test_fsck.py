"""fsck: each kind of damage, injected with raw backend writes, is found and repaired without
losing a page; a kb built through the API (moves, redirects, paged directories) is clean."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from wikikv.config import StoreSettings
from wikikv.errors import LeaseHeld
from wikikv.store.backends.base import Delete, Put
from wikikv.store.fsck import REPAIR_OP, FsckReport, fsck
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirPage, DirRecord, FileMeta, FileRecord, decode, encode
from wikikv.store.store import Store, open_store

PAGE_ENTRIES = 4


@pytest.fixture(params=["memory", "lmdb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = "memory://" if request.param == "memory" else f"lmdb://{tmp_path / 'db'}?sync=false"
    st = open_store(url, StoreSettings(dir_page_entries=PAGE_ENTRIES))
    yield st
    st.close()


@pytest.fixture
def kb(store: Store) -> KnowledgeBase:
    kb = store.create_kb("wiki")
    kb.put("/people/ada", "Ada Lovelace", FileMeta(title="Ada Lovelace", aliases=["Countess"]))
    kb.put("/people/alan", "Alan Turing", FileMeta(title="Turing"))
    kb.put("/places/london", "London", FileMeta(aliases=["伦敦"]))
    for i in range(10):  # a paged directory: record + continuation pages
        kb.put(f"/big/p{i}", f"page {i}")
    kb.mkdir("/empty")
    return kb


def pages_of(kb: KnowledgeBase) -> dict[str, str]:
    """Every page reachable through listings, with its text."""
    out = {}
    for p in kb.walk("/"):
        rec = kb.get(p, follow_redirects=False)
        if isinstance(rec, FileRecord):
            out[p] = rec.text
    return out


def raw_record(kb: KnowledgeBase, path: str) -> DirRecord | FileRecord:
    item = kb.backend.get(kb.keys.node(path))
    assert item is not None
    rec = decode(item.value)
    assert isinstance(rec, (DirRecord, FileRecord))
    return rec


def raw_put(kb: KnowledgeBase, key: bytes, value: bytes) -> None:
    kb.backend.batch([Put(key, value)])


def raw_page(kb: KnowledgeBase, path: str, number: int) -> DirPage:
    item = kb.backend.get(kb.keys.dir_page(path, number))
    assert item is not None
    page = decode(item.value)
    assert isinstance(page, DirPage)
    return page


def repair_and_check(kb: KnowledgeBase, must_keep: dict[str, str]) -> FsckReport:
    found = fsck(kb, repair=True)
    assert not found.clean
    assert found.repairs
    assert found.unrepaired == []
    after = fsck(kb)
    assert after.clean, after.to_dict()
    kept = pages_of(kb)
    for path, text in must_keep.items():
        assert kept.get(path) == text, path
    assert any(e.op == REPAIR_OP for e in kb.audit(limit=None))
    return found


def test_api_built_kb_is_clean(kb: KnowledgeBase) -> None:
    kb.move("/people/alan", "/people/turing")  # leaves a redirect: live, not an orphan
    kb.move("/places", "/cities")
    kb.put("/people/ada", "Ada", FileMeta(title="Ada"))  # title change, same-folded segment
    kb.delete("/big/p3")
    kb.delete("/empty")
    report = fsck(kb)
    assert report.clean, report.to_dict()
    assert report.records > 15
    d = report.to_dict()
    assert d["clean"] is True
    assert d["problems"] == 0
    assert fsck(kb, repair=True).repairs == []


def test_dangling_listing(kb: KnowledgeBase) -> None:
    before = pages_of(kb)
    rec = raw_record(kb, "/people")
    assert isinstance(rec, DirRecord)
    rec.files.append("ghost")
    raw_put(kb, kb.keys.node("/people"), encode(rec))
    # and one on a continuation page
    page = raw_page(kb, "/big", 1)
    page.files.append("phantom")
    raw_put(kb, kb.keys.dir_page("/big", 1), encode(page))

    report = fsck(kb)
    assert sorted(report.dangling) == [("/big", "phantom"), ("/people", "ghost")]
    assert not report.clean
    found = repair_and_check(kb, before)
    assert len(found.dangling) == 2
    assert "ghost" not in kb.ls("/people").files


def test_listings_out_of_order(kb: KnowledgeBase) -> None:
    """As a version that listed children as they came left them: found, and put in order."""
    before = pages_of(kb)
    rec = raw_record(kb, "/people")
    assert isinstance(rec, DirRecord)
    assert rec.files == ["ada", "alan"]
    rec.files.reverse()
    raw_put(kb, kb.keys.node("/people"), encode(rec))
    page = raw_page(kb, "/big", 1)
    assert len(page.files) > 1
    page.files.reverse()
    raw_put(kb, kb.keys.dir_page("/big", 1), encode(page))

    assert sorted(fsck(kb).unordered) == [("/big", 1), ("/people", 0)]
    repair_and_check(kb, before)
    assert kb.ls("/people").files == ["ada", "alan"]
    assert kb.ls("/big", 1).files == sorted(page.files, key=lambda n: int(n[1:]))


def test_orphans_with_missing_ancestors(kb: KnowledgeBase) -> None:
    before = pages_of(kb)
    orphan = FileRecord(name="grace", path="/people/grace", text="Grace Hopper")
    deep = FileRecord(name="z", path="/x/y/z", text="deep")
    sub = DirRecord(name="sub", path="/people/sub", files=["leaf"])
    leaf = FileRecord(name="leaf", path="/people/sub/leaf", text="leaf")
    for rec in (orphan, deep, sub, leaf):
        raw_put(kb, kb.keys.node(rec.path), encode(rec))
        raw_put(kb, kb.keys.path_index(rec.path), rec.path.encode())

    report = fsck(kb)
    assert sorted(report.orphans) == ["/people/grace", "/people/sub", "/x/y/z"]
    found = repair_and_check(kb, {**before, "/people/grace": "Grace Hopper", "/x/y/z": "deep"})
    assert "/people/sub/leaf" in pages_of(kb)
    assert kb.ls("/x/y").files == ["z"]
    assert "x" in kb.ls_all("/").sub_dirs
    assert found.name_index_missing  # the raw writes skipped the name index


def test_redirects_are_not_orphans(kb: KnowledgeBase) -> None:
    kb.move("/people/ada", "/people/lovelace")
    item = kb.backend.get(kb.keys.node("/people/ada"))
    assert item is not None
    assert fsck(kb).orphans == []


def test_stray_continuation_pages(kb: KnowledgeBase) -> None:
    before = pages_of(kb)
    rec = raw_record(kb, "/big")
    assert isinstance(rec, DirRecord)
    stray_no = rec.meta.pages + 3
    # a stray page beyond meta.pages whose only child is listed nowhere else
    lost = FileRecord(name="lost", path="/big/lost", text="lost")
    raw_put(kb, kb.keys.node(lost.path), encode(lost))
    raw_put(kb, kb.keys.path_index(lost.path), lost.path.encode())
    stray = DirPage(path="/big", page=stray_no, files=["lost"])
    raw_put(kb, kb.keys.dir_page("/big", stray_no), encode(stray))
    # and a page of a directory that does not exist
    raw_put(kb, kb.keys.dir_page("/nowhere", 1), encode(DirPage(path="/nowhere", page=1)))

    report = fsck(kb)
    assert sorted(report.stray_pages) == [("/big", stray_no), ("/nowhere", 1)]
    assert report.orphans == ["/big/lost"]
    repair_and_check(kb, {**before, "/big/lost": "lost"})
    assert kb.backend.get(kb.keys.dir_page("/big", stray_no)) is None
    assert "/big/lost" in kb.ls_all("/big").child_paths()


def test_path_index_drift(kb: KnowledgeBase) -> None:
    before = pages_of(kb)
    kb.backend.batch([Delete(kb.keys.path_index("/people/ada"))])
    raw_put(kb, kb.keys.path_index("/people/nobody"), b"/people/nobody")
    report = fsck(kb)
    assert report.path_index_missing == ["/people/ada"]
    assert report.path_index_stale == ["/people/nobody"]
    repair_and_check(kb, before)
    assert kb.prefix("/people/") == ["/people/ada", "/people/alan"]


def test_name_index_drift(kb: KnowledgeBase) -> None:
    before = pages_of(kb)
    enc = msgspec.msgpack.Encoder()
    # an alias entry removed, an entry for a page that is gone, and a page whose title changed
    # by a raw write that skipped the index
    kb.backend.batch([Delete(kb.keys.name_index("Countess", "/people/ada"))])
    raw_put(
        kb, kb.keys.name_index("Ghost", "/people/ghost"), enc.encode(("Ghost", "/people/ghost"))
    )
    rec = raw_record(kb, "/people/alan")
    assert isinstance(rec, FileRecord)
    rec.meta.title = "Alan M. Turing"
    raw_put(kb, kb.keys.node("/people/alan"), encode(rec))

    report = fsck(kb)
    assert ("Countess", "/people/ada") in report.name_index_missing
    assert ("Alan M. Turing", "/people/alan") in report.name_index_missing
    assert ("Ghost", "/people/ghost") in report.name_index_stale
    assert ("Turing", "/people/alan") in report.name_index_stale
    repair_and_check(kb, before)
    assert [h.path for h in kb.find_names("countess")] == ["/people/ada"]
    assert [h.path for h in kb.find_names("alan m")] == ["/people/alan"]
    assert kb.find_names("ghost") == []
    assert kb.find_names("turing") == []


def test_undecodable_records(kb: KnowledgeBase) -> None:
    before = pages_of(kb)
    before.pop("/people/alan")
    raw_put(kb, kb.keys.node("/people/alan"), b"\xc1 not msgpack")
    raw_put(kb, kb.keys.dir_page("/big", 9), b"garbage")
    report = fsck(kb)
    assert len(report.undecodable) == 2
    assert ("/big", 9) not in report.stray_pages
    repair_and_check(kb, before)
    # the bytes are kept aside, and the listing no longer advertises the lost record
    quarantined = list(kb.backend.scan(*kb.keys.space_range("S")))
    assert any(item.value == b"\xc1 not msgpack" for _, item in quarantined)
    assert "alan" not in kb.ls("/people").files


def test_report_to_dict_is_plain(kb: KnowledgeBase) -> None:
    rec = raw_record(kb, "/people")
    assert isinstance(rec, DirRecord)
    rec.files.append("ghost")
    raw_put(kb, kb.keys.node("/people"), encode(rec))
    d = fsck(kb).to_dict()
    assert d["dangling"] == [("/people", "ghost")]
    assert d["clean"] is False
    assert d["problems"] == 1
    assert msgspec.json.decode(msgspec.json.encode(d))["kb"] == "wiki"


def test_repair_inside_own_lease_and_refused_under_anothers(
    store: Store, kb: KnowledgeBase
) -> None:
    rec = raw_record(kb, "/people")
    assert isinstance(rec, DirRecord)
    rec.files.append("ghost")
    raw_put(kb, kb.keys.node("/people"), encode(rec))
    other = KnowledgeBase(store, "wiki")
    with kb.lease("build", ttl=600):
        with pytest.raises(LeaseHeld):
            fsck(other, repair=True)
        assert fsck(kb, repair=True).dangling == [("/people", "ghost")]  # the job's own lease
    assert fsck(other).clean
