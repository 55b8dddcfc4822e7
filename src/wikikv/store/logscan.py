"""Reading a time-keyed log keyspace (the audit trail, ACCESS records): newest or oldest first,
optionally only entries under a path prefix, stopping after ``limit`` matches."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol, TypeVar

from wikikv.store.backends.base import Backend


class PathEntry(Protocol):
    @property
    def path(self) -> str: ...


E = TypeVar("E", bound=PathEntry)


def scan_log(
    backend: Backend,
    span: tuple[bytes, bytes],
    decode: Callable[[bytes], E],
    limit: int | None,
    newest_first: bool = True,
    path_prefix: str | None = None,
) -> Iterator[E]:
    """Decoded entries of the key range ``span``; the prefix filter does not count toward
    ``limit`` (the caller asked for that many matching entries)."""
    count = 0
    for _, item in backend.scan(span[0], span[1], reverse=newest_first):
        entry = decode(item.value)
        if path_prefix is not None and not entry.path.startswith(path_prefix):
            continue
        yield entry
        count += 1
        if limit is not None and count >= limit:
            return
