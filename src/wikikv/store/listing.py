"""Directory listings: the children a directory record advertises, across continuation pages.

A directory keeps its first ``page_entries`` children in its own record; later children go to
continuation pages (``DirPage`` 1..n) under the ``D`` keyspace, so no record grows without bound
however large a directory becomes. Adding a child to a full record appends to the last page, or
writes a new page first and then bumps the record's page count (parent-after-child again).
Whatever order children arrive in, each record and page lists them in the order of
:mod:`wikikv.store.order`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from wikikv.store import order
from wikikv.store.paths import basename, join
from wikikv.store.records import DirMeta, DirPage, DirRecord, now


@dataclass
class Listing:
    """One page of a directory's children (page 0 is the directory record itself)."""

    path: str
    record: DirRecord
    page: int
    pages: int
    sub_dirs: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.record.text

    def child_paths(self) -> list[str]:
        return [join(self.path, n) for n in self.sub_dirs] + [
            join(self.path, n) for n in self.files
        ]

    def __len__(self) -> int:
        return len(self.sub_dirs) + len(self.files)


def entries(container: DirRecord | DirPage) -> int:
    return len(container.sub_dirs) + len(container.files)


def add_name(container: DirRecord | DirPage, name: str, is_dir: bool) -> None:
    """List ``name`` in ``container``, in its place."""
    add_names(container, [(name, is_dir)])


def add_names(container: DirRecord | DirPage, names: Sequence[tuple[str, bool]]) -> None:
    """List each ``(name, is_dir)`` of ``names`` in ``container``: every list it adds to is
    put in order once (a record written in arrival order by an older version is ordered too)."""
    touched = {is_dir for _, is_dir in names}
    for name, is_dir in names:
        (container.sub_dirs if is_dir else container.files).append(name)
    for is_dir in touched:
        order.arrange(container.path, container.sub_dirs if is_dir else container.files, is_dir)


def remove_name(container: DirRecord | DirPage, name: str) -> bool:
    for names in (container.sub_dirs, container.files):
        if name in names:
            names.remove(name)
            return True
    return False


def holds(container: DirRecord | DirPage, name: str) -> bool:
    return name in container.files or name in container.sub_dirs


def missing_parent(path: str, version: int, name: str, is_dir: bool) -> DirRecord:
    """The directory record of a parent that does not exist yet (at key ``version``), written
    with its first child ``name`` already listed: child before parent at every level."""
    rec = DirRecord(
        name=basename(path),
        path=path,
        meta=DirMeta(version=version + 1, updated_at=now(), entry_count=1),
    )
    add_name(rec, name, is_dir)
    return rec
