"""A build's page writes: through the store's bulk writer when it offers one (which holds the
kb's lease for its life), through the kb API under the lease otherwise; a test's simulated crash
after a number of writes."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from wikikv.errors import SimulatedCrash
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta


class PageWriter:
    """Page writes: BulkWriter when the store offers it, the kb API otherwise."""

    def __init__(self, kb: KnowledgeBase, job: str, fail_after: int | None) -> None:
        self.kb = kb
        self.job = job
        self.count = 0
        self.fail_after = fail_after
        self._bulk: Any = None
        self._lease: Any = None

    def __enter__(self) -> PageWriter:
        """Take the kb's lease: through BulkWriter (which holds it for its life) when the store
        offers one, directly otherwise."""
        try:
            from wikikv.store.bulk import BulkWriter
        except ImportError:  # pragma: no cover - older stores without bulk loading
            self._lease = self.kb.lease(self.job)
        else:
            self._bulk = BulkWriter(self.kb, job=self.job)
            self._bulk.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bulk is not None:
            # The whole exception goes on (a type alone makes the context re-create it without
            # arguments, which hid every build error behind a TypeError).
            bulk, self._bulk = self._bulk, None
            bulk.__exit__(exc_type, exc, tb)
        if self._lease is not None:
            self._lease.release()
            self._lease = None

    def _tick(self) -> None:
        self.count += 1
        if self.fail_after is not None and self.count > self.fail_after:
            raise SimulatedCrash(f"simulated crash after {self.fail_after} writes")

    def put(self, path: str, text: str, meta: FileMeta) -> None:
        self._tick()
        if self._bulk is not None:
            self._bulk.put_file(path, text, meta)
        else:
            self.kb.put(path, text, meta)

    def mkdir(self, path: str, text: str) -> None:
        self._tick()
        if self._bulk is not None:
            self._bulk.mkdir(path, text)
        else:
            self.kb.mkdir(path, text)

    def flush(self) -> None:
        if self._bulk is not None:
            self._bulk.flush()
