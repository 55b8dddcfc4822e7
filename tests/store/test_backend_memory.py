"""The conformance suite on the in-process backend, checked against its dict directly."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

import pytest

from wikikv.store.backends.base import Backend, Item
from wikikv.store.backends.memory import MemoryBackend
from wikikv.testing import BackendTests


class TestMemoryBackend(BackendTests):
    @pytest.fixture
    def backend(self) -> Iterator[Backend]:
        backend = MemoryBackend()
        yield backend
        backend.close()

    def raw_get(self, backend: Backend, key: bytes) -> tuple[int, bytes] | None:
        assert isinstance(backend, MemoryBackend)
        item = backend._data.get(key)
        return None if item is None else (item.version, item.value)

    def raw_put(self, backend: Backend, key: bytes, value: bytes, version: int) -> None:
        assert isinstance(backend, MemoryBackend)
        if key not in backend._data:
            bisect.insort(backend._keys, key)
        backend._data[key] = Item(version, value)
