"""Run files: the posting blocks of a first build's staged index runs, spilled beside the store.

A staged run (:func:`wikikv.search.index.merge_staged`) used to put every block of every flush
into the store, read them all back at the merge and delete them: each posting was written to
the store twice, and the store kept the pages the staged blocks had used. Its blocks now go to
one file per run, sorted by block, which the merge reads once, in order, to write each final
block once. A file is written under a temporary name, synced and renamed before the run's
completion record is committed, so a run the store counts has its file; a file the store does
not count (a run killed before its record) is deleted by the next merge. A run whose file is
missing or differs from what its record says (another host, a lost disk, a store copied
without it) is written again from the stored pages (see the merge).

Where: beside an LMDB store (``<store>/index-runs/<kb hash>/``), where a build resumed on the
same store finds them; for another backend (memory, Redis, PostgreSQL) a temporary directory of
the process, so a build resumed in another process writes the runs again from the pages.

Format: records of a ``<HI`` header (key length, value length), the key (a posting block's key
after the index's ``p`` prefix) and the value (the block's postings), in key order.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from struct import Struct
from typing import Any

from wikikv.errors import BackendError, CorruptRecord

_HEAD = Struct("<HI")
READ_CHUNK = 1 << 20  # bytes a reader holds of one run at a time
# What a merge reading every run at once holds of them in all: a build flushing every 4 MiB
# makes ~280 runs at 100 MB of corpus, 280 MB at READ_CHUNK each.
MERGE_READ_BYTES = 64 << 20
MIN_CHUNK = 64 << 10


def merge_chunk(runs: int) -> int:
    """The chunk each of ``runs`` runs read at once by a merge is read in."""
    return max(MIN_CHUNK, min(READ_CHUNK, MERGE_READ_BYTES // max(runs, 1)))


_SUFFIX = ".run"
_BESIDE = "index-runs"  # the directory of run files beside an LMDB store

# Per backend object (not id(), which a later backend may reuse) and kb: the temporary
# directory of a store with no directory of its own.
_TEMP: weakref.WeakKeyDictionary[Any, dict[str, Path]] = weakref.WeakKeyDictionary()


def _innermost(backend: Any) -> Any:
    """The backend under any wrappers (the cache tiers keep theirs as ``inner``)."""
    while getattr(backend, "inner", None) is not None:
        backend = backend.inner
    return backend


def run_dir(backend: Any, kb: str) -> Path:
    """The directory of ``kb``'s run files (created on first use)."""
    inner = _innermost(backend)
    tag = hashlib.blake2b(kb.encode("utf-8"), digest_size=8).hexdigest()
    path = getattr(inner, "path", None)
    if getattr(inner, "scheme", "") == "lmdb" and isinstance(path, Path):
        out = path / _BESIDE / tag
    else:
        dirs = _TEMP.setdefault(inner, {})
        made = dirs.get(kb)
        if made is None:
            made = dirs[kb] = Path(tempfile.mkdtemp(prefix="wikikv-runs-"))
            weakref.finalize(inner, _remove, made, os.getpid())  # gone with the store object
        out = made
    out.mkdir(parents=True, exist_ok=True)
    return out


def _remove(directory: Path, owner: int) -> None:
    """Remove a temporary run directory, in the process that made it only (a forked worker
    dropping its copy of the store must not take the parent's runs with it)."""
    if os.getpid() == owner:
        shutil.rmtree(directory, ignore_errors=True)


def run_path(directory: Path, seq: bytes) -> Path:
    return directory / (seq.hex() + _SUFFIX)


def write_run(
    directory: Path, seq: bytes, blocks: Iterable[tuple[bytes, bytes | bytearray]]
) -> tuple[int, bytes]:
    """Write a run's blocks (in key order) durably; returns the file's size and digest."""
    final = run_path(directory, seq)
    tmp = final.with_suffix(".tmp")
    digest = hashlib.blake2b(digest_size=16)
    size = 0
    pack = _HEAD.pack
    buf = bytearray()  # records gathered up to READ_CHUNK: one write and one hash call each

    def out() -> None:
        nonlocal size
        f.write(buf)
        digest.update(buf)
        size += len(buf)
        buf.clear()

    try:
        with open(tmp, "wb") as f:
            for key, value in blocks:
                buf += pack(len(key), len(value))
                buf += key
                buf += value
                if len(buf) >= READ_CHUNK:
                    out()
            out()
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        _sync_dir(directory)
    except OSError as exc:  # a full or read-only disk: the flush fails, nothing is counted
        raise BackendError(f"index run file {final}: {exc}") from exc
    return size, digest.digest()


def _sync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (where the platform allows opening it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - a platform without directory handles
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def intact(directory: Path, seq: bytes, size: int, digest: bytes) -> bool:
    """Whether the run file of ``seq`` is there with the size and digest its record states."""
    path = run_path(directory, seq)
    try:
        if path.stat().st_size != size:
            return False
        h = hashlib.blake2b(digest_size=16)
        with open(path, "rb") as f:
            while chunk := f.read(READ_CHUNK):
                h.update(chunk)
    except OSError:
        return False
    return h.digest() == digest


def read_run(
    directory: Path, seq: bytes, chunk: int | None = None
) -> Iterator[tuple[bytes, bytes]]:
    """The (key, value) records of a run file, in order, read ``chunk`` (``READ_CHUNK``)
    bytes at a time."""
    path = run_path(directory, seq)
    chunk = chunk or READ_CHUNK
    head, unpack = _HEAD.size, _HEAD.unpack_from
    with open(path, "rb") as f:
        buf = b""  # what the last chunk left unparsed, then the next chunk
        while True:
            more = f.read(chunk)
            buf = buf + more if buf else more
            at, end = 0, len(buf)
            while at + head <= end:
                klen, vlen = unpack(buf, at)
                key_end = at + head + klen
                stop = key_end + vlen
                if stop > end:
                    break
                yield buf[at + head : key_end], buf[key_end:stop]
                at = stop
            if not more:
                if at != end:
                    raise CorruptRecord(f"run file {path} ends inside a record")
                return
            buf = buf[at:]


def clear(directory: Path) -> None:
    """Delete every run file of the directory, and the directory (with the store's
    ``index-runs`` beside an LMDB store, once no kb has runs there)."""
    shutil.rmtree(directory, ignore_errors=True)
    if directory.parent.name == _BESIDE:
        try:
            directory.parent.rmdir()
        except OSError:
            pass  # another kb's runs are there
