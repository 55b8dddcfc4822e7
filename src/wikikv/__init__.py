"""WikiKV: LLM-curated hierarchical knowledge bases on a path-indexed key-value store.

The public API: open a store, get a kb, read and write its records::

    import wikikv

    store = wikikv.open_store("wikikv-data")      # LMDB directory (the default backend)
    kb = store.create_kb("notes", exist_ok=True)
    kb.put("/people/Lu Xun", "Writer.", wikikv.FileMeta(title="Lu Xun"))
    kb.ls("/people").files                        # ['Lu Xun']

Every page write through a kb opened this way keeps the kb's search index current
(``wikikv.search.search(kb, "writer")`` finds the page at once); ``cache=CacheSettings(...)``
puts the cache tiers in front of the backend.
"""

from __future__ import annotations

from wikikv.errors import (
    AccessDenied,
    AlreadyExists,
    AmbiguousName,
    AnalysisWorkerFailed,
    BackendError,
    BackendUnavailable,
    BudgetExceeded,
    ConfigError,
    ConflictError,
    CorpusError,
    CorruptRecord,
    DirectoryNotEmpty,
    ExportVerifyFailed,
    Forbidden,
    FormatError,
    ImportRefused,
    IndexWorkerFailed,
    InvalidErrorBook,
    InvalidKBName,
    InvalidPath,
    InvalidRecord,
    IsADirectory,
    JobCancelled,
    KBExists,
    LeaseHeld,
    LLMError,
    LLMOutputError,
    NotADirectory,
    NotFound,
    PageMoved,
    ReadOnlySource,
    RecordTooLarge,
    RequestTooLarge,
    ReviewDecided,
    SigningKeyError,
    StoreNotFound,
    TooManyAliases,
    Unauthenticated,
    UnknownKB,
    VaultError,
    WikiKVError,
)
from wikikv.library import open_store
from wikikv.store.kb import KnowledgeBase, Listing, NameHit
from wikikv.store.records import (
    DirMeta,
    DirRecord,
    FileMeta,
    FileRecord,
    RedirectMeta,
    RedirectRecord,
)
from wikikv.store.store import FORMAT_VERSION, Store


def __getattr__(name: str) -> str:
    # ``__version__`` on first use: importlib.metadata scans the installed distributions, which
    # every one-shot CLI command would otherwise pay at start-up.
    if name != "__version__":
        raise AttributeError(f"module 'wikikv' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("wikikv")
    except PackageNotFoundError:  # pragma: no cover - a source tree without install
        found = "0.0.0+unknown"
    globals()["__version__"] = found
    return found


__all__ = [
    "AccessDenied",
    "AlreadyExists",
    "AmbiguousName",
    "AnalysisWorkerFailed",
    "BackendError",
    "BackendUnavailable",
    "BudgetExceeded",
    "ConfigError",
    "ConflictError",
    "CorpusError",
    "CorruptRecord",
    "DirMeta",
    "DirRecord",
    "DirectoryNotEmpty",
    "ExportVerifyFailed",
    "FORMAT_VERSION",
    "FileMeta",
    "FileRecord",
    "Forbidden",
    "FormatError",
    "ImportRefused",
    "IndexWorkerFailed",
    "InvalidErrorBook",
    "InvalidKBName",
    "InvalidPath",
    "InvalidRecord",
    "IsADirectory",
    "JobCancelled",
    "KBExists",
    "KnowledgeBase",
    "LLMError",
    "LLMOutputError",
    "LeaseHeld",
    "Listing",
    "NameHit",
    "NotADirectory",
    "NotFound",
    "PageMoved",
    "ReadOnlySource",
    "RecordTooLarge",
    "RedirectMeta",
    "RedirectRecord",
    "RequestTooLarge",
    "ReviewDecided",
    "SigningKeyError",
    "Store",
    "StoreNotFound",
    "TooManyAliases",
    "Unauthenticated",
    "UnknownKB",
    "VaultError",
    "WikiKVError",
    "open_store",
]
