"""fsck: check a kb's tree and indexes against each other, and repair them without losing a page.

What is checked (one scan of the N, D, P and A keyspaces; records carry their full path):

* **dangling listings** — a directory (record or continuation page) advertises a child that has
  no record. Parent-after-child writes never produce one, even when a writer is killed.
* **orphan records** — a live directory or page that its parent does not list. A killed writer
  can leave one (its record committed, the link into the parent not yet). Redirect records are
  live but never listed, so they are not orphans.
* **stray continuation pages** — a ``D`` page beyond its directory's ``meta.pages`` (or of a
  directory that is gone).
* **path-index drift** — ``P`` entries without a live record, live records without one.
* **name-index drift** — ``A`` entries whose page is gone or no longer carries that name, names
  and aliases missing from the index.
* **undecodable records** — ``N``/``D`` values that do not decode, or sit under the wrong key.
* **listings out of order** — a directory record or continuation page whose children are not in
  the order of :mod:`wikikv.store.order` (written by a version that listed them as they came).

Run it on a quiet kb: a concurrent writer's in-flight operation shows up as an orphan. Repair takes
the kb's exclusive lease, so it never races a writer. It works in rounds until a scan is clean:
undecodable values are moved aside (to ``S fsck-quarantine/<key>``, bytes kept), stray pages
removed, dangling names dropped from listings, orphans linked into their parent (missing ancestor
directories are created child-first), listings put in order, and the indexes rebuilt. Every repair write is a normal
versioned batch with an audit entry (op ``fsck-repair``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import msgspec

from wikikv.errors import ConflictError, CorruptRecord, NotADirectory
from wikikv.store import listing as lst
from wikikv.store import order
from wikikv.store.audit import audit_op
from wikikv.store.backends.base import ABSENT, Delete, Op, Put
from wikikv.store.kb import KnowledgeBase, names_of
from wikikv.store.paths import ROOT, basename, join, parent
from wikikv.store.records import (
    DirPage,
    DirRecord,
    FileRecord,
    RedirectRecord,
    decode,
    encode,
    now,
)

REPAIR_OP = "fsck-repair"
QUARANTINE = "fsck-quarantine/"
MAX_ROUNDS = 6
_CHUNK = 500
_name_enc = msgspec.msgpack.Encoder()
_name_dec = msgspec.msgpack.Decoder(tuple[str, str])


@dataclass
class FsckReport:
    """What fsck found (before repair, when it repaired), and what repair did."""

    kb: str
    records: int = 0
    dangling: list[tuple[str, str]] = field(default_factory=list)  # (dir path, child name)
    orphans: list[str] = field(default_factory=list)
    stray_pages: list[tuple[str, int]] = field(default_factory=list)  # (dir path, page)
    path_index_stale: list[str] = field(default_factory=list)
    path_index_missing: list[str] = field(default_factory=list)
    name_index_stale: list[tuple[str, str]] = field(default_factory=list)  # (name, path)
    name_index_missing: list[tuple[str, str]] = field(default_factory=list)
    undecodable: list[tuple[str, str]] = field(default_factory=list)  # (key hex, reason)
    unordered: list[tuple[str, int]] = field(default_factory=list)  # (dir path, page)
    repairs: list[str] = field(default_factory=list)
    unrepaired: list[str] = field(default_factory=list)

    @property
    def problems(self) -> int:
        return (
            len(self.dangling)
            + len(self.orphans)
            + len(self.stray_pages)
            + len(self.path_index_stale)
            + len(self.path_index_missing)
            + len(self.name_index_stale)
            + len(self.name_index_missing)
            + len(self.undecodable)
            + len(self.unordered)
        )

    @property
    def clean(self) -> bool:
        return self.problems == 0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["clean"] = self.clean
        out["problems"] = self.problems
        return out


@dataclass
class _Scan:
    """One pass over the kb's keyspaces, with what repair needs beside the report."""

    report: FsckReport
    # path -> (version, record) for decodable N records under their right key
    nodes: dict[str, tuple[int, DirRecord | FileRecord | RedirectRecord]]
    bad_keys: list[tuple[bytes, int, bytes]]  # (key, version, raw value) to quarantine
    stray_keys: list[tuple[bytes, int]]
    p_fix: list[Op]
    a_fix: list[Op]


def fsck(kb: KnowledgeBase, repair: bool = False) -> FsckReport:
    """Check ``kb``; with ``repair`` fix what was found (see the module docstring)."""
    if not repair:
        return _scan(kb).report
    if kb.held_lease is not None:  # called inside this kb's own bulk job: its lease covers us
        return _repair(kb)
    with kb.lease("fsck"):
        return _repair(kb)


def _repair(kb: KnowledgeBase) -> FsckReport:
    scan = _scan(kb)
    found = scan.report
    for _ in range(MAX_ROUNDS):
        if scan.report.clean:
            break
        _repair_round(kb, scan, found)
        scan = _scan(kb)
    if not scan.report.clean:
        found.unrepaired.append(f"still damaged after repair: {scan.report.to_dict()}")
    return found


# ====================================================================== scan
def _scan(kb: KnowledgeBase) -> _Scan:
    keys = kb.keys
    rep = FsckReport(kb.name)
    nodes: dict[str, tuple[int, DirRecord | FileRecord | RedirectRecord]] = {}
    bad: list[tuple[bytes, int, bytes]] = []

    start, end = keys.space_range("N")
    for key, item in kb.backend.scan(start, end):
        rep.records += 1
        reason = ""
        try:
            rec = decode(item.value)
        except CorruptRecord as exc:
            reason = str(exc)
        else:
            if isinstance(rec, DirPage):
                reason = "a continuation page stored as a node"
            elif keys.node(rec.path) != key:
                reason = f"record of {rec.path!r} under another path's key"
            else:
                nodes[rec.path] = (item.version, rec)
        if reason:
            rep.undecodable.append((key.hex(), reason))
            bad.append((key, item.version, item.value))

    # Continuation pages, grouped by directory path.
    pages: dict[str, dict[int, DirPage]] = {}
    stray: list[tuple[bytes, int]] = []
    start, end = keys.space_range("D")
    for key, item in kb.backend.scan(start, end):
        reason = ""
        try:
            page = decode(item.value)
        except CorruptRecord as exc:
            reason = str(exc)
        else:
            if not isinstance(page, DirPage):
                reason = "a node record stored as a continuation page"
            elif keys.dir_page(page.path, page.page) != key:
                reason = f"page {page.page} of {page.path!r} under another key"
        if reason:
            rep.undecodable.append((key.hex(), reason))
            bad.append((key, item.version, item.value))
            continue
        assert isinstance(page, DirPage)
        owner = nodes.get(page.path)
        if owner is None or not isinstance(owner[1], DirRecord) or page.page > owner[1].meta.pages:
            rep.stray_pages.append((page.path, page.page))
            stray.append((key, item.version))
        else:
            pages.setdefault(page.path, {})[page.page] = page

    # Listings: dangling names, and which live nodes are listed.
    listed: set[str] = set()
    for path, (_, rec) in nodes.items():
        if not isinstance(rec, DirRecord):
            continue
        containers: list[DirRecord | DirPage] = [rec, *pages.get(path, {}).values()]
        for cont in containers:
            if not _in_order(cont):
                rep.unordered.append((path, cont.page if isinstance(cont, DirPage) else 0))
            for name in [*cont.sub_dirs, *cont.files]:
                child = join(path, name)
                listed.add(child)
                if child not in nodes:
                    rep.dangling.append((path, name))
    for path, (_, rec) in nodes.items():
        if path != ROOT and not isinstance(rec, RedirectRecord) and path not in listed:
            rep.orphans.append(path)

    p_fix, a_fix = _index_drift(kb, nodes, rep)
    return _Scan(rep, nodes, bad, stray, p_fix, a_fix)


def _index_drift(
    kb: KnowledgeBase,
    nodes: dict[str, tuple[int, DirRecord | FileRecord | RedirectRecord]],
    rep: FsckReport,
) -> tuple[list[Op], list[Op]]:
    """Compare the P and A keyspaces with what the live records imply; return the fixing ops."""
    keys = kb.keys
    want_p: dict[bytes, bytes] = {}
    want_a: dict[bytes, tuple[str, str]] = {}
    for path, (_, rec) in nodes.items():
        if isinstance(rec, RedirectRecord):
            continue
        want_p[keys.path_index(path)] = path.encode("utf-8")
        for name in names_of(rec):
            # Two names that fold alike share a key; the entry may carry either spelling.
            want_a.setdefault(keys.name_index(name, path), (name, path))

    p_fix: list[Op] = []
    start, end = keys.space_range("P")
    have_p = dict((k, it.value) for k, it in kb.backend.scan(start, end))
    for k, v in have_p.items():
        if want_p.get(k) != v:
            rep.path_index_stale.append(v.decode("utf-8", errors="replace"))
            p_fix.append(Delete(k))
    for k, v in want_p.items():
        if have_p.get(k) != v:
            rep.path_index_missing.append(v.decode("utf-8"))
            p_fix.append(Put(k, v))

    a_fix: list[Op] = []
    start, end = keys.space_range("A")
    have_a: dict[bytes, tuple[str, str] | None] = {}
    for k, it in kb.backend.scan(start, end):
        try:
            have_a[k] = _name_dec.decode(it.value)
        except (msgspec.DecodeError, msgspec.ValidationError):
            have_a[k] = None
    carries = _Carries(nodes)
    for k, got in have_a.items():
        want = want_a.get(k)
        ok = want is not None and got is not None and carries(got, want)
        if not ok:
            rep.name_index_stale.append(got if got is not None else (f"?{k.hex()}", ""))
            a_fix.append(Delete(k))
    for k, want in want_a.items():
        if k not in have_a or not carries(have_a[k], want):
            rep.name_index_missing.append(want)
            a_fix.append(Put(k, _name_enc.encode(want)))
    return p_fix, a_fix


class _Carries:
    """Whether an A entry's value names the right page under one of its current names. Each
    page's names become a set once: asking per entry with a fresh ``names_of`` list made fsck
    quadratic in a page's aliases (16k aliases: 45 s)."""

    def __init__(
        self, nodes: dict[str, tuple[int, DirRecord | FileRecord | RedirectRecord]]
    ) -> None:
        self.nodes = nodes
        self.names: dict[str, frozenset[str]] = {}

    def __call__(self, got: tuple[str, str] | None, want: tuple[str, str]) -> bool:
        if got is None or got[1] != want[1]:
            return False
        path = want[1]
        names = self.names.get(path)
        if names is None:
            rec = self.nodes[path][1]
            names = frozenset() if isinstance(rec, RedirectRecord) else frozenset(names_of(rec))
            self.names[path] = names
        return got[0] in names


# ==================================================================== repair
def _repair_round(kb: KnowledgeBase, scan: _Scan, found: FsckReport) -> None:
    """Fix what one scan found. Each step re-reads what it changes (versions guard every write);
    anything a step could not fix is found again by the next scan."""
    keys, rep = kb.keys, scan.report
    for key, version, raw in scan.bad_keys:
        _commit(
            kb,
            [Put(keys.system(QUARANTINE + key.hex()), raw), Delete(key, version)],
            ROOT,
            f"quarantined undecodable key {key.hex()}",
            found,
        )
    for key, version in scan.stray_keys:
        _commit(kb, [Delete(key, version)], ROOT, f"removed stray page {key.hex()}", found)
    by_dir: dict[str, set[str]] = {}
    for d, name in rep.dangling:
        by_dir.setdefault(d, set()).add(name)
    for d, names in by_dir.items():
        _drop_names(kb, d, names, found)
    # Deepest first: a directory is linked after the children it lists (parent-after-child).
    for path in sorted(rep.orphans, key=lambda p: p.count("/"), reverse=True):
        rec = scan.nodes[path][1]
        try:
            _link(kb, path, isinstance(rec, DirRecord), found)
        except NotADirectory as exc:
            found.unrepaired.append(f"orphan {path!r}: {exc}")
    for d, page in rep.unordered:
        _put_in_order(kb, d, page, found)
    for ops, what in ((scan.p_fix, "path index"), (scan.a_fix, "name index")):
        for i in range(0, len(ops), _CHUNK):
            chunk = ops[i : i + _CHUNK]
            _commit(kb, chunk, ROOT, f"rebuilt {what}: {len(chunk)} entries", found)


def _commit(
    kb: KnowledgeBase,
    ops: list[Op],
    path: str,
    what: str,
    found: FsckReport,
    old: int = 0,
    new: int = 0,
) -> bool:
    try:
        kb.commit([*ops, audit_op(kb.keys, kb.actor, REPAIR_OP, path, old, new, what)])
    except ConflictError:
        return False  # changed under us (it should not: we hold the lease); the next scan sees it
    found.repairs.append(what)
    return True


def _drop_names(kb: KnowledgeBase, d: str, names: set[str], found: FsckReport) -> None:
    """Remove dangling ``names`` from directory ``d``'s record and continuation pages."""
    item, rec = kb.raw(d)
    if item is None or not isinstance(rec, DirRecord):
        return
    ops: list[Op] = []
    removed = 0
    for name in names:
        while lst.remove_name(rec, name):
            removed += 1
    for page in range(1, rec.meta.pages + 1):
        pkey = kb.keys.dir_page(d, page)
        pitem = kb.backend.get(pkey)
        cont = decode(pitem.value) if pitem is not None else None
        if pitem is None or not isinstance(cont, DirPage):
            continue
        before = removed
        for name in names:
            while lst.remove_name(cont, name):
                removed += 1
        if removed != before:
            ops.append(Put(pkey, encode(cont), pitem.version))
    rec.meta.entry_count = max(0, rec.meta.entry_count - removed)
    rec.meta.version = item.version + 1
    rec.meta.updated_at = now()
    ops.append(Put(kb.keys.node(d), encode(rec, kb.settings.max_record_bytes), item.version))
    what = f"dropped dangling {sorted(names)} from {d}"
    _commit(kb, ops, d, what, found, item.version, item.version + 1)


def _in_order(cont: DirRecord | DirPage) -> bool:
    return cont.sub_dirs == order.ordered(cont.path, cont.sub_dirs, True) and (
        cont.files == order.ordered(cont.path, cont.files, False)
    )


def _put_in_order(kb: KnowledgeBase, d: str, page: int, found: FsckReport) -> None:
    """Put the listing of directory ``d``'s record (``page`` 0) or continuation page in order."""
    key = kb.keys.node(d) if page == 0 else kb.keys.dir_page(d, page)
    item = kb.backend.get(key)
    cont = decode(item.value) if item is not None else None
    if item is None or not isinstance(cont, (DirRecord, DirPage)):
        return  # gone since the scan: the next one tells
    order.arrange(d, cont.sub_dirs, True)
    order.arrange(d, cont.files, False)
    if isinstance(cont, DirRecord):
        cont.meta.version = item.version + 1
        cont.meta.updated_at = now()
    ops: list[Op] = [Put(key, encode(cont, kb.settings.max_record_bytes), item.version)]
    if page:
        _commit(kb, ops, d, f"put page {page} of the listing of {d} in order", found)
    else:
        what = f"put the listing of {d} in order"
        _commit(kb, ops, d, what, found, item.version, item.version + 1)


def _link(kb: KnowledgeBase, child: str, is_dir: bool, found: FsckReport) -> None:
    """List ``child`` in its parent, creating missing ancestor directories child-first."""
    par, name = parent(child), basename(child)
    item, rec = kb.raw(par)
    keys = kb.keys
    if rec is None or isinstance(rec, RedirectRecord):
        version = item.version if item is not None else ABSENT
        new = lst.missing_parent(par, version, name, is_dir)
        ops: list[Op] = [Put(keys.node(par), encode(new, kb.settings.max_record_bytes), version)]
        ops += kb.index_ops(par, rec, new)
        what = f"created missing directory {par} listing {name}"
        if _commit(kb, ops, par, what, found, version, version + 1) and par != ROOT:
            _link(kb, par, True, found)
        return
    if not isinstance(rec, DirRecord) or item is None:
        raise NotADirectory(f"its parent {par!r} is not a directory")
    if lst.holds(rec, name):
        return
    cap = kb.settings.dir_page_entries
    ops = []
    if rec.meta.pages == 0 and lst.entries(rec) < cap:
        lst.add_name(rec, name, is_dir)
    else:
        last = rec.meta.pages
        pitem = kb.backend.get(keys.dir_page(par, last)) if last else None
        cont = decode(pitem.value) if pitem is not None else None
        if isinstance(cont, DirPage) and pitem is not None and lst.entries(cont) < cap:
            lst.add_name(cont, name, is_dir)
            ops.append(Put(keys.dir_page(par, last), encode(cont), pitem.version))
        else:
            page = DirPage(path=par, page=last + 1)
            lst.add_name(page, name, is_dir)
            ops.append(Put(keys.dir_page(par, last + 1), encode(page), ABSENT))
            rec.meta.pages = last + 1
    rec.meta.entry_count += 1
    rec.meta.version = item.version + 1
    rec.meta.updated_at = now()
    ops.append(Put(keys.node(par), encode(rec, kb.settings.max_record_bytes), item.version))
    what = f"linked orphan {child} into {par}"
    _commit(kb, ops, par, what, found, item.version, item.version + 1)


__all__ = ["FsckReport", "fsck"]
