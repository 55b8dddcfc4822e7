"""Content-addressed cache of LLM responses: a rerun with the same inputs makes zero calls.

The key is the SHA-256 of the canonical JSON of (model, prompt version, messages, schema), so
any change to the model, the prompt, the document text or the schema misses. Every entry also
records the ids of the documents its prompt was made from, in an index from document id to cache
keys: erasing a document (``remove``) deletes every response made from it — erasure means erased.

Storage is pluggable behind the small :class:`CacheStorage` protocol: :class:`MemoryCacheStorage`
for tests and one-off runs, and :class:`wikikv.store.callcache_storage.BackendCacheStorage`,
which keeps entries in a kb's reserved ``C`` keyspace (this package imports neither the store
nor the compiler).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from wikikv.llm.types import ChatMessage, JSONObject, Usage


def cache_key(
    model: str, prompt_version: str, messages: Sequence[ChatMessage], schema: JSONObject
) -> str:
    """SHA-256 hex of the canonical JSON of everything that determines a response."""
    payload = {
        "model": model,
        "prompt_version": prompt_version,
        "messages": [m.to_wire() for m in messages],
        "schema": schema,
    }
    raw = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


class CacheStorage(Protocol):
    """Where cached responses live."""

    def load(self, key: str) -> bytes | None: ...

    def save(self, key: str, value: bytes, doc_ids: Sequence[str]) -> None: ...

    def erase_documents(self, doc_ids: Iterable[str]) -> int:
        """Delete every response made from one of ``doc_ids``; return how many were deleted."""
        ...

    def count(self) -> int: ...


class MemoryCacheStorage:
    """In-process storage (thread-safe)."""

    def __init__(self) -> None:
        self._values: dict[str, bytes] = {}
        self._by_doc: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def load(self, key: str) -> bytes | None:
        with self._lock:
            return self._values.get(key)

    def save(self, key: str, value: bytes, doc_ids: Sequence[str]) -> None:
        with self._lock:
            self._values[key] = value
            for doc_id in doc_ids:
                self._by_doc.setdefault(doc_id, set()).add(key)

    def erase_documents(self, doc_ids: Iterable[str]) -> int:
        deleted = 0
        with self._lock:
            for doc_id in doc_ids:
                for key in self._by_doc.pop(doc_id, set()):
                    if self._values.pop(key, None) is not None:
                        deleted += 1
        return deleted

    def count(self) -> int:
        with self._lock:
            return len(self._values)


@dataclass(frozen=True)
class CachedResponse:
    """A stored answer and what it cost when it was first obtained."""

    result: JSONObject
    usage: Usage


class CallCache:
    """Look up and store role-call answers by content key."""

    def __init__(self, storage: CacheStorage | None = None) -> None:
        self.storage: CacheStorage = storage if storage is not None else MemoryCacheStorage()
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedResponse | None:
        raw = self.storage.load(key)
        entry = _decode(raw) if raw is not None else None
        with self._lock:
            if entry is None:
                self.misses += 1
            else:
                self.hits += 1
        return entry

    def put(
        self,
        key: str,
        result: JSONObject,
        usage: Usage,
        doc_ids: Sequence[str],
        model: str = "",
        prompt_version: str = "",
    ) -> None:
        payload = {
            "result": result,
            "usage": usage.to_dict(),
            "model": model,
            "prompt_version": prompt_version,
            "documents": list(doc_ids),
        }
        raw = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")
        self.storage.save(key, raw, list(doc_ids))

    def erase_documents(self, doc_ids: Iterable[str]) -> int:
        """Delete every cached response made from one of ``doc_ids``."""
        return self.storage.erase_documents(doc_ids)

    def __len__(self) -> int:
        return self.storage.count()


def _decode(raw: bytes) -> CachedResponse | None:
    """A stored entry, or None when it does not decode (treated as a miss and overwritten)."""
    try:
        data = json.loads(raw)
        result = data["result"]
        usage = Usage.from_dict(data.get("usage", {}))
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(result, dict):
        return None
    return CachedResponse(result, usage)
