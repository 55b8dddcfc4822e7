"""Each store has an id, made once in its format record, and its own L2 namespace: two stores
sharing one Redis L2 never serve each other's cached pages, even when their kbs share a name."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from wikikv.cache.wiring import l2_namespace
from wikikv.config import CacheSettings
from wikikv.library import open_store as open_library_store
from wikikv.store.backends.base import ANY, Item
from wikikv.store.backends.memory import MemoryBackend
from wikikv.store.keys import FORMAT_KEY
from wikikv.store.records import FileRecord
from wikikv.store.store import FORMAT_VERSION, FormatInfo, Store, format_info, open_store
from wikikv.testing.services import service_url, unique_name


def _format(backend: MemoryBackend) -> FormatInfo:
    item = backend.get(FORMAT_KEY)
    assert item is not None
    return msgspec.msgpack.decode(item.value, type=FormatInfo)


def test_a_store_gets_its_id_once(tmp_path: Path) -> None:
    with open_store(f"lmdb://{tmp_path}/s") as store:
        first = store.id
    with open_store(f"lmdb://{tmp_path}/s") as store:
        assert store.id == first
    with open_store(f"lmdb://{tmp_path}/other") as other:
        assert other.id != first
    assert len(first) == 32


def test_a_store_made_before_ids_is_named_on_open_and_openers_agree() -> None:
    """Two processes open an id-less store at once: the interleaving is forced (the other opener
    names the store between this one's read and its conditional write); this one must adopt the
    other's id, not overwrite it."""
    backend = MemoryBackend()
    old = FormatInfo(FORMAT_VERSION, 1.0)  # what a store created before ids holds
    backend.put_if(FORMAT_KEY, msgspec.msgpack.encode(old))
    theirs = msgspec.structs.replace(old, store_id="f" * 32)

    class RacingOpener(MemoryBackend):
        raced = False

        def put_if(self, key: bytes, value: bytes, expect: int = ANY) -> int:
            if key == FORMAT_KEY and not self.raced:
                self.raced = True
                backend.put_if(FORMAT_KEY, msgspec.msgpack.encode(theirs))  # the other opener
            return backend.put_if(key, value, expect)

        def get(self, key: bytes) -> Item | None:
            return backend.get(key)

    racing = RacingOpener()
    assert format_info(racing).store_id == "f" * 32
    assert racing.raced
    assert _format(backend).store_id == "f" * 32
    assert Store(backend).id == "f" * 32  # and stays


@pytest.mark.redis
def test_stores_sharing_one_redis_l2_never_share_pages(tmp_path: Path) -> None:
    settings = CacheSettings(
        l2_url=service_url("redis"), l2_namespace=unique_name("l2ns-"), follow=False
    )
    a = open_library_store(f"lmdb://{tmp_path}/a", cache=settings)
    b = open_library_store(f"lmdb://{tmp_path}/b", cache=settings)
    try:
        assert a.id != b.id
        for store, text in ((a, "from store a"), (b, "from store b")):
            store.create_kb("docs").put("/notes/page", text)  # the same kb name, the same path
        for _ in range(2):  # the second round is served by L2 (filled by the first)
            for store, text in ((a, "from store a"), (b, "from store b")):
                rec = store.kb("docs").get("/notes/page")
                assert isinstance(rec, FileRecord)
                assert rec.text == text
        assert l2_namespace(a.backend, settings).endswith(a.id)
    finally:
        a.close()
        b.close()
