"""Pages a build moves: a redirect at the old path, and a person's edit carried to the new one.

A full derive can put an entity's page at another path than the last build did — the
dimensions induced again when a small kb outgrew its first sample (``/topics/Fujino Genkurō``
becomes ``/people/Fujino Genkurō``), a kind that more documents settle. The old path is then a
page nothing produces any more; deleting it would leave every bookmark and every link a person
wrote by hand dangling, and a page a person edited orphaned beside a new copy without their text.

:func:`moved_pages` tells such a page from one that is gone for good: its subject is rendered at
a path new in this build under the same name (one such path, no guessing between two), and
shares a cited document with it (a homonym named by other documents is not the same page).
Before the render, :func:`carry_edits` moves a page a person edited to its new path, as
``wikikv mv`` would (its redirect left at once), so the render merges into it there as into any
hand-edited page (:mod:`wikikv.compile.handedits`). After the render, :func:`leave_redirect`
replaces each other moved page by a redirect to its new path — only when a page is there.
Each step is idempotent: a killed build run again finds the redirects it left and keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from wikikv.compile import handedits
from wikikv.compile.guards import SOURCES  # paths that follow from document ids: never move
from wikikv.compile.model import Entity, article_path
from wikikv.errors import AlreadyExists, NotFound
from wikikv.store.backends.base import Item
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import is_under
from wikikv.store.records import FileRecord, RedirectRecord, decode


def _cited(ent: Entity) -> set[str]:
    docs = [*ent.about, *ent.mentioned_in, *(f.doc for f in ent.facts + ent.mentions)]
    return {article_path(d) for d in docs}


def moved_pages(
    kb: KnowledgeBase,
    stale: Iterable[str],
    todo: Iterable[str],
    had: Mapping[str, str],
    entity_at: Mapping[str, Entity],
) -> dict[str, str]:
    """Old path → new path of the ``stale`` entity pages (paths the render no longer produces)
    whose subject is rendered at a path of ``todo`` no build wrote before (``had``: the page
    map's signatures); a stale path already left as a redirect to such a path counts too (a
    resumed build)."""
    olds = [p for p in stale if not is_under(p, SOURCES)]
    if not olds:
        return {}
    by_name: dict[str, list[str]] = {}
    for path in todo:
        ent = entity_at.get(path)
        if ent is not None and had.get(path) is None:
            by_name.setdefault(ent.name, []).append(path)
    if not by_name:
        return {}
    found = {path for paths in by_name.values() for path in paths}
    out: dict[str, str] = {}
    for old, item in zip(olds, _raw_many(kb, olds), strict=True):
        rec = None if item is None else decode(item.value)
        if isinstance(rec, RedirectRecord):
            if rec.target in found:
                out[old] = rec.target
            continue
        if not isinstance(rec, FileRecord) or rec.meta.kind != "entity":
            continue
        there = by_name.get(rec.meta.title, [])
        if len(there) == 1 and _cited(entity_at[there[0]]) & set(rec.meta.sources):
            out[old] = there[0]
    return out


def _raw_many(kb: KnowledgeBase, paths: list[str]) -> Iterator[Item | None]:
    """The stored items at ``paths``, redirects not followed (in chunks of 500 keys)."""
    for i in range(0, len(paths), 500):
        yield from kb.backend.get_many([kb.keys.node(p) for p in paths[i : i + 500]])


def carry_edits(kb: KnowledgeBase, moves: Mapping[str, str], edited: set[str]) -> set[str]:
    """Move each page a person edited to its new path (a redirect left at the old one), still
    marked as edited there; returns the edited paths as they are now. A page whose new path
    holds another page already stays where it is (the render keeps it, as an orphan)."""
    carried: dict[str, str] = {}
    for old, new in sorted(moves.items()):
        if old not in edited or new in edited:
            continue
        cur = kb.get(old, follow_redirects=False)
        if isinstance(cur, FileRecord):
            handedits.mark_edited(kb, new)  # first: a kill after the move must not lose it
            try:
                kb.move(old, new, redirect=True)
            except (AlreadyExists, NotFound):
                handedits.unmark_edited(kb, {new})
                continue
        elif not (isinstance(cur, RedirectRecord) and cur.target == new):
            continue  # (a redirect to it: moved by a build killed before the mark followed)
        carried[old] = new
    handedits.follow_moves(kb, carried.items())
    return (edited - carried.keys()) | set(carried.values())


def leave_redirect(kb: KnowledgeBase, old: str, new: str) -> bool:
    """Replace the page at ``old`` by a redirect to ``new``, when a page is there to point at;
    whether ``old`` is a redirect to it now."""
    cur = kb.get(old, follow_redirects=False)
    if isinstance(cur, RedirectRecord) and cur.target == new:
        return True
    if not isinstance(kb.get(new, follow_redirects=False), FileRecord):
        return False  # a redirect to nothing would be a dangling link of its own
    kb.redirect(old, new)
    return True
