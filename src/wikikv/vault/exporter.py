"""``wikikv export``: a kb as an Obsidian-compatible vault or as JSON lines, optionally signed.

Vault layout (LLM-Wiki, Appendix E)::

    DEST/
      index.md                the root directory's overview
      people/_index.md        each directory's description
      people/Lu Xun.md        a page: YAML front matter, a blank line, the body verbatim
      sources/articles/...    the source documents, pages like any other
      .wikikv/export.json     what was exported (kb, counts, time); Obsidian ignores dot-folders
      .wikikv/manifest.json   with --sign: every file's SHA-256, HMAC-signed

JSON lines: ``DEST/records.jsonl``, one record per line (directories, pages, redirects, in path
order), beside the same ``.wikikv/`` files. Every node record of the kb is exported, redirects
included (they are unlisted, so they are found by scanning the node keyspace, not by walking).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import msgspec

from wikikv import __version__
from wikikv.errors import VaultError
from wikikv.store.audit import audit_op
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT
from wikikv.vault import names
from wikikv.vault.items import Item, record_item, to_json_line, to_markdown
from wikikv.vault.signing import ALGORITHM, MEANING, sign_export

ExportFormat = Literal["vault", "json"]
INFO = ".wikikv/export.json"
RECORDS = "records.jsonl"
VERSION_NOTE = (
    "versions are not exported: an import writes fresh records, so every version restarts at 1 "
    "and update times are the import's"
)


@dataclass
class ExportReport:
    dest: str
    format: str
    kb: str
    dirs: int = 0
    pages: int = 0
    redirects: int = 0
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    signed: bool = False
    signature: str = ""
    note: str = VERSION_NOTE

    @property
    def records(self) -> int:
        return self.dirs + self.pages + self.redirects

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "records": self.records}


def collect(kb: KnowledgeBase) -> list[Item]:
    """Every directory, page and redirect of ``kb``, in path order."""
    start, end = kb.keys.space_range("N")
    items = [
        item
        for _, raw in kb.backend.scan(start, end)
        if (item := record_item(raw.value)) is not None
    ]
    items.sort(key=lambda it: it.path)
    return items


def vault_file(item: Item) -> str:
    """The vault-relative POSIX path of the file that holds ``item``."""
    if item.path == ROOT:
        return names.ROOT_INDEX
    segments = item.path[1:].split("/")
    folders = [
        names.encode_segment(s, is_dir=True, at_root=i == 0) for i, s in enumerate(segments[:-1])
    ]
    last = segments[-1]
    if item.kind == "dir":
        return "/".join(
            [
                *folders,
                names.encode_segment(last, is_dir=True, at_root=not folders),
                names.DIR_INDEX,
            ]
        )
    return "/".join([*folders, names.encode_segment(last, is_dir=False, at_root=not folders)])


def _prepare(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise VaultError(f"export destination {dest} exists and is not an empty folder")
    dest.mkdir(parents=True, exist_ok=True)


def _write(target: Path, data: bytes, rel: str) -> None:
    if len(target.name.encode("utf-8")) > names.NAME_MAX_BYTES:
        raise VaultError(f"file name for {rel!r} is over {names.NAME_MAX_BYTES} bytes")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def export_kb(
    kb: KnowledgeBase,
    dest: str | Path,
    fmt: ExportFormat = "vault",
    *,
    key: bytes | None = None,
) -> ExportReport:
    """Write ``kb`` to the empty (or new) folder ``dest``; with ``key``, sign it. Either way an
    ``export`` audit entry records what left the store, and who took it."""
    if fmt not in ("vault", "json"):
        raise VaultError(f"unknown export format {fmt!r} (use vault or json)")
    began = time.perf_counter()
    root = Path(dest)
    _prepare(root)
    report = ExportReport(dest=str(root), format=fmt, kb=kb.name)
    items = collect(kb)
    with_records = root / RECORDS if fmt == "json" else None
    out = with_records.open("wb") if with_records is not None else None
    try:
        for item in items:
            if item.kind == "dir":
                report.dirs += 1
            elif item.kind == "page":
                report.pages += 1
            else:
                report.redirects += 1
            if out is not None:
                line = to_json_line(item)
                out.write(line)
                report.bytes += len(line)
                continue
            rel = vault_file(item)
            report.files += 1
            data = to_markdown(item).encode("utf-8")
            _write(root / rel, data, item.path)
            report.bytes += len(data)
    finally:
        if out is not None:
            out.close()
    if with_records is not None:
        report.files = 1
    info = {
        "wikikv_export": 1,
        "format": fmt,
        "kb": kb.name,
        "exported_at": time.time(),
        "software": f"wikikv {__version__}",
        "records": {"dirs": report.dirs, "pages": report.pages, "redirects": report.redirects},
        "note": VERSION_NOTE,
    }
    _write(root / INFO, (json.dumps(info, ensure_ascii=False, indent=1) + "\n").encode(), INFO)
    if key is not None:
        report.signature = sign_export(
            root, key, signer=kb.actor, kb=kb.name, signed_at=time.time()
        )
        report.signed = True
    detail = f"format={fmt} records={report.records} dest={root.resolve()}"
    if report.signed:
        detail += f" signed={ALGORITHM}:{report.signature} meaning={MEANING}"
    kb.backend.batch([audit_op(kb.keys, kb.actor, "export", ROOT, 0, 0, detail)])
    report.seconds = time.perf_counter() - began
    return report


def identity_view(kb: KnowledgeBase) -> list[tuple[object, ...]]:
    """What an export then import must preserve: every record with the version and update time
    (which an import resets) blanked, and each directory's children as sets (a vault keeps no
    listing order). Two kbs with equal views hold the same wiki."""
    out: list[tuple[object, ...]] = []
    for item in collect(kb):
        meta = None
        if item.meta is not None:
            meta = msgspec.structs.asdict(
                msgspec.structs.replace(item.meta, version=0, updated_at=0.0)
            )
        listing: tuple[frozenset[str], frozenset[str]] | None = None
        if item.kind == "dir":
            full = kb.ls_all(item.path)
            listing = (frozenset(full.sub_dirs), frozenset(full.files))
        out.append((item.kind, item.path, item.text, item.target, meta, listing))
    return out
