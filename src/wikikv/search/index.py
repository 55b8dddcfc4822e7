"""The search index, kept in the store under the kb's reserved ``I`` keyspace.

Because it is ordinary keys of the kb, it works on every backend, is dropped with the kb, and a
reader in another process sees it as soon as the writer commits. Layout (``I`` = the kb's
``KBKeys(kb).space("I")`` prefix):

=========================================  ==============================================
``I s``                                    global stats: N, summed field lengths, generation
``I d`` + doc ref (8 bytes)                one document: path, title, summary, kind, terms
``I p`` + term + NUL + bucket (1 byte)     postings of ``term`` for the docs of one bucket
``I v`` + variant + NUL + word             typo neighbourhood of the name/alias vocabulary
=========================================  ==============================================

A doc ref is the 8-byte BLAKE2b of the page path; its top bits choose one of ``BUCKETS`` posting
blocks per term. Re-indexing a page therefore rewrites one block per distinct term of the page
(old and new), its doc entry and the stats key — a bound set by the page, never by the corpus —
while reading a term is one short range scan. A posting is fixed width: doc ref, term frequency
per field, field lengths (so BM25F length normalisation needs no extra read).

Every write bumps the stats generation (a random 63-bit number, so two stores in one process
never share one); the in-process read caches are keyed by it and so never serve a stale entry.
The vocabulary neighbourhood (``I v``) is not pruned when a page goes away: candidates are
verified against the postings at query time, so a stale entry costs one empty lookup, nothing more.
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

import msgspec

from wikikv.search.tokenize import deletes, fuzzy_eligible, joined_name, tokenize
from wikikv.store.backends.base import ABSENT, ANY, Backend, Delete, Item, Op, Put, prefix_end
from wikikv.store.kb import KnowledgeBase, retry
from wikikv.store.keys import KBKeys
from wikikv.store.paths import unescape_segment
from wikikv.store.records import DirRecord, FileRecord

FIELDS = ("name", "alias", "tag", "summary", "body")
NAME, ALIAS, TAG, SUMMARY, BODY = range(len(FIELDS))
NFIELDS = len(FIELDS)
BUCKET_BITS = 5
BUCKETS = 1 << BUCKET_BITS
MAX_TERM_BYTES = 120
U16 = 0xFFFF
POSTING = struct.Struct("<8s" + "H" * (2 * NFIELDS))
BATCH_OPS = 4000

IndexRecord = FileRecord | DirRecord
K = TypeVar("K")
V = TypeVar("V")


class IndexStats(msgspec.Struct):
    n: int = 0
    total: list[int] = msgspec.field(default_factory=lambda: [0] * NFIELDS)
    gen: int = 0
    writes: int = 0


class DocEntry(msgspec.Struct):
    path: str
    title: str = ""
    summary: str = ""
    kind: str = "page"
    lens: list[int] = msgspec.field(default_factory=lambda: [0] * NFIELDS)
    terms: list[str] = msgspec.field(default_factory=list)
    digest: str = ""


_enc = msgspec.msgpack.Encoder()
_stats_dec = msgspec.msgpack.Decoder(IndexStats)
_doc_dec = msgspec.msgpack.Decoder(DocEntry)


# ------------------------------------------------------------------ keys
class IndexKeys:
    """Key builder for one kb's search index."""

    __slots__ = ("base", "stats", "_d", "_p", "_v")

    def __init__(self, kb: str) -> None:
        self.base = KBKeys(kb).space("I")
        self.stats = self.base + b"s"
        self._d = self.base + b"d"
        self._p = self.base + b"p"
        self._v = self.base + b"v"

    def doc(self, ref: bytes) -> bytes:
        return self._d + ref

    def term_prefix(self, term: str) -> bytes:
        return self._p + term.encode("utf-8") + b"\x00"

    def posting(self, term: str, bucket: int) -> bytes:
        return self.term_prefix(term) + bytes([bucket])

    def variant_prefix(self, variant: str) -> bytes:
        return self._v + variant.encode("utf-8") + b"\x00"

    def variant(self, variant: str, word: str) -> bytes:
        return self.variant_prefix(variant) + word.encode("utf-8")


def doc_ref(path: str) -> bytes:
    return hashlib.blake2b(path.encode("utf-8"), digest_size=8).digest()


def bucket_of(ref: bytes) -> int:
    return ref[0] >> (8 - BUCKET_BITS)


def new_generation() -> int:
    return int.from_bytes(os.urandom(8), "big") >> 1


# ------------------------------------------------------------------ analysis
class Analyzed(msgspec.Struct):
    """One record turned into index data."""

    ref: bytes
    entry: DocEntry
    tfs: dict[str, list[int]]
    vocab: list[str]


def record_fields(rec: IndexRecord) -> tuple[str, str, list[str], list[str], str, str, str]:
    """(path, title, aliases, tags, summary, body, kind) of a page or directory."""
    seg = unescape_segment(rec.name) if rec.name else ""
    if isinstance(rec, FileRecord):
        m = rec.meta
        title = m.title or seg
        return rec.path, title, list(m.aliases), list(m.tags), m.summary, rec.text, m.kind
    return rec.path, seg or "/", [], [], "", rec.text, "dir"


def _indexable(term: str) -> bool:
    """Terms past ``MAX_TERM_BYTES`` (run-on tokens: URLs, hashes) are not indexed; the bound
    keeps a typo-neighbourhood key (variant + word) far below LMDB's 511-byte key limit."""
    return len(term.encode("utf-8")) <= MAX_TERM_BYTES


def analyze(rec: IndexRecord) -> Analyzed:
    path, title, aliases, tags, summary, body, kind = record_fields(rec)
    seg = unescape_segment(rec.name) if rec.name else ""
    names = [title] + ([seg] if seg and seg.casefold() != title.casefold() else [])
    texts: list[list[str]] = [
        [t for n in names for t in tokenize(n, keep_stopwords=True)],
        [t for a in aliases for t in tokenize(a, keep_stopwords=True)],
        [t for g in tags for t in tokenize(g, keep_stopwords=True)],
        tokenize(summary),
        tokenize(body),
    ]
    for field, source in ((NAME, names), (ALIAS, aliases)):
        for n in source:
            j = joined_name(n)
            if j:
                texts[field].append(j)
    tfs: dict[str, list[int]] = {}
    for field, terms in enumerate(texts):
        for term, count in Counter(terms).items():
            if not _indexable(term):
                continue
            tfs.setdefault(term, [0] * NFIELDS)[field] = min(count, U16)
    lens = [min(len(t), U16) for t in texts]
    vocab = sorted({t for t in texts[NAME] + texts[ALIAS] if _indexable(t) and fuzzy_eligible(t)})
    digest = hashlib.blake2b(
        _enc.encode([path, title, aliases, tags, summary, body, kind]), digest_size=12
    ).hexdigest()
    entry = DocEntry(path, title, summary, kind, lens, sorted(tfs), digest)
    return Analyzed(doc_ref(path), entry, tfs, vocab)


def pack(ref: bytes, tf: Sequence[int], lens: Sequence[int]) -> bytes:
    return POSTING.pack(ref, *tf, *lens)


def without(block: bytes, refs: set[bytes]) -> bytes:
    """A posting block minus the postings of ``refs``."""
    size = POSTING.size
    return b"".join(
        block[i : i + size] for i in range(0, len(block), size) if block[i : i + 8] not in refs
    )


# ------------------------------------------------------------------ caches
class LRU(Generic[K, V]):
    """A small thread-safe LRU map (the per-process read cache)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


# ------------------------------------------------------------------ reads
def read_stats(backend: Backend, ik: IndexKeys) -> tuple[int, IndexStats]:
    item = backend.get(ik.stats)
    if item is None:
        return ABSENT, IndexStats()
    return item.version, _stats_dec.decode(item.value)


def read_postings(backend: Backend, ik: IndexKeys, term: str) -> list[bytes]:
    """Every posting block of ``term`` (one range scan)."""
    start = ik.term_prefix(term)
    return [item.value for _, item in backend.scan(start, prefix_end(start))]


def decode_doc(value: bytes) -> DocEntry:
    return _doc_dec.decode(value)


def read_docs(backend: Backend, ik: IndexKeys, refs: Sequence[bytes]) -> list[DocEntry | None]:
    items = backend.get_many([ik.doc(r) for r in refs])
    return [None if it is None else _doc_dec.decode(it.value) for it in items]


def vocabulary_candidates(backend: Backend, ik: IndexKeys, term: str) -> set[str]:
    """Name/alias words that share a one-deletion form with ``term``."""
    out: set[str] = set()
    for variant in deletes(term):
        start = ik.variant_prefix(variant)
        for key, _ in backend.scan(start, prefix_end(start)):
            out.add(key[len(start) :].decode("utf-8"))
    return out


# ------------------------------------------------------------------ writes
def _commit(kb: KnowledgeBase, ops: list[Op]) -> None:
    """Write index ops in atomic batches, each guarded by the kb's bulk-job lease like any
    other write of the kb (the lease holder's own writes pass)."""
    for i in range(0, len(ops), BATCH_OPS):
        kb.backend.batch(kb._guard() + ops[i : i + BATCH_OPS])


def _apply(
    kb: KnowledgeBase,
    removed: dict[bytes, DocEntry],
    added: Sequence[Analyzed],
    old_versions: dict[bytes, int],
) -> None:
    """Replace the postings of the docs in ``removed`` (old entries) by those of ``added``, and
    adjust the stats; one read of every touched block, then conditional writes."""
    backend, ik = kb.backend, IndexKeys(kb.name)
    touched: dict[bytes, tuple[str, int]] = {}
    gone: dict[bytes, set[bytes]] = {}
    for ref, entry in removed.items():
        b = bucket_of(ref)
        for term in entry.terms:
            key = ik.posting(term, b)
            touched[key] = (term, b)
            gone.setdefault(key, set()).add(ref)
    fresh: dict[bytes, list[bytes]] = {}
    for doc in added:
        b = bucket_of(doc.ref)
        for term, tf in doc.tfs.items():
            key = ik.posting(term, b)
            touched[key] = (term, b)
            gone.setdefault(key, set()).add(doc.ref)
            fresh.setdefault(key, []).append(pack(doc.ref, tf, doc.entry.lens))
    keys = sorted(touched)
    items: list[Item | None] = []
    for i in range(0, len(keys), BATCH_OPS):
        items.extend(backend.get_many(keys[i : i + BATCH_OPS]))
    ops: list[Op] = []
    for key, item in zip(keys, items, strict=True):
        block = without(item.value, gone[key]) if item is not None else b""
        block += b"".join(fresh.get(key, ()))
        expect = ABSENT if item is None else item.version
        if block:
            ops.append(Put(key, block, expect))
        elif item is not None:
            ops.append(Delete(key, expect))
    variants: set[bytes] = set()
    for doc in added:
        variants.update(ik.variant(v, w) for w in doc.vocab for v in deletes(w))
    ops.extend(Put(key, b"") for key in sorted(variants))
    # Doc entries and the stats key are written last, together: a page whose entry is stored is
    # fully indexed (a retry after a conflict in an earlier chunk redoes the blocks, and
    # index_page's unchanged-page check cannot skip a half-written page), and a reader that sees
    # the new generation sees every block.
    added_refs = {d.ref for d in added}
    final: list[Op] = [
        Delete(ik.doc(ref), old_versions.get(ref, ANY)) for ref in removed if ref not in added_refs
    ]
    final.extend(
        Put(ik.doc(doc.ref), _enc.encode(doc.entry), old_versions.get(doc.ref, ABSENT))
        for doc in added
    )
    version, stats = read_stats(backend, ik)
    for entry in removed.values():
        stats.n -= 1
        stats.total = [t - n for t, n in zip(stats.total, entry.lens, strict=True)]
    for doc in added:
        stats.n += 1
        stats.total = [t + n for t, n in zip(stats.total, doc.entry.lens, strict=True)]
    stats.n = max(stats.n, 0)
    stats.total = [max(t, 0) for t in stats.total]
    stats.gen = new_generation()
    stats.writes += 1
    final.append(Put(ik.stats, _enc.encode(stats), version))
    _commit(kb, ops)
    if len(final) <= BATCH_OPS:
        kb.backend.batch(kb._guard() + final)
    else:  # a bulk flush: entries in chunks, the stats key in the last one
        _commit(kb, final)


def _current(
    kb: KnowledgeBase, refs: Sequence[bytes]
) -> tuple[dict[bytes, DocEntry], dict[bytes, int]]:
    ik = IndexKeys(kb.name)
    entries: dict[bytes, DocEntry] = {}
    versions: dict[bytes, int] = {}
    for i in range(0, len(refs), BATCH_OPS):
        chunk = refs[i : i + BATCH_OPS]
        for ref, item in zip(chunk, kb.backend.get_many([ik.doc(r) for r in chunk]), strict=True):
            if item is not None:
                entries[ref] = _doc_dec.decode(item.value)
                versions[ref] = item.version
    return entries, versions


def index_page(kb: KnowledgeBase, record: IndexRecord) -> bool:
    """Index (or re-index) one page or directory; returns False when nothing changed."""
    doc = analyze(record)

    def once() -> bool:
        old, versions = _current(kb, [doc.ref])
        prev = old.get(doc.ref)
        if prev is not None and prev.digest == doc.entry.digest:
            return False
        _apply(kb, old, [doc], versions)
        return True

    return retry(once)


def remove_page(kb: KnowledgeBase, path: str) -> bool:
    """Drop one path from the index; returns whether it was indexed."""
    ref = doc_ref(kb.norm(path))

    def once() -> bool:
        old, versions = _current(kb, [ref])
        if not old:
            return False
        _apply(kb, old, [], versions)
        return True

    return retry(once)


class IndexWriter:
    """Bulk indexing for builds: analyses pages as they come, keeps them in memory and writes
    every touched posting block once, at :meth:`flush` (or when the ``with`` block ends).
    The result equals indexing the same pages one by one with :func:`index_page`."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self._docs: dict[bytes, Analyzed] = {}
        self._removed: set[str] = set()

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.flush()

    def __len__(self) -> int:
        return len(self._docs)

    def add(self, record: IndexRecord) -> None:
        doc = analyze(record)
        self._docs[doc.ref] = doc
        self._removed.discard(record.path)

    def add_all(self, records: Iterable[IndexRecord]) -> None:
        for rec in records:
            self.add(rec)

    def remove(self, path: str) -> None:
        p = self.kb.norm(path)
        self._docs.pop(doc_ref(p), None)
        self._removed.add(p)

    def flush(self) -> int:
        """Write what was added; returns the number of documents written."""
        docs = list(self._docs.values())
        refs = [d.ref for d in docs] + [doc_ref(p) for p in sorted(self._removed)]
        if not refs:
            return 0

        def once() -> None:
            old, versions = _current(self.kb, refs)
            with self.kb.backend.bulk():
                _apply(self.kb, old, docs, versions)

        retry(once)
        self._docs.clear()
        self._removed.clear()
        return len(docs)


def clear_index(kb: KnowledgeBase) -> int:
    """Delete the whole index of a kb (before a full rebuild); returns the keys deleted."""
    ik = IndexKeys(kb.name)
    deleted = 0
    while True:
        chunk = [k for k, _ in kb.backend.scan(ik.base, prefix_end(ik.base), limit=BATCH_OPS)]
        if not chunk:
            return deleted
        _commit(kb, [Delete(k) for k in chunk])
        deleted += len(chunk)
