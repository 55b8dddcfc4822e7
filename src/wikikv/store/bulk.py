"""Bulk loads: thousands of records per atomic batch, still parent-after-child.

``kb.put`` costs a few commits per page (the record, then its parent's listing). A build writes
tens of thousands of pages, so :class:`BulkWriter` buffers them and flushes a chunk at a time:

1. one batch with every record of the chunk, its path- and name-index entries and its audit
   entry (new directories start with an empty listing);
2. then the parents' listings, one batch per depth, deepest first: each parent gets all its new
   children at once (a missing parent is created here and joins the next, shallower batch), with
   the first ``dir_page_entries`` names in the record and the rest on continuation pages.

A reader therefore never sees a listed child that is missing, exactly as with ``kb.put``; until a
chunk's parents are written its new records are simply not reachable yet. Everything is checked
before step 1 (paths, file-over-directory, a file as an ancestor, record sizes), so a refused
chunk writes nothing. The writer holds the kb's exclusive lease for its whole life, so the
per-record version checks never race another writer, and runs inside the backend's ``bulk()``
context (durable when it exits).
"""

from __future__ import annotations

import gc
from collections import defaultdict
from dataclasses import dataclass
from operator import itemgetter
from types import TracebackType
from typing import Any, NamedTuple

import msgspec

from wikikv.errors import IsADirectory, NotADirectory
from wikikv.store import listing as lst
from wikikv.store import order
from wikikv.store.audit import audit_op
from wikikv.store.backends.base import ABSENT, Item, Op, Put
from wikikv.store.kb import KnowledgeBase, check_aliases
from wikikv.store.lease import Lease
from wikikv.store.paths import ROOT, ancestors, basename, depth, parent
from wikikv.store.records import (
    AnyRecord,
    DirMeta,
    DirPage,
    DirRecord,
    FileMeta,
    FileRecord,
    NodeRecord,
    RedirectRecord,
    decode,
    encode,
    now,
)

DEFAULT_CHUNK = 2000


@dataclass
class _Pending:
    is_dir: bool
    text: str
    meta: FileMeta | None = None


@dataclass
class BulkStats:
    """What a bulk writer has written so far."""

    records: int = 0  # pages and directories written from the buffer
    parents: int = 0  # directory records rewritten (or created) to list new children
    chunks: int = 0


class _Link(NamedTuple):
    name: str
    is_dir: bool
    known_new: bool  # the child had no live record before: it cannot be listed already


class BulkWriter:
    """Buffered, chunked writes for bulk loads; use as a context manager::

    with BulkWriter(kb, job="load", chunk=2000) as bw:
        bw.mkdir("/people", "People")
        bw.put_file("/people/alice", text, FileMeta(title="Alice"))

    Chunks already flushed stay written if the block raises; what is still buffered is dropped.
    ``stats`` counts what was written.
    """

    def __init__(
        self,
        kb: KnowledgeBase,
        job: str = "bulk",
        chunk: int = DEFAULT_CHUNK,
        ttl: float | None = None,
    ) -> None:
        if chunk < 1:
            raise ValueError("chunk must be at least 1")
        self.kb = kb
        self.job = job
        self.chunk = chunk
        self.ttl = ttl
        self.stats = BulkStats()
        self._buffer: dict[str, _Pending] = {}
        self._lease: Lease | None = None
        self._bulk: Any = None

    # ------------------------------------------------------------ lifecycle
    def __enter__(self) -> BulkWriter:
        self._lease = self.kb.lease(self.job, self.ttl)
        try:
            self._bulk = self.kb.backend.bulk()
            self._bulk.__enter__()
        except BaseException:
            self._lease.release()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        error = exc
        try:
            if exc_type is None:
                self.flush()
        except BaseException as failed:
            error = failed  # the backend's bulk context must see the flush's own error
            raise
        finally:
            try:
                if error is None:
                    self._bulk.__exit__(None, None, None)
                else:
                    self._bulk.__exit__(type(error), error, error.__traceback__)
            finally:
                assert self._lease is not None
                self._lease.release()
                self._lease = None

    # --------------------------------------------------------------- writes
    def put_file(self, path: str, text: str, meta: FileMeta | None = None) -> None:
        """Buffer a page (created, or updated keeping its ``created_at``); the last write of a
        path in the buffer wins."""
        p = self.kb.norm(path)
        if p == ROOT:
            raise IsADirectory("the root is a directory")
        self._add(p, _Pending(False, text, meta))

    def mkdir(self, path: str, text: str = "") -> None:
        """Buffer a directory (an existing one keeps its listing; a non-empty text replaces its
        description)."""
        self._add(self.kb.norm(path), _Pending(True, text))

    def _add(self, path: str, pending: _Pending) -> None:
        if self._lease is None:
            raise RuntimeError("use BulkWriter as a context manager (it holds the kb's lease)")
        self._buffer[path] = pending
        if len(self._buffer) >= self.chunk:
            self.flush()

    def flush(self) -> None:
        """Write everything buffered (one chunk)."""
        if not self._buffer:
            return
        items = list(self._buffer.items())
        self._buffer.clear()
        assert self._lease is not None
        self._lease.check_held()
        # A chunk allocates a few objects per record (records, ops, keys) and frees them all at
        # the end, so the cyclic collector would only rescan what the program holds, again and
        # again: at a million nodes that was a fifth of a load's CPU. Nothing here makes cycles.
        collecting = gc.isenabled()
        gc.disable()
        try:
            links = self._write_records(items)
            self._write_parents(links)
        finally:
            if collecting:
                gc.enable()
        self.stats.chunks += 1

    # ------------------------------------------------------------ step 1
    def _write_records(self, items: list[tuple[str, _Pending]]) -> dict[str, list[_Link]]:
        kb, keys = self.kb, self.kb.keys
        self._check_ancestors(items)
        current = _get_sorted(kb, [keys.node(p) for p, _ in items])
        ops: list[Op] = []
        links: dict[str, list[_Link]] = defaultdict(list)
        ts = now()
        written = 0
        node_key, index_ops, limit = keys.node, kb.index_ops, kb.settings.max_record_bytes
        actor, detail = kb.actor, f"bulk:{self.job}"
        max_aliases = kb.settings.max_aliases
        rec: NodeRecord
        for (p, pending), item in zip(items, current, strict=True):
            if item is None:
                # A new node (nearly every record of a load): no record to read or replace.
                cut = p.rfind("/")
                if pending.is_dir:
                    rec = DirRecord(
                        name=p[cut + 1 :], path=p, text=pending.text, meta=DirMeta(1, ts)
                    )
                    op = "mkdir"
                else:
                    page = self._file_record(p, pending, None, ABSENT, ts)
                    check_aliases(p, page.meta, max_aliases)
                    rec, op = page, "create"
                ops.append(Put(node_key(p), encode(rec, limit), ABSENT))
                ops += index_ops(p, None, rec)
                ops.append(audit_op(keys, actor, op, p, ABSENT, 1, detail))
                if p != ROOT:
                    links[p[:cut] or ROOT].append(_Link(p[cut + 1 :], pending.is_dir, True))
                written += 1
                continue
            cur: AnyRecord | None = decode(item.value)
            version = item.version
            was_live = isinstance(cur, (DirRecord, FileRecord))
            if pending.is_dir:
                if isinstance(cur, FileRecord):
                    raise NotADirectory(f"{p!r} is a file")
                if isinstance(cur, DirRecord):
                    if not pending.text or cur.text == pending.text:
                        self._need_link(links, p, True, False)
                        continue
                    cur.text = pending.text
                    rec, op = cur, "describe"
                else:
                    rec, op = DirRecord(name=basename(p), path=p, text=pending.text), "mkdir"
                rec.meta.version = version + 1
                rec.meta.updated_at = ts
            else:
                if isinstance(cur, DirRecord):
                    raise IsADirectory(f"{p!r} is a directory")
                page = self._file_record(p, pending, cur, version, ts)
                check_aliases(p, page.meta, max_aliases)
                rec, op = page, "update" if was_live else "create"
            ops.append(Put(node_key(p), encode(rec, limit), version))
            ops += index_ops(p, cur, rec)
            ops.append(audit_op(keys, actor, op, p, version, version + 1, detail))
            self._need_link(links, p, pending.is_dir, not was_live)
            written += 1
        if ops:
            kb.commit(_by_key(ops))
        self.stats.records += written
        return links

    @staticmethod
    def _need_link(links: dict[str, list[_Link]], p: str, is_dir: bool, known_new: bool) -> None:
        if p != ROOT:
            links[parent(p)].append(_Link(basename(p), is_dir, known_new))

    @staticmethod
    def _file_record(
        p: str, pending: _Pending, cur: AnyRecord | None, version: int, ts: float
    ) -> FileRecord:
        meta = msgspec.structs.replace(pending.meta) if pending.meta is not None else FileMeta()
        meta.version = version + 1
        meta.updated_at = ts
        if isinstance(cur, FileRecord) and cur.meta.created_at and not meta.created_at:
            meta.created_at = cur.meta.created_at
        elif not meta.created_at:
            meta.created_at = ts
        return FileRecord(name=basename(p), path=p, text=pending.text, meta=meta)

    def _check_ancestors(self, items: list[tuple[str, _Pending]]) -> None:
        """Refuse the chunk, before writing, when a file would have to act as a directory."""
        buffered = dict(items)
        parents = {parent(p) for p in buffered if p != ROOT}  # pages share a few parents
        needed = parents | {a for par in parents for a in ancestors(par)}
        outside = sorted(needed - buffered.keys())
        found = self.kb.backend.get_many([self.kb.keys.node(a) for a in outside])
        files = {
            a
            for a, item in zip(outside, found, strict=True)
            if item is not None and isinstance(decode(item.value), FileRecord)
        }
        files |= {p for p, pending in items if not pending.is_dir}
        for par in parents:
            for a in [*ancestors(par), par]:
                if a in files:
                    raise NotADirectory(f"{a!r} is a file, so nothing can be created under it")

    # ------------------------------------------------------------ step 2
    def _write_parents(self, links: dict[str, list[_Link]]) -> None:
        by_depth: dict[int, dict[str, list[_Link]]] = defaultdict(dict)
        for par, children in links.items():
            by_depth[depth(par)][par] = children
        for level in range(max(by_depth, default=-1), -1, -1):
            ops: list[Op] = []
            level_links = by_depth.get(level, {})
            found = _get_sorted(self.kb, [self.kb.keys.node(p) for p in level_links])
            for (par, children), item in zip(level_links.items(), found, strict=True):
                created = self._merge(par, item, children, ops)
                if created and par != ROOT:
                    up = by_depth[level - 1].setdefault(parent(par), [])
                    up.append(_Link(basename(par), True, True))
            if ops:
                self.kb.commit(_by_key(ops))

    def _merge(self, par: str, item: Item | None, children: list[_Link], ops: list[Op]) -> bool:
        """Add ``children`` to the listing of ``par`` (stored as ``item``), appending the ops;
        return whether ``par`` was created."""
        kb, keys = self.kb, self.kb.keys
        cap = kb.settings.dir_page_entries
        cur = decode(item.value) if item is not None else None
        version = item.version if item is not None else ABSENT
        created = cur is None or isinstance(cur, RedirectRecord)
        if created:
            rec = DirRecord(name=basename(par), path=par)
        elif isinstance(cur, DirRecord):
            rec = cur
        else:
            raise NotADirectory(f"{par!r} is not a directory")
        held = self._held(rec) if any(not c.known_new for c in children) else set()
        pending: list[_Link] = []
        for c in children:
            if c.name not in held:
                held.add(c.name)
                pending.append(c)
        if not pending and not created:
            return False
        added = len(pending)
        # in listing order, so that children arriving together fill the pages in order
        dirs = order.sort_key(par, [c.name for c in pending if c.is_dir], True)
        files = order.sort_key(par, (), False)
        pending.sort(key=lambda c: (0, dirs(c.name)) if c.is_dir else (1, files(c.name)))
        if rec.meta.pages == 0:
            room = max(0, cap - lst.entries(rec))
            lst.add_names(rec, [(c.name, c.is_dir) for c in pending[:room]])
            pending = pending[room:]
        last = rec.meta.pages
        if pending and last > 0:
            pkey = keys.dir_page(par, last)
            pitem = kb.backend.get(pkey)
            cont = decode(pitem.value) if pitem is not None else None
            if isinstance(cont, DirPage) and pitem is not None:
                room = max(0, cap - lst.entries(cont))
                if room:
                    lst.add_names(cont, [(c.name, c.is_dir) for c in pending[:room]])
                    pending = pending[room:]
                    ops.append(Put(pkey, encode(cont), pitem.version))
        while pending:
            last += 1
            page = DirPage(path=par, page=last)
            lst.add_names(page, [(c.name, c.is_dir) for c in pending[:cap]])
            pending = pending[cap:]
            ops.append(Put(keys.dir_page(par, last), encode(page), ABSENT))
        rec.meta = DirMeta(
            version=version + 1,
            updated_at=now(),
            entry_count=rec.meta.entry_count + added,
            pages=last,
        )
        ops.append(Put(keys.node(par), encode(rec, kb.settings.max_record_bytes), version))
        if created:
            ops += kb.index_ops(par, cur, rec)
        op = "mkdir" if created else "link"
        detail = f"bulk:{self.job} +{added} entries"
        ops.append(audit_op(keys, kb.actor, op, par, version, version + 1, detail))
        self.stats.parents += 1
        return created

    def _held(self, rec: DirRecord) -> set[str]:
        """Every name ``rec`` lists, across its continuation pages."""
        names = set(rec.sub_dirs) | set(rec.files)
        for page in range(1, rec.meta.pages + 1):
            pitem = self.kb.backend.get(self.kb.keys.dir_page(rec.path, page))
            cont = decode(pitem.value) if pitem is not None else None
            if isinstance(cont, DirPage):
                names |= set(cont.sub_dirs) | set(cont.files)
        return names


def _by_key(ops: list[Op]) -> list[Op]:
    """The ops of one batch in key order. Inserting in key order walks the B-tree once from left
    to right instead of descending to random leaves (node keys are hashes), which keeps the pages
    it touches hot; the batch stays atomic, and the sort is stable, so ops on one key (there are
    none in a bulk batch) would keep their order."""
    return sorted(ops, key=itemgetter(0))  # every op is a NamedTuple whose first field is its key


def _get_sorted(kb: KnowledgeBase, keys: list[bytes]) -> list[Item | None]:
    """``get_many`` looked up in key order (see :func:`_by_key`), answered in the given order."""
    order = sorted(range(len(keys)), key=keys.__getitem__)
    found = kb.backend.get_many([keys[i] for i in order])
    out: list[Item | None] = [None] * len(keys)
    for i, item in zip(order, found, strict=True):
        out[i] = item
    return out
