"""The compile state of a kb, kept as system records (outside the tree: never in ls, prefix,
fsck walks or reachability checks).

=========================  ===================================================================
``compile/schema``         the :class:`~wikikv.compile.schema.Schema` (scaffold + routing)
``descriptor``             the positioning descriptor, a first-class record (IASI)
``compile/doc/<hash>``     one :class:`~wikikv.compile.model.DocAnalysis` per document
``compile/sig/<hash>``     one written page: its path and the signature of what it was rendered from
``compile/progress``       the running or last job: phase, counts (resume reads it)
=========================  ===================================================================
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import msgspec

from wikikv.compile.model import DocAnalysis
from wikikv.compile.schema import Schema
from wikikv.llm.base import Descriptor
from wikikv.store.backends.base import Delete, Op, Put
from wikikv.store.kb import KnowledgeBase

SCHEMA = "compile/schema"
DESCRIPTOR = "descriptor"
DOC_PREFIX = "compile/doc/"
PAGES = "compile/pages"  # the one-record map of older kbs (read once, then rewritten keyed)
SIG_PREFIX = "compile/sig/"
PROGRESS = "compile/progress"
_enc = msgspec.msgpack.Encoder()
_sig_dec = msgspec.msgpack.Decoder(tuple[str, str])


class Progress(msgspec.Struct):
    job: str = ""
    state: str = "idle"  # running | done | failed
    phase: str = ""
    docs_total: int = 0
    docs_done: int = 0
    pages_written: int = 0
    started_at: float = 0.0
    updated_at: float = 0.0


class Sigs(dict[str, str]):
    """Path → signature that remembers which paths were set or removed since the last save:
    a save looks at those, not at every page of the wiki (a build saves ~60 times at 100 MB,
    and comparing the whole map each time grew with the square of the wiki)."""

    def __init__(self, items: Iterable[tuple[str, str]] | dict[str, str] = ()) -> None:
        super().__init__(items)
        self.touched: dict[str, None] = {}  # a dict: in the order the paths were first set

    def __setitem__(self, path: str, sig: str) -> None:
        self.touched[path] = None
        dict.__setitem__(self, path, sig)

    def __delitem__(self, path: str) -> None:
        self.touched[path] = None
        dict.__delitem__(self, path)

    def pop(self, path: str, *default: str | None) -> str | None:  # type: ignore[override]
        self.touched[path] = None
        return dict.pop(self, path, *default)

    def _unsupported(self, *args: object, **kwargs: object) -> None:
        raise TypeError("Sigs records each change: set, pop or del one path at a time")

    update = setdefault = popitem = clear = _unsupported  # type: ignore[assignment]


class PageMap:
    """What each written node was rendered from: path → signature, one record per page, so a
    save writes only what changed since the last one and an add reads only the pages it asks
    for (:func:`load_pages_lazily`). ``written``: whether any page is recorded."""

    def __init__(self, sigs: dict[str, str] | None = None, saved: dict[str, str] | None = None):
        self.sigs: Sigs = sigs if isinstance(sigs, Sigs) else Sigs(sigs or {})
        self.saved: dict[str, str] = dict(self.sigs) if saved is None else saved
        # what the first save compares: the paths whose signature is not the saved one
        touched = self.sigs.touched
        touched.update((p, None) for p, sig in self.sigs.items() if self.saved.get(p) != sig)
        touched.update((p, None) for p in self.saved if p not in self.sigs)
        self.written = bool(self.sigs)
        self.legacy = False  # read from the one-record map of older kbs: rewrite it keyed


class _LazySigs(Sigs):
    """The signatures of an add's :class:`PageMap`, each read from its record when first
    asked for (a missing one is remembered as missing)."""

    def __init__(self, kb: KnowledgeBase, saved: dict[str, str]) -> None:
        super().__init__()
        self._kb = kb
        self._saved = saved
        self._asked: set[str] = set()

    def _load(self, path: str) -> None:
        if path in self._asked or super().__contains__(path):
            return
        self._asked.add(path)
        item = self._kb.backend.get(sig_key(self._kb, path))
        if item is not None:
            stored_path, sig = _sig_dec.decode(item.value)
            if stored_path == path:
                dict.__setitem__(self, path, sig)  # as stored: not a change to save
                self._saved[path] = sig

    def get(self, path: str, default: str | None = None) -> str | None:  # type: ignore[override]
        self._load(path)
        return super().get(path, default)

    def __getitem__(self, path: str) -> str:
        self._load(path)
        return super().__getitem__(path)

    def __contains__(self, path: object) -> bool:
        if isinstance(path, str):
            self._load(path)
        return super().__contains__(path)

    def __setitem__(self, path: str, sig: str) -> None:
        self._load(path)  # the stored value, so a save knows it changed
        super().__setitem__(path, sig)

    def pop(self, path: str, default: str | None = None) -> str | None:  # type: ignore[override]
        self._load(path)
        return super().pop(path, default)


def _key(kb: KnowledgeBase, name: str) -> bytes:
    return kb.keys.system(name)


def doc_key(kb: KnowledgeBase, doc_id: str) -> bytes:
    digest = hashlib.blake2b(doc_id.encode("utf-8"), digest_size=16).hexdigest()
    return _key(kb, DOC_PREFIX + digest)


def _get(kb: KnowledgeBase, name: str) -> bytes | None:
    item = kb.backend.get(_key(kb, name))
    return None if item is None else item.value


def write(kb: KnowledgeBase, ops: list[Op]) -> None:
    if ops:
        kb.commit(ops)  # fenced by the job's lease like every other write of the kb


def load_schema(kb: KnowledgeBase) -> Schema | None:
    raw = _get(kb, SCHEMA)
    return None if raw is None else msgspec.msgpack.decode(raw, type=Schema)


def schema_op(kb: KnowledgeBase, schema: Schema) -> Op:
    return Put(_key(kb, SCHEMA), _enc.encode(schema))


def load_descriptor(kb: KnowledgeBase) -> Descriptor | None:
    raw = _get(kb, DESCRIPTOR)
    return None if raw is None else msgspec.msgpack.decode(raw, type=Descriptor)


def descriptor_op(kb: KnowledgeBase, descriptor: Descriptor) -> Op:
    return Put(_key(kb, DESCRIPTOR), _enc.encode(descriptor))


LOAD_CHUNK = 2000


def load_docs(kb: KnowledgeBase) -> dict[str, DocAnalysis]:
    """Every stored analysis, read in chunks: a backend scan returns its whole range at once,
    and the encoded analyses of a large corpus would sit in memory beside the decoded ones."""
    start = _key(kb, DOC_PREFIX)
    end = start + b"\xff"
    dec = msgspec.msgpack.Decoder(DocAnalysis)
    out: dict[str, DocAnalysis] = {}
    while True:
        chunk = list(kb.backend.scan(start, end, limit=LOAD_CHUNK))
        for _, item in chunk:
            d = dec.decode(item.value)
            out[d.id] = d
        if len(chunk) < LOAD_CHUNK:
            return out
        start = chunk[-1][0] + b"\x00"


def count_docs(kb: KnowledgeBase, limit: int) -> int:
    """How many documents the kb holds, counted up to ``limit``."""
    start = _key(kb, DOC_PREFIX)
    return sum(1 for _ in kb.backend.scan(start, start + b"\xff", limit=limit))


def doc_ops(kb: KnowledgeBase, docs: Iterable[DocAnalysis]) -> list[Op]:
    return [Put(doc_key(kb, d.id), _enc.encode(d)) for d in docs]


def drop_doc_ops(kb: KnowledgeBase, ids: Iterable[str]) -> list[Op]:
    return [Delete(doc_key(kb, i)) for i in ids]


def sig_key(kb: KnowledgeBase, path: str) -> bytes:
    digest = hashlib.blake2b(path.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return _key(kb, SIG_PREFIX + digest)


class _Legacy(msgspec.Struct):
    sigs: dict[str, str] = msgspec.field(default_factory=dict)


def load_pages(kb: KnowledgeBase) -> PageMap:
    """Every recorded signature."""
    sigs = Sigs()
    raw = _get(kb, PAGES)
    legacy = raw is not None
    if raw is not None:  # as stored, so not changes (PageMap marks what differs from saved)
        dict.update(sigs, msgspec.msgpack.decode(raw, type=_Legacy).sigs)
    start = _key(kb, SIG_PREFIX)
    for _, item in kb.backend.scan(start, start + b"\xff"):
        path, sig = _sig_dec.decode(item.value)
        dict.__setitem__(sigs, path, sig)
    pages = PageMap(sigs, saved={} if legacy else None)
    pages.legacy = legacy
    return pages


def load_pages_lazily(kb: KnowledgeBase) -> PageMap | None:
    """A :class:`PageMap` that reads each signature when asked (for an add), or None when the
    kb still has the one-record map of older versions (:func:`load_pages` reads it)."""
    if _get(kb, PAGES) is not None:
        return None
    saved: dict[str, str] = {}
    pages = PageMap(_LazySigs(kb, saved), saved=saved)
    start = _key(kb, SIG_PREFIX)
    pages.written = bool(list(kb.backend.scan(start, start + b"\xff", limit=1)))
    return pages


def pages_ops(kb: KnowledgeBase, pages: PageMap) -> list[Op]:
    """The writes that bring the stored signatures to ``pages.sigs``: the changed ones only
    (and the entries of paths that left the map deleted)."""
    ops: list[Op] = []
    sigs, saved = pages.sigs, pages.saved
    gone: list[str] = []
    get, was = dict.get, saved.get
    for path in sigs.touched:
        sig = get(sigs, path)
        if sig is None:
            if path in saved:
                gone.append(path)
                del saved[path]
        elif was(path) != sig:
            ops.append(Put(sig_key(kb, path), _enc.encode((path, sig))))
            saved[path] = sig
    ops += [Delete(sig_key(kb, p)) for p in gone]
    sigs.touched.clear()
    if pages.legacy:
        ops.append(Delete(_key(kb, PAGES)))
        pages.legacy = False
    pages.written = pages.written or bool(pages.sigs)
    return ops


def load_progress(kb: KnowledgeBase) -> Progress:
    raw = _get(kb, PROGRESS)
    return Progress() if raw is None else msgspec.msgpack.decode(raw, type=Progress)


def progress_op(kb: KnowledgeBase, progress: Progress) -> Op:
    return Put(_key(kb, PROGRESS), _enc.encode(progress))
