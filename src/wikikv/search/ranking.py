"""Query side of the search index: field-weighted BM25F ranking over the postings in the store.

Per query term ``t`` and document ``d`` the fields are combined before saturation (BM25F):
``x = Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avglen_f)``, ``score += qw · idf(t) · x / (k1 + x)``.
Field weights put names and aliases first, then tags and summaries, then body text. On top:

* an exact name / alias fast path: a query that *is* a page's folded name or alias (one range
  scan of the store's name index, ``kb.find_names(q, exact=True)``) puts that page first;
* a name-coverage bonus: the more of the query a page's name and aliases cover, the higher it
  ranks (so "Lu Xun" beats a page that merely mentions Lu and Xun in its body);
* typo tolerance: a query term absent from the index is expanded to name/alias words within one
  edit (two for long words) through the symmetric-delete neighbourhood kept in the index.

Decoded postings are cached per process by (backend, kb, term, index generation); every index
write changes the generation, so a cached entry can be stale only for a generation no reader
asks for any more.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from operator import itemgetter

from wikikv.search.analysis import (
    DIR_MARK,
    FIELDS,
    NFIELDS,
    POSTING,
    DocEntry,
    IndexKeys,
    IndexStats,
    doc_ref,
)
from wikikv.search.index import (
    LRU,
    decode_doc,
    read_postings,
    read_stats,
    vocabulary_candidates,
)
from wikikv.search.tokenize import (
    edit_distance,
    fold,
    fuzzy_eligible,
    has_cjk,
    joined_name,
    max_typos,
    query_terms,
)
from wikikv.store.kb import KnowledgeBase

# name, alias, tag, summary, body
WEIGHTS = (10.0, 8.0, 4.0, 3.0, 1.0)
B = (0.4, 0.4, 0.4, 0.6, 0.75)
K1 = 1.2
EXACT_BOOST = 1000.0
# Among the hits a name matches exactly, the wiki's own page on it comes before the source texts
# of the same title (`search 鲁迅` gave the article 鲁迅 before the page that has 鲁迅 as an
# alias): more than any BM25 difference between them, far less than the exact boost.
ENTITY_EXACT_BONUS = 100.0
NAME_COVERAGE_BONUS = 1.0
FUZZY_WEIGHT = 0.7
MAX_FUZZY = 4
MAX_WHOLE_CJK = 12
NAME_MASK = (1 << 0) | (1 << 1)

CacheKey = tuple[int, str, str, int]


@dataclass
class SearchHit:
    """One ranked page: where it is, what it is, how well and why it matched."""

    path: str
    title: str
    summary: str
    score: float
    why: list[str] = field(default_factory=list)
    kind: str = "page"

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "title": self.title,
            "summary": self.summary,
            "score": round(self.score, 4),
            "why": list(self.why),
            "kind": self.kind,
        }


@dataclass(frozen=True)
class TermData:
    """A term's postings, pre-scored for the generation they were read at: per doc ref the
    saturated field-weighted tf, the mask of fields it occurs in, and the docs where it is in a
    name or alias. Refs are in ascending order, so ties rank the same however the index was
    built."""

    idf: float
    sats: dict[bytes, float]
    masks: dict[bytes, int]
    named: tuple[bytes, ...]


_TERMS: LRU[CacheKey, TermData] = LRU(16384)
_DOCS: LRU[CacheKey, DocEntry] = LRU(16384)
_FUZZY: LRU[CacheKey, list[str]] = LRU(4096)
_EMPTY = TermData(0.0, {}, {}, ())


def clear_caches() -> None:
    for cache in (_TERMS, _DOCS, _FUZZY):
        cache.clear()


def _score_blocks(blocks: list[bytes], stats: IndexStats) -> TermData:
    n = max(stats.n, 1)
    # Per field: (bit, tf slot, length slot, weight, 1 - b, b / avglen): the BM25F length
    # normalisation of one field is ``1 - b + b * len / avglen``.
    fields = [
        (1 << f, 1 + f, 1 + NFIELDS + f, WEIGHTS[f], 1.0 - B[f], B[f] * n / total)
        if total > 0
        else (1 << f, 1 + f, 1 + NFIELDS + f, WEIGHTS[f], 1.0, 0.0)
        for f, total in enumerate(stats.total)
    ]
    docs: list[tuple[bytes, float, int]] = []
    for block in blocks:
        for rec in POSTING.iter_unpack(block):
            x = 0.0
            mask = 0
            for bit, tf_at, len_at, w, a, b in fields:
                tf = rec[tf_at]
                if tf:
                    x += w * tf / (a + b * rec[len_at])
                    mask |= bit
            docs.append((rec[0], x / (K1 + x), mask))
    if not docs:
        return _EMPTY
    docs.sort()
    df = len(docs)
    idf = math.log(1.0 + (max(stats.n, df) - df + 0.5) / (df + 0.5))
    return TermData(
        idf,
        {ref: sat for ref, sat, _ in docs},
        {ref: mask for ref, _, mask in docs},
        tuple(ref for ref, _, mask in docs if mask & NAME_MASK),
    )


class _Query:
    """One search's state: the kb, its index generation and the per-document accumulators."""

    def __init__(self, kb: KnowledgeBase, stats: IndexStats) -> None:
        self.kb = kb
        self.ik = IndexKeys(kb.name)
        self.stats = stats
        # Pages and directories are scored each with their own statistics (DIR_MARK).
        self.page_stats = stats.pages()
        self.dir_stats = stats.directories()
        self.bid = id(kb.backend)
        self.scores: dict[bytes, float] = {}
        self.names: dict[bytes, float] = {}
        self.matched: list[tuple[str, TermData]] = []
        self.exact: dict[bytes, str] = {}

    def key(self, what: str) -> CacheKey:
        return (self.bid, self.kb.name, what, self.stats.gen)

    def term(self, term: str) -> TermData:
        """A page term's postings, or a directory term's (DIR_MARK + word)."""
        ck = self.key(term)
        data = _TERMS.get(ck)
        if data is None:
            stats = self.dir_stats if term.startswith(DIR_MARK) else self.page_stats
            data = _score_blocks(read_postings(self.kb.backend, self.ik, term), stats)
            _TERMS.put(ck, data)
        return data

    def fuzzy(self, term: str) -> list[str]:
        ck = self.key("~" + term)
        words = _FUZZY.get(ck)
        if words is None:
            cap = max_typos(term)
            near = []
            for w in vocabulary_candidates(self.kb.backend, self.ik, term):
                if w != term:
                    d = edit_distance(term, w, cap)
                    if d <= cap:
                        near.append((d, w))
            words = [w for _, w in sorted(near)[:MAX_FUZZY]]
            _FUZZY.put(ck, words)
        return words

    def add(self, label: str, weight: float, data: TermData) -> None:
        scores = self.scores
        get = scores.get
        wi = weight * data.idf
        for ref, sat in data.sats.items():
            scores[ref] = get(ref, 0.0) + wi * sat
        names = self.names
        for ref in data.named:
            names[ref] = names.get(ref, 0.0) + weight
        self.matched.append((label, data))

    def why(self, ref: bytes) -> list[str]:
        """What matched in one document: the exact name, then field(s): term per query term."""
        out = [self.exact[ref]] if ref in self.exact else []
        for label, data in self.matched:
            mask = data.masks.get(ref, 0)
            if mask:
                fields = [FIELDS[f] for f in range(NFIELDS) if mask & (1 << f)]
                out.append(f"{'/'.join(fields)}: {label}")
        return out

    def doc(self, ref: bytes) -> DocEntry | None:
        ck = self.key(ref.hex())
        entry = _DOCS.get(ck)
        if entry is None:
            item = self.kb.backend.get(self.ik.doc(ref))
            if item is None:
                return None
            entry = decode_doc(item.value)
            _DOCS.put(ck, entry)
        return entry


def search(
    kb: KnowledgeBase,
    query: str,
    limit: int = 10,
    kinds: Collection[str] | None = None,
    dir_limit: int | None = None,
) -> list[SearchHit]:
    """Ranked pages for ``query``: exact names first, then BM25F over names, aliases, tags,
    summaries and body text; ``kinds`` keeps only pages of those kinds (``"dir"`` for
    directories). With ``dir_limit``, directories do not count against ``limit``: the best
    ``limit`` pages and texts come with at most ``dir_limit`` directories among them, so which
    pages are returned does not depend on how the wiki groups them."""
    text = query.strip()
    if not text or limit <= 0:
        return []
    _, stats = read_stats(kb.backend, IndexKeys(kb.name))
    q = _Query(kb, stats)
    terms = query_terms(text)
    joined = joined_name(text)
    if joined and all(joined != t for t, _ in terms):
        terms.append((joined, 1.0))
    whole = fold(text)
    if has_cjk(whole) and len(whole) <= MAX_WHOLE_CJK and " " not in whole:
        # A short Chinese query is usually a name: try it whole, so a one-character typo in
        # it ("孔已己") still meets the name through the typo neighbourhood.
        if all(whole != t for t, _ in terms):
            terms.append((whole, 1.0))
    total = sum(w for _, w in terms) or 1.0
    # Which populations to score: pages and texts, directories, or both.
    marks = [
        mark
        for mark, wanted in (
            ("", not kinds or set(kinds) - {"dir"}),
            (DIR_MARK, not kinds or "dir" in kinds),
        )
        if wanted
    ]
    if stats.n:
        for term, weight in terms:
            fuzzy: list[str] | None = None
            for mark in marks:
                data = q.term(mark + term)
                if data.sats:
                    q.add(term, weight, data)
                    continue
                if not fuzzy_eligible(term):
                    continue
                if fuzzy is None:
                    fuzzy = q.fuzzy(term)  # the page vocabulary's near words
                for word in fuzzy:
                    near = q.term(mark + word)
                    if near.sats:
                        q.add(f"{word} (~{term})", weight * FUZZY_WEIGHT, near)
    scores = q.scores
    for ref, covered in q.names.items():
        scores[ref] *= 1.0 + NAME_COVERAGE_BONUS * min(covered / total, 1.0)
    for hit in kb.find_names(text, limit=32, exact=True):
        ref = doc_ref(hit.path)
        if ref not in q.exact:
            q.exact[ref] = f"exact name {hit.name!r}"
            entry = q.doc(ref)
            page = entry is not None and entry.kind == "entity"
            scores[ref] = scores.get(ref, 0.0) + EXACT_BOOST + (ENTITY_EXACT_BONUS if page else 0.0)
    return _collect(q, limit, kinds, dir_limit)


def _ranked(scores: dict[bytes, float], want: int) -> Iterator[bytes]:
    """Doc refs by falling score: a heap for the first ``want``, a full sort only if needed."""

    by_score = itemgetter(1)
    top = heapq.nlargest(want, scores.items(), key=by_score)
    yield from (ref for ref, _ in top)
    if len(top) < len(scores):
        seen = {ref for ref, _ in top}
        rest = sorted(scores.items(), key=by_score, reverse=True)
        yield from (ref for ref, _ in rest if ref not in seen)


def _tie_key(hit: SearchHit) -> tuple[float, str, str]:
    # Equal scores rank by the page's own name, not by its doc ref (a hash of its path): a page
    # moved to another directory keeps its place among its ties.
    return (-hit.score, hit.path.rsplit("/", 1)[-1], hit.path)


def _collect(
    q: _Query, limit: int, kinds: Collection[str] | None, dir_limit: int | None = None
) -> list[SearchHit]:
    """The best ``limit`` hits that pass the kind filter, reading doc entries in rank order
    (with ``dir_limit``, directories are a second quota beside it); hits tied with the last one
    are read too and ranked by name. A ref without an entry (an exact-name hit on a page the
    index does not hold, or one removed concurrently) is skipped: the index, not the name
    table, decides what search returns."""
    quota = {False: limit, True: dir_limit or 0}
    taken: dict[bool, list[SearchHit]] = {False: [], True: []}
    floor: dict[bool, float] = {True: math.inf} if not dir_limit else {}
    # A kb view behind a path allow-list (the serving layer's ScopedKB) hides some pages.
    visible = getattr(q.kb, "visible", None)
    for ref in _ranked(q.scores, limit * 3 if kinds or dir_limit else limit + 2):
        score = q.scores[ref]
        if len(floor) == 2 and all(score < f for f in floor.values()):
            break  # every quota is full and this hit ties with none of them
        entry = q.doc(ref)
        if entry is None or (kinds and entry.kind not in kinds):
            continue
        if visible is not None and not visible(entry.path):
            continue
        apart = dir_limit is not None and entry.kind == "dir"
        if apart and not dir_limit:
            continue
        group = taken[apart]
        if apart in floor and score < floor[apart]:
            continue
        group.append(
            SearchHit(entry.path, entry.title, entry.summary, score, q.why(ref), entry.kind)
        )
        if len(group) == quota[apart]:
            floor[apart] = score
    hits = [
        h for apart, group in taken.items() for h in sorted(group, key=_tie_key)[: quota[apart]]
    ]
    return sorted(hits, key=_tie_key)


__all__ = ["SearchHit", "clear_caches", "search"]
