"""``wikikv import``: a vault folder, a zipped vault or a JSON-lines export back into a kb.

Everything is read and checked before the first write, so a refused import leaves the target kb
exactly as it was (and does not create it). Refused, each with :class:`ImportRefused` naming the
file: a member path that is absolute or climbs out (``../``, zip-slip), a symlink, a file over the
record limit, front matter that is not a YAML mapping of known fields, a path that breaks the
path rules, two files standing for one path, a page where a folder needs a directory, and a
record whose kind would change in an existing kb. Dot-files and dot-folders (``.obsidian``,
``.wikikv``) are skipped, as are files that are not Markdown (attachments); the report lists them.

Written with the bulk writer (one lease, chunked batches, parents after children), then redirects,
then the search index. Versions restart at 1: an import writes fresh records.
"""

from __future__ import annotations

import os
import re
import stat
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from wikikv.errors import ImportRefused, InvalidPath, InvalidRecord, VaultError
from wikikv.search.index import IndexWriter
from wikikv.store.audit import audit_op
from wikikv.store.bulk import BulkWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT, ancestors, normalize
from wikikv.store.records import (
    DirRecord,
    FileMeta,
    FileRecord,
    RedirectRecord,
    encode,
    text_from_bytes,
)
from wikikv.store.store import Store
from wikikv.vault import names
from wikikv.vault.exporter import RECORDS
from wikikv.vault.items import Item, from_json_line, from_markdown

_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass
class Member:
    """One file of an import source: its relative POSIX path, size and a reader."""

    rel: str
    size: int
    read: Callable[[], bytes]


@dataclass
class ImportReport:
    source: str
    format: str
    kb: str
    created_kb: bool = False
    dirs: int = 0
    pages: int = 0
    redirects: int = 0
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    note: str = "versions restart at 1: an import writes fresh records"

    @property
    def records(self) -> int:
        return self.dirs + self.pages + self.redirects

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "records": self.records}


# ------------------------------------------------------------------------------ sources
def check_member_path(rel: str) -> None:
    """Refuse a member path that is absolute or climbs out of the source (zip-slip)."""
    if not rel or rel.startswith(("/", "\\")) or _DRIVE.match(rel):
        raise ImportRefused(rel or "(empty name)", "absolute path: members must be relative")
    if "\\" in rel:
        raise ImportRefused(rel, "backslash in a member path (a Windows path or a traversal trick)")
    if any(seg in ("..", ".") for seg in rel.split("/")):
        raise ImportRefused(rel, "path traversal: '..' or '.' segment")


def _hidden(rel: str) -> bool:
    return any(seg.startswith(".") for seg in rel.split("/") if seg)


def _check_size(rel: str, size: int, limit: int) -> None:
    if size > limit:
        raise ImportRefused(rel, f"file is {size} bytes, over the record limit of {limit} bytes")


def dir_members(root: Path, limit: int, skipped: list[str]) -> Iterator[Member]:
    """The files under a vault folder; symlinks are refused (never followed)."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        base = Path(folder)
        for name in sorted([*dirs, *files]):
            full = base / name
            rel = full.relative_to(root).as_posix()
            check_member_path(rel)
            if _hidden(rel):
                if name in dirs:
                    dirs.remove(name)
                skipped.append(rel)
                continue
            info = full.lstat()
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(full)
                where = (full.parent / target).resolve()
                inside = where == root.resolve() or root.resolve() in where.parents
                raise ImportRefused(
                    rel,
                    f"symlink to {target!r}"
                    + (" (outside the source)" if not inside else "")
                    + ": links are not followed",
                )
            if name in dirs:
                continue
            if not stat.S_ISREG(info.st_mode):
                raise ImportRefused(rel, "not a regular file")
            _check_size(rel, info.st_size, limit)
            yield Member(rel, info.st_size, full.read_bytes)


def zip_members(path: Path, limit: int, skipped: list[str]) -> Iterator[Member]:
    """The files of a zipped vault, read in memory: nothing is extracted to disk."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ImportRefused(path.name, f"not a readable zip archive: {exc}") from exc
    with archive:
        for info in archive.infolist():
            rel = info.filename.rstrip("/") if info.is_dir() else info.filename
            check_member_path(rel)
            if stat.S_ISLNK(info.external_attr >> 16):
                raise ImportRefused(rel, "symlink member: links are not followed")
            if info.is_dir():
                continue
            if _hidden(rel):
                skipped.append(rel)
                continue
            _check_size(rel, info.file_size, limit)

            def read(info: zipfile.ZipInfo = info) -> bytes:
                data = archive.read(info)
                _check_size(info.filename, len(data), limit)  # the header may lie
                return data

            yield Member(rel, info.file_size, read)


# ------------------------------------------------------------------------------ parsing
def vault_path(rel: str) -> tuple[str, bool] | None:
    """(kb path, is the file a directory index) for a vault member; None when not Markdown."""
    parts = rel.split("/")
    if not parts[-1].endswith(names.PAGE_SUFFIX):
        return None
    folders = [names.decode_name(p) for p in parts[:-1]]
    if rel == names.ROOT_INDEX:
        return ROOT, True
    if parts[-1] == names.DIR_INDEX:
        return "/" + "/".join(folders), True
    leaf = names.decode_name(parts[-1][: -len(names.PAGE_SUFFIX)])
    return "/" + "/".join([*folders, leaf]), False


def _text(member: Member) -> str:
    try:
        return text_from_bytes(member.read(), member.rel)
    except InvalidRecord as exc:
        raise ImportRefused(member.rel, str(exc)) from exc


def read_vault(members: Iterator[Member], skipped: list[str]) -> list[tuple[str, Item]]:
    out: list[tuple[str, Item]] = []
    for member in members:
        where = vault_path(member.rel)
        if where is None:
            skipped.append(member.rel)
            continue
        path, is_dir = where
        try:
            out.append((member.rel, from_markdown(path, _text(member), is_dir=is_dir)))
        except ValueError as exc:
            raise ImportRefused(member.rel, str(exc)) from exc
    return out


def read_json_lines(source: Path, rel: str, limit: int) -> list[tuple[str, Item]]:
    out: list[tuple[str, Item]] = []
    with source.open("rb") as fh:
        for number, line in enumerate(fh, 1):
            where = f"{rel} line {number}"
            _check_size(where, len(line), limit)
            if not line.strip():
                continue
            try:
                out.append((where, from_json_line(line)))
            except ValueError as exc:
                raise ImportRefused(where, str(exc)) from exc
    return out


# ------------------------------------------------------------------------------ checking
@dataclass
class Plan:
    """Checked items, ready to write: directories shallow-first, then pages, then redirects."""

    dirs: list[Item] = field(default_factory=list)
    pages: list[Item] = field(default_factory=list)
    redirects: list[Item] = field(default_factory=list)
    origin: dict[str, str] = field(default_factory=dict)  # kb path -> file that holds it


def check_items(
    found: list[tuple[str, Item]], max_depth: int, limit: int, kb: KnowledgeBase | None
) -> Plan:
    """Every rule an import must pass, checked before anything is written."""
    plan = Plan()
    kinds: dict[str, str] = {}
    for rel, item in found:
        try:
            item.path = normalize(item.path, max_depth)
            if item.kind == "redirect":
                item.target = normalize(item.target, max_depth)
        except InvalidPath as exc:
            raise ImportRefused(rel, str(exc)) from exc
        if item.path in plan.origin:
            raise ImportRefused(
                rel,
                f"stands for {item.path!r}, like {plan.origin[item.path]} (two files, one path)",
            )
        if item.kind == "page" and item.path == ROOT:
            raise ImportRefused(rel, "a page cannot stand for the root directory")
        plan.origin[item.path] = rel
        kinds[item.path] = item.kind
        try:
            encode(_record(item), limit)
        except InvalidRecord as exc:
            raise ImportRefused(rel, str(exc)) from exc
        {"dir": plan.dirs, "page": plan.pages, "redirect": plan.redirects}[item.kind].append(item)
    for path in kinds:
        for above in ancestors(path):
            if kinds.get(above, "dir") != "dir":
                raise ImportRefused(
                    plan.origin[path],
                    f"{path!r} needs {above!r} to be a directory, but {plan.origin[above]} "
                    f"makes it a {kinds[above]}",
                )
    if kb is not None:
        _check_against(kb, plan, kinds)
    plan.dirs.sort(key=lambda it: it.path.count("/") if it.path != ROOT else 0)
    return plan


def _record(item: Item) -> DirRecord | FileRecord | RedirectRecord:
    name = item.path.rsplit("/", 1)[-1]
    if item.kind == "dir":
        return DirRecord(name=name, path=item.path, text=item.text)
    if item.kind == "redirect":
        return RedirectRecord(name=name, path=item.path, target=item.target)
    return FileRecord(name=name, path=item.path, text=item.text, meta=item.meta or FileMeta())


def _kind_of(rec: object) -> str | None:
    if isinstance(rec, DirRecord):
        return "dir"
    if isinstance(rec, FileRecord):
        return "page"
    if isinstance(rec, RedirectRecord):
        return "redirect"
    return None


def _check_against(kb: KnowledgeBase, plan: Plan, kinds: dict[str, str]) -> None:
    """In an existing kb: no record may change kind, and no file may sit where a directory is
    needed."""
    needed = {a for p in kinds for a in ancestors(p)} - kinds.keys()
    paths = list(kinds) + sorted(needed)
    for path, rec in zip(paths, kb_records(kb, paths), strict=True):
        have = _kind_of(rec)
        want = kinds.get(path, "dir")
        if have is not None and have != want:
            rel = plan.origin.get(path) or next(
                plan.origin[p] for p in kinds if path in ancestors(p)
            )
            raise ImportRefused(
                rel, f"{path!r} is a {have} in kb {kb.name!r}; the import would make it a {want}"
            )


def kb_records(kb: KnowledgeBase, paths: list[str]) -> list[object]:
    from wikikv.store.records import decode

    out: list[object] = []
    for p in paths:
        item = kb.backend.get(kb.keys.node(p))
        out.append(decode(item.value) if item is not None else None)
    return out


# ------------------------------------------------------------------------------ entry point
def read_source(source: Path, limit: int, skipped: list[str]) -> tuple[str, list[tuple[str, Item]]]:
    """(format, items) of an import source: a vault folder, a ``.zip`` of one, a JSON-lines
    export folder (holding ``records.jsonl``) or a ``.jsonl`` file."""
    if source.is_symlink():
        raise ImportRefused(source.name, "the source is a symlink: links are not followed")
    if source.is_file() and source.suffix == ".zip":
        return "vault", read_vault(zip_members(source, limit, skipped), skipped)
    if source.is_file() and source.suffix == ".jsonl":
        return "json", read_json_lines(source, source.name, limit)
    if source.is_dir():
        records = source / RECORDS
        if records.is_file() and not records.is_symlink():
            return "json", read_json_lines(records, RECORDS, limit)
        return "vault", read_vault(dir_members(source, limit, skipped), skipped)
    raise VaultError(f"import source {source} is not a folder, a .zip or a .jsonl file")


def import_source(store: Store, kb_name: str, source: str | Path) -> ImportReport:
    """Read and check ``source`` whole, then write it into ``kb_name`` (created when missing)."""
    began = time.perf_counter()
    src = Path(source)
    settings = store.settings
    skipped: list[str] = []
    fmt, found = read_source(src, settings.max_record_bytes, skipped)
    existing = store.kb(kb_name) if store.has_kb(kb_name) else None
    plan = check_items(found, settings.max_depth, settings.max_record_bytes, existing)
    report = ImportReport(source=str(src), format=fmt, kb=kb_name, skipped=sorted(skipped))
    root_text = next((d.text for d in plan.dirs if d.path == ROOT), "")
    if existing is None:
        kb = store.create_kb(kb_name, overview=root_text)
        report.created_kb = True
    else:
        kb = existing
    _write(kb, plan, report)
    kb.backend.batch(
        [
            audit_op(
                kb.keys,
                kb.actor,
                "import",
                ROOT,
                0,
                0,
                f"format={fmt} records={report.records} source={src.resolve()}",
            )
        ]
    )
    report.seconds = time.perf_counter() - began
    return report


def _write(kb: KnowledgeBase, plan: Plan, report: ImportReport) -> None:
    with BulkWriter(kb, job="import") as bw:
        for d in plan.dirs:
            if d.path != ROOT or not report.created_kb:
                bw.mkdir(d.path, d.text)
            report.dirs += 1
        for page in plan.pages:
            bw.put_file(page.path, page.text, page.meta)
            report.pages += 1
    for red in plan.redirects:
        kb.put_redirect(red.path, red.target)
        report.redirects += 1
    with IndexWriter(kb) as index:
        for item in plan.dirs + plan.pages:
            if item.path != ROOT:
                rec = _record(item)
                assert not isinstance(rec, RedirectRecord)
                index.add(rec)
