"""Reads of a kb's tree (WikiKV paper §IV-B): Q1 ``get`` (following redirects), Q2 ``ls`` (one
page of a directory's listing), Q4 ``prefix`` and ``find_names`` (range scans of the path and name
indexes), and ``walk``. A reader never writes: reads are counted, when a recorder is attached, in
memory (:mod:`wikikv.store.access_stats`). :class:`~wikikv.store.kb.KnowledgeBase` is these reads
plus the write protocol of :mod:`wikikv.store.writes`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import msgspec

from wikikv.config import MAX_REDIRECT_HOPS, StoreSettings
from wikikv.errors import NotADirectory, NotFound
from wikikv.store import listing as lst
from wikikv.store.audit import AuditEntry, read_audit
from wikikv.store.backends.base import Backend
from wikikv.store.keys import KBKeys
from wikikv.store.paths import ROOT, join, normalize
from wikikv.store.records import (
    DirPage,
    DirRecord,
    NodeRecord,
    RedirectRecord,
    decode,
    redirect_target,
)

Listing = lst.Listing
_name_dec = msgspec.msgpack.Decoder(tuple[str, str])


class AccessSink(Protocol):
    """Where reads are counted (an in-memory buffer: see wikikv.store.access_stats)."""

    def touch(self, path: str) -> None: ...

    def touch_many(self, paths: Iterable[str]) -> None: ...


@dataclass(frozen=True)
class NameHit:
    """A name or alias that matched, and the page it names."""

    name: str
    path: str


class KBReads:
    """The read half of a :class:`~wikikv.store.kb.KnowledgeBase` (which sets these fields)."""

    name: str
    backend: Backend
    keys: KBKeys
    settings: StoreSettings
    recorder: AccessSink | None
    _pinned: Callable[[bytes], object] | None

    def norm(self, path: object) -> str:
        return normalize(path, self.settings.max_depth)

    # ================================================================ reads
    def get(self, path: str, *, follow_redirects: bool = True) -> NodeRecord | None:
        """Q1: the record at ``path`` (following redirects), or None."""
        p = normalize(path, self.settings.max_depth)
        if self.recorder is not None:
            self.recorder.touch(p)
        key = self.keys.node(p)
        if self._pinned is not None:
            hit = self._pinned(key)
            if isinstance(hit, DirRecord):
                return hit
        item = self.backend.get(key)
        if item is None:
            return None
        rec = decode(item.value)
        if follow_redirects and isinstance(rec, RedirectRecord):
            return self._follow(rec)
        return rec  # type: ignore[return-value]

    def _follow(self, rec: RedirectRecord) -> NodeRecord | None:
        for _ in range(MAX_REDIRECT_HOPS):
            item = self.backend.get(self.keys.node(rec.target))
            if item is None:
                return None
            nxt = decode(item.value)
            if not isinstance(nxt, RedirectRecord):
                return nxt  # type: ignore[return-value]
            rec = nxt
        return None

    def get_many(self, paths: Sequence[str]) -> list[NodeRecord | None]:
        """Several Q1 lookups from one snapshot (redirects followed)."""
        norm = [self.norm(p) for p in paths]
        if self.recorder is not None:
            self.recorder.touch_many(norm)
        out: list[NodeRecord | None] = []
        for item in self.backend.get_many([self.keys.node(p) for p in norm]):
            if item is None:
                out.append(None)
                continue
            rec = decode(item.value)
            if isinstance(rec, RedirectRecord):
                out.append(self._follow(rec))
            else:
                out.append(rec)  # type: ignore[arg-type]
        return out

    def exists(self, path: str) -> bool:
        return self.backend.get(self.keys.node(self.norm(path))) is not None

    def resolve_many(self, paths: Sequence[str]) -> list[bool]:
        """Whether each path holds a record, following redirects as :meth:`get` does (a
        redirect to nothing is nothing), from one snapshot; no record is decoded beyond its
        type (cheaper than :meth:`get_many` for a link check)."""
        norm = [self.norm(p) for p in paths]
        out: list[bool] = []
        for item in self.backend.get_many([self.keys.node(p) for p in norm]):
            target = None if item is None else redirect_target(item.value)
            hops = 0
            while target is not None and hops < MAX_REDIRECT_HOPS:
                nxt = self.backend.get(self.keys.node(target))
                item, target, hops = (
                    nxt,
                    None if nxt is None else redirect_target(nxt.value),
                    hops + 1,
                )
            out.append(item is not None and target is None)
        return out

    def ls(self, path: str = ROOT, page: int = 0) -> Listing:
        """Q2: one page of a directory's children (page 0 is the record itself)."""
        p = self.norm(path)
        rec = self.get(p)
        if rec is None:
            raise NotFound(f"no directory at {p!r} in kb {self.name!r}")
        if not isinstance(rec, DirRecord):
            raise NotADirectory(f"{p!r} is a file, not a directory")
        pages = 1 + rec.meta.pages
        if page == 0:
            return Listing(rec.path, rec, 0, pages, rec.sub_dirs, rec.files)
        if not 0 < page < pages:
            raise NotFound(f"directory {p!r} has pages 0..{pages - 1}, not {page}")
        item = self.backend.get(self.keys.dir_page(rec.path, page))
        cont = decode(item.value) if item is not None else None
        if not isinstance(cont, DirPage):
            return Listing(rec.path, rec, page, pages)
        return Listing(rec.path, rec, page, pages, cont.sub_dirs, cont.files)

    def ls_all(self, path: str = ROOT) -> Listing:
        """Every page of a directory's listing, merged."""
        first = self.ls(path)
        subs, files = list(first.sub_dirs), list(first.files)
        for page in range(1, first.pages):
            more = self.ls(first.path, page)
            subs.extend(more.sub_dirs)
            files.extend(more.files)
        return Listing(first.path, first.record, 0, first.pages, subs, files)

    def read_children(self, path: str = ROOT, page: int = 0) -> list[NodeRecord]:
        """Q2 with the children read: skip-on-miss drops a child that vanished since the listing."""
        listing = self.ls(path, page)
        return [r for r in self.get_many(listing.child_paths()) if r is not None]

    def prefix(self, text: str, limit: int | None = None) -> list[str]:
        """Q4: paths whose text starts with ``text``, in order, by a range scan of the path index."""
        start, end = self.keys.path_range(text)
        if limit is None:  # the common Q4 form: one comprehension, no per-item branching
            values_only = getattr(self.backend, "scan_values", None)  # LMDB's fast path
            raw = (
                values_only(start, end)
                if values_only is not None
                else [item.value for _, item in self.backend.scan(start, end)]
            )
            found = [v.decode("utf-8") for v in raw]
            return [full for full in found if full.startswith(text)]
        out: list[str] = []
        for _, item in self.backend.scan(start, end):
            full = item.value.decode("utf-8")
            if full.startswith(text):
                out.append(full)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def find_names(
        self, name_prefix: str, limit: int | None = None, exact: bool = False
    ) -> list[NameHit]:
        """Q4 on names: pages whose case-folded name or alias starts with (or equals) the query."""
        start, end = self.keys.name_range(name_prefix, exact)
        out: list[NameHit] = []
        for _, item in self.backend.scan(start, end, limit=limit):
            name, path = _name_dec.decode(item.value)
            out.append(NameHit(name, path))
        return out

    def walk(self, path: str = ROOT) -> Iterator[str]:
        """Every path reachable from ``path`` through listings, parents before children."""
        stack = [self.norm(path)]
        while stack:
            p = stack.pop()
            yield p
            rec = self.get(p, follow_redirects=False)
            if isinstance(rec, DirRecord):
                full = self.ls_all(p)
                stack.extend(reversed([join(p, n) for n in full.sub_dirs]))
                for f in full.files:
                    yield join(p, f)

    def version(self, path: str) -> int:
        """The current version of the record at ``path`` (0 when absent)."""
        item = self.backend.get(self.keys.node(self.norm(path)))
        return 0 if item is None else item.version

    def audit(self, limit: int | None = 50, path_prefix: str | None = None) -> list[AuditEntry]:
        return list(read_audit(self.backend, self.keys, limit, True, path_prefix))
