"""The embedded default: one LMDB environment, MVCC readers that never block, one writer.

Values are stored as an 8-byte big-endian version followed by the payload.

Operational choices, and why:

* **Durable by default** (``sync=True``): a commit that returned survives a crash. Bulk loads either
  batch many records into one transaction, or open with ``sync=false`` and call :meth:`sync`
  at the end (what :meth:`bulk` does not need: it only groups commits).
* **The map grows when full**: a write that hits ``MapFullError`` is aborted, the map doubles and
  the write is retried. Another process that sees ``MapResizedError`` adopts the new size.
* **Stale reader slots** left by a killed process are reclaimed with ``reader_check`` on open and
  whenever the reader table fills.
* **Fork safety**: an environment must not cross ``fork``; a child process reopens it lazily.
* **Bounded resident map** (``resident_mb``, default :data:`RESIDENT_MB`): the pages of the
  map a process read stay in its RSS; past the bound they are dropped and fault back in from
  the page cache when read again (``lmdb_map.py`` says why that is safe with readers running).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import lmdb

from wikikv.errors import BackendError, ConfigError, ConflictError
from wikikv.store.backends.base import (
    ABSENT,
    ANY,
    Backend,
    Check,
    Delete,
    Item,
    Op,
    Put,
    check_expect,
)
from wikikv.store.backends.lmdb_map import ResidentMap

_VERSION = struct.Struct(">Q")
_FRESH = frozenset((ANY, ABSENT))  # the expectations a first insert satisfies
# This process's id, refreshed in a forked child: checking it costs a list index instead of a
# getpid() system call on every read.
_PID = [os.getpid()]
os.register_at_fork(after_in_child=lambda: _PID.__setitem__(0, os.getpid()))
DEFAULT_MAP_SIZE = 1 << 30  # sparse on Linux: only written pages take disk
MAX_MAP_SIZE = 1 << 40
# MB of the map's pages a process keeps resident before dropping them (0: no bound). A build
# reads back about the whole store it writes (~115 MB per MB of text).
RESIDENT_MB = 256
# A value read counts as one record per 16 KiB towards the resident bound's next check: at 36
# copies, ops on multi-megabyte posting blocks read ~1 GB of the map between two checks.
TICK_BYTES_SHIFT = 14
SCAN_TICK_MASK = 255  # a scan ticks the bound every 256 keys (a test per key, no write)
T = TypeVar("T")


@contextlib.contextmanager
def map_errors() -> Iterator[None]:
    """Turn lmdb exceptions into WikiKV errors at the adapter edge."""
    try:
        yield
    except lmdb.Error as exc:
        raise BackendError(f"lmdb: {exc}") from exc


class LMDBBackend(Backend):
    scheme = "lmdb"
    shared_across_processes = True

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        map_size: int = DEFAULT_MAP_SIZE,
        sync: bool = True,
        max_readers: int = 512,
        readonly: bool = False,
        resident_mb: int = RESIDENT_MB,
    ) -> None:
        self.path = Path(path)
        self.resident = ResidentMap(self.path / "data.mdb", resident_mb << 20)
        self._map_size = map_size
        self._sync = sync
        self._max_readers = max_readers
        self._readonly = readonly
        self._write_lock = threading.Lock()
        self._env: Any = None
        self._pid = -1
        self._open()

    def _open(self) -> None:
        if not self._readonly:
            self.path.mkdir(parents=True, exist_ok=True)
        elif not (self.path / "data.mdb").exists():
            raise ConfigError(f"no LMDB store at {self.path}")
        with map_errors():
            self._env = lmdb.open(
                str(self.path),
                map_size=self._map_size,
                sync=self._sync,
                metasync=self._sync,
                max_readers=self._max_readers,
                max_dbs=0,
                readahead=False,
                readonly=self._readonly,
                lock=True,
            )
            # Reclaim reader slots of processes that died holding a read transaction.
            self._env.reader_check()
        self._pid = os.getpid()

    @property
    def env(self) -> Any:
        if self._pid != _PID[0]:  # forked: the parent's handle must not be used here
            self._open()
        return self._env

    def _retrying(self, fn: Callable[[], T]) -> T:
        """Run ``fn``, adopting a map grown by another process and reclaiming reader slots."""
        for _ in range(8):
            try:
                return fn()
            except lmdb.MapResizedError:
                self.env.set_mapsize(0)
            except lmdb.ReadersFullError:
                self.env.reader_check()
            except lmdb.Error as exc:
                raise BackendError(f"lmdb: {exc}") from exc
        raise BackendError("lmdb: could not begin a transaction after repeated resizes")

    # ------------------------------------------------------------------ reads
    # docstring inherited
    def get(self, key: bytes) -> Item | None:
        env = self.env
        try:
            with env.begin() as txn:
                raw = txn.get(key)
        except lmdb.Error:
            raw = self._retrying(lambda: _txn_get(self.env, key))
        resident = self.resident  # the tick inlined: a get is ~1.3 us
        resident.countdown -= 1
        if resident.countdown <= 0:
            resident.check()
        if raw is None:
            return None
        return _item(raw)

    def get_many(self, keys: Sequence[bytes]) -> list[Item | None]:
        def run() -> list[Item | None]:
            out: list[Item | None] = []
            resident = self.resident  # ticked per key: a long list can touch the whole map
            with self.env.begin() as txn:
                for key in keys:
                    raw = txn.get(key)
                    if raw is None:
                        out.append(None)
                    else:
                        out.append(_item(raw))
                        # a value of many pages (a posting block) counts as that many records
                        resident.countdown -= len(raw) >> TICK_BYTES_SHIFT
                    resident.countdown -= 1
                    if resident.countdown <= 0:
                        resident.check()
            return out

        return self._retrying(run)

    def scan(
        self, start: bytes, end: bytes, limit: int | None = None, reverse: bool = False
    ) -> Iterator[tuple[bytes, Item]]:
        def run() -> list[tuple[bytes, Item]]:
            out: list[tuple[bytes, Item]] = []
            with self.env.begin() as txn:
                cur = txn.cursor()
                if reverse:
                    if cur.set_range(end):
                        ok = cur.prev()
                    else:
                        ok = cur.last()
                    while ok:
                        k = cur.key()
                        if k < start or (limit is not None and len(out) >= limit):
                            break
                        if k < end:
                            raw = cur.value()
                            out.append((k, _item(raw)))
                        ok = cur.prev()
                elif cur.set_range(start) and (limit is None or limit > 0):
                    # The hot loop of Q4: one C-level iterator step per key (about twice as fast
                    # as key()/value()/next() calls).
                    unpack, new = _VERSION.unpack_from, tuple.__new__
                    cap = -1 if limit is None else limit
                    resident = self.resident  # ticked every 256 keys, as scan_values
                    for k, raw in cur.iternext():
                        if k >= end:
                            break
                        out.append((k, new(Item, (unpack(raw)[0], raw[8:]))))
                        if not len(out) & SCAN_TICK_MASK:
                            resident.tick(SCAN_TICK_MASK + 1)
                        if len(out) == cap:
                            break
            return out

        out = self._retrying(run)
        self.resident.tick(1)
        yield from out

    def scan_values(self, start: bytes, end: bytes) -> list[bytes]:
        """The payloads (no versions, no keys) of ``start <= key < end`` in key order: the fast
        path of Q4 prefix search, which only needs the values of the path index (building an
        Item per key costs about a third of a Q4)."""

        def run() -> list[bytes]:
            out: list[bytes] = []
            resident = self.resident
            with self.env.begin() as txn:
                cur = txn.cursor()
                if cur.set_range(start):
                    # ticked every 256 keys: a scan of the whole path index read ~1.4 GB of the
                    # map at 36 copies before its one check at the end
                    for k, raw in cur.iternext():
                        if k >= end:
                            break
                        out.append(raw[8:])
                        if not len(out) & SCAN_TICK_MASK:
                            resident.tick(SCAN_TICK_MASK + 1)
            return out

        out = self._retrying(run)
        self.resident.tick(1)
        return out

    # ----------------------------------------------------------------- writes
    def put_if(self, key: bytes, value: bytes, expect: int = ANY) -> int:
        return self.batch([Put(key, value, expect)])[0]

    def delete_if(self, key: bytes, expect: int = ANY) -> bool:
        existed: list[bool] = []

        def body(txn: Any) -> list[int]:
            existed.append(txn.get(key) is not None)
            return _apply(txn, [Delete(key, expect)], self.resident)

        self._write(body)
        return existed[0]

    def batch(self, ops: Sequence[Op]) -> list[int]:
        return self._write(lambda txn: _apply(txn, ops, self.resident))

    def _write(self, body: Callable[[Any], T]) -> T:
        if self._readonly:
            raise BackendError(f"lmdb store at {self.path} is open read-only")
        # One writer per process at a time; LMDB serializes writers across processes itself.
        with self._write_lock:
            for _ in range(64):
                try:
                    with self.env.begin(write=True) as txn:
                        return body(txn)
                except lmdb.MapFullError:
                    self._grow()
                except lmdb.MapResizedError:
                    self.env.set_mapsize(0)
                except lmdb.ReadersFullError:
                    self.env.reader_check()
                except ConflictError:
                    raise
                except lmdb.Error as exc:
                    raise BackendError(f"lmdb: {exc}") from exc
        raise BackendError("lmdb: write failed after repeated map growth")

    def _grow(self) -> None:
        current = self.env.info()["map_size"]
        if current >= MAX_MAP_SIZE:
            raise BackendError(f"lmdb map is at its maximum size ({current} bytes)")
        self.env.set_mapsize(min(current * 2, MAX_MAP_SIZE))

    # -------------------------------------------------------------- operation
    def map_size(self) -> int:
        return int(self.env.info()["map_size"])

    def reader_check(self) -> int:
        """Clear reader slots of dead processes; return how many were cleared."""
        with map_errors():
            return int(self.env.reader_check())

    def sync(self) -> None:
        if not self._readonly:
            with map_errors():
                self.env.sync(True)

    def backup(self, dest: str | os.PathLike[str]) -> Path:
        """A consistent, compacted copy of the environment, taken while readers and the writer
        run (LMDB copies from one read snapshot)."""
        dest_path = Path(dest)
        if dest_path.exists() and any(dest_path.iterdir()):
            raise ConfigError(f"backup destination {dest_path} is not empty")
        dest_path.mkdir(parents=True, exist_ok=True)
        try:
            with map_errors():
                self.env.copy(str(dest_path), compact=True)
        except BaseException:
            shutil.rmtree(dest_path, ignore_errors=True)
            raise
        return dest_path

    def close(self) -> None:
        self.resident.close()
        if self._env is not None and self._pid == os.getpid():
            self._env.close()
        self._env = None
        self._pid = -1

    def describe(self) -> str:
        return f"lmdb://{self.path}"


def _item(raw: bytes) -> Item:
    """An Item from a stored value; ``tuple.__new__`` skips the namedtuple's Python-level
    ``__new__`` (about 0.5 us per item on this machine, a tenth of a Q1 get)."""
    return tuple.__new__(Item, (_VERSION.unpack_from(raw)[0], raw[8:]))


def _txn_get(env: Any, key: bytes) -> bytes | None:
    with env.begin() as txn:
        raw: bytes | None = txn.get(key)
        return raw


def _apply(txn: Any, ops: Sequence[Op], resident: ResidentMap) -> list[int]:
    """Apply ops in one write transaction; a failed condition raises and aborts the whole txn.
    ``resident`` is ticked per op: the transaction reads the leaves it copies through the map,
    and one large batch (an index run's entries) touched ~150 MB of it between two ticks. The
    map is never written through (no ``writemap``), so dropping its pages inside a write
    transaction is as safe as between two."""
    out: list[int] = []
    first_version = _VERSION.pack(1)
    put, append = txn.put, out.append
    for op in ops:
        resident.countdown -= 1
        if resident.countdown <= 0:
            resident.check()
        if op.expect in _FRESH and isinstance(op, Put):
            # Fresh keys (index and audit entries, new pages) are most of a bulk load: try the
            # insert first, which costs one B-tree descent instead of a get and a put.
            if put(op.key, first_version + op.value, overwrite=False):
                append(1)
                continue
        elif op.expect == ANY and isinstance(op, Delete):
            # Nothing to check (a build clearing its staged index runs deletes millions).
            txn.delete(op.key)
            append(0)
            continue
        raw = txn.get(op.key)
        if raw is not None:
            resident.countdown -= len(raw) >> TICK_BYTES_SHIFT  # the old value, read whole
        current = None if raw is None else _VERSION.unpack_from(raw)[0]
        check_expect(op.key, op.expect, current)
        if isinstance(op, Put):
            version = (current or 0) + 1
            txn.put(op.key, _VERSION.pack(version) + op.value)
            out.append(version)
        elif isinstance(op, Delete):
            if raw is not None:
                txn.delete(op.key)
            out.append(0)
        elif isinstance(op, Check):
            out.append(0)
    return out
