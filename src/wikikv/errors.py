"""Every exception WikiKV raises, in one place.

Hierarchy::

    WikiKVError
    ├── InvalidPath (ValueError)            a path broke a named rule
    ├── InvalidKBName (ValueError)          a kb name broke a named rule
    ├── InvalidRecord (ValueError)          a record cannot be built or encoded
    │   ├── RecordTooLarge                  an encoded record is over the size limit
    │   └── TooManyAliases                  a page has more aliases than the bound
    ├── CorruptRecord                       stored bytes do not decode
    ├── NotFound (KeyError)                 no record at a path
    │   ├── UnknownKB                       the kb does not exist
    │   └── StoreNotFound                   no store at a URL (commands other than init/build)
    ├── AmbiguousName                       a page name or alias names several pages
    ├── KBExists                            create_kb on a kb that exists
    ├── NotADirectory / IsADirectory        the operation needs the other kind of node
    ├── DirectoryNotEmpty                   delete of a directory that still has children
    ├── AlreadyExists                       create at a path that holds a record
    ├── ConflictError                       optimistic concurrency: the expected version is stale
    │   └── PageMoved                       a person's write aimed at a moved page's old path
    ├── ReadOnlySource                      a person's write or delete aimed at /sources/...
    ├── ReviewDecided                       a review item was already decided the other way
    ├── LeaseHeld                           another bulk job holds the kb's exclusive lease
    ├── AccessDenied                        the caller may not do this (HTTP API / MCP keys)
    │   ├── Unauthenticated                 no key, an unknown key, or a revoked one
    │   └── Forbidden                       a valid key, outside its kb, scopes or paths
    ├── RequestTooLarge                     a request body over the server's limit
    ├── JobCancelled                        a background job was cancelled on request
    ├── FormatError                         the on-disk format is unknown or newer than this code
    ├── BackendError                        the storage engine failed (wraps lmdb/redis/psycopg errors)
    │   └── BackendUnavailable              the engine cannot be reached
    ├── ConfigError                         a store URL or setting is invalid
    ├── CorpusError                         a corpus file or folder cannot be ingested
    ├── AnalysisWorkerFailed                a forked analysis worker died before answering
    ├── IndexWorkerFailed                   the forked index worker died before answering
    ├── VaultError                          a vault / JSON-lines export or import failed
    │   ├── ImportRefused                   an import source broke a rule (names the file)
    │   ├── SigningKeyError                 no usable HMAC key for a signed export
    │   └── ExportVerifyFailed              a signed export does not match its manifest
    ├── LLMError                            an LLM provider failed after its retries
    │   └── LLMOutputError                  the model's output was malformed or refused
    ├── BudgetExceeded                      a hard cap (tokens, cost) stopped a job
    ├── SimulatedCrash                      a test hook stopped a job mid-way, like a kill
    ├── BenchProcessError                   a benchmark worker process failed or went silent
    └── DenseUnavailable                    the dense baseline's extra is not installed
"""

from __future__ import annotations


class WikiKVError(Exception):
    """Root of every WikiKV error."""


class InvalidPath(WikiKVError, ValueError):
    """A path broke one of the path rules; ``rule`` names it."""

    def __init__(self, path: object, rule: str, detail: str, position: int | None = None) -> None:
        self.path = path
        self.rule = rule
        self.position = position
        where = f" at segment {position}" if position is not None else ""
        super().__init__(f"invalid path {path!r}: {rule}{where}: {detail}")


class InvalidKBName(WikiKVError, ValueError):
    """A kb name broke the naming rule."""

    def __init__(self, name: object, detail: str) -> None:
        self.name = name
        super().__init__(f"invalid kb name {name!r}: {detail}")


class InvalidRecord(WikiKVError, ValueError):
    """A record cannot be built or encoded."""


class RecordTooLarge(InvalidRecord):
    """An encoded record is over the configured size limit."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        self.path = path
        self.size = size
        self.limit = limit
        super().__init__(f"record at {path!r} is {size} bytes, over the limit of {limit} bytes")


class TooManyAliases(InvalidRecord):
    """A page carries more aliases than the store's bound (``StoreSettings.max_aliases``)."""

    def __init__(self, path: str, count: int, limit: int) -> None:
        self.path = path
        self.count = count
        self.limit = limit
        super().__init__(
            f"page {path!r} has {count} aliases, over the bound of {limit} per page "
            "(StoreSettings.max_aliases)"
        )


class CorruptRecord(WikiKVError):
    """Stored bytes do not decode as a record."""


class NotFound(WikiKVError, KeyError):
    """No record at a path."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class UnknownKB(NotFound):
    """The kb does not exist in this store."""

    def __init__(self, kb: str) -> None:
        # Names only the kb asked for: over a shared interface, other kbs are other tenants'.
        self.kb = kb
        super().__init__(f"unknown kb {kb!r} (run `wikikv init` to create it)")


class StoreNotFound(NotFound):
    """No WikiKV store at a URL that was to be opened, not created."""

    def __init__(self, url: str) -> None:
        self.url = url
        super().__init__(f"no store at {url}; create it with `wikikv init --store {url}`")


class AmbiguousName(WikiKVError):
    """A page name or alias given instead of a path names several pages."""


class KBExists(WikiKVError):
    """create_kb was called for a kb that already exists."""


class NotADirectory(WikiKVError):
    """The operation needs a directory but found a file."""


class IsADirectory(WikiKVError):
    """The operation needs a file but found a directory."""


class DirectoryNotEmpty(WikiKVError):
    """A directory that still has children cannot be deleted without recursive=True."""


class AlreadyExists(WikiKVError):
    """A create found a record already at the path."""


class ConflictError(WikiKVError):
    """Optimistic concurrency: the version the writer expected is stale."""

    def __init__(self, key: str, expected: int | None, actual: int | None, hint: str = "") -> None:
        self.key = key
        self.expected = expected
        self.actual = actual
        super().__init__(self.describe(hint))

    def describe(self, hint: str) -> str:
        said = (
            f"version conflict on {self.key}: expected version {self.expected}, found {self.actual}"
        )
        return f"{said}; {hint}" if hint else said


class PageMoved(ConflictError):
    """A person's write aimed at a page's old path: the page moved, and a redirect to
    ``target`` is there now. Writing would put a second page beside the one that moved."""

    def __init__(self, key: str, target: str, hint: str, expected: int | None, actual: int) -> None:
        self.target = target
        super().__init__(key, expected, actual, hint)

    def describe(self, hint: str) -> str:
        return f"{self.key} moved to {self.target} (a redirect is there now): {hint}"


class ReadOnlySource(WikiKVError):
    """A person's write or delete aimed at a source (``/sources/...``): the corpus as
    compiled, which pages cite by character offset. The message says what to do instead
    (edit the document and update it; remove the document)."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(message)


class ReviewDecided(WikiKVError):
    """A review item was already accepted (or rejected) and cannot be decided the other way."""


class LeaseHeld(WikiKVError):
    """Another bulk job holds the kb's exclusive lease."""


class AccessDenied(WikiKVError):
    """The caller may not do this: the root of the serving layer's auth errors."""


class Unauthenticated(AccessDenied):
    """No API key was given, or the key is unknown, malformed or revoked."""


class Forbidden(AccessDenied):
    """A valid key asked for another kb, a path outside its allow-list, or a scope it lacks."""


class RequestTooLarge(WikiKVError):
    """A request body is over the server's limit (nothing was read past it)."""

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"request body of {size} bytes is over the limit of {limit} bytes")


class JobCancelled(WikiKVError):
    """A background job was cancelled on request; a compile job resumes when started again."""


class FormatError(WikiKVError):
    """The store's on-disk format is unknown or newer than this code understands."""


class BackendError(WikiKVError):
    """The storage engine failed."""


class BackendUnavailable(BackendError):
    """The storage engine cannot be reached."""


class ConfigError(WikiKVError, ValueError):
    """A store URL or setting is invalid."""


class CorpusError(WikiKVError):
    """A corpus file or folder cannot be ingested."""


class AnalysisWorkerFailed(WikiKVError):
    """A worker process analysing a build's documents ended without handing its batch back
    (killed, out of memory); the build stops as if killed and resumes on the next run."""


class IndexWorkerFailed(WikiKVError):
    """The worker process analysing a build's index runs ended without handing its run back
    (killed, out of memory); the build stops as if killed and resumes on the next run."""


class VaultError(WikiKVError):
    """A vault or JSON-lines export or import failed."""


class ImportRefused(VaultError):
    """An import source broke a rule; ``file`` names the offending file (relative to the source)."""

    def __init__(self, file: str, reason: str) -> None:
        self.file = file
        self.reason = reason
        super().__init__(f"import refused, nothing written: {file}: {reason}")


class SigningKeyError(VaultError):
    """No usable HMAC key was given for signing or verifying an export."""


class ExportVerifyFailed(VaultError):
    """A signed export does not match its manifest: every changed, added and missing file."""

    def __init__(
        self,
        dest: str,
        *,
        signature_ok: bool,
        changed: list[str],
        added: list[str],
        missing: list[str],
    ) -> None:
        self.dest = dest
        self.signature_ok = signature_ok
        self.changed = changed
        self.added = added
        self.missing = missing
        parts = (
            [] if signature_ok else ["the manifest signature does not match (wrong key or edited)"]
        )
        for label, names in (("changed", changed), ("added", added), ("missing", missing)):
            if names:
                parts.append(f"{label}: {', '.join(names)}")
        super().__init__(f"export {dest} fails verification: " + "; ".join(parts))


class InvalidErrorBook(WikiKVError, ValueError):
    """An ``error_book.yaml`` to import is malformed (the message names the entry and field)."""


class LLMError(WikiKVError):
    """An LLM provider failed after its retries."""


class LLMOutputError(LLMError):
    """The model's output was malformed, failed its schema, or was refused."""


class BudgetExceeded(WikiKVError):
    """A hard cap (tokens or cost) stopped a job; the job can be resumed."""


class SimulatedCrash(WikiKVError):
    """Raised by the compile pipeline's ``fail_after_writes`` test hook to stop a job mid-way."""


class BenchProcessError(WikiKVError):
    """A benchmark worker process failed or did not answer."""


class DenseUnavailable(WikiKVError):
    """The dense baseline's packages (the ``dense`` extra) are not installed."""
