"""The conformance suite on LMDB, checked against the ``lmdb`` environment itself.

The raw helpers go through the backend's ``lmdb.Environment`` handle rather than a second
``lmdb.open`` of the same directory: LMDB forbids opening one environment twice in a process
(closing either copy would drop the other's file locks). They decode the stored layout — an
8-byte big-endian version, then the payload — independently of the backend's own code.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from wikikv.errors import ConfigError
from wikikv.store.backends import open_backend
from wikikv.store.backends.base import Backend
from wikikv.store.backends.lmdb import LMDBBackend
from wikikv.testing import BackendTests

_VERSION = struct.Struct(">Q")


class TestLMDBBackend(BackendTests):
    @pytest.fixture
    def backend(self, tmp_path: Path) -> Iterator[Backend]:
        # A small map, so the multi-megabyte value test also exercises map growth.
        backend = LMDBBackend(tmp_path / "env", map_size=1 << 20, sync=False)
        yield backend
        backend.close()

    def raw_get(self, backend: Backend, key: bytes) -> tuple[int, bytes] | None:
        assert isinstance(backend, LMDBBackend)
        with backend.env.begin() as txn:
            raw = txn.get(key)
        if raw is None:
            return None
        return _VERSION.unpack_from(raw)[0], bytes(raw[8:])

    def raw_put(self, backend: Backend, key: bytes, value: bytes, version: int) -> None:
        assert isinstance(backend, LMDBBackend)
        with backend.env.begin(write=True) as txn:
            txn.put(key, _VERSION.pack(version) + value)


def test_map_grows_when_full(tmp_path: Path) -> None:
    backend = LMDBBackend(tmp_path / "env", map_size=1 << 16, sync=False)
    try:
        start = backend.map_size()
        for i in range(64):
            backend.put_if(b"suite\x00%03d" % i, b"x" * 4096)
        assert backend.map_size() > start
        assert len(list(backend.scan(b"suite\x00", b"suite\x01"))) == 64
    finally:
        backend.close()


@pytest.mark.parametrize(
    "query", ["map_size=-5", "map_size=0", "map_size=big", "max_readers=-1", "max_readers=1.5"]
)
def test_bad_numeric_url_options_are_clear_errors(tmp_path: Path, query: str) -> None:
    name = query.split("=")[0]
    with pytest.raises(ConfigError, match=f"{name}=.*not a positive integer"):
        open_backend(f"lmdb://{tmp_path}/env?{query}")
    assert not (tmp_path / "env").exists()  # refused before anything was created
