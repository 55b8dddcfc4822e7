"""Validators for the LLM-Wiki error taxonomy (LLM-Wiki paper, Table 6) and the lint checks.

Structural: dangling links, incomplete pages, malformed references, unseen overwrites, index
inconsistency. Content: unsupported facts (offline: the quote is not the cited article's text
at its offsets, scored by how much of it the cited span shares) and contradictions (offline:
:mod:`wikikv.quality.claims`). Three more kinds feed lint only: duplicate facts (E1), in-page
contradictions (E3) and deleted or changed sources (E5).

Validators read; they never write. Each returns :class:`Finding` values whose ``key`` is stable
across runs, so a decision about one (a review, an LLM verification) is remembered.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from wikikv.compile.pages import WIKILINK
from wikikv.quality import claims as cl
from wikikv.quality.page import FACT_HEADINGS, SOURCE_HEADINGS, ParsedPage, article_of, parse
from wikikv.store.audit import read_audit
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import is_under, parent
from wikikv.store.records import DirRecord, FileRecord
from wikikv.text.entities import fold

DANGLING = "dangling_link"
INCOMPLETE = "incomplete_page"
MALFORMED = "malformed_reference"
UNSEEN = "unseen_overwrite"
INDEX = "index_inconsistency"
UNSUPPORTED = "unsupported_fact"
CONTRADICTION = "cross_page_contradiction"
DUPLICATE = "duplicate_fact"
IN_PAGE = "in_page_contradiction"
SOURCE_DELETED = "source_deleted"
ERROR_TYPES = (DANGLING, INCOMPLETE, MALFORMED, UNSEEN, INDEX, UNSUPPORTED, CONTRADICTION)
LINT_TYPES = (DUPLICATE, IN_PAGE, SOURCE_DELETED)
ALL_TYPES = ERROR_TYPES + LINT_TYPES
STRUCTURAL = (DANGLING, INCOMPLETE, MALFORMED, UNSEEN, INDEX)
# what one page shows by itself (check_page), and what the claims of all pages show together
PAGE_TYPES = frozenset({DANGLING, INCOMPLETE, MALFORMED, UNSUPPORTED, DUPLICATE, SOURCE_DELETED})
CLAIM_TYPES = frozenset({CONTRADICTION, IN_PAGE})
# Share of a fact's tokens the cited span must hold for a drifted quote to count as the same
# text (whitespace or punctuation drift, fixed in place) rather than an unsupported claim.
SAME_TEXT = 0.9
_TOKEN = re.compile(r"[\u4e00-\u9fff]|[^\W_]+", re.UNICODE)
PAGE_KINDS = ("entity", "page")
RESCHEDULED = "rescheduled"


@dataclass(frozen=True)
class Finding:
    type: str
    path: str
    detail: str
    target: str = ""  # the link target, the other page of a contradiction, the fact's article
    n: str = ""  # the fact's footnote number, when the finding is about one fact
    line: int = field(default=-1, compare=False)  # the fact's line (not part of the key)

    @property
    def key(self) -> str:
        return f"{self.type}|{self.path}|{self.target}|{self.n}|{self.detail}"


def overlap(fact: str, span: str) -> float:
    """Share of the fact's tokens (words; CJK characters) that the cited span holds."""
    want = _TOKEN.findall(fact.casefold())
    if not want:
        return 0.0
    have = set(_TOKEN.findall(span.casefold()))
    return sum(1 for t in want if t in have) / len(want)


class View:
    """What validators read: pages, articles and existence, loaded once per pass."""

    def __init__(self, kb: KnowledgeBase, paths: Iterable[str] | None = None) -> None:
        self.kb = kb
        # A view of some pages (those one add wrote) does not list the whole wiki, a scan that
        # grows with it: existence is asked of the store for the links it checks.
        self.all_paths: AbstractSet[str] | None = set(kb.prefix("/")) if paths is None else None
        self.pages: dict[str, FileRecord] = {}
        self.dirs: dict[str, DirRecord] = {}
        self._articles: dict[str, FileRecord | None] = {}
        order = sorted(self.all_paths if self.all_paths is not None else set(paths or ()))
        for i in range(0, len(order), 500):
            chunk = order[i : i + 500]
            for p, rec in zip(chunk, kb.get_many(chunk), strict=True):
                if isinstance(rec, FileRecord):
                    if rec.meta.kind in PAGE_KINDS and not is_under(p, "/sources"):
                        self.pages[p] = rec
                elif isinstance(rec, DirRecord) and not is_under(p, "/sources"):
                    self.dirs[p] = rec
        self.parsed: dict[str, ParsedPage] = {p: parse(r.text) for p, r in self.pages.items()}
        self._exists: dict[str, bool] = {}

    def exists(self, path: str) -> bool:
        if self.all_paths is not None and path in self.all_paths:
            return True
        hit = self._exists.get(path)
        if hit is None:  # a redirect left by a move still resolves
            hit = self._exists[path] = self.kb.get(path) is not None
        return hit

    def look_up(self, paths: Iterable[str]) -> None:
        """Ask the store at once whether the paths a page links exist (one multi-get per 500;
        remembered: an add's pages link the same hubs), before :meth:`exists` is asked."""
        known = self.all_paths if self.all_paths is not None else ()
        need = sorted({p for p in paths if p not in self._exists and p not in known})
        for i in range(0, len(need), 500):
            chunk = need[i : i + 500]
            self._exists.update(zip(chunk, self.kb.resolve_many(chunk), strict=True))

    def articles(self, paths: Iterable[str]) -> None:
        """Load the cited articles not loaded yet (one multi-get per 500)."""
        need = sorted({p for p in paths if p not in self._articles})
        for i in range(0, len(need), 500):
            chunk = need[i : i + 500]
            for p, rec in zip(chunk, self.kb.get_many(chunk), strict=True):
                self._articles[p] = rec if isinstance(rec, FileRecord) else None

    def article(self, path: str) -> FileRecord | None:
        if path not in self._articles:
            self.articles([path])
        return self._articles[path]


# ------------------------------------------------------------------------ per page
def check_page(
    view: View,
    path: str,
    rec: FileRecord,
    page: ParsedPage,
    types: Collection[str] = ALL_TYPES,
) -> list[Finding]:
    """Dangling links, incomplete page, malformed references, unsupported and duplicate facts,
    deleted or changed sources — everything one page shows by itself. The checks of
    ``types`` at least are made (the link and section checks only when their type is asked
    for: a content pass does not look up every link target)."""
    out: list[Finding] = []
    if DANGLING in types:
        out += _dangling(view, path, rec, page)
    if rec.meta.kind == "entity" and INCOMPLETE in types:
        missing = _missing_sections(page)
        if missing:
            out.append(Finding(INCOMPLETE, path, "missing: " + ", ".join(missing)))
    out += _references(view, path, rec, page)
    return out


def _dangling(view: View, path: str, rec: FileRecord, page: ParsedPage) -> list[Finding]:
    out: list[Finding] = []
    view.look_up(
        t for t in (*(link.target for link in page.links), *rec.meta.links) if t[:1] == "/"
    )
    seen_targets: set[str] = set()
    for link in page.links:
        t = link.target
        if t in seen_targets or not t.startswith("/"):
            continue
        seen_targets.add(t)
        if not view.exists(t):
            out.append(Finding(DANGLING, path, "link to a page that does not exist", t))
    for t in rec.meta.links:
        if t not in seen_targets and not view.exists(t):
            out.append(Finding(DANGLING, path, "meta link to a page that does not exist", t))
    return out


def _missing_sections(page: ParsedPage) -> list[str]:
    missing = []
    if not page.front_matter:
        missing.append("front matter")
    if not page.title:
        missing.append("title")
    if not page.summary:
        missing.append("summary")
    if not page.has_any(FACT_HEADINGS):
        missing.append("key facts section")
    elif not page.facts:
        missing.append("cited key facts")
    if page.facts and not page.has_any(SOURCE_HEADINGS):
        missing.append("related sources")
    return missing


def _references(view: View, path: str, rec: FileRecord, page: ParsedPage) -> list[Finding]:
    out: list[Finding] = []
    for line in page.bad_notes:
        out.append(Finding(MALFORMED, path, f"footnote not in the citation format: line {line}"))
    for line in page.duplicate_notes:
        out.append(Finding(MALFORMED, path, f"footnote defined twice: line {line}"))
    for line in page.uncited_facts:
        out.append(Finding(MALFORMED, path, f"key fact without a citation marker: line {line}"))
    cited = {f.n for f in page.facts}
    for n in page.notes:
        if n not in cited:
            out.append(Finding(MALFORMED, path, "footnote that no fact cites", n=n))
    view.articles({a for a in (article_of(n.path) for n in page.notes.values()) if a})
    # each cited article looked up once: a page quotes a few articles many times, and a render
    # gate's view makes the record it gives back on each call
    held: dict[str, FileRecord | None] = {}

    def article(art: str) -> FileRecord | None:
        if art not in held:
            held[art] = view.article(art)
        return held[art]

    compiled = rec.meta.compiled_at or rec.meta.updated_at
    gone: set[str] = set()
    changed: set[str] = set()
    normalized: dict[str, str] = {}
    for fact in page.facts:
        norm = " ".join(fact.quote.casefold().split())
        if norm in normalized:
            out.append(Finding(DUPLICATE, path, f"same fact as [^{normalized[norm]}]", n=fact.n))
        else:
            normalized[norm] = fact.n
        note = page.notes.get(fact.n)
        if note is None:
            out.append(
                Finding(
                    MALFORMED, path, "citation marker without a footnote", n=fact.n, line=fact.line
                )
            )
            continue
        art = article_of(note.path)
        if art is None or note.start >= note.end:
            out.append(
                Finding(
                    MALFORMED,
                    path,
                    "footnote does not cite an article span",
                    n=fact.n,
                    line=fact.line,
                )
            )
            continue
        source = article(art)
        if source is None:
            gone.add(art)
            continue
        if source.meta.updated_at > compiled:
            changed.add(art)
        span = source.text[note.start : note.end]
        if span != fact.quote:
            score = overlap(fact.quote, span)
            out.append(
                Finding(
                    UNSUPPORTED,
                    path,
                    f"quote is not the cited text at chars {note.start}-{note.end} "
                    f"(shares {score:.0%})",
                    art,
                    fact.n,
                    fact.line,
                )
            )
    for src in rec.meta.sources:
        if article_of(src) and src not in gone and article(src) is None:
            gone.add(src)
    for art in sorted(gone):
        out.append(Finding(SOURCE_DELETED, path, "cited source was deleted", art))
    for art in sorted(changed - gone):
        out.append(Finding(SOURCE_DELETED, path, "cited source changed after compile", art))
    return out


# ------------------------------------------------------------------- whole wiki
def claim_rows(page: ParsedPage) -> list[tuple[str, str, str]]:
    """(footnote, quote, cited article or "") of the page's facts that may state a claim."""
    rows = []
    for f in page.facts:
        if not cl.may_claim(f.quote):
            continue
        note = page.notes.get(f.n)
        art = article_of(note.path) if note else None
        rows.append((f.n, f.quote, art or ""))
    return rows


def own_names(rec: FileRecord) -> set[str]:
    """The folded names a page has of its own (a claim about one of them is about the page)."""
    return {fold(n) for n in (rec.meta.title, *rec.meta.aliases) if n}


def claim_findings(
    found: list[cl.Claim], names: cl.NameIndex, only: set[str] | None = None
) -> list[Finding]:
    """The findings of the conflicts among ``found`` (with ``only``: those involving one)."""
    out: list[Finding] = []
    for c in cl.conflicts(found, names):
        if only is not None and c.first.page not in only and c.second.page not in only:
            continue
        detail = f"{c.attribute} of {c.subject}: {c.first.value!r} vs {c.second.value!r}"
        if c.in_page:
            out.append(Finding(IN_PAGE, c.first.page, detail, n=f"{c.first.fact},{c.second.fact}"))
        else:
            out.append(Finding(CONTRADICTION, c.first.page, detail, c.second.page, n=c.first.fact))
    return out


def contradictions(view: View, only: set[str] | None = None) -> list[Finding]:
    """In-page and cross-page contradictions (claims read from every page; with ``only``,
    those that involve one of those pages)."""
    names = cl.NameIndex()
    for p, rec in view.pages.items():
        if rec.meta.kind == "entity":
            names.add(p, [rec.meta.title, *rec.meta.aliases])
    titles_cache: dict[str, str] = {}
    facts_by_page: dict[str, list[tuple[str, str, str]]] = {}
    need: list[str] = []
    for p, page in view.parsed.items():
        rows = claim_rows(page)
        need += [art for _, _, art in rows if art]
        if rows:
            facts_by_page[p] = rows
    view.articles(need)
    found: list[cl.Claim] = []
    for p, rows in facts_by_page.items():
        triples = []
        for n, quote, art in rows:
            if art not in titles_cache:
                a = view.article(art) if art else None
                titles_cache[art] = a.meta.title if a is not None else ""
            triples.append((n, quote, titles_cache[art]))
        found += cl.claims_of(p, triples, names, own_names(view.pages[p]))
    return claim_findings(found, names, only)


def index_inconsistency(view: View, only: set[str] | None = None) -> list[Finding]:
    """Directory listing vs. directory text rows vs. the records, both ways; entity pages
    missing from the search index."""
    out: list[Finding] = []
    kb = view.kb
    for d, rec in view.dirs.items():
        if only is not None and d not in only:
            continue
        listing = kb.ls_all(d)
        children = listing.child_paths()
        for c, r in zip(children, kb.get_many(children), strict=True):
            if r is None:
                out.append(Finding(INDEX, d, "listed child has no record", c))
        rows = [
            m.group(1).strip()
            for line in rec.text.split("\n")
            if line.startswith("- [[")
            for m in [WIKILINK.search(line)]
            if m is not None
        ]
        if not rows:
            continue  # a hand-made directory without an index text
        row_set = set(rows)
        kids = set(children)
        for row in rows:
            if row not in kids and parent(row) == d:
                out.append(Finding(INDEX, d, "index row for a page not in the listing", row))
        for c in sorted(kids - row_set):
            if not is_under(c, "/sources"):
                out.append(Finding(INDEX, d, "listed page missing from the index text", c))
    out += _search_drift(view, only)
    return out


def _search_drift(view: View, only: set[str] | None) -> list[Finding]:
    try:
        from wikikv.search.analysis import IndexKeys, doc_ref
    except ImportError:  # pragma: no cover - search ships with the package
        return []
    ik = IndexKeys(view.kb.name)
    if not _any_indexed(view):
        return []  # a kb built without the search index: nothing to drift from
    paths = sorted(p for p in view.pages if view.pages[p].meta.kind == "entity")
    if only is not None:
        paths = [p for p in paths if p in only]
    out: list[Finding] = []
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        items = view.kb.backend.get_many([ik.doc(doc_ref(p)) for p in chunk])
        for p, it in zip(chunk, items, strict=True):
            if it is None:
                out.append(Finding(INDEX, p, "page missing from the search index", p))
    return out


def _any_indexed(view: View) -> bool:
    from wikikv.search.analysis import IndexKeys, doc_ref

    ik = IndexKeys(view.kb.name)
    sample = sorted(view.pages)[:50] + sorted(view.dirs)[:10]
    found = view.kb.backend.get_many([ik.doc(doc_ref(p)) for p in sample])
    return any(it is not None for it in found)


def unseen_overwrites(kb: KnowledgeBase, only: set[str] | None = None) -> list[Finding]:
    """Compile writes over a hand edit the compiler never read (audit trail: a person's write,
    then a ``bulk:compile`` write of the same page with no merge between them)."""
    pending: dict[str, tuple[str, int]] = {}
    out: list[Finding] = []
    for e in read_audit(kb.backend, kb.keys, newest_first=False):
        if only is not None and e.path not in only:
            continue
        if e.op not in ("create", "update"):
            # A repair that read the page and rescheduled it makes the recompile a seen write.
            if e.op in ("delete", "move") or (
                e.op == "repair" and e.detail.startswith(RESCHEDULED)
            ):
                pending.pop(e.path, None)
            continue
        machine = e.detail.startswith("bulk:")
        if not machine:
            pending[e.path] = (e.actor, e.new_version)
            continue
        if not e.detail.startswith("bulk:compile"):
            continue  # quality writes keep the text: the hand edit is still there
        hand = pending.pop(e.path, None)
        if hand is not None and "merge" not in e.detail:
            out.append(
                Finding(
                    UNSEEN,
                    e.path,
                    f"hand edit v{hand[1]} by {hand[0]} overwritten by {e.detail[5:]} "
                    f"(v{e.new_version})",
                )
            )
    return out


Validator = Callable[[View, set[str] | None], list[Finding]]


def validate(
    kb: KnowledgeBase,
    paths: Iterable[str] | None = None,
    types: Iterable[str] = ALL_TYPES,
    view: View | None = None,
) -> tuple[View, list[Finding]]:
    """Run the validators of ``types`` over the wiki (or only ``paths``). Cross-page checks
    still read every page; with ``paths`` they report only findings that involve one."""
    wanted = set(types)
    only = None if paths is None else set(paths)
    if view is None:
        view = View(kb)
    out: list[Finding] = []
    page_types = wanted & PAGE_TYPES
    if page_types:
        for p in sorted(view.pages if only is None else only & set(view.pages)):
            out += [
                f
                for f in check_page(view, p, view.pages[p], view.parsed[p])
                if f.type in page_types
            ]
    if wanted & CLAIM_TYPES:
        out += [f for f in contradictions(view, only) if f.type in wanted]
    if INDEX in wanted:
        dirs = None if only is None else only | {parent(p) for p in only if p != "/"}
        out += index_inconsistency(view, dirs)
    if UNSEEN in wanted:
        out += unseen_overwrites(kb, only)
    return view, out


def by_type(findings: Iterable[Finding]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for f in findings:
        counts[f.type] += 1
    return {t: counts.get(t, 0) for t in ALL_TYPES}
