"""The write protocol of a kb (WikiKV paper §IV-C): a new node's record, its path-index entry,
its name-index entries and its audit entry commit in one atomic batch *before* the node is added to
its parent's listing; a delete unlinks from the parent first; a move writes the new subtree, links
it, unlinks the old and leaves redirects. A reader that follows a listing therefore never finds an
advertised child missing, and drops one that vanished since (skip-on-miss). Every write is
conditional on the version it read, and fenced by the kb's bulk-job lease.

Package-internal API: :meth:`KBWrites.commit` (a fenced atomic batch), :meth:`KBWrites.raw`
(a node's stored item and record), :meth:`KBWrites.index_ops` (the index changes of a node),
:meth:`KBWrites.guard`, :meth:`KBWrites.link` and :attr:`KBWrites.held_lease` are what the bulk
writer, fsck, the search index, compile state and the test harness build on — WikiKV's own
modules, not the public API of ``wikikv``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

import msgspec

from wikikv.config import DEFAULT_RETRIES
from wikikv.errors import (
    AlreadyExists,
    ConflictError,
    DirectoryNotEmpty,
    InvalidPath,
    IsADirectory,
    LeaseHeld,
    NotADirectory,
    NotFound,
    TooManyAliases,
)
from wikikv.store import listing as lst
from wikikv.store import order
from wikikv.store.audit import audit_op
from wikikv.store.backends.base import ABSENT, ANY, Delete, Item, Op, Put
from wikikv.store.lease import Lease, WaitFn, write_guard
from wikikv.store.paths import ROOT, basename, is_under, parent, unescape_segment
from wikikv.store.reads import KBReads
from wikikv.store.records import (
    AnyRecord,
    DirMeta,
    DirPage,
    DirRecord,
    FileMeta,
    FileRecord,
    NodeRecord,
    RedirectMeta,
    RedirectRecord,
    decode,
    encode,
    now,
)

if TYPE_CHECKING:
    from wikikv.store.kb import KnowledgeBase

T = TypeVar("T")
_name_enc = msgspec.msgpack.Encoder()


class WriteObserver(Protocol):
    """Told of every page write made through a :class:`KnowledgeBase` (after it committed): the
    paths whose records went away or changed, and the paths written. The search upkeep is one
    (wired by :func:`wikikv.open_store`); the store layer itself knows none."""

    def written(self, kb: KnowledgeBase, removed: Sequence[str], added: Sequence[str]) -> None: ...


def names_of(rec: NodeRecord) -> list[str]:
    """The names a node is found under in the name index: its segment, its title, its aliases."""
    if isinstance(rec, RedirectRecord):
        return []
    out = [unescape_segment(rec.name)] if rec.name else []
    if isinstance(rec, FileRecord):
        meta = rec.meta
        if meta.title:
            out.append(meta.title)
        if meta.aliases:
            out.extend(meta.aliases)
    if len(out) < 2:
        return out if not out or out[0] else []
    # dict.fromkeys keeps the first occurrence of each name, in order (a bulk-load hot path).
    return [n for n in dict.fromkeys(out) if n]


def check_aliases(path: str, meta: FileMeta, limit: int) -> None:
    """Refuse a page with more than ``limit`` aliases (each costs index and vocabulary keys)."""
    if len(meta.aliases) > limit:
        raise TooManyAliases(path, len(meta.aliases), limit)


def retry(fn: Callable[[], T], retries: int = DEFAULT_RETRIES) -> T:
    """Run ``fn`` until it stops raising ConflictError, at most ``retries`` times, with jittered
    backoff; the last conflict propagates."""
    for attempt in range(retries):
        try:
            return fn()
        except ConflictError:
            if attempt == retries - 1:
                raise
            time.sleep(random.uniform(0, 0.0005 * (2 ** min(attempt, 8))))
    raise AssertionError("unreachable")


class KBWrites(KBReads):
    """The write half of a :class:`~wikikv.store.kb.KnowledgeBase` (which sets these fields)."""

    actor: str
    lease_wait: float
    lease_countdown: WaitFn | None
    observers: list[WriteObserver]
    _lease: Lease | None

    @property
    def held_lease(self) -> Lease | None:
        """The bulk-job lease this object holds (its writes carry the lease's fence), if any."""
        return self._lease

    # ================================================================ writes
    def lease(
        self,
        job: str,
        ttl: float | None = None,
        wait: float | None = None,
        on_wait: WaitFn | None = None,
    ) -> Lease:
        """Take the kb's exclusive bulk-job lease; writes through this object then carry its
        fence, while every other writer gets LeaseHeld until it is released. A live lease of
        another job is waited for up to ``wait`` seconds (default ``self.lease_wait``); one whose
        holder process is gone is taken over at once (see :mod:`wikikv.store.lease`)."""
        lease = Lease(
            self.backend,
            self.keys,
            job,
            ttl or self.settings.lease_ttl,
            on_release=self._drop_lease,
            actor=self.actor,
        ).acquire(
            self.lease_wait if wait is None else wait,
            on_wait if on_wait is not None else self.lease_countdown,
        )
        self._lease = lease
        return lease

    def _drop_lease(self) -> None:
        self._lease = None

    def guard(self) -> list[Op]:
        """The op that fences a write: the lease holder's fence, everyone else's lease check."""
        if self._lease is not None:
            self._lease.check_held()
            return [self._lease.fence()]
        return [write_guard(self.backend, self.keys, None)]

    def commit(self, ops: list[Op]) -> list[int]:
        guard = self.guard()
        lease = self._lease
        try:
            versions = self.backend.batch(guard + ops)
        except ConflictError as exc:
            if lease is not None and lease.is_fence(exc):
                raise LeaseHeld(
                    f"the lease of job {lease.job!r} on kb {self.name!r} passed to another job; "
                    "this write was refused"
                ) from exc
            raise
        return versions[len(guard) :]

    def raw(self, path: str) -> tuple[Item | None, AnyRecord | None]:
        item = self.backend.get(self.keys.node(path))
        return item, (decode(item.value) if item is not None else None)

    def index_ops(self, path: str, old: AnyRecord | None, new: NodeRecord | None) -> list[Op]:
        """Path- and name-index changes for a node going from ``old`` to ``new``."""
        ops: list[Op] = []
        old_live = old is not None and not isinstance(old, (RedirectRecord, DirPage))
        new_live = new is not None and not isinstance(new, RedirectRecord)
        if new_live and not old_live:
            ops.append(Put(self.keys.path_index(path), path.encode("utf-8")))
        elif old_live and not new_live:
            ops.append(Delete(self.keys.path_index(path)))
        if not old_live:
            # A new node (the bulk-load hot path): nothing to delete, one entry per index key.
            if new_live:
                fresh: set[bytes] = set()
                for n in names_of(new):  # type: ignore[arg-type]
                    k = self.keys.name_index(n, path)
                    if k not in fresh:
                        fresh.add(k)
                        ops.append(Put(k, _name_enc.encode((n, path))))
            return ops
        # Compare by index key: names that fold alike ("foo", title "Foo") share one key, so a
        # name dropped while its fold-twin stays must not delete the shared entry.
        old_names = names_of(old) if old_live else []  # type: ignore[arg-type]
        new_names = names_of(new) if new is not None and new_live else []
        old_keys = {self.keys.name_index(n, path) for n in old_names}
        new_keys: dict[bytes, str] = {}
        for n in new_names:
            new_keys.setdefault(self.keys.name_index(n, path), n)
        for k in old_keys - new_keys.keys():
            ops.append(Delete(k))
        for k, n in new_keys.items():
            if k not in old_keys:
                ops.append(Put(k, _name_enc.encode((n, path))))
        return ops

    def put(
        self,
        path: str,
        text: str,
        meta: FileMeta | None = None,
        *,
        expect: int = ANY,
        create_parents: bool = True,
    ) -> FileRecord:
        """Create or update the page at ``path``. With ``expect`` the write is conditional on the
        page's version (ABSENT: create only) and a stale one raises ConflictError; without it,
        internal races are retried."""
        p = self.norm(path)
        if p == ROOT:
            raise IsADirectory("the root is a directory")
        if not isinstance(text, str):
            raise InvalidPath(p, "text", "page text must be str")  # pragma: no cover - typed API
        rec = retry(
            lambda: self._put_once(p, text, meta, expect, create_parents),
            1 if expect != ANY else DEFAULT_RETRIES,
        )
        self._written((), (p,))
        return rec

    def _put_once(
        self, p: str, text: str, meta: FileMeta | None, expect: int, create_parents: bool
    ) -> FileRecord:
        item, cur = self.raw(p)
        if isinstance(cur, DirRecord):
            raise IsADirectory(f"{p!r} is a directory")
        cur_version = item.version if item is not None else ABSENT
        if expect != ANY and expect != cur_version:
            raise ConflictError(p, expect, cur_version)
        is_new = not isinstance(cur, FileRecord)
        m = msgspec.structs.replace(meta) if meta is not None else FileMeta()
        ts = now()
        m.version = cur_version + 1
        m.updated_at = ts
        if (
            isinstance(cur, FileRecord)
            and cur.meta.created_at
            and (meta is None or not meta.created_at)
        ):
            m.created_at = cur.meta.created_at
        elif not m.created_at:
            m.created_at = ts
        rec = FileRecord(name=basename(p), path=p, text=text, meta=m)
        check_aliases(p, m, self.settings.max_aliases)
        data = encode(rec, self.settings.max_record_bytes)
        if is_new:
            self._check_ancestors(p, create_parents)
        ops: list[Op] = [Put(self.keys.node(p), data, cur_version)]
        ops += self.index_ops(p, cur, rec)
        ops.append(
            audit_op(
                self.keys,
                self.actor,
                "create" if is_new else "update",
                p,
                cur_version,
                cur_version + 1,
            )
        )
        self.commit(ops)
        if is_new or not self._listed(p):
            self.link(p, is_dir=False)
        return rec

    def _check_ancestors(self, p: str, create_parents: bool) -> None:
        """Refuse, before anything is written, a new node whose nearest existing ancestor is not
        a directory (or whose parent is missing when parents may not be created)."""
        q = p
        while q != ROOT:
            q = parent(q)
            _, rec = self.raw(q)
            if isinstance(rec, DirRecord):
                return
            if rec is not None and not isinstance(rec, RedirectRecord):
                raise NotADirectory(f"{q!r} is a file, so {p!r} cannot be created under it")
            if not create_parents:
                raise NotFound(f"parent directory {q!r} of {p!r} does not exist")

    def _listed(self, p: str) -> bool:
        """Whether the first listing page of ``p``'s parent names it (cheap check for small dirs)."""
        _, par = self.raw(parent(p))
        if not isinstance(par, DirRecord):
            return False
        return lst.holds(par, basename(p)) or par.meta.pages > 0

    def mkdir(self, path: str, text: str = "", *, exist_ok: bool = True) -> DirRecord:
        """Create a directory (and missing ancestors); with ``exist_ok`` an existing one is kept."""
        p = self.norm(path)
        item, cur = self.raw(p)
        if isinstance(cur, DirRecord):
            if not exist_ok:
                raise AlreadyExists(f"directory {p!r} exists")
            if text and cur.text != text:
                return self.set_dir_text(p, text)
            return cur
        if isinstance(cur, FileRecord):
            raise NotADirectory(f"{p!r} is a file")
        if p != ROOT:
            self._check_ancestors(p, True)
        version = item.version if item is not None else ABSENT
        rec = DirRecord(
            name=basename(p), path=p, text=text, meta=DirMeta(version=version + 1, updated_at=now())
        )
        ops: list[Op] = [
            Put(self.keys.node(p), encode(rec, self.settings.max_record_bytes), version)
        ]
        ops += self.index_ops(p, cur, rec)
        ops.append(audit_op(self.keys, self.actor, "mkdir", p, version, version + 1))
        try:
            self.commit(ops)
        except ConflictError:
            return self.mkdir(p, text, exist_ok=True)
        if p != ROOT:
            self.link(p, is_dir=True)
            self._written((), (p,))
        return rec

    def set_dir_text(self, path: str, text: str, expect: int = ANY) -> DirRecord:
        """Replace a directory's overview / description text, keeping its listing."""
        p = self.norm(path)

        def once() -> DirRecord:
            item, cur = self.raw(p)
            if not isinstance(cur, DirRecord) or item is None:
                raise NotFound(f"no directory at {p!r}")
            if expect != ANY and expect != item.version:
                raise ConflictError(p, expect, item.version)
            cur.text = text
            self._write_dir(cur, item.version, "describe")
            return cur

        rec = retry(once, 1 if expect != ANY else DEFAULT_RETRIES)
        if p != ROOT:
            self._written((), (p,))
        return rec

    def _write_dir(self, rec: DirRecord, version: int, op: str) -> None:
        rec.meta.version = version + 1
        rec.meta.updated_at = now()
        ops: list[Op] = [
            Put(self.keys.node(rec.path), encode(rec, self.settings.max_record_bytes), version),
            audit_op(self.keys, self.actor, op, rec.path, version, version + 1),
        ]
        self.commit(ops)

    # --------------------------------------------------------- listings
    def link(self, child: str, is_dir: bool) -> None:
        """Add ``child`` to its parent's listing, creating missing ancestors child-first."""
        par, name = parent(child), basename(child)
        retry(lambda: self._link_once(par, name, is_dir))

    def _link_once(self, par: str, name: str, is_dir: bool) -> None:
        item, rec = self.raw(par)
        if rec is None or isinstance(rec, RedirectRecord):
            # The parent does not exist yet: write it with the child already listed, then link
            # it into its own parent — still child before parent at every level.
            version = item.version if item is not None else ABSENT
            new = lst.missing_parent(par, version, name, is_dir)
            ops: list[Op] = [
                Put(self.keys.node(par), encode(new, self.settings.max_record_bytes), version)
            ]
            ops += self.index_ops(par, rec, new)
            ops.append(audit_op(self.keys, self.actor, "mkdir", par, version, version + 1))
            self.commit(ops)
            if par != ROOT:
                self.link(par, is_dir=True)
            return
        if not isinstance(rec, DirRecord) or item is None:
            raise NotADirectory(f"{par!r} is not a directory")
        if lst.holds(rec, name):
            return
        cap = self.settings.dir_page_entries
        if rec.meta.pages == 0 and lst.entries(rec) < cap:
            lst.add_name(rec, name, is_dir)
            rec.meta.entry_count = lst.entries(rec)
            self._write_dir(rec, item.version, "link")
            return
        self._link_paged(rec, item.version, name, is_dir)

    def _link_paged(self, rec: DirRecord, version: int, name: str, is_dir: bool) -> None:
        cap = self.settings.dir_page_entries
        for page in range(1, rec.meta.pages + 1):  # already listed on a later page?
            pitem = self.backend.get(self.keys.dir_page(rec.path, page))
            if pitem is not None and lst.holds(decode(pitem.value), name):  # type: ignore[arg-type]
                return
        last = rec.meta.pages
        pitem = self.backend.get(self.keys.dir_page(rec.path, last)) if last else None
        cont = decode(pitem.value) if pitem is not None else None
        if isinstance(cont, DirPage) and lst.entries(cont) < cap and pitem is not None:
            lst.add_name(cont, name, is_dir)
            self.commit([Put(self.keys.dir_page(rec.path, last), encode(cont), pitem.version)])
            rec.meta.entry_count += 1
            self._write_dir(rec, version, "link")
            return
        new_page = DirPage(path=rec.path, page=last + 1)
        lst.add_name(new_page, name, is_dir)
        self.commit([Put(self.keys.dir_page(rec.path, last + 1), encode(new_page), ABSENT)])
        rec.meta.pages = last + 1
        rec.meta.entry_count += 1
        self._write_dir(rec, version, "link")

    def _unlink(self, child: str) -> bool:
        par, name = parent(child), basename(child)
        return retry(lambda: self._unlink_once(par, name))

    def _unlink_once(self, par: str, name: str) -> bool:
        item, rec = self.raw(par)
        if not isinstance(rec, DirRecord) or item is None:
            return False
        if lst.remove_name(rec, name):
            rec.meta.entry_count = max(0, rec.meta.entry_count - 1)
            self._write_dir(rec, item.version, "unlink")
            return True
        for page in range(1, rec.meta.pages + 1):
            pitem = self.backend.get(self.keys.dir_page(par, page))
            cont = decode(pitem.value) if pitem is not None else None
            if isinstance(cont, DirPage) and pitem is not None and lst.remove_name(cont, name):
                self.commit([Put(self.keys.dir_page(par, page), encode(cont), pitem.version)])
                rec.meta.entry_count = max(0, rec.meta.entry_count - 1)
                self._write_dir(rec, item.version, "unlink")
                return True
        return False

    # ------------------------------------------------------ delete / move
    def delete(self, path: str, *, expect: int = ANY, recursive: bool = False) -> None:
        """Unlink ``path`` from its parent, then delete it (and, with ``recursive``, everything
        under it). Redirect records are deleted in place."""
        p = self.norm(path)
        if p == ROOT:
            raise IsADirectory("the root cannot be deleted; drop the kb instead")
        item, cur = self.raw(p)
        if cur is None or item is None:
            raise NotFound(f"no record at {p!r} in kb {self.name!r}")
        if expect != ANY and expect != item.version:
            raise ConflictError(p, expect, item.version)
        self.guard()  # fail before unlinking when another job holds the lease
        gone = self._indexed_subtree(p) if self.observers else []
        subtree: list[str] = []
        if isinstance(cur, DirRecord):
            full = self.ls_all(p)
            if len(full) and not recursive:
                raise DirectoryNotEmpty(f"{p!r} has {len(full)} children; use recursive=True")
            subtree = [q for q in self.walk(p) if q != p]
        linked = False if isinstance(cur, RedirectRecord) else self._unlink(p)
        try:
            self._delete_node(p, item.version, cur, "delete")
        except ConflictError:
            if linked:
                self.link(p, isinstance(cur, DirRecord))
            raise
        for q in reversed(subtree):  # unreachable now; delete leaves before their directories
            qitem, qrec = self.raw(q)
            if qitem is not None and qrec is not None:
                self._delete_node(q, qitem.version, qrec, "delete")
        self._written(gone, ())

    def _delete_node(self, p: str, version: int, cur: AnyRecord, op: str) -> None:
        ops: list[Op] = [Delete(self.keys.node(p), version)]
        ops += self.index_ops(p, cur, None)
        if isinstance(cur, DirRecord):
            ops += [Delete(self.keys.dir_page(p, i)) for i in range(1, cur.meta.pages + 1)]
        ops.append(audit_op(self.keys, self.actor, op, p, version, 0))
        self.commit(ops)

    def move(self, src: str, dst: str, *, redirect: bool = True) -> None:
        """Write the node (subtree) at ``dst``, link it, unlink ``src``, then leave redirect
        records at the old paths (or delete them) so wikilinks keep resolving."""
        s, d = self.norm(src), self.norm(dst)
        if s == ROOT or d == ROOT:
            raise IsADirectory("the root cannot be moved")
        if is_under(d, s):
            raise InvalidPath(d, "move-into-self", f"cannot move {s!r} under itself")
        item, cur = self.raw(s)
        if cur is None or isinstance(cur, RedirectRecord) or item is None:
            raise NotFound(f"no page or directory at {s!r}")
        _, existing = self.raw(d)
        if existing is not None and not isinstance(existing, RedirectRecord):
            raise AlreadyExists(f"{d!r} already exists")
        self._check_ancestors(d, True)
        self.guard()
        olds = list(self.walk(s)) if isinstance(cur, DirRecord) else [s]
        self._check_movable(s, d, olds)
        moved = self._indexed_subtree(s) if self.observers else []
        # Copy deepest first so every directory is written after the children it lists.
        for old in sorted(olds, key=lambda q: q.count("/"), reverse=True):
            new = d + old[len(s) :]
            oitem, orec = self.raw(old)
            if oitem is None or orec is None or isinstance(orec, (RedirectRecord, DirPage)):
                continue
            self._copy_node(orec, new)
        self.link(d, isinstance(cur, DirRecord))
        self._unlink(s)
        for old in olds:
            oitem, orec = self.raw(old)
            if oitem is None or orec is None:
                continue
            if redirect:
                target = d + old[len(s) :]
                red = RedirectRecord(
                    name=basename(old),
                    path=old,
                    target=target,
                    meta=RedirectMeta(version=oitem.version + 1, updated_at=now()),
                )
                ops: list[Op] = [Put(self.keys.node(old), encode(red), oitem.version)]
                ops += self.index_ops(old, orec, red)
                if isinstance(orec, DirRecord):
                    ops += [
                        Delete(self.keys.dir_page(old, i)) for i in range(1, orec.meta.pages + 1)
                    ]
                ops.append(
                    audit_op(
                        self.keys,
                        self.actor,
                        "move",
                        old,
                        oitem.version,
                        oitem.version + 1,
                        f"-> {target}",
                    )
                )
                self.commit(ops)
            else:
                self._delete_node(old, oitem.version, orec, "move")
        self._written(moved, [d + q[len(s) :] for q in moved])

    def put_redirect(self, path: str, target: str) -> RedirectRecord:
        """Write a redirect at ``path`` (absent or already a redirect) pointing at ``target`` —
        what a move leaves behind, for imports that carry redirects. Redirects are not listed."""
        p, t = self.norm(path), self.norm(target)
        if p == ROOT:
            raise IsADirectory("the root cannot be a redirect")
        item, cur = self.raw(p)
        if cur is not None and not isinstance(cur, RedirectRecord):
            raise AlreadyExists(f"{p!r} holds a page or directory, not a redirect")
        version = item.version if item is not None else ABSENT
        red = RedirectRecord(
            name=basename(p), path=p, target=t, meta=RedirectMeta(version + 1, now())
        )
        ops: list[Op] = [Put(self.keys.node(p), encode(red), version)]
        ops.append(audit_op(self.keys, self.actor, "redirect", p, version, version + 1, f"-> {t}"))
        self.commit(ops)
        return red

    def redirect(self, path: str, target: str) -> None:
        """Leave a redirect at ``path`` to ``target`` (schema evolution: a directory merged or
        split away, or a page whose move was cut short). A live page there is unlinked from its
        parent first; a directory must be empty."""
        p, t = self.norm(path), self.norm(target)
        if p == ROOT or p == t:
            raise InvalidPath(p, "redirect", "cannot redirect the root or a path to itself")

        def once() -> None:
            item, cur = self.raw(p)
            if isinstance(cur, DirRecord) and len(self.ls_all(p)) > 0:
                raise DirectoryNotEmpty(f"{p!r} still has children")
            if cur is not None and not isinstance(cur, (RedirectRecord, DirPage)):
                self._unlink(p)
            version = item.version if item is not None else 0
            red = RedirectRecord(
                name=basename(p),
                path=p,
                target=t,
                meta=RedirectMeta(version=version + 1, updated_at=now()),
            )
            ops: list[Op] = [
                Put(self.keys.node(p), encode(red), item.version if item is not None else ABSENT)
            ]
            ops += self.index_ops(p, cur, red)
            if isinstance(cur, DirRecord):
                ops += [Delete(self.keys.dir_page(p, i)) for i in range(1, cur.meta.pages + 1)]
            ops.append(
                audit_op(self.keys, self.actor, "redirect", p, version, version + 1, f"-> {t}")
            )
            self.commit(ops)

        retry(once)
        self._written((p,), ())

    def _check_movable(self, s: str, d: str, olds: list[str]) -> None:
        """Refuse, before anything is written, a move whose copies would break a rule: a new
        path over the depth bound, or a directory with continuation pages (not supported). Every
        new path is checked before any directory, so the error does not depend on walk order."""
        for old in olds:
            self.norm(d + old[len(s) :])
        for old in olds:
            _, orec = self.raw(old)
            if isinstance(orec, DirRecord) and orec.meta.pages > 0:
                if len(self.ls_all(old)) > self.settings.dir_page_entries:
                    raise DirectoryNotEmpty(f"moving a paged directory ({old!r}) is not supported")

    def _copy_node(self, rec: AnyRecord, new: str) -> None:
        item, cur = self.raw(new)
        version = item.version if item is not None else ABSENT
        copy: NodeRecord
        if isinstance(rec, DirRecord):
            full = self.ls_all(rec.path)
            copy = DirRecord(
                name=basename(new),
                path=new,
                text=rec.text,
                sub_dirs=order.ordered(new, full.sub_dirs, True),
                files=order.ordered(new, full.files, False),
                meta=DirMeta(version=version + 1, updated_at=now(), entry_count=len(full)),
            )
            if len(full) > self.settings.dir_page_entries:
                raise DirectoryNotEmpty(f"moving a paged directory ({rec.path!r}) is not supported")
        elif isinstance(rec, FileRecord):
            meta = msgspec.structs.replace(rec.meta, version=version + 1, updated_at=now())
            copy = FileRecord(name=basename(new), path=new, text=rec.text, meta=meta)
        else:
            return
        ops: list[Op] = [
            Put(self.keys.node(new), encode(copy, self.settings.max_record_bytes), version)
        ]
        ops += self.index_ops(new, cur, copy)
        ops.append(
            audit_op(
                self.keys, self.actor, "create", new, version, version + 1, f"moved from {rec.path}"
            )
        )
        self.commit(ops)

    # ------------------------------------------------------ observers
    def _indexed_subtree(self, p: str) -> list[str]:
        """``p`` and every live path under it, by the path index itself (a view that filters
        reads, such as a scoped kb, must still report everything a write removed)."""
        return [p, *KBReads.prefix(self, p.rstrip("/") + "/")]

    def _written(self, removed: Sequence[str], added: Sequence[str]) -> None:
        kb = cast("KnowledgeBase", self)  # every KBWrites is the write half of one
        for observer in self.observers:
            observer.written(kb, removed, added)

    # ------------------------------------------------------- CAS helper
    def update(
        self,
        path: str,
        change: Callable[[FileRecord | None], tuple[str, FileMeta | None]],
        retries: int = DEFAULT_RETRIES,
    ) -> FileRecord:
        """Read-modify-write with bounded retries: ``change`` gets the current page (or None)
        and returns the new text and meta; a concurrent writer makes it run again."""
        p = self.norm(path)

        def once() -> FileRecord:
            item, cur = self.raw(p)
            current = cur if isinstance(cur, FileRecord) else None
            text, meta = change(current)
            return self.put(p, text, meta, expect=item.version if item is not None else ABSENT)

        return retry(once, retries)
