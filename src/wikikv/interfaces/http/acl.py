"""Path allow-lists: which nodes of a kb a key may see, and a kb view that hides the rest.

A key with prefixes ``["/people"]`` *sees* ``/people`` and everything under it. The ancestors
of an allowed prefix (here ``/``) are *traversable*: they can be listed, but only the children
on the way to an allowed prefix show, and their own text (an overview that may speak of
anything) is blanked.

:class:`ScopedKB` applies that to every read the query layer makes — ``get``, ``get_many``,
``ls``, ``prefix``, name lookups, the audit trail — so nav, ask, drill, roll-up and link
resolution cannot reach a hidden page by any route, and search drops hidden hits through the
``visible`` hook it consults. A hidden node reads exactly like a missing one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from wikikv.errors import NotFound
from wikikv.query.nav import ARTICLES
from wikikv.store.audit import AuditEntry
from wikikv.store.kb import KnowledgeBase, Listing, NameHit
from wikikv.store.paths import ROOT, join
from wikikv.store.records import DirMeta, DirRecord, FileRecord, NodeRecord


@dataclass(frozen=True)
class PathACL:
    """An allow-list of normalized path prefixes; empty means the whole kb."""

    prefixes: tuple[str, ...] = ()

    @property
    def unrestricted(self) -> bool:
        return not self.prefixes

    def visible(self, path: str) -> bool:
        if not self.prefixes:
            return True
        return any(path == p or path.startswith(p + "/") for p in self.prefixes)

    def traversable(self, path: str) -> bool:
        """Visible, or an ancestor of an allowed prefix."""
        if self.visible(path):
            return True
        below = path if path == ROOT else path + "/"
        return any(p.startswith(below) for p in self.prefixes)


class ScopedKB(KnowledgeBase):
    """A view of a kb through a :class:`PathACL`; reads outside it find nothing."""

    def __init__(self, base: KnowledgeBase, acl: PathACL, actor: str) -> None:
        super().__init__(base.store, base.name)
        self.acl = acl
        self.actor = actor
        self._whole = base  # unfiltered reads, for listing what a redacted directory may show

    def visible(self, path: str) -> bool:
        return self.acl.visible(path)

    def _redacted(self, rec: DirRecord) -> DirRecord:
        full = self._whole.ls_all(rec.path)
        return DirRecord(
            name=rec.name,
            path=rec.path,
            text="",
            sub_dirs=[n for n in full.sub_dirs if self.acl.traversable(join(rec.path, n))],
            files=[n for n in full.files if self.acl.visible(join(rec.path, n))],
            meta=msgspec.structs.replace(rec.meta) if rec.meta.pages == 0 else DirMeta(),
        )

    def _ref_visible(self, ref: str) -> bool:
        return self.acl.visible(ref if ref.startswith("/") else ARTICLES + ref)

    def _scoped(self, requested: str, rec: NodeRecord | None) -> NodeRecord | None:
        if rec is None:
            return None
        if self.acl.visible(rec.path):
            if isinstance(rec, FileRecord):
                # References to hidden nodes (cited sources, links) are dropped like missing ones.
                meta = rec.meta
                sources = [s for s in meta.sources if self._ref_visible(s)]
                links = [x for x in meta.links if self._ref_visible(x)]
                if len(sources) != len(meta.sources) or len(links) != len(meta.links):
                    meta = msgspec.structs.replace(meta, sources=sources, links=links)
                    return msgspec.structs.replace(rec, meta=meta)
            return rec
        if isinstance(rec, DirRecord) and self.acl.traversable(rec.path):
            return self._redacted(rec)
        return None

    def get(self, path: str, *, follow_redirects: bool = True) -> NodeRecord | None:
        p = self.norm(path)
        if not self.acl.traversable(p):
            return None
        return self._scoped(p, super().get(p, follow_redirects=follow_redirects))

    def get_many(self, paths: Sequence[str]) -> list[NodeRecord | None]:
        norm = [self.norm(p) for p in paths]
        shown = [p for p in norm if self.acl.traversable(p)]
        found = dict(zip(shown, super().get_many(shown), strict=True))
        return [self._scoped(p, found.get(p)) if p in found else None for p in norm]

    def exists(self, path: str) -> bool:
        return self.get(path, follow_redirects=False) is not None

    def ls(self, path: str = ROOT, page: int = 0) -> Listing:
        p = self.norm(path)
        if self.acl.visible(p):
            return super().ls(p, page)
        rec = self.get(p)
        if not isinstance(rec, DirRecord) or page != 0:
            raise NotFound(f"no directory at {p!r} in kb {self.name!r}")
        return Listing(rec.path, rec, 0, 1, rec.sub_dirs, rec.files)

    def prefix(self, text: str, limit: int | None = None) -> list[str]:
        found = [p for p in super().prefix(text) if self.acl.visible(p)]
        return found if limit is None else found[:limit]

    def find_names(
        self, name_prefix: str, limit: int | None = None, exact: bool = False
    ) -> list[NameHit]:
        hits = [h for h in super().find_names(name_prefix, None, exact) if self.acl.visible(h.path)]
        return hits if limit is None else hits[:limit]

    def audit(self, limit: int | None = 50, path_prefix: str | None = None) -> list[AuditEntry]:
        out: list[AuditEntry] = []
        for entry in super().audit(None, path_prefix):
            if self.acl.visible(entry.path):
                out.append(entry)
                if limit is not None and len(out) >= limit:
                    break
        return out


def scoped(kb: KnowledgeBase, acl: PathACL, actor: str) -> KnowledgeBase:
    """``kb`` itself when nothing is hidden, else a :class:`ScopedKB` view."""
    return kb if acl.unrestricted else ScopedKB(kb, acl, actor)


__all__ = ["PathACL", "ScopedKB", "scoped"]
