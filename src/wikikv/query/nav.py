"""Q3 nav(query, budget): the anytime, budgeted navigation operator (WikiKV paper, Algorithm 1).

Results stream in order of increasing granularity — the root overview, then dimension summaries,
then entity pages, then digests and articles — so any prefix of the stream is a valid, coarser
answer. The plan:

1. Read the root and emit its overview (always; it is the coarsest answer).
2. Classify: enumeration questions ("which ...", "list ...", "有哪些") are answered with evidence —
   the matching entity and source pages and what they cite — like any other question, with more
   candidates; a listing answers only when a directory itself is what is asked for ("有哪些人物？",
   "Which films are in the wiki?": nothing but the directory's name is left once the question's
   frame words are dropped).
3. Phase 1: one search call picks candidate paths (no per-level descent).
4. Phase 2: targeted reads of the candidates; when NeedsDeeper says a page does not cover the
   query, expand one level along its wikilinks and cited sources — how multi-hop questions are
   answered.

Chinese questions are answered documents first (:meth:`_Nav.documents`): a search over the
documents' full texts and the documents that the entity pages the question names cite most are
fused into one ranking (:mod:`wikikv.query.evidence`), and the budget goes to those documents.

The budget is checked before every read, search or LLM call; a count budget is never overrun by
more than the single step in flight. The clock of a fresh budget starts once the analyzers the
query needs are ready (the Chinese dictionary is mapped on first use), so start-up is not spent
from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from wikikv.llm.types import Provider, Usage
from wikikv.query.budget import Budget
from wikikv.query.evidence import (
    by_citations,
    cited_counts,
    declared_names,
    fuse,
    name_share,
    qualifiers,
    specificity,
    tied_ranks,
)
from wikikv.search import SearchHit, tokenize
from wikikv.search import search as search_pages
from wikikv.search.tokenize import STOPWORDS, analyzers_ready, fold, has_cjk, present_terms
from wikikv.store.access_stats import query_scope
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT, segments, unescape_segment
from wikikv.store.records import DirRecord, FileRecord

LEVELS = {"index": 0, "dimension": 1, "entity": 2, "digest": 3, "article": 4}
SOURCES = "/sources"
ARTICLES = "/sources/articles/"
DIGESTS = "/sources/digests/"

_ENUM_EN = re.compile(
    r"^\s*(list|name (all|the)|enumerate|what (are|were) (all |the )?(the )?\w+s\b)", re.I
)
# "Which films ..." enumerates; "Which film came out first, A or B?" picks one: a bare "which"
# counts only before a plural noun, and never in an either-or question. (In the retrieval
# benchmark a bare "which" rule sent 45% of 2WikiMultiHopQA's questions to listings.)
_WHICH_PLURAL = re.compile(r"^\s*which\s+(\w+\s+)?\w+[^s\W]s\b", re.I)
_ENUM_ZH = re.compile(r"(有哪些|哪些|哪几篇|哪几部|哪几个|哪几位|列举|列出|都有什么|有什么)")
# What an enumeration question says about its own form rather than its subject: the asking words
# and the kind of thing to list when it is "texts" (every source is a text). Dropped from the
# search, and left out when deciding whether a directory is the whole answer.
_FRAME_ZH = re.compile(
    r"有哪些|哪些|哪几篇|哪几部|哪几个|哪篇|哪部|列举|列出|都有什么|有什么|所有|全部|"
    r"回忆文章|文章|作品|小说|著作|篇目|"
    # How a text may hold its subject: words any text does, which rank texts on nothing.
    r"出现|提到|写到|谈到|讲到|说到|见于|谈论|涉及|描写|被引用|一事|这件事"
)
# Words that place a kind inside a region ("《故事新编》里的人物", "people in Hook").
_PLACE_WORDS = frozenset("里 中 内 之中 当中 in within of".split())
_FRAME_TERMS = frozenset(
    "list name names all enumerate every give show tell me which what wiki kb corpus here "
    "知识库 维基 所有 全部 都 列出 列举 哪些 有 有哪些".split()
)
# Chinese questions (documents first): how many documents the search over full texts proposes
# (and the fused ranking keeps), among how many of the best an entity page lists its sources, and
# how many pages besides those the question names are read (the budget is for documents).
DOC_CANDIDATES = 12
FEW_SOURCES = 3
OTHER_PAGES = 3
MAX_NAME_WORDS = 6
# Sub-dimensions a question names (read as regions of the answer), at most this many.
REGIONS = 2
# Routing labels that say where a page is named ("in articles on films"), not what it is.
_WHERE_LABEL = re.compile(r"^in articles on\b", re.I)
_LABEL_PARTS = re.compile(r"、| and ")

NeedsDeeper = Callable[[str, FileRecord], bool]


@dataclass
class NavResult:
    """One streamed result."""

    level: str
    path: str
    title: str
    text: str
    score: float
    elapsed_ms: float
    reason: str = ""
    sources: list[str] = field(default_factory=list)

    @property
    def granularity(self) -> int:
        return LEVELS[self.level]

    def to_dict(self) -> dict[str, object]:
        return {
            "level": self.level,
            "path": self.path,
            "title": self.title,
            "text": self.text,
            "score": round(self.score, 4),
            "elapsed_ms": round(self.elapsed_ms, 3),
            "reason": self.reason,
            "sources": list(self.sources),
        }


def classify(query: str) -> str:
    """``enumeration`` for list-style questions, else ``lookup``."""
    if _ENUM_EN.search(query) or _ENUM_ZH.search(query):
        return "enumeration"
    if _WHICH_PLURAL.search(query) and " or " not in query:
        return "enumeration"
    return "lookup"


def level_of(path: str, rec: object) -> str:
    if path == ROOT:
        return "index"
    if path.startswith(ARTICLES):
        return "article"
    if path.startswith(DIGESTS):
        return "digest"
    if isinstance(rec, DirRecord):
        return "dimension"
    return "entity"


def search_text(query: str) -> str:
    """The text nav searches for: a Chinese question without its asking words, an enumeration
    also without its frame words."""
    if not has_cjk(query):
        return query
    stripped = query
    if classify(query) == "enumeration" and _ENUM_ZH.search(query):
        stripped = _FRAME_ZH.sub(" ", stripped)
    stripped = stripped.strip()
    return stripped if tokenize(stripped) else query


def coverage(query: str, text: str) -> float:
    """Share of the query's content terms that the text contains (extractive NeedsDeeper)."""
    q = set(tokenize(query))
    if not q:
        return 1.0
    return len(present_terms(q, text)) / len(q)


def extractive_needs_deeper(threshold: float = 0.75) -> NeedsDeeper:
    def needs(query: str, page: FileRecord) -> bool:
        return coverage(query, page.text) < threshold

    return needs


class ModelNeedsDeeper:
    """NeedsDeeper from the model (the provider's ``needs_deeper`` role). Each call is one LLM
    call of the nav budget (``llm_calls``; its time runs on the budget's clock): nav asks only
    while the budget allows one, and when the model says a page covers the question, nav
    stops reading further candidates (``stops``) and goes on to that evidence's sources."""

    llm_calls = 1
    stops = True

    def __init__(self, llm: Provider) -> None:
        self.llm = llm
        self.calls = 0
        self.usage = Usage()

    def __call__(self, query: str, page: FileRecord) -> bool:
        from wikikv.llm.query_roles import needs_deeper

        deeper, usage = needs_deeper(self.llm, query, page.text)
        self.calls += 1
        self.usage = self.usage + usage
        return deeper


_FOOTNOTE = re.compile(r"^\[\^(\w+)\]:\s*\[\[([^\]|]+)")
_CITE = re.compile(r"\[\^(\w+)\]")


def rank_sources(
    text: str,
    sources: list[str],
    qterms: set[str],
    found: dict[str, int],
) -> list[str]:
    """An entity page's sources, most relevant first: sources that the search itself ranked come
    first (by rank), then by how many query terms the key facts citing them share; ties keep
    citation order. (Citation order alone lets a hub page fill the top with unrelated sources.)
    Every source is kept: on the English multi-hop sets a bridge page's unfound sources are the
    second hop."""
    notes: dict[str, str] = {}
    facts: list[str] = []
    for line in text.splitlines():
        m = _FOOTNOTE.match(line.strip())
        if m:
            notes[m.group(1)] = m.group(2).strip()
        elif "[^" in line:
            facts.append(line)
    score: dict[str, float] = {}
    for line in facts:
        overlap = len(present_terms(qterms, line))
        for ref in _CITE.findall(line):
            src = notes.get(ref)
            if src is not None:
                score[src] = max(score.get(src, 0.0), float(overlap))
    for src in sources:
        rank = found.get(_doc_of(src))
        if rank is not None:
            score[src] = score.get(src, 0.0) + 100.0 - rank
    pos = {s: i for i, s in enumerate(sources)}
    return sorted(sources, key=lambda s: (-score.get(s, 0.0), pos[s]))


def _doc_of(source: str) -> str:
    return source.rsplit("/", 1)[-1]


def _title(rec: FileRecord | DirRecord) -> str:
    if isinstance(rec, FileRecord) and rec.meta.title:
        return rec.meta.title
    return unescape_segment(rec.name) or "index"


def _dimension_of(path: str) -> str | None:
    segs = segments(path)
    if len(segs) < 2 or path.startswith(SOURCES + "/"):
        return None
    return "/" + segs[0]


class _Nav:
    def __init__(
        self,
        kb: KnowledgeBase,
        query: str,
        budget: Budget,
        needs_deeper: NeedsDeeper,
        candidates: int,
        expand: int,
    ) -> None:
        self.kb = kb
        self.query = query
        self.budget = budget
        self.needs_deeper = needs_deeper
        self.candidates = candidates
        self.expand = expand
        self.seen: set[str] = set()
        self.search_query = search_text(query)
        self.qterms = set(tokenize(self.search_query))
        self.folded_query = fold(query)
        # Chinese questions are answered documents first: see documents().
        self.strict = has_cjk(query)
        self.found_sources: dict[str, int] = {}  # doc id -> rank among the search's source hits
        self.region_pages: set[str] = set()  # names of the pages of the named sub-dimensions
        self.region_paths: set[str] = set()  # and their paths
        self.region_works: set[str] = set()  # the works and collections those labels name
        self.regions_read = 0
        self.listed: set[str] = set()  # documents a page emitted so far listed (Chinese)

    def emit(
        self,
        level: str,
        rec: FileRecord | DirRecord,
        score: float,
        reason: str,
        text: str | None = None,
    ) -> NavResult:
        self.seen.add(rec.path)
        sources = list(rec.meta.sources) if isinstance(rec, FileRecord) else []
        if level == "entity" and isinstance(rec, FileRecord) and self.strict:
            sources = ranked_evidence(sources, self.found_sources, self.listed)
            self.listed.update(_doc_of(s) for s in sources)
        elif level == "entity" and isinstance(rec, FileRecord) and len(sources) > 1:
            sources = rank_sources(rec.text, sources, self.qterms, self.found_sources)

        return NavResult(
            level,
            rec.path,
            _title(rec),
            rec.text if text is None else text,
            score,
            self.budget.elapsed_ms(),
            reason,
            sources,
        )

    def names(self, *names: str) -> bool:
        """Whether the question contains one of ``names`` (folded; two characters or more)."""
        return any(len(n) >= 2 and fold(n) in self.folded_query for n in names if n)

    def read(self, path: str) -> FileRecord | DirRecord | None:
        """One budgeted read; None when the budget is spent or the record is gone."""
        if not self.budget.allows(reads=1):
            return None
        self.budget.charge(reads=1)
        rec = self.kb.get(path)
        return rec if isinstance(rec, (FileRecord, DirRecord)) else None

    def dimension_text(self, rec: DirRecord) -> str:
        names = [unescape_segment(n) for n in rec.sub_dirs + rec.files]
        head = rec.text.strip()
        listing = ", ".join(names[:50]) + (f" … ({len(names)} in all)" if len(names) > 50 else "")
        return f"{head}\n\n{_title(rec)}: {listing}" if head else f"{_title(rec)}: {listing}"

    def run(self) -> Iterator[NavResult]:
        self.budget.charge(reads=1)  # the root is always read: the coarsest valid answer
        root = self.kb.get(ROOT)
        if not isinstance(root, DirRecord):
            return
        yield self.emit("index", root, 1.0, "root overview", self.dimension_text(root))
        if classify(self.query) == "enumeration":
            yield from self.enumerate(root)
        elif self.strict:
            yield from self.documents()
        else:
            yield from self.lookup()

    # ------------------------------------------------------- enumeration
    def enumerate(self, root: DirRecord) -> Iterator[NavResult]:
        """Evidence, as for any question but with more candidates — unless the question asks for
        a directory itself, which is then listed with its pages."""
        target = self.listing_target(root)
        if target is None and self.strict:
            yield from self.documents()
            return
        if target is None:
            yield from self.lookup(self.candidates * 2, expand=False)
            return
        rec = self.read(target)
        if not isinstance(rec, DirRecord):
            return
        yield self.emit("dimension", rec, 1.0, "enumeration: listing", self.dimension_text(rec))
        for child in rec.files:
            page = self.read(rec.path + "/" + child)
            if page is None:
                if not self.budget.allows(reads=1):
                    return
                continue  # skip-on-miss
            if isinstance(page, FileRecord):
                yield self.emit("entity", page, 0.5, f"listed under {rec.path}")

    def listing_target(self, root: DirRecord) -> str | None:
        """The directory whose listing is the whole answer: what the question says besides its
        frame words is a dimension's name ("有哪些人物？" → /人物), or that name and a
        sub-dimension's label ("《故事新编》里有哪些人物？" → /人物/见于《故事新编》: the
        characters filed under the work; one budgeted read of the dimension)."""
        content = {t for t in tokenize(_FRAME_ZH.sub(" ", self.query)) if t not in _FRAME_TERMS}
        if not content:
            return None
        for name in root.sub_dirs:
            if name == "sources":
                continue
            kind = set(tokenize(unescape_segment(name)))
            if content <= kind:
                return "/" + name
            rest = content - kind - _PLACE_WORDS
            if rest == content - _PLACE_WORDS:
                continue  # the question does not name this dimension
            dim = self.read("/" + name)
            if not isinstance(dim, DirRecord):
                return None
            for sub in dim.sub_dirs:
                label = unescape_segment(sub)
                if label_named(label, self.query, self.qterms, True) and rest <= set(
                    tokenize(label)
                ):
                    return f"/{name}/{sub}"
        return None

    # ------------------------------------------------------------ lookup
    def lookup(self, candidates: int | None = None, expand: bool = True) -> Iterator[NavResult]:
        """Search, then read the candidates; ``expand``: follow the wikilinks of a page that
        falls short (a chain of facts), which an enumeration — a set of matches — does not."""
        if not self.budget.allows(reads=1):
            return
        self.budget.charge(reads=1)  # Phase 1: one search call
        limit = candidates or self.candidates
        # Directories apart (dir_limit): they must not crowd out the candidate pages and texts,
        # or regrouping the pages (schema evolution) would change which texts are found.
        hits = search_pages(self.kb, self.search_query, limit=limit, dir_limit=limit)
        entity_hits = [h for h in hits if not h.path.startswith(SOURCES) and h.kind != "dir"]
        source_hits = [h for h in hits if h.path.startswith(SOURCES)]
        yield from self.named_regions(hits, loose=not expand)
        # A document's rank is its article's (the full text), else its digest's: ranking by whole
        # texts finds the documents that discuss a subject, not those whose digest quotes it.
        by_text = sorted(source_hits, key=lambda h: not h.path.startswith(ARTICLES))
        for h in by_text:
            self.found_sources.setdefault(h.path.rsplit("/", 1)[-1], len(self.found_sources))
        yield from self.regions(entity_hits)
        # Phase 2a: entity pages, expanding one level along wikilinks when a page falls short.
        queue: list[tuple[str, float, str]] = [
            (h.path, h.score, "search: " + "; ".join(h.why)) for h in entity_hits
        ]
        # Pages the question names outright (the "A or B" of a comparison) that the search,
        # crowded by pages matching the rest of the question, left out: candidates after the
        # search's. (Measured on the multi-hop sets: first instead of after costs recall@2.)
        if self.budget.allows(reads=1):
            self.budget.charge(reads=1)  # one batch of name-index lookups
            have = {path for path, _, _ in queue}
            queue += [
                (path, 0.0, f"search: named in the question ({name})")
                for name, path in self.named_pages()
                if path not in have
            ]
        if not expand and self.region_paths:
            # An enumeration over a sub-dimension it names: that region's pages are the set.
            have = {path for path, _, _ in queue}
            queue += [
                (path, 0.0, "search: in the sub-dimension the question names")
                for path in sorted(self.region_paths)
                if path not in have
            ]
        cited: list[str] = []
        i = 0
        while i < len(queue):
            path, score, reason = queue[i]
            i += 1
            if path in self.seen:
                continue
            rec = self.read(path)
            if rec is None:
                if not self.budget.allows(reads=1):
                    break
                continue
            if not isinstance(rec, FileRecord):
                continue
            result = self.emit("entity", rec, score, reason)
            yield result
            cited.extend(s for s in result.sources if s not in cited)
            if expand and reason.startswith("search"):
                deeper = self.deeper(rec)
                if deeper:
                    for link in self.rank_links(rec)[: self.expand]:
                        queue.append((link, score * 0.5, f"linked from {rec.path}"))
                elif deeper is False and getattr(self.needs_deeper, "stops", False):
                    break  # the model says the evidence covers the question
        # Phase 2b: digests and articles — search hits first, then the sources pages cited.
        order = [h.path for h in source_hits] + [_article_path(s) for s in cited]
        docs_given: set[str] = set()
        for path in order:
            if path in self.seen or _doc_of(path) in docs_given:
                continue  # a document is given once: its digest or its article, not both
            docs_given.add(_doc_of(path))
            rec = self.read(path)
            if rec is None:
                if not self.budget.allows(reads=1):
                    return
                continue
            if isinstance(rec, FileRecord):
                yield self.emit(level_of(path, rec), rec, 0.0, "source")

    def deeper(self, rec: FileRecord) -> bool | None:
        """NeedsDeeper on ``rec``; a judge that costs LLM calls is charged to the budget, and
        not asked (None) once the budget has none left."""
        cost = int(getattr(self.needs_deeper, "llm_calls", 0))
        if cost:
            if not self.budget.allows(reads=0, llm_calls=cost):
                return None
            self.budget.charge(llm_calls=cost)
        return self.needs_deeper(self.query, rec)

    # ------------------------------------------------- documents first (Chinese questions)
    def documents(self) -> Iterator[NavResult]:
        """Evidence first: which source documents answer the question, from two rankings fused
        (:mod:`wikikv.query.evidence`) — the search over the documents' full texts, and the
        documents that the entity pages the question names cite most — then those pages, each
        listing the fused documents it cites, then the documents' texts in fused order.

        Measured on evals/luxun/questions.yaml: the hubs a Chinese question names in passing
        (鲁迅, 中国) cite nearly every document, so a page's ranking weighs by its specificity;
        a page the search ranks below the best document and that the question does not name
        matched on character bigrams of the question (the fallback for unknown words) and is
        left out; links are not followed (linked hubs push out the documents holding the
        question's terms)."""
        if not self.budget.allows(reads=1):
            return
        self.budget.charge(reads=1)  # Phase 1a: the documents' full texts
        doc_hits = search_pages(
            self.kb, self.search_query, limit=DOC_CANDIDATES, kinds=("article",)
        )
        if not self.budget.allows(reads=1):
            return
        self.budget.charge(reads=1)  # Phase 1b: the wiki's pages
        hits = search_pages(
            self.kb, self.search_query, limit=2 * self.candidates, dir_limit=2 * self.candidates
        )
        entity_hits = [h for h in hits if not h.path.startswith(SOURCES) and h.kind != "dir"]
        yield from self.named_regions(hits, loose=True)
        floor = doc_hits[0].score if doc_hits else float("-inf")
        # The pages the question names, and the few best others: the budget is for documents.
        unnamed = [h for h in entity_hits if h.score >= floor and not self.names(h.title)]
        others = {h.path for h in unnamed[:OTHER_PAGES]}
        chosen = [h for h in entity_hits if self.names(h.title) or h.path in others]
        yield from self.regions(chosen)
        pages: list[tuple[FileRecord, float, str]] = []
        for h in chosen:
            rec = self.read(h.path)
            if rec is None and not self.budget.allows(reads=1):
                break
            if isinstance(rec, FileRecord):
                pages.append((rec, h.score, "search: " + "; ".join(h.why)))
        text_rank = {_doc_of(h.path): i for i, h in enumerate(doc_hits)}
        # The full-text ranking with near-equal scores tied: the named pages' citations, not
        # the noise in the scores, order those documents.
        tied = tied_ranks([(_doc_of(h.path), h.score) for h in doc_hits])
        rankings: list[tuple[float, list[str] | dict[str, int]]] = [(1.0, tied)]
        named = self.subjects([rec for rec, _, _ in pages])
        # Each page's names, and a page of a declared other name also the names of the page
        # declaring it: the question spells its subject the other way.
        own = {rec.path: [_title(rec), *rec.meta.aliases] for rec in named}
        also = self.also_named(named)
        pages += [(rec, 0.0, f"search: named by {by} ({other})") for rec, by, other in also]
        named += [rec for rec, _, _ in also]
        for rec, by, _ in also:
            own[rec.path] = [_title(rec), *rec.meta.aliases, *own.get(by, [])]
        documents = self.document_count() if named else 0
        for rec in named:
            if self.region_works & {_title(rec), *rec.meta.aliases} and len(named) > 1:
                # A collection the question names as a sub-dimension says where to look (the
                # region sorts its texts first), not what is asked: its page, which cites its
                # front matter most, does not vote beside the pages of what is asked.
                continue
            counts = {_doc_of(s): n for s, n in cited_counts(rec.text).items()}
            weight = specificity(max(len(counts), len(rec.meta.sources)), documents)
            weight *= name_share(self.qterms, own[rec.path])
            if counts and weight > 0:
                rankings.append((weight, by_citations(counts, text_rank)))
        fused = fuse(rankings)
        if self.region_pages:
            # A work or collection the question names restricts the answer to its texts: those
            # among the candidates go first, in fused order.
            fused.sort(key=lambda d: _doc_title(d) not in self.region_pages)
        fused = fused[:DOC_CANDIDATES]
        self.found_sources = {doc: i for i, doc in enumerate(fused)}
        for rec, score, reason in pages:
            yield self.emit("entity", rec, score, reason)
        # Phase 2: the documents' texts, in fused order.
        for doc in fused:
            path = ARTICLES + doc
            if path in self.seen:
                continue
            rec = self.read(path)
            if rec is None:
                if not self.budget.allows(reads=1):
                    return
                continue
            if isinstance(rec, FileRecord):
                yield self.emit("article", rec, 0.0, "source")

    def subjects(self, pages: list[FileRecord]) -> list[FileRecord]:
        """The pages the question names, less those naming only its setting (the qualifier of
        another named page: "绍兴的目连戏" → 绍兴)."""
        named = [rec for rec in pages if self.names(_title(rec), *rec.meta.aliases)]
        names = {rec.path: [_title(rec), *rec.meta.aliases] for rec in named}
        heads = {t for t in self.qterms if has_cjk(t)}
        setting = qualifiers(self.query, names, heads)
        return [rec for rec in named if rec.path not in setting]

    def also_named(self, named: list[FileRecord]) -> list[tuple[FileRecord, str, str]]:
        """Pages of the names the named pages declare for their subjects ("伊孛生即易卜生" on the
        page of 易卜生 → the page of 伊孛生): the texts written under the other name. One
        budgeted batch of name lookups, then a read per page; each with the path of the page
        declaring it and the name declared."""
        wanted = [
            (other, rec.path)
            for rec in named
            for other in declared_names(rec.text, [_title(rec), *rec.meta.aliases])
        ]
        if not wanted or not self.budget.allows(reads=1):
            return []
        self.budget.charge(reads=1)  # one batch of name-index lookups
        have = {rec.path for rec in named}
        out: list[tuple[FileRecord, str, str]] = []
        for other, by in wanted:
            for hit in self.kb.find_names(other, limit=2, exact=True):
                if hit.path.startswith(SOURCES) or hit.path in have:
                    continue
                rec = self.read(hit.path)
                if isinstance(rec, FileRecord):
                    have.add(rec.path)
                    out.append((rec, by, other))
        return out

    def named_regions(self, hits: list[SearchHit], loose: bool) -> Iterator[NavResult]:
        """The sub-dimensions the question names, from the directories among the search hits
        (no extra search): a routing directory whose label the question spells — a work or
        collection in Chinese (故事新编, 《不是信》, 见于《呐喊》: the texts of a collection, the
        characters filed under a work), every kind word of an English label ("American Pre-Code
        films"; a single-word kind such as "films" only for an enumeration, ``loose``). Each is
        read (budgeted) and given as a listing; its pages become the region of the answer:
        Chinese documents titled by one of them go first, English links into it are followed
        first."""
        for h in hits:
            if h.kind != "dir" or h.path.startswith(SOURCES) or len(segments(h.path)) < 2:
                continue
            label = unescape_segment(h.path.rsplit("/", 1)[-1])
            if not label_named(label, self.query, self.qterms, loose):
                continue
            if self.regions_read >= REGIONS:
                return
            rec = self.read(h.path)
            if not isinstance(rec, DirRecord):
                return
            self.regions_read += 1
            if rec.path in self.seen:
                continue  # an old path redirected to a directory already given
            self.region_works.update(named_works(label, self.query))
            self.region_pages.update(unescape_segment(f) for f in rec.files)
            self.region_paths.update(rec.path + "/" + f for f in rec.files)
            yield self.emit(
                "dimension", rec, h.score, f"sub-dimension named: {label}", self.dimension_text(rec)
            )

    def regions(self, hits: list[SearchHit]) -> Iterator[NavResult]:
        """Dimension summaries of the regions the candidate pages fall in (at most two)."""
        dims: list[str] = []
        for h in hits:
            d = _dimension_of(h.path)
            if d and d not in dims:
                dims.append(d)
        for d in dims[:2]:
            rec = self.read(d)
            if isinstance(rec, DirRecord):
                yield self.emit(
                    "dimension", rec, 0.0, "region of the candidates", self.dimension_text(rec)
                )

    def document_count(self) -> int:
        """How many source documents the kb holds (one budgeted read of their directory)."""
        rec = self.read(ARTICLES.rstrip("/"))
        if not isinstance(rec, DirRecord):
            return 0
        return max(rec.meta.entry_count, len(rec.files))

    def named_pages(self) -> list[tuple[str, str]]:
        """(name, path) of the pages whose name or alias the question spells out: the longest
        run of words starting with a capital or a digit that is a page's exact name."""
        # A period stays on a word here (the initial of "Salvador J. Lara", "St. Louis"): a
        # sentence's final one is tried away below, with the whole gram.
        words = [w.strip('?,!;:"“”') for w in self.query.split()]
        out: list[tuple[str, str]] = []
        i = 0
        while i < len(words):
            matched = 0
            if words[i][:1].isupper() or words[i][:1].isdigit():
                for n in range(min(MAX_NAME_WORDS, len(words) - i), 0, -1):
                    gram = " ".join(words[i : i + n])
                    if n == 1 and fold(gram.rstrip(".")) in STOPWORDS:
                        continue
                    pages = self._pages_named(gram)
                    if not pages and gram.endswith("."):
                        gram = gram.rstrip(".")
                        pages = self._pages_named(gram)
                    if pages:
                        out.extend((gram, p) for p in pages if (gram, p) not in out)
                        matched = n
                        break
            i += max(matched, 1)
        return out

    def _pages_named(self, name: str) -> list[str]:
        """The pages (not source texts) whose name or alias is exactly ``name``."""
        return [
            h.path
            for h in self.kb.find_names(name, limit=4, exact=True)
            if not h.path.startswith(SOURCES)
        ]

    def rank_links(self, rec: FileRecord) -> list[str]:
        """Wikilinked pages, those whose names share terms with the query first."""
        links = [p for p in rec.meta.links if p not in self.seen]

        def overlap(p: str) -> int:
            return len(self.qterms & set(tokenize(unescape_segment(p.rsplit("/", 1)[-1]))))

        # Links into a sub-dimension the question names ("… what 1932 American pre-Code film?")
        # go first: the hierarchy says what kind of page they are.
        # Ties by the linked page's name, not its path: where the wiki files a page must not
        # change the order its links are followed in.
        return sorted(
            links,
            key=lambda p: (p not in self.region_paths, -overlap(p), p.rsplit("/", 1)[-1], p),
        )


def label_named(label: str, query: str, qterms: set[str], loose: bool) -> bool:
    """Whether ``query`` spells the routing label ``label`` (a merged label "A、B" / "A and B" when
    it spells either part): Chinese, the work or collection it names (two characters or more,
    one only between title marks: 《坟》);
    English, every kind word of it, and at least two unless ``loose`` (where-labels — "in
    articles on …" — say nothing of what their pages are and never count)."""
    for part in _LABEL_PARTS.split(label):
        core = part.strip()
        if has_cjk(core):
            if _spelled_work(core, query):
                return True
            continue
        if _WHERE_LABEL.match(core):
            continue
        kinds = set(tokenize(core))
        if kinds and kinds <= qterms and (loose or len(kinds) >= 2):
            return True
    return False


def named_works(label: str, query: str) -> list[str]:
    """The works or collections a Chinese routing label names that ``query`` spells (故事新编,
    见于《呐喊》 → 呐喊)."""
    out = []
    for part in _LABEL_PARTS.split(label):
        core = part.strip().removeprefix("见于").strip("《》")
        if has_cjk(core) and _spelled_work(core, query):
            out.append(core)
    return out


def _spelled_work(label: str, query: str) -> bool:
    """Whether ``query`` names the work or collection of a Chinese label: two characters or
    more anywhere, one only between title marks (《坟》: the character alone is too common)."""
    core = label.removeprefix("见于").strip("《》")
    if len(core) >= 2:
        return core in query
    return bool(core) and f"《{core}》" in query


def _doc_title(doc: str) -> str:
    """A document's title: the last part of its id (``<collection>/<title>``)."""
    return unescape_segment(doc).rsplit("/", 1)[-1]


def ranked_evidence(
    sources: list[str], found: dict[str, int], listed: set[str] | frozenset[str] = frozenset()
) -> list[str]:
    """A page's sources on a Chinese question: the documents of the fused ranking's first
    :data:`FEW_SOURCES` that it cites, in that order, as long as every better-ranked one is
    cited by it or was ``listed`` already (all of them when nothing was ranked). A reader meets
    documents in the stream's order, so a page listing the second document before any page or
    text gave the first would put a document the question is less about ahead of it (a town's
    page in "绍兴的师爷": its own text second, the best text cited by no page)."""
    if not found:
        return sources
    by_doc = {_doc_of(s): s for s in sources}
    out: list[str] = []
    for doc, rank in sorted(found.items(), key=lambda item: item[1]):
        if rank >= FEW_SOURCES:
            break
        if doc in by_doc:
            out.append(by_doc[doc])
        elif doc not in listed:
            break
    return out


def _article_path(source: str) -> str:
    return source if source.startswith("/") else ARTICLES + source


# Until nav's first evidence (a page or a text, not the root or a listing) the millisecond clock
# is not checked, for at most this many reads (the root, one or two searches, name lookups, a
# listing, the first page): a slow or loaded machine still gets evidence, not only the root
# overview (Budget.first_reads). A read-count budget still caps them.
FIRST_EVIDENCE_READS = 8
_NOT_EVIDENCE = ("index", "dimension")


def nav(
    kb: KnowledgeBase,
    query: str,
    budget: Budget | None = None,
    *,
    needs_deeper: NeedsDeeper | None = None,
    candidates: int = 8,
    expand: int = 3,
) -> Iterator[NavResult]:
    """Stream results for ``query`` within ``budget`` (default: 50 ms), coarse to fine; the
    first evidence arrives whatever the clock says (:data:`FIRST_EVIDENCE_READS`)."""
    b = budget if budget is not None else Budget(ms=50.0)
    analyzers_ready(query)
    if b.reads == 0 and b.llm_calls == 0:
        b.restart()  # a fresh budget is for navigating, not for setting up
        b.first_reads = max(b.first_reads, FIRST_EVIDENCE_READS)  # (a caller's is not topped up)
    with query_scope(kb):  # access statistics of one query (a no-op unless recording)
        for result in _Nav(
            kb, query, b, needs_deeper or extractive_needs_deeper(), candidates, expand
        ).run():
            if b.first_reads and result.level not in _NOT_EVIDENCE:
                b.first_reads = 0  # the first evidence is out: the clock applies again
            yield result
