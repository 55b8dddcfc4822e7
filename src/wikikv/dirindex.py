"""A directory's index text — its ``- [[/dim/Page|Page]] — summary`` rows — kept current by page
writes.

A compiled directory describes its children in its text, one row per child, and lint checks the
rows against the listing both ways (``index_inconsistency``). The build renders those rows; a page
written by hand (``put``, ``rm``, ``mv`` through the library, the CLI or the HTTP API) would leave
them stale until ``lint --fix``. :class:`DirIndexUpkeep`, a kb write observer wired by
:func:`wikikv.open_store`, adds the row of a page that appeared and drops the row of one that went,
in a directory that has rows at all (a directory made by hand, without an index text, is left
alone). Children under ``/sources`` get no row, as lint requires none. The row format is the one
the quality repair writes (:func:`index_row`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from wikikv.errors import ConflictError
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT, basename, is_under, parent, unescape_segment
from wikikv.store.records import DirRecord, FileRecord, NodeRecord

ROW_START = "- [["
_RETRIES = 8


def row_target(line: str) -> str | None:
    """The path a row links to, or None for a line that is not a row."""
    if not line.startswith(ROW_START):
        return None
    end = line.find("]]", len(ROW_START))
    if end < 0:
        return None
    inner = line[len(ROW_START) : end]
    return inner.split("|", 1)[0].split("#", 1)[0].strip() or None


def has_rows(text: str) -> bool:
    return any(line.startswith(ROW_START) for line in text.split("\n"))


def index_row(path: str, child: NodeRecord | None) -> str:
    """The row for ``path``: its title (or name) and, for a page, its summary."""
    name = unescape_segment(basename(path))
    summary = ""
    if isinstance(child, FileRecord):
        name = child.meta.title or name
        summary = f" — {child.meta.summary}" if child.meta.summary else ""
    return f"- [[{path}|{name}]]{summary}"


def with_row(text: str, row: str) -> str:
    """``text`` with ``row`` appended after its last non-blank line."""
    lines = text.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join([*lines, row, ""])


def without_rows(text: str, target: str) -> str:
    """``text`` without the rows that link to ``target``."""
    return "\n".join(ln for ln in text.split("\n") if row_target(ln) != target)


class DirIndexUpkeep:
    """A kb write observer (:class:`wikikv.store.kb.WriteObserver`): rows in, rows out."""

    def written(self, kb: KnowledgeBase, removed: Sequence[str], added: Sequence[str]) -> None:
        changes: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
        arrived = set(added)
        for p in added:
            if p != ROOT:
                changes[parent(p)][0].append(p)
        for p in removed:
            if p != ROOT and p not in arrived:
                changes[parent(p)][1].append(p)
        for d, (add, drop) in sorted(changes.items()):
            _update(kb, d, add, drop)


def _live(rec: NodeRecord | None) -> bool:
    return isinstance(rec, (DirRecord, FileRecord))


def _update(kb: KnowledgeBase, d: str, add: list[str], drop: list[str]) -> None:
    # The kb class's own reads, not a view's: a scoped view (HTTP ACL) hides directory texts,
    # and the rows must follow the whole kb.
    get = KnowledgeBase.get
    for _ in range(_RETRIES):
        rec = get(kb, d, follow_redirects=False)
        if not isinstance(rec, DirRecord) or not has_rows(rec.text):
            return
        rows = {t for t in map(row_target, rec.text.split("\n")) if t is not None}
        text = rec.text
        for p in drop:
            if p in rows and not _live(get(kb, p, follow_redirects=False)):
                text = without_rows(text, p)
        for p in add:
            if p in rows or is_under(p, "/sources"):
                continue
            child = get(kb, p, follow_redirects=False)
            if _live(child):
                text = with_row(text, index_row(p, child))
                rows.add(p)
        if text == rec.text:
            return
        try:
            KnowledgeBase.set_dir_text(kb, d, text, expect=rec.meta.version)
            return
        except ConflictError:
            continue  # another write changed the directory: read it again


def keep_dir_index_current(kb: KnowledgeBase) -> None:
    """A store hook (``Store.on_kb``): page writes through ``kb`` keep index texts current."""
    kb.observers.append(DirIndexUpkeep())
