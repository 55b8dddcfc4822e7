"""Store: one backend holding many kbs side by side, with an on-disk format version.

Format versions: a store records ``FORMAT_VERSION`` when created. Opening a store with a newer or
unknown format is refused; an older one is refused too, with the command that migrates it in place
(``wikikv migrate``, :mod:`wikikv.store.migrate`). Format 2 keys node records by their parent's
hash first (a directory's children are neighbours); format 1 hashed the path alone.

**Store id.** The format record also holds the store's id, made once (a random UUID) when the
store is created, or when a store made before ids existed is first opened: a conditional write,
so processes opening it at once agree on one id. Layers that share something between stores —
the Redis L2 cache — key it by this id, so two stores never see each other's entries even when
their kbs have the same names. :func:`format_info` reads it from a bare backend (the cache tiers
are built before the :class:`Store`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from wikikv.config import StoreSettings
from wikikv.errors import (
    BackendError,
    ConfigError,
    ConflictError,
    FormatError,
    KBExists,
    StoreNotFound,
    UnknownKB,
)
from wikikv.store.backends import open_backend
from wikikv.store.backends.base import ABSENT, Backend, Delete, Item, Put, prefix_end
from wikikv.store.kb import KnowledgeBase
from wikikv.store.keys import FORMAT_KEY, KB_REGISTRY_PREFIX, KBKeys, check_kb_name, kb_registry_key
from wikikv.store.records import now

FORMAT_VERSION = 2
DEFAULT_STORE_DIR = "wikikv-data"
_enc = msgspec.msgpack.Encoder()


class FormatInfo(msgspec.Struct):
    format: int
    created_at: float = 0.0
    software: str = "wikikv"
    store_id: str = ""  # see the module docstring; empty only in a store nothing could write to


class KBInfo(msgspec.Struct):
    created_at: float


def _decode_format(item: Item, backend: Backend) -> FormatInfo:
    try:
        return msgspec.msgpack.decode(item.value, type=FormatInfo)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise FormatError(f"unreadable format record in {backend.describe()}: {exc}") from exc


def format_info(backend: Backend) -> FormatInfo:
    """The format record of the store on ``backend``: made (with a new store id) when the backend
    is empty, given a store id when a current-format store has none yet. Refuses a backend that
    holds someone else's data."""
    item = backend.get(FORMAT_KEY) or _record_format(backend)
    for _ in range(8):
        info = _decode_format(item, backend)
        if info.store_id or info.format != FORMAT_VERSION:
            return info  # an older format gets its id after `wikikv migrate`
        named = msgspec.structs.replace(info, store_id=uuid.uuid4().hex)
        try:
            backend.put_if(FORMAT_KEY, _enc.encode(named), item.version)
            return named
        except ConflictError:
            pass  # another opener named it first: read the id it wrote
        except BackendError:
            return info  # a read-only store: it stays unnamed until opened for writing
        found = backend.get(FORMAT_KEY)
        if found is None:
            raise FormatError("the store's format record vanished while it was being opened")
        item = found
    raise FormatError("could not record the store id (the format record kept changing)")


def _record_format(backend: Backend) -> Item:
    """Make an empty backend a WikiKV store; refuse one that holds someone else's data."""
    holds_data = next(iter(backend.scan(b"", b"\xff", limit=1)), None) is not None
    # Read the format again after the scan: a process creating this store at the same moment
    # writes the format record before any data, so data with no format record after it is
    # foreign, and data with one is that other process's brand-new store.
    item = backend.get(FORMAT_KEY)
    if item is not None:
        return item
    if holds_data:
        raise FormatError(
            f"{backend.describe()} holds data but no WikiKV format record: "
            "it is not a WikiKV store (or predates format versioning)"
        )
    info = FormatInfo(FORMAT_VERSION, now(), store_id=uuid.uuid4().hex)
    try:
        backend.put_if(FORMAT_KEY, _enc.encode(info), ABSENT)
    except Exception:  # noqa: BLE001 - another process created it first; re-check below
        pass
    item = backend.get(FORMAT_KEY)
    if item is None:
        raise FormatError("could not record the store format")
    return item


def default_store_url() -> str:
    return os.environ.get("WIKIKV_STORE") or DEFAULT_STORE_DIR


class Store:
    """A backend plus the kb registry. Open with :func:`wikikv.open_store` (the library: cache
    tiers and search upkeep wired in) or :func:`open_store` here (the storage layer alone).

    The store knows nothing of the layers above it; they hook in through three lists: ``on_kb``
    runs for every :class:`KnowledgeBase` object made on this store (write observers such as
    the search upkeep attach there), ``on_open`` once for each kb the store opens (the cache
    tiers pin and follow it), ``on_close`` when the store closes (followers stop). ``backend``
    may already be wrapped (the cache tiers wrap it; the store reads and writes through it)."""

    def __init__(
        self,
        backend: Backend,
        settings: StoreSettings | None = None,
        *,
        on_kb: Sequence[Callable[[KnowledgeBase], None]] = (),
        on_open: Sequence[Callable[[str], None]] = (),
        on_close: Sequence[Callable[[], None]] = (),
    ) -> None:
        self.settings = settings or StoreSettings()
        self._known: dict[str, KnowledgeBase] = {}
        self.on_kb = list(on_kb)
        self.on_open = list(on_open)
        self.on_close = list(on_close)
        self.backend = backend
        self.id = ""  # the store id (module docstring), set by the format check
        self._check_format()

    def _check_format(self) -> None:
        found = format_info(self.backend)
        if found.format > FORMAT_VERSION:
            raise FormatError(
                f"store format {found.format} is newer than this WikiKV understands "
                f"({FORMAT_VERSION}); upgrade wikikv to open it"
            )
        if found.format < 1:
            raise FormatError(f"unknown store format {found.format}")
        if found.format < FORMAT_VERSION:
            raise FormatError(
                f"store format {found.format} at {self.backend.describe()} predates this WikiKV "
                f"(format {FORMAT_VERSION}: node keys keep a directory's children together); "
                "run `wikikv migrate` on it once to rewrite it in place"
            )
        self.id = found.store_id

    # ---------------------------------------------------------------- kbs
    def kbs(self) -> list[str]:
        start = KB_REGISTRY_PREFIX
        return [
            k[len(start) :].decode("utf-8") for k, _ in self.backend.scan(start, prefix_end(start))
        ]

    def has_kb(self, name: str) -> bool:
        return self.backend.get(kb_registry_key(check_kb_name(name))) is not None

    def create_kb(self, name: str, *, exist_ok: bool = False, overview: str = "") -> KnowledgeBase:
        check_kb_name(name)
        if self.has_kb(name):
            if exist_ok:
                return self.kb(name)
            raise KBExists(f"kb {name!r} already exists")
        kb = KnowledgeBase(self, name)
        kb.mkdir("/", overview)  # the root first, then the registry entry that advertises it
        self.backend.put_if(kb_registry_key(name), _enc.encode(KBInfo(now())))
        self._known[name] = kb
        self._warm(name)
        return kb

    def kb(self, name: str) -> KnowledgeBase:
        """The kb called ``name``; UnknownKB when it was never created."""
        found = self._known.get(name)
        if found is not None:
            return found
        if not self.has_kb(name):
            raise UnknownKB(name)
        kb = KnowledgeBase(self, name)
        self._known[name] = kb
        self._warm(name)
        return kb

    def _warm(self, name: str) -> None:
        for hook in self.on_open:
            hook(name)

    def drop_kb(self, name: str) -> int:
        """Delete a kb and every key under it; returns the number of keys deleted."""
        kb = self.kb(name)
        kb.guard()
        self.backend.delete_if(kb_registry_key(name))  # unadvertise first
        self._known.pop(name, None)
        start, end = KBKeys(name).all_range()
        deleted = 0
        while True:
            chunk = [k for k, _ in self.backend.scan(start, end, limit=1000)]
            if not chunk:
                return deleted
            self.backend.batch([Delete(k) for k in chunk])
            deleted += len(chunk)

    # ------------------------------------------------------------ operation
    def backup(self, dest: str | os.PathLike[str]) -> Path:
        backup = getattr(self.backend, "backup", None)
        if backup is None:
            raise ConfigError(
                f"{self.backend.scheme} has no built-in backup; use the server's tools"
            )
        result: Path = backup(dest)
        return result

    def close(self) -> None:
        for hook in self.on_close:
            hook()
        self.on_close.clear()
        self.backend.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _lmdb_dir(url: str) -> Path | None:
    """The directory of an LMDB store URL (a bare path or ``lmdb://``), else None."""
    if "://" not in url:
        return Path(url.split("?", 1)[0])
    if url.lower().startswith("lmdb://"):
        rest = url[len("lmdb://") :].split("?", 1)[0]
        return Path(rest) if rest else None
    return None


def store_exists(url: str) -> bool:
    """Whether a WikiKV store is at ``url``, found without creating anything there."""
    lmdb_dir = _lmdb_dir(url)
    if lmdb_dir is not None:
        if not (lmdb_dir / "data.mdb").is_file():
            return False
    elif url.lower().startswith("memory://"):
        return True  # in-process: every open is a fresh, empty store
    backend = open_backend(url)
    try:
        return backend.get(FORMAT_KEY) is not None
    finally:
        backend.close()


def open_store(
    url: str | None = None,
    settings: StoreSettings | None = None,
    *,
    create: bool = True,
) -> Store:
    """Open the storage layer alone at a URL (default: ``$WIKIKV_STORE`` or ``./wikikv-data``):
    no cache tiers, and writes do not touch the search index. :func:`wikikv.open_store` is the
    library's: it adds both. With ``create=False`` a URL where no store exists raises
    :class:`~wikikv.errors.StoreNotFound` and nothing is created there (a mistyped path stays a
    mistake, not a new empty store)."""
    target = url or default_store_url()
    if not create and not store_exists(target):
        raise StoreNotFound(target)
    return Store(open_backend(target), settings)


__all__ = ["FORMAT_VERSION", "Put", "Store", "format_info", "open_store", "store_exists"]
