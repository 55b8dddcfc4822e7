"""In-place migration of a store to the current format (``wikikv migrate``).

Format 1 keyed a node record by the 16-byte hash of its path; format 2 by the hash of its parent's
path then of its own (:func:`wikikv.store.keys._node_hash`), so that a directory's children are
neighbours. The migration moves every node record of every kb to its new key — one atomic batch
per few hundred records, each a put of the new key and a delete of the old one — and then records
format 2. Only node keys move: listings, the path and name indexes, continuation pages, the
audit trail and the search index name paths, not node keys.

It is resumable: a record already under its new key is skipped, so a migration killed half way is
finished by running it again (until it is, the store stays format 1 and is refused). A moved record
starts a new version sequence at 1 (its stored ``version`` is rewritten to match): a client
holding an older version gets a conflict and reads again. Run it with no other process using the
store.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from wikikv.errors import FormatError
from wikikv.store.backends.base import ABSENT, Backend, Delete, Op, Put, prefix_end
from wikikv.store.keys import FORMAT_KEY, KB_REGISTRY_PREFIX, KBKeys
from wikikv.store.records import DirRecord, FileRecord, RedirectRecord, decode, encode
from wikikv.store.store import FORMAT_VERSION

CURRENT_FORMAT = FORMAT_VERSION
BATCH = 500


class _Format(msgspec.Struct):
    format: int
    created_at: float = 0.0
    software: str = "wikikv"


@dataclass
class MigrationReport:
    from_format: int = 0
    to_format: int = CURRENT_FORMAT
    moved: dict[str, int] = field(default_factory=dict)  # kb → node records moved


def read_format(backend: Backend) -> tuple[int, int] | None:
    """(format, item version) of the store's format record, None when it has none."""
    item = backend.get(FORMAT_KEY)
    if item is None:
        return None
    try:
        return msgspec.msgpack.decode(item.value, type=_Format).format, item.version
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise FormatError(f"unreadable format record in {backend.describe()}: {exc}") from exc


def migrate(backend: Backend) -> MigrationReport:
    """Bring the store on ``backend`` to :data:`CURRENT_FORMAT` (see the module docstring)."""
    found = read_format(backend)
    if found is None:
        raise FormatError(f"{backend.describe()} holds no WikiKV store (no format record)")
    fmt, version = found
    report = MigrationReport(from_format=fmt)
    if fmt == CURRENT_FORMAT:
        return report
    if fmt != 1:
        raise FormatError(f"cannot migrate store format {fmt} (this WikiKV writes format 2)")
    start = KB_REGISTRY_PREFIX
    kbs = [k[len(start) :].decode("utf-8") for k, _ in backend.scan(start, prefix_end(start))]
    created = _created_at(backend)
    for kb in kbs:
        report.moved[kb] = _move_nodes(backend, KBKeys(kb))
    info = _Format(CURRENT_FORMAT, created)
    backend.batch([Put(FORMAT_KEY, msgspec.msgpack.encode(info), version)])
    return report


def _created_at(backend: Backend) -> float:
    item = backend.get(FORMAT_KEY)
    return 0.0 if item is None else msgspec.msgpack.decode(item.value, type=_Format).created_at


def _move_nodes(backend: Backend, keys: KBKeys) -> int:
    start, end = keys.space_range("N")
    moved = 0
    while True:
        chunk = list(backend.scan(start, end, limit=BATCH))
        if not chunk:
            return moved
        ops: list[Op] = []
        for key, item in chunk:
            rec = decode(item.value)
            if not isinstance(rec, (DirRecord, FileRecord, RedirectRecord)):
                continue  # not a node record: left for fsck to report
            new = keys.node(rec.path)
            if new == key:
                continue  # moved already (a resumed migration) or met again after its move
            rec.meta.version = 1
            ops += [Put(new, encode(rec), ABSENT), Delete(key, item.version)]
            moved += 1
        if ops:
            backend.batch(ops)
        start = chunk[-1][0] + b"\x00"
