"""The engines the storage benchmark compares, behind one small read interface.

* :class:`WikiKVEngine` — our store (``KnowledgeBase`` on LMDB), the system under test;
* :class:`FSEngine` — a plain file-system layout: one file per page, directories as real
  directories holding an ``.index`` file (the directory record with its listing);
* :class:`SQLiteEngine` — stdlib ``sqlite3``: one table keyed by path with a ``parent`` column
  indexed for listings (the normalized parent-child schema);
* :class:`RawLMDBEngine` — the floor: bare ``txn.get`` / cursor reads of pre-computed keys of the
  WikiKV environment, without any of our layers (it returns raw bytes, so it is left out of the
  cross-check of decoded records).

Every engine stores the same records in the same codec (msgspec msgpack), so the comparison is of
storage layout and access path, and each returns the same decoded records for the same operation.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import msgspec

from wikikv.bench.wikigen import CREATED_AT, Node
from wikikv.store.bulk import BulkWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.keys import KBKeys
from wikikv.store.listing import Listing
from wikikv.store.paths import ROOT, basename, join, parent
from wikikv.store.records import DirMeta, DirRecord, FileMeta, FileRecord, NodeRecord, decode
from wikikv.store.store import Store, open_store

_enc = msgspec.msgpack.Encoder()
INDEX_FILE = ".index"
Descent = tuple[list[Listing], NodeRecord | None]


class Engine(Protocol):
    name: str

    def load(self, nodes: Iterable[Node]) -> None: ...

    def finish_load(self) -> None: ...

    def get(self, path: str) -> NodeRecord | None: ...

    def ls(self, path: str) -> Listing: ...

    def descend(self, chain: Sequence[str], page: str) -> Descent: ...

    def prefix(self, text: str) -> list[str]: ...

    def close(self) -> None: ...


def page_record(node: Node) -> FileRecord:
    meta = msgspec.structs.replace(node.meta or FileMeta(), version=1, updated_at=CREATED_AT)
    return FileRecord(name=basename(node.path), path=node.path, text=node.text, meta=meta)


class DirBuilder:
    """Directory records with their listings, accumulated from nodes given parents first."""

    def __init__(self) -> None:
        self.dirs: dict[str, DirRecord] = {}

    def add(self, node: Node) -> None:
        if node.is_dir:
            self.dirs[node.path] = DirRecord(
                name=basename(node.path),
                path=node.path,
                text=node.text,
                meta=DirMeta(version=1, updated_at=CREATED_AT),
            )
        if node.path != ROOT:
            par = self.dirs[parent(node.path)]
            (par.sub_dirs if node.is_dir else par.files).append(basename(node.path))
            par.meta.entry_count += 1


# ====================================================================== WikiKV
class WikiKVEngine:
    """Our store through its public Python API."""

    name = "wikikv"

    def __init__(self, root: Path, kb_name: str = "bench", sync: bool = False) -> None:
        self.url = f"lmdb://{root}" + ("" if sync else "?sync=false")
        self.store: Store = open_store(self.url)
        self.kb: KnowledgeBase = self.store.create_kb(kb_name, exist_ok=True)
        self.loader = "BulkWriter" + ("" if sync else " (lmdb sync=false, one sync at the end)")

    def load(self, nodes: Iterable[Node]) -> None:
        with BulkWriter(self.kb, job="bench") as bw:
            for node in nodes:
                if node.is_dir:
                    bw.mkdir(node.path, node.text)
                else:
                    bw.put_file(node.path, node.text, node.meta)

    def finish_load(self) -> None:
        self.store.backend.sync()

    def get(self, path: str) -> NodeRecord | None:
        return self.kb.get(path)

    def ls(self, path: str) -> Listing:
        return self.kb.ls(path)

    def descend(self, chain: Sequence[str], page: str) -> Descent:
        kb = self.kb
        return [kb.ls(d) for d in chain], kb.get(page)

    def prefix(self, text: str) -> list[str]:
        return self.kb.prefix(text)

    def close(self) -> None:
        self.store.close()


class RawLMDBEngine:
    """The floor: bare LMDB reads of keys computed beforehand (no path checks, no decoding)."""

    name = "lmdb-raw"

    def __init__(self, wikikv: WikiKVEngine) -> None:
        self.env: Any = wikikv.store.backend.env  # type: ignore[attr-defined]
        self.keys: KBKeys = wikikv.kb.keys

    def get_key(self, key: bytes) -> bytes | None:
        with self.env.begin() as txn:
            raw: bytes | None = txn.get(key)
            return raw

    def get_keys(self, keys: Sequence[bytes]) -> list[bytes | None]:
        with self.env.begin() as txn:
            return [txn.get(k) for k in keys]

    def scan(self, bounds: tuple[bytes, bytes]) -> list[bytes]:
        start, end = bounds
        out: list[bytes] = []
        with self.env.begin() as txn:
            cur = txn.cursor()
            if cur.set_range(start):
                for k, v in cur:
                    if k >= end:
                        break
                    out.append(v)
        return out


# ========================================================================= FS
class FSEngine:
    """One file per page; a directory is a real directory with an ``.index`` record file."""

    name = "fs"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.base = str(root)
        root.mkdir(parents=True, exist_ok=True)
        self._dirs = DirBuilder()

    def _fs(self, path: str) -> str:
        return self.base if path == ROOT else self.base + path

    def load(self, nodes: Iterable[Node]) -> None:
        for node in nodes:
            self._dirs.add(node)
            if node.is_dir:
                os.makedirs(self._fs(node.path), exist_ok=True)
            else:
                with open(self._fs(node.path), "wb") as fh:
                    fh.write(_enc.encode(page_record(node)))

    def finish_load(self) -> None:
        for path, rec in self._dirs.dirs.items():
            with open(os.path.join(self._fs(path), INDEX_FILE), "wb") as fh:
                fh.write(_enc.encode(rec))
        self._dirs = DirBuilder()

    def get(self, path: str) -> NodeRecord | None:
        target = self._fs(path)
        try:
            with open(target, "rb") as fh:
                data = fh.read()
        except IsADirectoryError:
            with open(os.path.join(target, INDEX_FILE), "rb") as fh:
                data = fh.read()
        except (FileNotFoundError, NotADirectoryError):
            return None
        return decode(data)  # type: ignore[return-value]

    def ls(self, path: str) -> Listing:
        with open(os.path.join(self._fs(path), INDEX_FILE), "rb") as fh:
            rec = decode(fh.read())
        assert isinstance(rec, DirRecord)
        return Listing(rec.path, rec, 0, 1, rec.sub_dirs, rec.files)

    def descend(self, chain: Sequence[str], page: str) -> Descent:
        return [self.ls(d) for d in chain], self.get(page)

    def prefix(self, text: str) -> list[str]:
        """Paths starting with ``text``: scan the directory holding the last partial segment,
        keep the matching entries and walk the matching sub-directories."""
        cut = text.rfind("/")
        dir_path, partial = (text[:cut] or ROOT), text[cut + 1 :]
        out: list[str] = [dir_path] if dir_path.startswith(text) else []
        try:
            entries = list(os.scandir(self._fs(dir_path)))
        except (FileNotFoundError, NotADirectoryError):
            return out
        for entry in entries:
            if entry.name == INDEX_FILE or not entry.name.startswith(partial):
                continue
            path = join(dir_path, entry.name)
            out.append(path)
            if entry.is_dir():
                out.extend(self._walk(path))
        out.sort()
        return out

    def _walk(self, path: str) -> Iterator[str]:
        for entry in os.scandir(self._fs(path)):
            if entry.name == INDEX_FILE:
                continue
            sub = join(path, entry.name)
            yield sub
            if entry.is_dir():
                yield from self._walk(sub)

    def close(self) -> None:
        pass


# ===================================================================== SQLite
class SQLiteEngine:
    """A table keyed by path; listings by an indexed ``parent`` column in insertion order."""

    name = "sqlite"
    SCHEMA = (
        "CREATE TABLE IF NOT EXISTS nodes (path TEXT PRIMARY KEY, parent TEXT, name TEXT,"
        " seq INTEGER, is_dir INTEGER, data BLOB)",
        "CREATE INDEX IF NOT EXISTS nodes_parent ON nodes (parent, seq, name, is_dir)",
    )

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(root / "wiki.sqlite"), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        for stmt in self.SCHEMA:
            self.db.execute(stmt)
        self._seq = 0

    def load(self, nodes: Iterable[Node]) -> None:
        rows = []
        for node in nodes:
            self._seq += 1
            if node.is_dir:
                rec: DirRecord | FileRecord = DirRecord(
                    name=basename(node.path),
                    path=node.path,
                    text=node.text,
                    meta=DirMeta(version=1, updated_at=CREATED_AT),
                )
            else:
                rec = page_record(node)
            par = None if node.path == ROOT else parent(node.path)
            rows.append(
                (node.path, par, basename(node.path), self._seq, node.is_dir, _enc.encode(rec))
            )
        with self._tx():
            self.db.executemany("INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?)", rows)

    @contextlib.contextmanager
    def _tx(self) -> Iterator[None]:
        self.db.execute("BEGIN")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def finish_load(self) -> None:
        self.db.execute("ANALYZE")

    def _children(self, rec: DirRecord) -> DirRecord:
        rows = self.db.execute(
            "SELECT name, is_dir FROM nodes WHERE parent = ? ORDER BY seq", (rec.path,)
        ).fetchall()
        rec.sub_dirs = [n for n, d in rows if d]
        rec.files = [n for n, d in rows if not d]
        rec.meta.entry_count = len(rows)
        return rec

    def get(self, path: str) -> NodeRecord | None:
        row = self.db.execute("SELECT data FROM nodes WHERE path = ?", (path,)).fetchone()
        if row is None:
            return None
        rec = decode(row[0])
        if isinstance(rec, DirRecord):
            return self._children(rec)
        return rec  # type: ignore[return-value]

    def ls(self, path: str) -> Listing:
        rec = self.get(path)
        assert isinstance(rec, DirRecord)
        return Listing(rec.path, rec, 0, 1, rec.sub_dirs, rec.files)

    def descend(self, chain: Sequence[str], page: str) -> Descent:
        return [self.ls(d) for d in chain], self.get(page)

    def prefix(self, text: str) -> list[str]:
        rows = self.db.execute(
            "SELECT path FROM nodes WHERE path >= ? AND path < ? ORDER BY path",
            (text, text + "\U0010ffff"),
        ).fetchall()
        return [p for (p,) in rows if p.startswith(text)]

    def close(self) -> None:
        self.db.close()
