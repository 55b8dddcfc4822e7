"""Bad input gets its typed error and changes nothing: a snapshot of the whole backend (every
key, version and value) taken before each refused call equals the one taken after."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from wikikv.config import MAX_DEPTH, MAX_RECORD_BYTES, MAX_SEGMENT_BYTES
from wikikv.errors import (
    AlreadyExists,
    ConflictError,
    DirectoryNotEmpty,
    InvalidKBName,
    InvalidPath,
    InvalidRecord,
    IsADirectory,
    LeaseHeld,
    NotADirectory,
    NotFound,
    RecordTooLarge,
    UnknownKB,
    WikiKVError,
)
from wikikv.store.backends.base import ABSENT, Item
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import parent
from wikikv.store.records import FileMeta, FileRecord, text_from_bytes
from wikikv.store.store import Store, open_store

Snapshot = list[tuple[bytes, Item]]


@pytest.fixture(params=["memory", "lmdb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = "memory://" if request.param == "memory" else f"lmdb://{tmp_path / 'db'}"
    st = open_store(url)
    kb = st.create_kb("wiki")
    kb.put("/people/ada", "Ada", FileMeta(title="Ada Lovelace"))
    kb.put("/people/alan", "Alan")
    kb.put("/people/alan", "Alan Turing")  # version 2
    kb.mkdir("/empty")
    st.create_kb("other")
    yield st
    st.close()


@pytest.fixture
def kb(store: Store) -> KnowledgeBase:
    return store.kb("wiki")


def snapshot(store: Store) -> Snapshot:
    return list(store.backend.scan(b"", b"\xff\xff\xff\xff"))


E = TypeVar("E", bound=WikiKVError)


def refused(store: Store, call: Callable[[], object], error: type[E]) -> pytest.ExceptionInfo[E]:
    """Run ``call``, expect ``error``, and check that the store did not change."""
    before = snapshot(store)
    assert len(before) > 10
    with pytest.raises(error) as info:
        call()
    assert snapshot(store) == before
    return info


BAD_PATHS: list[tuple[object, str]] = [
    (42, "not-a-string"),
    (None, "not-a-string"),
    (b"/bytes", "not-a-string"),
    ("", "empty"),
    ("people/ada", "relative"),
    ("/people//ada", "empty-segment"),
    ("/people/", "empty-segment"),
    ("/people/./ada", "dot-segment"),
    ("/people/..", "dot-segment"),
    ("/people/a\x00b", "control-character"),
    ("/people/tab\there", "control-character"),
    ("/people/\x7f", "control-character"),
    ("/people/lone\ud800", "surrogate"),
    ("/" + "a" * (MAX_SEGMENT_BYTES + 1), "segment-too-long"),
    ("/" + "字" * (MAX_SEGMENT_BYTES // 3 + 1), "segment-too-long"),
    ("/a" * (MAX_DEPTH + 1), "too-deep"),
]


@pytest.mark.parametrize(("path", "rule"), BAD_PATHS)
def test_invalid_paths_on_writes(store: Store, kb: KnowledgeBase, path: object, rule: str) -> None:
    for call in (
        lambda: kb.put(path, "text"),  # type: ignore[arg-type]
        lambda: kb.mkdir(path),  # type: ignore[arg-type]
        lambda: kb.delete(path),  # type: ignore[arg-type]
        lambda: kb.move("/people/ada", path),  # type: ignore[arg-type]
        lambda: kb.update(path, lambda cur: ("x", None)),  # type: ignore[arg-type]
    ):
        info = refused(store, call, InvalidPath)
        assert info.value.rule == rule
        assert rule in str(info.value)


@pytest.mark.parametrize(("path", "rule"), BAD_PATHS)
def test_invalid_paths_on_reads(store: Store, kb: KnowledgeBase, path: object, rule: str) -> None:
    for call in (
        lambda: kb.get(path),  # type: ignore[arg-type]
        lambda: kb.ls(path),  # type: ignore[arg-type]
        lambda: kb.get_many(["/people/ada", path]),  # type: ignore[list-item]
    ):
        assert refused(store, call, InvalidPath).value.rule == rule


def test_structural_path_rules(store: Store, kb: KnowledgeBase) -> None:
    info = refused(store, lambda: kb.move("/people", "/people/inner"), InvalidPath)
    assert info.value.rule == "move-into-self"
    with pytest.raises(InvalidPath) as root:
        parent("/")
    assert root.value.rule == "root-has-no-parent"


def test_oversized_record(store: Store, kb: KnowledgeBase) -> None:
    huge = "x" * (MAX_RECORD_BYTES + 1)
    info = refused(store, lambda: kb.put("/people/huge", huge), RecordTooLarge)
    assert info.value.limit == MAX_RECORD_BYTES
    assert info.value.size > MAX_RECORD_BYTES
    refused(store, lambda: kb.put("/people/ada", huge), RecordTooLarge)  # an update, too
    refused(store, lambda: kb.set_dir_text("/people", huge), RecordTooLarge)
    refused(
        store,
        lambda: kb.put("/people/ada", "ok", FileMeta(aliases=["a" * MAX_RECORD_BYTES])),
        RecordTooLarge,
    )


def test_non_utf8_payload(store: Store, kb: KnowledgeBase) -> None:
    def upload() -> None:
        kb.put("/people/bad", text_from_bytes(b"caf\xe9 au lait", "upload.md"))

    info = refused(store, upload, InvalidRecord)
    assert "upload.md" in str(info.value)
    assert "UTF-8" in str(info.value)
    # text that cannot be encoded as UTF-8 at all (lone surrogates), in the body or the meta
    refused(store, lambda: kb.put("/people/bad", "lone \udc80"), InvalidRecord)
    refused(store, lambda: kb.put("/people/ada", "ok", FileMeta(aliases=["\ud800"])), InvalidRecord)
    assert text_from_bytes("café".encode(), "ok.md") == "café"


@pytest.mark.parametrize(
    "name", ["", "Wiki", "has space", "-leading", ".dot", "a/b", "x\x00y", "a" * 65, "ümlaut", 7]
)
def test_bad_kb_names(store: Store, name: object) -> None:
    refused(store, lambda: store.create_kb(name), InvalidKBName)  # type: ignore[arg-type]
    refused(store, lambda: store.kb(name), InvalidKBName)  # type: ignore[arg-type]
    refused(store, lambda: store.drop_kb(name), InvalidKBName)  # type: ignore[arg-type]


def test_unknown_kb(store: Store) -> None:
    store.create_kb("tenant-secret")
    info = refused(store, lambda: store.kb("missing"), UnknownKB)
    # It names the kb asked for and no other: over a network interface other kbs are tenants'.
    assert "'missing'" in str(info.value)
    assert "tenant-secret" not in str(info.value)
    assert "known:" not in str(info.value)
    assert isinstance(info.value, NotFound)
    refused(store, lambda: store.drop_kb("missing"), UnknownKB)


def test_stale_versions(store: Store, kb: KnowledgeBase) -> None:
    v = kb.version("/people/alan")
    assert v == 2
    info = refused(store, lambda: kb.put("/people/alan", "stale", expect=1), ConflictError)
    assert (info.value.expected, info.value.actual) == (1, 2)
    refused(store, lambda: kb.put("/people/alan", "exists", expect=ABSENT), ConflictError)
    refused(store, lambda: kb.put("/people/nobody", "absent", expect=3), ConflictError)
    refused(store, lambda: kb.delete("/people/alan", expect=1), ConflictError)
    dv = kb.version("/people")
    refused(store, lambda: kb.set_dir_text("/people", "t", expect=dv - 1), ConflictError)

    def always_stale(cur: object) -> tuple[str, FileMeta | None]:
        kb.put("/people/alan", "a concurrent writer")  # makes every attempt stale ...
        return "mine", None

    before_conflict = kb.version("/people/alan")
    with pytest.raises(ConflictError):
        kb.update("/people/alan", always_stale, retries=3)
    rec = kb.get("/people/alan")
    assert isinstance(rec, FileRecord)
    assert rec.text == "a concurrent writer"  # ... and only its writes landed
    assert kb.version("/people/alan") == before_conflict + 3


def test_wrong_node_kinds(store: Store, kb: KnowledgeBase) -> None:
    refused(store, lambda: kb.put("/people/ada/child", "under a file"), NotADirectory)
    refused(store, lambda: kb.put("/people/ada/deep/child", "under a file"), NotADirectory)
    refused(store, lambda: kb.mkdir("/people/ada/sub"), NotADirectory)
    refused(store, lambda: kb.mkdir("/people/ada"), NotADirectory)
    refused(store, lambda: kb.ls("/people/ada"), NotADirectory)
    refused(store, lambda: kb.move("/people/alan", "/people/ada/alan"), NotADirectory)
    refused(store, lambda: kb.put("/people", "a directory"), IsADirectory)
    refused(store, lambda: kb.put("/", "the root"), IsADirectory)
    refused(store, lambda: kb.delete("/"), IsADirectory)
    refused(store, lambda: kb.delete("/people"), DirectoryNotEmpty)
    refused(store, lambda: kb.mkdir("/empty", exist_ok=False), AlreadyExists)
    refused(store, lambda: kb.move("/people/alan", "/people/ada"), AlreadyExists)


def test_missing_targets(store: Store, kb: KnowledgeBase) -> None:
    refused(store, lambda: kb.delete("/people/nobody"), NotFound)
    refused(store, lambda: kb.move("/people/nobody", "/people/x"), NotFound)
    refused(store, lambda: kb.ls("/nowhere"), NotFound)
    refused(store, lambda: kb.ls("/people", page=3), NotFound)
    refused(store, lambda: kb.put("/new/dir/page", "x", create_parents=False), NotFound)
    refused(store, lambda: kb.set_dir_text("/nowhere", "x"), NotFound)


def test_writes_under_another_jobs_lease(store: Store, kb: KnowledgeBase) -> None:
    other = KnowledgeBase(store, "wiki")  # a second writer of the same kb
    with kb.lease("build", ttl=600):  # no renewal (a version change) during the test
        refused(store, lambda: other.put("/people/ada", "mine"), LeaseHeld)
        refused(store, lambda: other.delete("/people/alan"), LeaseHeld)
        refused(store, lambda: other.mkdir("/new"), LeaseHeld)
        refused(store, lambda: other.lease("evolve"), LeaseHeld)
    other.put("/people/ada", "after the lease")
