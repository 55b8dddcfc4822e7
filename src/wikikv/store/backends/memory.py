"""An in-process sorted-dict backend: the reference model for tests and a scratch store."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterator, Sequence

from wikikv.store.backends.base import (
    ANY,
    Backend,
    Check,
    Delete,
    Item,
    Op,
    Put,
    check_expect,
)


class MemoryBackend(Backend):
    scheme = "memory"
    shared_across_processes = False

    def __init__(self) -> None:
        self._data: dict[bytes, Item] = {}
        self._keys: list[bytes] = []
        self._lock = threading.RLock()

    # docstring inherited
    def get(self, key: bytes) -> Item | None:
        return self._data.get(key)

    def get_many(self, keys: Sequence[bytes]) -> list[Item | None]:
        with self._lock:
            return [self._data.get(k) for k in keys]

    def put_if(self, key: bytes, value: bytes, expect: int = ANY) -> int:
        return self.batch([Put(key, value, expect)])[0]

    def delete_if(self, key: bytes, expect: int = ANY) -> bool:
        with self._lock:
            existed = key in self._data
            self.batch([Delete(key, expect)])
            return existed

    def scan(
        self, start: bytes, end: bytes, limit: int | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, Item]]:
        with self._lock:
            lo = bisect.bisect_left(self._keys, start)
            hi = bisect.bisect_left(self._keys, end)
            keys = self._keys[lo:hi]
            if reverse:
                keys.reverse()
            if limit is not None:
                keys = keys[:limit]
            items = [(k, self._data[k]) for k in keys]
        yield from items

    def batch(self, ops: Sequence[Op]) -> list[int]:
        with self._lock:
            # Check every condition against the state as the batch's earlier ops leave it.
            shadow: dict[bytes, int | None] = {}
            for op in ops:
                cur = shadow[op.key] if op.key in shadow else _version(self._data.get(op.key))
                check_expect(op.key, op.expect, cur)
                if isinstance(op, Put):
                    shadow[op.key] = (cur or 0) + 1
                elif isinstance(op, Delete):
                    shadow[op.key] = None
            out: list[int] = []
            for op in ops:
                if isinstance(op, Put):
                    cur_item = self._data.get(op.key)
                    version = (cur_item.version if cur_item else 0) + 1
                    if cur_item is None:
                        bisect.insort(self._keys, op.key)
                    self._data[op.key] = Item(version, bytes(op.value))
                    out.append(version)
                elif isinstance(op, Delete):
                    if self._data.pop(op.key, None) is not None:
                        del self._keys[bisect.bisect_left(self._keys, op.key)]
                    out.append(0)
                elif isinstance(op, Check):
                    out.append(0)
            return out


def _version(item: Item | None) -> int | None:
    return None if item is None else item.version
