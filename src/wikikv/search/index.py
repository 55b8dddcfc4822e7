"""The search index, kept in the store under the kb's reserved ``I`` keyspace.

Because it is ordinary keys of the kb, it works on every backend, is dropped with the kb, and a
reader in another process sees it as soon as the writer commits. Layout (``I`` = the kb's
``KBKeys(kb).space("I")`` prefix):

=========================================  ==============================================
``I s``                                    global stats: N, summed field lengths, generation
``I d`` + doc ref (8 bytes)                one document: path, title, summary, kind, terms
``I p`` + term + NUL + bucket (1 byte)     postings of ``term`` for the docs of one bucket
``I p`` + … + bucket + part (1 byte)       past ``SPLIT_BYTES``: the block in parts (below)
``I v`` + variant + NUL + word             typo neighbourhood of the name/alias vocabulary
``I j`` + jieba version + NUL + CJK run     the run's jieba words (a segmentation memo)
``I w`` + random token (8 bytes)           docs a write in progress adds (see below)
``I c`` + run (8 bytes)                    a staged run's completion record: its stats, and
                                           the size and digest of its run file
``I e`` + doc ref + run                    a staged run's doc entry
``I c``, ``I c`` + NUL                     a merge's plan, and its cursor (last block written)
``I r`` + block + run                      blocks staged in the store by builds before run
                                           files (merged by writing their runs again)
=========================================  ==============================================

A first build's staged runs keep their posting blocks in run files outside the store
(:mod:`wikikv.search.spill`), and :func:`merge_staged` writes each block once from them.

A doc ref is the 8-byte BLAKE2b of the page path; its top bits choose one of ``BUCKETS`` posting
blocks per term. Re-indexing a page therefore rewrites one block per distinct term of the page
(old and new), its doc entry and the stats key — a bound set by the page, never by the corpus —
while reading a term is one short range scan. A posting is fixed width: doc ref, term frequency
per field, field lengths (so BM25F length normalisation needs no extra read). Fewer when the
stored entry says what the blocks hold: a page whose postings are the same (the entry's digest
of them) rewrites its entry alone, and a long page (its entry keeps its counts per term) whose
field lengths are the same rewrites the blocks of the terms whose counts changed.

Every write bumps the stats generation (a random 63-bit number, so two stores in one process
never share one); the in-process read caches are keyed by it and so never serve a stale entry.
The segmentation memo (``I j``) exists for incremental updates: loading jieba's dictionary costs
about a second, more than the rest of indexing a handful of pages, and in a corpus where Chinese
is sporadic (an English wiki quoting a few names) the runs of a re-rendered page were nearly all
seen before. A writer first looks its runs up there and loads jieba only for a miss. Only writes
that meet at most ``MEMO_FLUSH_MAX`` distinct runs store them (a Chinese build would add hundreds
of thousands of keys, and any new Chinese text needs jieba anyway). ``search()`` never reads it.

A write that adds documents never indexed before records their refs under ``I w`` in its first
batch and deletes that key with the doc entries, in its last. A block rewrite drops the postings
of the docs it re-indexes or removes; the postings of a new doc can only be in a block already if
a write that added it was interrupted, and then its ref is under ``I w``. So a merge filters a
block only for re-indexed docs and for the new docs listed there: a bulk build that flushes the
index every few megabytes appends to its blocks without scanning them posting by posting (that
scan made frequent flushes cost more than the pages).

A common word's block holds a posting of nearly every page of its bucket (0.7 MB at 36 copies of
2Wiki 6k), and an add re-indexing a page rewrote it whole. A block past ``SPLIT_BYTES`` is
therefore stored in parts: one key per value of the top bits of the doc ref's second byte (the
first chose the bucket), and a write reads and rewrites only the parts of the docs it adds or
drops. A block is whole or in parts, never both: a write that makes a whole block too large puts
its parts and deletes it in one batch. Readers scan the term's prefix and see no difference.

The vocabulary neighbourhood (``I v``) of a word is deleted by the write that removes the word's
last posting (its block empties and no other bucket holds one). Candidates are still verified
against the postings at query time, so an entry a concurrent writer left stale costs one empty
lookup, nothing more.
"""

from __future__ import annotations

import gc
import heapq
import os
import threading
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Generic, TypeVar

import msgspec
from cachetools import LRUCache

from wikikv.errors import ConflictError
from wikikv.forked import can_fork
from wikikv.search import spill
from wikikv.search.analysis import (
    _BUCKET_BYTE,
    BATCH_OPS,
    BUCKETS,
    MAX_TERM_BYTES,
    MEMO_FLUSH_MAX,
    NFIELDS,
    POSTING,
    RUN_SEQ_BYTES,
    DocEntry,
    Fields,
    IndexKeys,
    IndexRecord,
    IndexStats,
    K,
    Packed,
    V,
    _doc_dec,
    _enc,
    _stats_dec,
    _words_dec,
    analyze_fields,
    bucket_of,
    doc_ref,
    fields_of,
    new_generation,
    packed,
    term_counts_of,
    without,
)
from wikikv.search.staging import StagedRun, Stager, analyse_run, named_blocks, run_of
from wikikv.search.tokenize import (
    cjk_runs,
    deletes,
    fuzzy_eligible,
    memo_words,
    remember_segmentation,
)
from wikikv.store.backends.base import ABSENT, ANY, Backend, Delete, Item, Op, Put, prefix_end
from wikikv.store.kb import KnowledgeBase, retry
from wikikv.store.records import DirRecord, FileRecord

B = TypeVar("B")  # a posting block as a writer builds it


# ------------------------------------------------------------------ caches
class LRU(Generic[K, V]):
    """The per-process read cache: cachetools' LRUCache behind a lock (it is not thread-safe
    by itself), with the get-or-None / put / clear calls the ranking code uses."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._data: LRUCache[K, V] = LRUCache(maxsize=capacity)
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._data.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value

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
        kb.commit(ops[i : i + BATCH_OPS])


def _commit_groups(kb: KnowledgeBase, groups: list[list[Op]]) -> None:
    """Write groups of ops, each whole in one batch (several to a batch)."""
    batch: list[Op] = []
    for group in groups:
        if batch and len(batch) + len(group) > BATCH_OPS:
            kb.commit(batch)
            batch = []
        batch.extend(group)
    if batch:
        kb.commit(batch)


def _memo_runs(pages: Iterable[Fields]) -> list[str] | None:
    """The distinct CJK runs of ``pages`` worth a memo entry (2+ characters, key-sized), or None
    past ``MEMO_FLUSH_MAX``. Runs are cut from the raw text and folded one by one, which skips
    folding whole bodies; where NFKC would move a run boundary (rare compatibility forms) the
    run found here is not one the tokenizer meets, which costs a memo miss, never a wrong term."""
    runs: set[str] = set()
    for f in pages:
        for text in (f.title, f.seg, f.summary, f.body, *f.aliases, *f.tags):
            if text and not text.isascii():
                for raw in cjk_runs(text):
                    run = unicodedata.normalize("NFKC", raw)
                    if len(run) > 1 and len(run.encode("utf-8")) <= MAX_TERM_BYTES:
                        runs.add(run)
            if len(runs) > MEMO_FLUSH_MAX:
                return None
    return sorted(runs)


class _Memo:
    """The stored segmentations of the runs of one write: looked up before analysis (so an
    update whose runs were all seen before never loads jieba), completed after it."""

    def __init__(self, kb: KnowledgeBase, pages: Sequence[Fields]) -> None:
        self.ik = IndexKeys(kb.name)
        runs = _memo_runs(pages)
        self.missing: list[str] = []
        self.known: dict[str, list[str]] = {}  # what was found (a stager is given them)
        if not runs:
            return
        keys = [self.ik.segmentation(r) for r in runs]
        for i in range(0, len(keys), BATCH_OPS):
            found = kb.backend.get_many(keys[i : i + BATCH_OPS])
            for run, item in zip(runs[i : i + BATCH_OPS], found, strict=True):
                if item is None:
                    self.missing.append(run)
                else:
                    words = self.known[run] = _words_dec.decode(item.value)
                    remember_segmentation(run, words)

    def ops(self) -> list[Op]:
        """Puts of the runs that were not stored (call after the pages were analysed)."""
        out: list[Op] = []
        for run in self.missing:
            words = memo_words(run)
            if words is not None:
                out.append(Put(self.ik.segmentation(run), _enc.encode(words)))
        return out


def _analyse(fields: Fields) -> Packed:
    """A page analysed for a write, its postings packed (:class:`~wikikv.search.analysis.Packed`)."""
    return packed(analyze_fields(fields))


def _index_empty(backend: Backend, ik: IndexKeys) -> bool:
    """Whether the kb has no index key at all (then no posting block needs reading back)."""
    return next(iter(backend.scan(ik.base, prefix_end(ik.base), limit=1)), None) is None


SPLIT_BYTES = 1 << 15  # a block past this is stored in parts (see _block_ops)
_PART_BYTE = [bytes([p]) for p in range(256)]


def _part(ref: bytes) -> bytes:
    """The part of a split block a doc's postings are in: the top bits of its ref's second byte
    (the first chose the bucket)."""
    return _PART_BYTE[ref[1] >> 3]


def _by_part(value: bytes | bytearray) -> dict[bytes, bytearray]:
    """A block's postings grouped by part (a posting starts with its ref)."""
    out: dict[bytes, bytearray] = defaultdict(bytearray)
    size = POSTING.size
    for at in range(0, len(value), size):
        out[_PART_BYTE[value[at + 1] >> 3]] += value[at : at + size]
    return out


def _block_ops(key: bytes, value: bytes | bytearray, expect: int) -> list[Op]:
    """The write of a whole block: one key, or past :data:`SPLIT_BYTES` its parts (the block key
    plus the part byte of :func:`_part`, each expecting ``expect``). A common word's block holds
    a posting of nearly every page of its bucket (0.7 MB at 36 copies); in parts, an add that
    re-indexes a page rewrites a 32nd of it. A reader scans the term's prefix either way."""
    if len(value) <= SPLIT_BYTES:
        return [Put(key, bytes(value), expect)]
    return [Put(key + part, bytes(v), expect) for part, v in sorted(_by_part(value).items())]


def _merge(
    backend: Backend,
    ik: IndexKeys,
    removed: dict[bytes, DocEntry],
    added: Sequence[Packed],
    fresh: dict[bytes, bytearray],
    flying: set[bytes],
    groups: list[list[Op]],
    partial: Mapping[bytes, Sequence[str]] = {},
) -> list[Op]:
    """Block writes for an index that has content: read every touched block once (of a block in
    parts, the parts holding a posting of a doc written or dropped), drop the postings of
    re-indexed and removed docs (and of added docs in ``flying``), append the new ones. A block
    that grows past :data:`SPLIT_BYTES` is replaced by its parts: that goes to ``groups``, ops
    committed in one batch. A doc in ``partial`` (ref → the terms whose postings change) loses
    its postings from those terms' blocks alone."""
    touched = set(fresh)
    term_of: dict[bytes, str] = {}  # the blocks of removed postings, and their terms
    for ref, entry in removed.items():
        bb = _BUCKET_BYTE[bucket_of(ref)]
        for term in entry.terms:
            term_of[ik.term_prefix(term) + bb] = term
    exact: dict[bytes, set[bytes]] = {}  # block → the partial docs whose posting leaves it
    for ref, terms in partial.items():
        bb = _BUCKET_BYTE[bucket_of(ref)]
        for term in terms:
            key = ik.term_prefix(term) + bb
            term_of[key] = term
            exact.setdefault(key, set()).add(ref)
    touched.update(term_of)
    keys = sorted(touched)
    items: list[Item | None] = []
    for i in range(0, len(keys), BATCH_OPS):
        items.extend(backend.get_many(keys[i : i + BATCH_OPS]))
    # Every posting of a re-indexed or removed doc goes, whatever its term: the postings an
    # interrupted write left of a doc it added (listed under ``I w``) included.
    gone = set(removed).union(d.ref for d in added if d.ref in flying)
    by_bucket: dict[bytes, set[bytes]] = {}
    for ref in gone:
        by_bucket.setdefault(_BUCKET_BYTE[bucket_of(ref)], set()).add(ref)
    ops: list[Op] = []
    emptied: set[bytes] = set()
    split: list[bytes] = []
    for key, item in zip(keys, items, strict=True):
        here = _leaving(by_bucket, exact, key)
        if item is None and _has_parts(backend, key):
            split.append(key)
            continue
        value = b""
        if item is not None:
            value = without(item.value, here) if here else item.value
        new = fresh.pop(key, None)
        if new is not None:
            value += new
        if len(value) > SPLIT_BYTES:  # stored in parts from now on
            if item is None:
                ops.extend(_block_ops(key, value, ABSENT))
            else:  # the whole key and its parts in one batch: never both, never neither
                groups.append([Delete(key, item.version), *_block_ops(key, value, ABSENT)])
        elif value:
            ops.append(Put(key, value, ABSENT if item is None else item.version))
        elif item is not None:
            ops.append(Delete(key, item.version))
            emptied.add(key)
    ops += _merge_parts(backend, split, by_bucket, exact, fresh, emptied)
    return ops + _vocabulary_gone(
        backend, ik, {term_of[k] for k in emptied if k in term_of}, emptied
    )


def _leaving(
    by_bucket: Mapping[bytes, set[bytes]], exact: Mapping[bytes, set[bytes]], key: bytes
) -> set[bytes]:
    """The docs whose postings leave the block ``key``: every doc re-indexed whole in its bucket
    (a block key ends with its bucket byte), and the partial ones whose posting there changes."""
    whole, only = by_bucket.get(key[-1:]), exact.get(key)
    if only is None:
        return whole or set()
    return only if whole is None else whole | only


def _has_parts(backend: Backend, key: bytes) -> bool:
    """Whether the block ``key`` is stored in parts."""
    return next(iter(backend.scan(key, prefix_end(key), limit=1)), None) is not None


def _merge_parts(
    backend: Backend,
    blocks: list[bytes],
    by_bucket: dict[bytes, set[bytes]],
    exact: dict[bytes, set[bytes]],
    fresh: dict[bytes, bytearray],
    emptied: set[bytes],
) -> list[Op]:
    """:func:`_merge` for blocks in parts: only the parts of the docs dropped or added are read
    and written. A block whose parts all empty goes into ``emptied``."""
    news: dict[bytes, dict[bytes, bytearray]] = {}
    want: list[bytes] = []
    for key in blocks:
        new = fresh.pop(key, None)
        news[key] = _by_part(new) if new is not None else {}
        parts = set(news[key]) | {_part(r) for r in _leaving(by_bucket, exact, key)}
        want += [key + p for p in sorted(parts)]
    items: list[Item | None] = []
    for i in range(0, len(want), BATCH_OPS):
        items.extend(backend.get_many(want[i : i + BATCH_OPS]))
    ops: list[Op] = []
    deleted: dict[bytes, set[bytes]] = {}
    for pkey, item in zip(want, items, strict=True):
        key, part = pkey[:-1], pkey[-1:]
        here = {r for r in _leaving(by_bucket, exact, key) if _part(r) == part}
        value: bytes | bytearray = b""
        if item is not None:
            value = without(item.value, here) if here else item.value
        new = news[key].get(part)
        if new is not None:
            value = value + new
        if value:
            ops.append(Put(pkey, bytes(value), ABSENT if item is None else item.version))
        elif item is not None:
            ops.append(Delete(pkey, item.version))
            deleted.setdefault(key, set()).add(pkey)
    for key, parts in deleted.items():  # every part of the block gone: the block is empty
        if all(k in parts for k, _ in backend.scan(key, prefix_end(key))):
            emptied.add(key)
            emptied.update(parts)
    return ops


def _in_flight(backend: Backend, ik: IndexKeys) -> dict[bytes, set[bytes]]:
    """Marker key → the refs of the docs that a write in progress, or interrupted, adds."""
    start, end = ik.in_flight_range()
    out: dict[bytes, set[bytes]] = {}
    for key, item in backend.scan(start, end):
        v = item.value
        out[key] = {v[i : i + 8] for i in range(0, len(v), 8)}
    return out


def _vocabulary_gone(
    backend: Backend, ik: IndexKeys, candidates: set[str], emptied: set[bytes]
) -> list[Op]:
    """Deletes of the typo-neighbourhood keys of the words whose last posting this write removes
    (a block of theirs empties and no other bucket holds one), so deleting pages does not leave
    their names' vocabulary behind for ever."""
    ops: list[Op] = []
    for term in sorted(candidates):
        if not fuzzy_eligible(term):
            continue  # never had a neighbourhood
        start = ik.term_prefix(term)
        if any(key not in emptied for key, _ in backend.scan(start, prefix_end(start))):
            continue  # another bucket still has postings of it
        # its own key first: a neighbourhood whose own key is stored is whole (_variant_ops)
        ops.append(Delete(ik.variant(term, term)))
        ops.extend(Delete(ik.variant(v, term)) for v in deletes(term) if v != term)
    return ops


def _blocks(ik: IndexKeys, added: Sequence[Packed]) -> dict[bytes, bytearray]:
    """The postings of ``added`` per block key."""
    # Postings are grouped per bucket, then per term, into one growing buffer per block, and a
    # block key is built once per block (a build flush makes several postings per block; keying
    # each posting cost ~20% of it).
    groups: list[dict[str, bytearray]] = [{} for _ in range(BUCKETS)]
    size = POSTING.size
    for doc in added:
        group, blob = groups[bucket_of(doc.ref)], doc.postings
        for at, term in zip(range(0, len(blob), size), doc.entry.terms, strict=True):
            block = group.get(term)
            if block is None:
                group[term] = bytearray(blob[at : at + size])
            else:
                block += blob[at : at + size]
    return _keyed(ik, groups)


def _keyed(ik: IndexKeys, groups: Sequence[MutableMapping[str, B]]) -> dict[bytes, B]:
    """Per-bucket blocks (term → postings) keyed by their block keys; ``groups`` is emptied."""
    prefixes: dict[str, bytes] = {}
    fresh: dict[bytes, B] = {}
    for b, group in enumerate(groups):
        bb = _BUCKET_BYTE[b]
        for term, block in group.items():
            p = prefixes.get(term)
            if p is None:
                p = prefixes[term] = ik.term_prefix(term)
            fresh[p + bb] = block
        group.clear()
    return fresh


def _vocabulary(added: Sequence[Packed]) -> set[str]:
    words: set[str] = set()  # names repeat across pages: each word's neighbourhood once
    for doc in added:
        words.update(doc.vocab)
    return words


def _variant_ops(ik: IndexKeys, words: Iterable[str]) -> list[Op]:
    """Puts of the typo neighbourhoods of ``words``, each word's own key (``I v`` + word +
    NUL + word) after every other key: batches commit in order, so a word whose own key is
    stored has its whole neighbourhood stored (see :func:`_neighbourhoods_stored`)."""
    # Put(key, b""), made with tuple.__new__ (no Python-level constructor per key)
    new_tuple = tuple.__new__
    words = list(words)
    own = {ik.variant(w, w) for w in words}
    keys = sorted(ik.variant_keys(words) - own)
    keys += sorted(own)
    return [new_tuple(Put, (key, b"", ANY)) for key in keys]


def _neighbourhoods_stored(backend: Backend, ik: IndexKeys, words: Iterable[str]) -> set[str]:
    """The ``words`` whose typo neighbourhood is stored whole (their own key is: it is written
    last, :func:`_variant_ops`). A build's phases and a resumed build write their names' again
    otherwise (41 % of the neighbourhood keys of one copy of 2Wiki 6k were written twice)."""
    order = sorted(words)
    out: set[str] = set()
    for i in range(0, len(order), BATCH_OPS):
        chunk = order[i : i + BATCH_OPS]
        found = backend.get_many([ik.variant(w, w) for w in chunk])
        out.update(w for w, item in zip(chunk, found, strict=True) if item is not None)
    return out


def _same_postings(removed: Mapping[bytes, DocEntry], added: Sequence[Packed]) -> set[bytes]:
    """The re-indexed docs whose postings are what is stored (:attr:`DocEntry.postings`): only
    their entries are written."""
    return {
        doc.ref
        for doc in added
        if (old := removed.get(doc.ref)) is not None
        and old.postings
        and old.postings == doc.entry.postings
    }


def _changed_terms(
    removed: Mapping[bytes, DocEntry], added: Sequence[Packed], flying: set[bytes]
) -> dict[bytes, list[str]]:
    """The re-indexed long docs (:attr:`DocEntry.counts`) whose field lengths are as stored, so
    that only the postings of the terms whose counts changed (or that came or went) differ:
    ref → those terms. Not a doc an interrupted write may have left postings of (``flying``),
    nor one whose postings are all the same (:func:`_same_postings`)."""
    out: dict[bytes, list[str]] = {}
    for doc in added:
        old = removed.get(doc.ref)
        if old is None or doc.ref in flying or old.lens != doc.entry.lens:
            continue
        was, now = term_counts_of(old), term_counts_of(doc.entry)
        if was is None or now is None:
            continue
        changed = sorted(t for t in was.keys() | now.keys() if was.get(t) != now.get(t))
        if changed:
            out[doc.ref] = changed
    return out


def _only(doc: Packed, terms: Sequence[str]) -> Packed:
    """``doc`` with the postings of those of ``terms`` it has (for :func:`_blocks`)."""
    at = {t: i for i, t in enumerate(doc.entry.terms)}
    keep = [t for t in terms if t in at]
    size = POSTING.size
    blob = b"".join(doc.postings[at[t] * size : (at[t] + 1) * size] for t in keep)
    return Packed(doc.ref, msgspec.structs.replace(doc.entry, terms=keep), blob, doc.vocab)


def _apply(
    kb: KnowledgeBase,
    removed: dict[bytes, DocEntry],
    added: Sequence[Packed],
    old_versions: dict[bytes, int],
    extra: Sequence[Op] = (),
) -> None:
    """Replace the postings of the docs in ``removed`` (old entries) by those of ``added``, and
    adjust the stats; one read of every touched block, then conditional writes."""
    backend, ik = kb.backend, IndexKeys(kb.name)
    ops: list[Op]
    groups: list[list[Op]] = []
    markers: dict[bytes, set[bytes]] = {}
    same: set[bytes] = set()
    partial: dict[bytes, list[str]] = {}
    whole = removed
    if not removed and _index_empty(backend, ik):
        fresh = _blocks(ik, added)
        # A first build: every block is new, so nothing is read back and nothing filtered (the
        # writes still expect ABSENT, so a concurrent writer is caught). Put is a NamedTuple;
        # tuple.__new__ skips its Python-level constructor (one per block: ~750k for Lu Xun).
        # Each block leaves ``fresh`` as its op is made, so the postings are held once.
        new_tuple, pop = tuple.__new__, fresh.pop
        ops = []
        for key in sorted(fresh):
            value = pop(key)
            if len(value) > SPLIT_BYTES:
                ops.extend(_block_ops(key, value, ABSENT))
            else:
                ops.append(new_tuple(Put, (key, bytes(value), ABSENT)))
    else:
        markers = _in_flight(backend, ik)
        flying = set().union(*markers.values())
        same = _same_postings(removed, added)
        partial = _changed_terms(removed, added, flying)
        whole = {ref: e for ref, e in removed.items() if ref not in same and ref not in partial}
        moved = [
            _only(d, partial[d.ref]) if d.ref in partial else d for d in added if d.ref not in same
        ]
        ops = _merge(backend, ik, whole, moved, _blocks(ik, moved), flying, groups, partial)
    ops.extend(_variant_ops(ik, _vocabulary([d for d in added if d.ref not in same])))
    ops.extend(extra)
    added_refs = {d.ref for d in added}
    # a partial write is listed too: the next write of a doc it left half done rewrites it whole
    new_refs = sorted(added_refs.difference(whole, same))
    marker = ik.in_flight(os.urandom(8)) if new_refs else None
    if marker is not None:
        # In the first batch, so a block can hold a new doc's postings only while it is listed.
        ops.insert(0, Put(marker, b"".join(new_refs)))
    # Doc entries and the stats key are written last, together: a page whose entry is stored is
    # fully indexed (a retry after a conflict in an earlier chunk redoes the blocks, and
    # index_page's unchanged-page check cannot skip a half-written page), and a reader that sees
    # the new generation sees every block.
    final: list[Op] = [
        Delete(ik.doc(ref), old_versions.get(ref, ANY)) for ref in removed if ref not in added_refs
    ]
    final.extend(
        Put(ik.doc(doc.ref), _enc.encode(doc.entry), old_versions.get(doc.ref, ABSENT))
        for doc in added
    )
    version, stats = read_stats(backend, ik)
    for entry in whole.values():
        stats.count(entry, -1)
    for doc in added:
        if doc.ref not in same and doc.ref not in partial:  # the same lengths: counted already
            stats.count(doc.entry, 1)
    stats.n, stats.dirs = max(stats.n, 0), max(stats.dirs, 0)
    stats.total = [max(t, 0) for t in stats.total]
    stats.dir_total = [max(t, 0) for t in stats.dir_total]
    stats.gen = new_generation()
    stats.writes += 1
    final.append(Put(ik.stats, _enc.encode(stats), version))
    if marker is not None:
        final.append(Delete(marker))
    # An interrupted write's marker goes once a write has re-added (and so cleaned) all its docs.
    final.extend(Delete(key) for key, refs in markers.items() if refs <= added_refs)
    _commit(kb, ops[:BATCH_OPS])  # the marker first
    _commit_groups(kb, groups)
    _commit(kb, ops[BATCH_OPS:])
    if len(final) <= BATCH_OPS:
        kb.commit(final)
    else:  # a bulk flush: entries in chunks, the stats key in the last one
        _commit(kb, final)


# ------------------------------------------------------------------ staged runs
def _has_runs(backend: Backend, ik: IndexKeys) -> bool:
    return next(iter(backend.scan(ik.runs, prefix_end(ik.runs), limit=1)), None) is not None


def stageable(kb: KnowledgeBase) -> bool:
    """Whether a first build's writer would stage its flushes in ``kb`` (its index is empty)."""
    return _can_stage(kb.backend, IndexKeys(kb.name))


def _can_stage(backend: Backend, ik: IndexKeys) -> bool:
    """Whether the index holds no doc and no posting block (staged runs aside)."""
    return all(
        next(iter(backend.scan(start, end, limit=1)), None) is None
        for start, end in (ik.docs_range(), ik.postings_range())
    )


def _chunks(backend: Backend, start: bytes, end: bytes) -> Iterator[list[tuple[bytes, Item]]]:
    """``start <= key < end`` in key order, ``BATCH_OPS`` items at a time (a scan of a whole
    staged index at once would hold it all in memory)."""
    while True:
        chunk = list(backend.scan(start, end, limit=BATCH_OPS))
        if not chunk:
            return
        yield chunk
        start = chunk[-1][0] + b"\x00"


VOCAB_DONE_MAX = 1 << 20  # words an IndexWriter remembers as written (about 60 MB at most)


class _RunRecord(msgspec.Struct, array_like=True):
    """A run's completion record: its stats (:func:`~wikikv.search.staging.run_stats`), and
    the size and digest of its run file (:mod:`wikikv.search.spill`). A record of a build
    before run files holds the stats alone (its blocks were staged in the store, under
    ``I r``)."""

    stats: list[int]
    size: int = -1
    digest: bytes = b""


def _run_record(value: bytes) -> _RunRecord:
    raw = msgspec.msgpack.decode(value)
    if raw and isinstance(raw[0], list):
        return msgspec.convert(raw, _RunRecord)
    return _RunRecord(list(raw))  # staged in the store: its file is never intact


def _stats_of_run(value: list[int]) -> IndexStats:
    dirs = value[1 + NFIELDS :] or [0] * (1 + NFIELDS)
    return IndexStats(value[0], value[1 : 1 + NFIELDS], 0, 0, dirs[0], dirs[1:])


_last_seq = 0


def _next_seq() -> bytes:
    """A run's sequence number: the clock in nanoseconds, increasing within a process, so a
    resumed build's runs sort after the killed one's."""
    global _last_seq
    _last_seq = max(time.time_ns(), _last_seq + 1)
    return _last_seq.to_bytes(RUN_SEQ_BYTES, "big")


def _stage(kb: KnowledgeBase, pages: Iterable[Fields], memo: _Memo, vocab_done: set[str]) -> int:
    """Analyse ``pages`` and write them as one staged run (:func:`_commit_run`). Returns the
    pages."""
    seq = _next_seq()
    run = analyse_run(pages, spill.run_dir(kb.backend, kb.name), seq)
    return _commit_run(kb, seq, run, memo, vocab_done)


def _commit_run(
    kb: KnowledgeBase, seq: bytes, run: StagedRun, memo: _Memo, vocab_done: set[str]
) -> int:
    """Write a staged run's store records, its file written (durably) already: the typo
    neighbourhoods of its new name words and its segmentations, its doc entries under the
    run's sequence number and (last batch) its completion record with the run's stats and the
    file's size and digest. Nothing of the index is read. ``vocab_done``: the words whose typo
    neighbourhood the writer's earlier runs wrote (skipped; this run's words are added once it
    is written). Returns the run's pages."""
    ik = IndexKeys(kb.name)
    words = set(run.words)
    words.difference_update(vocab_done)
    words.difference_update(_neighbourhoods_stored(kb.backend, ik, words))
    ops = _variant_ops(ik, words)
    ops.extend(memo.ops())
    for ref, entry in zip(run.refs, run.entries, strict=True):
        ops.append(Put(ik.run_entry(ref, seq), entry, ABSENT))
    record = _RunRecord(run.stats, run.size, run.digest)
    ops.append(Put(ik.run(seq), _enc.encode(record), ABSENT))
    _commit(kb, ops)
    if len(vocab_done) + len(words) > VOCAB_DONE_MAX:
        vocab_done.clear()  # a bound on what the writer holds; the cost is rewriting keys
    vocab_done.update(words)
    return len(run.refs)


class _MergePlan(msgspec.Struct, array_like=True):
    """What a merge of staged runs writes besides the blocks, computed once and stored first,
    so a merge done again after a kill (when part of the runs is gone) writes the same."""

    complete: list[bytes]  # the runs that count
    n: int
    totals: list[int]
    superseded: dict[bytes, list[bytes]]  # run → refs a later complete run indexed again
    dirs: int = 0
    dir_totals: list[int] = msgspec.field(default_factory=lambda: [0] * NFIELDS)


_plan_dec = msgspec.msgpack.Decoder(_MergePlan)
_cursor_dec = msgspec.msgpack.Decoder(tuple[bool, bytes])


def _run_records(backend: Backend, ik: IndexKeys) -> dict[bytes, _RunRecord]:
    """The completion records of the staged runs, by sequence number."""
    out: dict[bytes, _RunRecord] = {}
    for chunk in _chunks(backend, ik.runs, prefix_end(ik.runs)):
        for key, item in chunk:
            seq = key[len(ik.runs) :]
            if len(seq) == RUN_SEQ_BYTES:  # not the plan nor the merge's cursor
                out[seq] = _run_record(item.value)
    return out


def _merge_plan(kb: KnowledgeBase, ik: IndexKeys) -> _MergePlan:
    backend = kb.backend
    stored = backend.get(ik.run(b""))
    if stored is not None:
        return _plan_dec.decode(stored.value)
    complete = {seq: _stats_of_run(r.stats) for seq, r in _run_records(backend, ik).items()}
    counted = IndexStats()
    for c in complete.values():
        counted.n += c.n
        counted.dirs += c.dirs
        counted.total = [t + x for t, x in zip(counted.total, c.total, strict=True)]
        counted.dir_total = [t + x for t, x in zip(counted.dir_total, c.dir_total, strict=True)]
    superseded: dict[bytes, list[bytes]] = {}
    last_ref, last_seq, last_value = b"", b"", b""
    # Entries are ref-major: a doc's runs are neighbours, in run order; the last complete wins.
    for chunk in _chunks(backend, ik.run_entries, prefix_end(ik.run_entries)):
        for key, item in chunk:
            rest = key[len(ik.run_entries) :]
            ref, seq = rest[:8], rest[8:]
            if seq not in complete:
                continue
            if ref == last_ref:
                superseded.setdefault(last_seq, []).append(ref)
                counted.count(_doc_dec.decode(last_value), -1)
            last_ref, last_seq, last_value = ref, seq, item.value
    plan = _MergePlan(
        sorted(complete),
        counted.n,
        counted.total,
        superseded,
        counted.dirs,
        counted.dir_total,
    )
    kb.commit([Put(ik.run(b""), _enc.encode(plan))])
    return plan


def _rewrite_run(kb: KnowledgeBase, ik: IndexKeys, directory: Path, seq: bytes) -> None:
    """Write the file of run ``seq`` again from the stored pages its doc entries name (its
    file is missing or not the one its record states). A page stored since with other content
    is indexed as stored; one gone since is left out."""
    paths: list[str] = []
    for chunk in _chunks(kb.backend, ik.run_entries, prefix_end(ik.run_entries)):
        for key, item in chunk:
            if key[-RUN_SEQ_BYTES:] == seq:
                paths.append(_doc_dec.decode(item.value).path)
    fields: list[Fields] = []
    for i in range(0, len(paths), BATCH_OPS):
        for rec in kb.get_many(paths[i : i + BATCH_OPS]):
            if isinstance(rec, FileRecord | DirRecord):
                fields.append(fields_of(rec))
    groups, _, _ = run_of(fields)  # entries and name words: stored with the run already
    size, digest = spill.write_run(directory, seq, named_blocks(groups))
    record = _run_record(_require(kb.backend.get(ik.run(seq))).value)
    record.size, record.digest = size, digest
    kb.commit([Put(ik.run(seq), _enc.encode(record))])


def _require(item: Item | None) -> Item:
    if item is None:
        raise ConflictError("index run record", 1, None)  # another writer merged the runs
    return item


def _tagged(i: int, blocks: Iterator[tuple[bytes, bytes]]) -> Iterator[tuple[bytes, int, bytes]]:
    for name, value in blocks:
        yield name, i, value


def _merge_blocks(
    kb: KnowledgeBase, ik: IndexKeys, directory: Path, plan: _MergePlan, after: bytes
) -> None:
    """Write every block of the plan's runs once, its parts joined in run order, in key order
    from past ``after`` (what a killed merge wrote); each batch also moves the cursor to its
    last block, and the last one marks the blocks done."""
    seqs = sorted(plan.complete)
    gone = [set(plan.superseded.get(seq, ())) for seq in seqs]
    chunk = spill.merge_chunk(len(seqs))
    streams = [_tagged(i, spill.read_run(directory, seq, chunk)) for i, seq in enumerate(seqs)]
    postings = ik.postings_range()[0]
    cursor = ik.run(b"\x00")
    # Once per staged part (600k for one copy of 2Wiki 6k): ops made with tuple.__new__ (no
    # Python-level constructor), and a block with one part (most) written without a copy.
    new_tuple, join = tuple.__new__, b"".join
    pending: list[Op] = []
    append = pending.append
    block, parts = b"", list[bytes]()

    # ANY, not ABSENT: a merge an older build killed (blocks staged in the store) wrote some
    # blocks whole already; they are written again with the same postings.
    def put_block() -> None:
        value = parts[0] if len(parts) == 1 else join(parts)
        if len(value) > SPLIT_BYTES:  # (a killed merge of older code may have put it whole)
            append(Delete(postings + block))
            pending.extend(_block_ops(postings + block, value, ANY))
        elif value:
            append(new_tuple(Put, (postings + block, value, ANY)))

    for name, i, value in heapq.merge(*streams):
        if name != block:
            if parts:
                put_block()
                if len(pending) >= BATCH_OPS:
                    append(Put(cursor, _enc.encode((False, block))))
                    kb.commit(pending[:])
                    pending.clear()
            block, parts = name, []
        if name <= after:
            continue  # written by the merge this one finishes
        drop = gone[i]
        parts.append(without(value, drop) if drop else value)
    if parts:
        put_block()
    append(Put(cursor, _enc.encode((True, b""))))
    _commit(kb, pending)


def merge_staged(kb: KnowledgeBase) -> int:
    """Merge the staged runs into the index: each posting block written once, its runs' parts
    joined in run order; returns the docs merged.

    A first build stages its flushes (:class:`IndexWriter` with ``staged``) instead of
    rewriting every block it touches at every flush: a block of a common word is in every
    flush, so the bytes rewritten grew with the square of the corpus. A run counts once its
    completion record is stored (its last batch); the entries of a run without one are
    dropped, and its file (:mod:`wikikv.search.spill`) deleted. A doc in several complete runs
    (a resumed build indexing a page again) keeps its last run's entry and postings.

    The merge first stores its plan (the runs that count, the stats, the docs indexed again),
    writes the files of runs whose file is lost again from the stored pages, then writes the
    blocks in key order — each batch with a cursor naming its last block —, then each doc
    entry with the deletion of its staged copies, then the stats; last it deletes the
    completion records, the run files, the cursor and the plan. A merge killed anywhere is
    finished by the next one (any index write starts with it): it writes the blocks past the
    cursor, moves the entries left the same way, and the plan keeps the stats and the
    superseded docs it no longer could compute."""
    backend, ik = kb.backend, IndexKeys(kb.name)
    directory = spill.run_dir(backend, kb.name)
    plan = _merge_plan(kb, ik)
    cursor = backend.get(ik.run(b"\x00"))
    done, after = (False, b"") if cursor is None else _cursor_dec.decode(cursor.value)
    if not done:
        records = _run_records(backend, ik)
        for seq in plan.complete:
            r = records[seq]
            if not spill.intact(directory, seq, r.size, r.digest):
                _rewrite_run(kb, ik, directory, seq)
        _merge_blocks(kb, ik, directory, plan, after)
    complete = set(plan.complete)
    pending: list[Op] = []
    # Entries, ref-major: a doc's staged copies go in the batch that writes its entry.
    merged = 0
    ref, entry = b"", b""
    for chunk in _chunks(backend, ik.run_entries, prefix_end(ik.run_entries)):
        for key, item in chunk:
            rest = key[len(ik.run_entries) :]
            if rest[:8] != ref:
                if entry:
                    pending.append(Put(ik.doc(ref), entry))
                    merged += 1
                if len(pending) >= BATCH_OPS:
                    kb.commit(pending[:])
                    pending.clear()
                ref, entry = rest[:8], b""
            pending.append(Delete(key))
            if rest[8:] in complete:
                entry = item.value  # the last complete run's
    if entry:
        pending.append(Put(ik.doc(ref), entry))
        merged += 1
    version, stats = read_stats(backend, ik)
    # Absolute, not added to: a first build's runs are the whole index.
    stats.n, stats.total = plan.n, plan.totals
    stats.dirs, stats.dir_total = plan.dirs, plan.dir_totals
    stats.gen = new_generation()
    stats.writes += 1
    pending.append(Put(ik.stats, _enc.encode(stats), version))
    _commit(kb, pending)
    # The completion records, and the blocks a build before run files staged in the store.
    stale = [ik.run(seq) for seq in _run_records(backend, ik)]
    for chunk in _chunks(backend, ik.run_blocks, prefix_end(ik.run_blocks)):
        stale.extend(key for key, _ in chunk)
    _commit(kb, [Delete(key) for key in stale])
    spill.clear(directory)
    # The plan last: until then a merge done again reads it.
    kb.commit([Delete(ik.run(b"\x00")), Delete(ik.runs)])
    return merged


def _current(
    kb: KnowledgeBase, refs: Sequence[bytes]
) -> tuple[dict[bytes, DocEntry], dict[bytes, int]]:
    ik = IndexKeys(kb.name)
    if _has_runs(kb.backend, ik):
        # An interrupted first build left staged runs: merged first, so the entries read here
        # (and the blocks the write rewrites) are the whole index.
        merge_staged(kb)
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
    fields = fields_of(record)
    ref = doc_ref(fields.path)
    analyzed: list[Packed] = []
    memo: list[_Memo] = []

    def once() -> bool:
        old, versions = _current(kb, [ref])
        prev = old.get(ref)
        if prev is not None and prev.digest == fields.digest:
            return False  # same indexed content: not even tokenized
        if not analyzed:
            memo.append(_Memo(kb, [fields]))
            analyzed.append(_analyse(fields))
        _apply(kb, old, analyzed, versions, memo[0].ops())
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


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk flush. A flush allocates millions of
    small acyclic containers (term-frequency lists, postings, ops); each triggers collections
    that traverse all of them again, ~20% of a build's index time (2wiki and Lu Xun alike).
    Reference counting still frees everything; a pending cycle waits until the flush ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class IndexWriter:
    """Bulk indexing for builds: collects pages as they come and writes every touched posting
    block once, at :meth:`flush` (or when the ``with`` block ends). The result equals indexing
    the same pages one by one with :func:`index_page`.

    Pages are analysed at flush time, after their stored entries are read: a page whose indexed
    fields hash to the stored digest is skipped without being tokenized (an incremental sync
    re-renders pages whose index content is often unchanged), and each page is analysed once
    however many times a conflict makes the flush retry — except in a staged flush, whose pages
    are all new and go into their run's blocks as they are analysed (see :func:`_stage`)."""

    def __init__(
        self, kb: KnowledgeBase, staged: bool = False, background: bool | Stager = False
    ) -> None:
        self.kb = kb
        # Flushes into an index with no docs yet are written as staged runs, merged by
        # finish() (see merge_staged): a first build writes each posting block once.
        self.staged = staged
        self._docs: dict[bytes, Fields] = {}
        self._removed: set[str] = set()
        self.skipped = 0  # pages found unchanged by the last flush
        # Names repeat across runs (an entity's name is on its page, its digests, the pages
        # linking it): the words whose neighbourhood a staged run of this writer wrote, so the
        # next run does not make and write the same variant keys again (~3 % of a build).
        self._vocab_done: set[str] = set()
        # ``background``: staged runs are analysed by a worker (wikikv.search.staging) while
        # the caller goes on — the Stager given (borrowed: its owner closes it), or with True
        # one forked here (so make the writer where no other thread runs).
        self._stager: Stager | None = None
        self._own_stager = False
        self._in_flight: tuple[bytes, _Memo, Callable[[], None] | None] | None = None
        if background is not False and staged and self._stageable():
            if isinstance(background, Stager):
                self._stager = None if background.closed else background
            elif can_fork():
                self._stager, self._own_stager = Stager(), True

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        try:
            if exc_type is None:
                self.flush()
                self.drain()
        finally:
            self.close()

    def __len__(self) -> int:
        return len(self._docs)

    @property
    def background(self) -> bool:
        """Whether staged runs go to a worker (:class:`~wikikv.search.staging.Stager`)."""
        return self._stager is not None

    def add(self, record: IndexRecord) -> None:
        fields = fields_of(record)
        self._docs[doc_ref(fields.path)] = fields
        self._removed.discard(record.path)

    def add_all(self, records: Iterable[IndexRecord]) -> None:
        for rec in records:
            self.add(rec)

    def remove(self, path: str) -> None:
        p = self.kb.norm(path)
        self._docs.pop(doc_ref(p), None)
        self._removed.add(p)

    def flush(self, then: Callable[[], None] | None = None) -> int:
        """Write what was added; returns the number of documents written (unchanged pages are
        skipped and counted in :attr:`skipped`). ``then`` is called once they are: at once, or
        with a :attr:`background` writer whose flush stages a run, by the next flush or
        :meth:`drain` — which first write the run in flight, so runs and calls keep their order."""
        if self._stager is not None and self._docs and not self._removed and self._stageable():
            self.drain()
            pages = list(self._docs.values())
            memo = _Memo(self.kb, pages)
            seq = _next_seq()
            self._stager.submit(
                spill.run_dir(self.kb.backend, self.kb.name), seq, pages, memo.known, memo.missing
            )
            self._in_flight = (seq, memo, then)
            self._docs = {}
            self.skipped = 0
            return len(pages)
        self.drain()
        written = self._flush_now()
        if then is not None:
            then()
        return written

    def drain(self) -> None:
        """Wait for the run in flight (if any) and write its records, then call its ``then``."""
        if self._in_flight is None or self._stager is None:
            return
        seq, memo, then = self._in_flight
        self._in_flight = None
        run = self._stager.collect()
        with _gc_paused(), self.kb.backend.bulk():
            _commit_run(self.kb, seq, run, memo, self._vocab_done)
        if then is not None:
            then()

    def close(self) -> None:
        """Let go of a :attr:`background` writer's worker: ended if this writer forked it, or
        if a run is still in flight (dropped: its records were never written, so it does not
        count, and a worker holding it is of no use to anyone)."""
        if self._stager is not None:
            if self._own_stager or self._in_flight is not None:
                self._stager.close()
            self._stager = None
            self._in_flight = None

    def _stageable(self) -> bool:
        return stageable(self.kb)

    def _flush_now(self) -> int:
        pending = self._docs
        refs = list(pending) + [doc_ref(p) for p in sorted(self._removed)]
        if not refs:
            return 0
        analyzed: dict[bytes, Packed] = {}
        memos: list[_Memo] = []  # one per attempt: each covers the pages it analysed
        written = 0

        def once() -> None:
            nonlocal written
            stage = self.staged and not self._removed and self._stageable()
            if stage:  # every page is new: analysed as its run is written
                memo = _Memo(self.kb, list(pending.values()))
                with self.kb.backend.bulk():
                    written = _stage(self.kb, pending.values(), memo, self._vocab_done)
                return
            old, versions = _current(self.kb, refs)
            changed: list[Fields] = []
            for ref, fields in pending.items():
                prev = old.get(ref)
                if prev is not None and prev.digest == fields.digest:
                    del old[ref]  # unchanged: the stored entry and postings stay as they are
                else:
                    changed.append(fields)
            fresh = [f for f in changed if doc_ref(f.path) not in analyzed]
            memos.append(_Memo(self.kb, fresh))
            analyzed.update((d.ref, d) for d in map(_analyse, fresh))
            docs = [analyzed[doc_ref(f.path)] for f in changed]
            written = len(docs)
            if not docs and not old:
                return
            extra = [op for m in memos for op in m.ops()]
            # A plain write can delete a word's neighbourhood (its last posting goes).
            self._vocab_done.clear()
            with self.kb.backend.bulk():
                _apply(self.kb, old, docs, versions, extra)

        with _gc_paused():
            retry(once)
        self.skipped = len(pending) - written
        self._docs = {}
        self._removed.clear()
        return written

    def finish(self) -> int:
        """Flush, then merge the staged runs into the index (a staged writer's last call: until
        then search does not see what the runs hold). Returns the docs flushed."""
        try:
            written = self.flush()
            self.drain()
        finally:
            self.close()
        if _has_runs(self.kb.backend, IndexKeys(self.kb.name)):
            with _gc_paused():
                merge_staged(self.kb)
        return written


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
