"""Index layout and page analysis: the field constants, stored structs, key builder, and
the analysis of a page into the per-field term frequencies that postings store."""

from __future__ import annotations

import hashlib
import os
import re
import struct
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple, TypeVar

import msgspec

from wikikv.search.tokenize import (
    deletes,
    fuzzy_eligible,
    joined_name,
    segmenter_tag,
    term_counts,
    tokenize,
)
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
# The two halves of a posting after the doc ref (``<``: no padding, so ref + TF + LENS is POSTING).
TF = struct.Struct("<" + "H" * NFIELDS)
LENS = TF
TF_LENS = struct.Struct("<" + "H" * (2 * NFIELDS))  # a posting after its doc ref
_BUCKET_BYTE = [bytes([b]) for b in range(1 << BUCKET_BITS)]
_NO_TF = (0,) * BODY  # the counts of a body-only term before its body count
BATCH_OPS = 4000
FIND_REFS = 16  # up to this many refs, without() searches for them instead of scanning a block
MEMO_FLUSH_MAX = 20_000
RUN_SEQ_BYTES = 8

IndexRecord = FileRecord | DirRecord
K = TypeVar("K")
V = TypeVar("V")


# Directories (listings) are indexed under their own terms (DIR_MARK + term) and counted apart in
# the stats, so BM25 scores pages and texts with statistics no directory enters: regrouping pages
# (schema evolution) changes the directories, and must not reorder the texts.
DIR_MARK = "\x01"


class IndexStats(msgspec.Struct):
    n: int = 0  # every doc, directories included
    total: list[int] = msgspec.field(default_factory=lambda: [0] * NFIELDS)
    gen: int = 0
    writes: int = 0
    dirs: int = 0  # the directories among ``n`` (indexed under DIR_MARK terms)
    dir_total: list[int] = msgspec.field(default_factory=lambda: [0] * NFIELDS)

    def pages(self) -> IndexStats:
        """The statistics of pages and texts alone."""
        return IndexStats(
            max(self.n - self.dirs, 0),
            [max(t - d, 0) for t, d in zip(self.total, self.dir_total, strict=True)],
            self.gen,
        )

    def directories(self) -> IndexStats:
        """The statistics of the directories alone."""
        return IndexStats(self.dirs, list(self.dir_total), self.gen)

    def count(self, entry: DocEntry, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) one doc entry."""
        self.n += sign
        self.total = [t + sign * x for t, x in zip(self.total, entry.lens, strict=True)]
        if is_dir_entry(entry):
            self.dirs += sign
            self.dir_total = [t + sign * x for t, x in zip(self.dir_total, entry.lens, strict=True)]


class DocEntry(msgspec.Struct):
    path: str
    title: str = ""
    summary: str = ""
    kind: str = "page"
    lens: list[int] = msgspec.field(default_factory=lambda: [0] * NFIELDS)
    terms: list[str] = msgspec.field(default_factory=list)
    digest: str = ""
    # what the doc's postings hold (terms, counts, lengths): a page re-rendered with other text
    # but the same postings (its related pages reordered, a link's target moved) rewrites its
    # entry and no posting block (empty in an index written before it existed)
    postings: bytes = msgspec.field(default=b"", name="pd")
    # a long page's counts per field of each term (:data:`TF`, in ``terms`` order): a write of
    # it whose field lengths are the same rewrites the blocks of the terms whose counts changed
    # (a much-named entity's page: 2,400 terms, of which an add changes a few)
    counts: bytes = msgspec.field(default=b"", name="tf")


def is_dir_entry(entry: DocEntry) -> bool:
    """A directory indexed under DIR_MARK terms (an index written before they existed holds
    directories under plain terms, counted with the pages)."""
    return entry.kind == "dir" and (not entry.terms or entry.terms[0].startswith(DIR_MARK))


_enc = msgspec.msgpack.Encoder()
_stats_dec = msgspec.msgpack.Decoder(IndexStats)
_doc_dec = msgspec.msgpack.Decoder(DocEntry)
_words_dec = msgspec.msgpack.Decoder(list[str])


# ------------------------------------------------------------------ keys
class IndexKeys:
    """Key builder for one kb's search index."""

    __slots__ = ("base", "stats", "_d", "_p", "_v", "_j", "_w", "runs", "run_entries", "run_blocks")

    def __init__(self, kb: str) -> None:
        self.base = KBKeys(kb).space("I")
        self.stats = self.base + b"s"
        self._d = self.base + b"d"
        self._p = self.base + b"p"
        self._v = self.base + b"v"
        self._j = self.base + b"j"
        self._w = self.base + b"w"
        # Staged runs of a first build (wikikv.search.index.merge_staged): a run's completion
        # record, its doc entries (ref-major, so a doc's runs are neighbours) and its blocks
        # (block-major, so a block's runs are neighbours).
        self.runs = self.base + b"c"
        self.run_entries = self.base + b"e"
        self.run_blocks = self.base + b"r"

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

    def variant_keys(self, words: Iterable[str]) -> set[bytes]:
        """``{variant(v, w) for w in words for v in deletes(w)}`` without two calls per key:
        a first build's flush makes ~480k of them for one copy of 2Wiki 6k."""
        v = self._v
        return {
            v + d.encode("utf-8") + tail
            for w in words
            for tail in (b"\x00" + w.encode("utf-8"),)
            for d in deletes(w)
        }

    def postings_range(self) -> tuple[bytes, bytes]:
        return self._p, self.base + b"q"

    def docs_range(self) -> tuple[bytes, bytes]:
        return self._d, self.base + b"e"

    def run(self, seq: bytes) -> bytes:
        return self.runs + seq

    def run_entry(self, ref: bytes, seq: bytes) -> bytes:
        return self.run_entries + ref + seq

    def run_block(self, block: bytes, seq: bytes) -> bytes:
        """The key of ``seq``'s part of the posting block ``block`` (a :meth:`posting` key)."""
        return self.run_blocks + block[len(self._p) :] + seq

    def in_flight(self, token: bytes) -> bytes:
        return self._w + token

    def in_flight_range(self) -> tuple[bytes, bytes]:
        return self._w, self.base + b"x"

    def segmentation(self, run: str) -> bytes:
        return self._j + segmenter_tag().encode("utf-8") + b"\x00" + run.encode("utf-8")


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


class Fields(msgspec.Struct, frozen=True):
    """What the index reads of one page or directory, and the digest of it."""

    path: str
    title: str
    seg: str
    aliases: list[str]
    tags: list[str]
    summary: str
    body: str
    kind: str
    digest: str


# A wikilink ``[[/target/path|shown]]``: the body is indexed by the words a reader sees.
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")


def _link_words(m: re.Match[str]) -> str:
    shown = m.group(2)
    return shown if shown else unescape_segment(m.group(1).rstrip("/").rsplit("/", 1)[-1])


def readable_body(text: str) -> str:
    """``text`` with each wikilink reduced to the words it shows: the directories on a linked
    page's path say where the wiki files it, not what this page says (and a schema evolution
    that moves the linked page must not change how this one ranks)."""
    return _WIKILINK.sub(_link_words, text) if "[[" in text else text


# A page's front matter (its kind, dates, aliases and tags: fields of their own, or nothing a
# reader searches for), its footnote markers and the character spans its footnotes cite ("[^3]:
# [[/sources/articles/p01771]] chars 419-627"). Every compiled page has them: indexed, they put
# the same dozen terms ("type", "created", "2026", "chars") in every page — the longest posting
# blocks of the index — and numbers that match a query's years. A footnote's article stays:
# its name is the cited work's title where the corpus names its files so (Lu Xun's essays).
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_MARKER = re.compile(r"\[\^[^\]\n]+\](?::)?")  # "[^3]" after a fact, "[^3]:" before its note
_SPAN = re.compile(r"\]\] chars \d+-\d+$", re.M)  # a footnote's "chars a-b"


def page_body(text: str) -> str:
    """The part of a page's text a reader reads: without its front matter, footnote markers
    and cited spans."""
    if text.startswith("---\n"):
        text = _FRONT_MATTER.sub("", text, count=1)
    if "[^" not in text:
        return text
    return _MARKER.sub("", _SPAN.sub("]]", text))


def record_fields(rec: IndexRecord) -> tuple[str, str, list[str], list[str], str, str, str]:
    """(path, title, aliases, tags, summary, body, kind) of a page or directory; an article is
    indexed as its document was written, a compiled or written page by :func:`page_body`."""
    seg = unescape_segment(rec.name) if rec.name else ""
    if isinstance(rec, FileRecord):
        m = rec.meta
        title = m.title or seg
        text = rec.text if m.kind == "article" else page_body(rec.text)
        return (
            rec.path,
            title,
            list(m.aliases),
            list(m.tags),
            m.summary,
            readable_body(text),
            m.kind,
        )
    return rec.path, seg or "/", [], [], "", readable_body(rec.text), "dir"


def fields_of(rec: IndexRecord) -> Fields:
    """The indexed fields of ``rec`` and their digest (cheap: no tokenizing), which is what the
    writers compare with the stored entry to skip pages whose indexed content did not change."""
    path, title, aliases, tags, summary, body, kind = record_fields(rec)
    seg = unescape_segment(rec.name) if rec.name else ""
    digest = hashlib.blake2b(
        _enc.encode([path, title, aliases, tags, summary, body, kind]), digest_size=12
    ).hexdigest()
    return Fields(path, title, seg, aliases, tags, summary, body, kind, digest)


def _indexable(term: str) -> bool:
    """Terms past ``MAX_TERM_BYTES`` (run-on tokens: URLs, hashes) are not indexed; the bound
    keeps a typo-neighbourhood key (variant + word) far below LMDB's 511-byte key limit."""
    # A character is at most 4 UTF-8 bytes, so short terms need no encoding.
    return len(term) * 4 <= MAX_TERM_BYTES or len(term.encode("utf-8")) <= MAX_TERM_BYTES


class Split(NamedTuple):
    """One page analysed for a write, its terms split in two: ``tfs`` holds the terms of the
    name, alias, tag and summary fields (their five per-field counts, the body's included) and
    ``body`` the terms the body alone has (their count). Most of a page's terms are body-only;
    keeping them as bare counts spares a five-int list per posting (see :func:`body_postings`)."""

    ref: bytes
    entry: DocEntry
    tfs: dict[str, list[int]]
    body: dict[str, int]
    vocab: list[str]


def split_fields(f: Fields) -> Split:
    """The analysis of :func:`analyze_fields`, body-only terms apart (see :class:`Split`)."""
    title, seg = f.title, f.seg
    names = [title] + ([seg] if seg and seg.casefold() != title.casefold() else [])
    short: list[list[str]] = [
        [t for n in names for t in tokenize(n, keep_stopwords=True)],
        [t for a in f.aliases for t in tokenize(a, keep_stopwords=True)],
        [t for g in f.tags for t in tokenize(g, keep_stopwords=True)],
    ]
    for field, source in ((NAME, names), (ALIAS, f.aliases)):
        for n in source:
            j = joined_name(n)
            if j:
                short[field].append(j)
    # Summary and body are counted per distinct word (term_counts == Counter(tokenize(...))).
    summary, n_summary = term_counts(f.summary)
    body, n_body = term_counts(f.body)
    counted: list[Mapping[str, int]] = [Counter(t) for t in short] + [summary]
    tfs: dict[str, list[int]] = {}
    for field, counts in enumerate(counted):
        for term, count in counts.items():
            tf = tfs.get(term)
            if tf is None:
                if len(term) > MAX_TERM_BYTES // 4 and not _indexable(term):  # short: always
                    continue
                tf = tfs[term] = [0] * NFIELDS
            tf[field] = count if count < U16 else U16
    # The body's terms that another field has go into their lists; set operations in C, as
    # the body holds most of a page's terms.
    for term in body.keys() & tfs.keys():
        count = body.pop(term)
        tfs[term][BODY] = count if count < U16 else U16
    if body and max(map(len, body)) > MAX_TERM_BYTES // 4:
        body = {t: c for t, c in body.items() if _indexable(t)}
    lens = [min(n, U16) for n in (*map(len, short), n_summary, n_body)]
    if f.kind == "dir":
        # Directory terms apart from page terms (DIR_MARK), and no typo neighbourhood of them.
        tfs = {DIR_MARK + t: tf for t, tf in tfs.items()}
        body = {DIR_MARK + t: c for t, c in body.items()}
        vocab: list[str] = []
    else:
        vocab = sorted(
            {t for t in short[NAME] + short[ALIAS] if _indexable(t) and fuzzy_eligible(t)}
        )
    terms = sorted([*tfs, *body])
    entry = DocEntry(
        f.path, title, f.summary, f.kind, lens, terms, f.digest, postings_digest(tfs, body, lens)
    )
    if len(terms) >= COUNTED_TERMS:
        only_body, pack_tf = [0] * (NFIELDS - 1), TF.pack
        entry.counts = b"".join(
            pack_tf(*tfs[t]) if t in tfs else pack_tf(*only_body, body[t]) for t in terms
        )
    return Split(doc_ref(f.path), entry, tfs, body, vocab)


COUNTED_TERMS = 512  # a page with this many terms keeps its counts (DocEntry.counts)


def term_counts_of(entry: DocEntry) -> dict[str, bytes] | None:
    """A long page's packed counts per term (None for a page that does not keep them)."""
    if not entry.counts:
        return None
    size, c = TF.size, entry.counts
    return {t: c[i * size : (i + 1) * size] for i, t in enumerate(entry.terms)}


def postings_digest(
    tfs: Mapping[str, list[int]], body: Mapping[str, int], lens: list[int]
) -> bytes:
    """A digest of a doc's postings: its terms, their counts per field and the field lengths
    (the sorts and the encoding run in C)."""
    data = _enc.encode((lens, sorted(tfs.items()), sorted(body.items())))
    return hashlib.blake2b(data, digest_size=12).digest()


def analyze_fields(f: Fields) -> Analyzed:
    s = split_fields(f)
    tfs = s.tfs
    for term, count in s.body.items():
        tf = tfs[term] = [0] * NFIELDS
        tf[BODY] = count if count < U16 else U16
    return Analyzed(s.ref, s.entry, tfs, s.vocab)


def body_postings(s: Split) -> dict[int, bytes]:
    """The posting of a body-only term of ``s`` per count: such postings differ only by the
    count, so the few distinct ones are packed once and shared by all the terms having it."""
    lens, pack_rest = s.entry.lens, TF_LENS.pack
    return {c: s.ref + pack_rest(*_NO_TF, min(c, U16), *lens) for c in set(s.body.values())}


def analyze(rec: IndexRecord) -> Analyzed:
    return analyze_fields(fields_of(rec))


class Packed(NamedTuple):
    """One analysed page as a writer keeps it until its flush: the doc entry and the page's
    postings packed back to back, one per term of ``entry.terms`` in that order. A flush of
    16 MiB of pages holds millions of postings; as per-term dicts of lists of five ints
    (:class:`Analyzed`) they took ~150 bytes each and most of a flush's memory, packed 28."""

    ref: bytes
    entry: DocEntry
    postings: bytes
    vocab: list[str]


def packed(a: Analyzed) -> Packed:
    """``a`` with its term frequencies packed into postings (see :class:`Packed`)."""
    lens, tfs, pack_rest = a.entry.lens, a.tfs, TF_LENS.pack
    # ref.join puts the doc ref before each (tf, lens) tail: the postings in one allocation.
    blob = a.ref.join([b"", *[pack_rest(*tfs[t], *lens) for t in a.entry.terms]])
    return Packed(a.ref, a.entry, blob, a.vocab)


def pack(ref: bytes, tf: Sequence[int], lens: Sequence[int]) -> bytes:
    return POSTING.pack(ref, *tf, *lens)


def without(block: bytes, refs: set[bytes]) -> bytes:
    """A posting block minus the postings of ``refs``."""
    size = POSTING.size
    if len(refs) <= FIND_REFS:
        # A few refs (an incremental update): find them in C instead of walking every posting.
        cuts: list[int] = []
        for ref in refs:
            at = block.find(ref)
            while at >= 0:
                if at % size == 0:  # a match across two postings is no posting of ref
                    cuts.append(at)
                at = block.find(ref, at + 1)
        if not cuts:
            return block
        cuts.sort()
        parts, prev = [], 0
        for at in cuts:
            parts.append(block[prev:at])
            prev = at + size
        parts.append(block[prev:])
        return b"".join(parts)
    return b"".join(
        block[i : i + size] for i in range(0, len(block), size) if block[i : i + 8] not in refs
    )
