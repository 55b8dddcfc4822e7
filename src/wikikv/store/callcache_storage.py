"""The kb's reserved ``C`` keyspace as storage for the LLM call cache
(:class:`wikikv.llm.callcache.CacheStorage`)::

    <kb>\\0 C r <64 hex key>                      → JSON {result, usage, model, prompt_version}
    <kb>\\0 C d <doc id UTF-8> \\0 <64 hex key>    → b"" (erasure index)

It is written with plain backend batches (so it never appears in ls, prefix or fsck walks), and
erased with the kb. It satisfies the protocol structurally: the store does not import the LLM
package, and the LLM package does not import the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from wikikv.store.backends.base import Backend, Delete, Put, prefix_end
from wikikv.store.keys import KBKeys

_ERASE_BATCH = 256


class BackendCacheStorage:
    """Storage in a kb's ``C`` keyspace of a WikiKV backend (shared by every process that opens
    the store, and erased with the kb)."""

    def __init__(self, backend: Backend, kb: str) -> None:
        self.backend = backend
        base = KBKeys(kb).space("C")
        self._resp = base + b"r"
        self._doc = base + b"d"

    @classmethod
    def for_kb(cls, kb: Any) -> BackendCacheStorage:
        """Storage for an open :class:`~wikikv.store.kb.KnowledgeBase`."""
        return cls(kb.backend, kb.name)

    def _doc_prefix(self, doc_id: str) -> bytes:
        return self._doc + doc_id.encode("utf-8") + b"\x00"

    def load(self, key: str) -> bytes | None:
        item = self.backend.get(self._resp + key.encode("ascii"))
        return None if item is None else item.value

    def save(self, key: str, value: bytes, doc_ids: Sequence[str]) -> None:
        ops = [Put(self._resp + key.encode("ascii"), value)]
        ops += [Put(self._doc_prefix(d) + key.encode("ascii"), b"") for d in doc_ids]
        self.backend.batch(ops)

    def erase_documents(self, doc_ids: Iterable[str]) -> int:
        deleted = 0
        for doc_id in doc_ids:
            start = self._doc_prefix(doc_id)
            index_keys = [k for k, _ in self.backend.scan(start, prefix_end(start))]
            for i in range(0, len(index_keys), _ERASE_BATCH):
                chunk = index_keys[i : i + _ERASE_BATCH]
                resp_keys = [self._resp + k[len(start) :] for k in chunk]
                present = self.backend.get_many(resp_keys)
                deleted += sum(1 for item in present if item is not None)
                ops = [Delete(k) for k in chunk] + [
                    Delete(k) for k, item in zip(resp_keys, present, strict=True) if item
                ]
                self.backend.batch(ops)
        return deleted

    def count(self) -> int:
        return sum(1 for _ in self.backend.scan(self._resp, prefix_end(self._resp)))
