"""The quality gate's whole-wiki passes in bounded chunks of pages.

:func:`wikikv.quality.validators.validate` loads every page of the wiki, parsed, and every
article the pages cite, and holds them all until it returns: at 4 copies of the 2Wiki 6k corpus
that pass added ~900 MB to a build, and it grows with the wiki. :func:`validate_chunked` gives
the same findings, in the same order, holding one chunk of pages and the articles that chunk
cites at a time. The per-page checks need nothing else; the contradiction checks need every
page's names (the claims' subjects) before any claim is read, so the chunks keep only what the
claims are made of — each page's facts that may state one, its own names, and the titles of the
articles those facts cite — and the claims are read at the end.

The other validators (directory listings against the index, the audit trail) read what they
need themselves; they run as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from wikikv.quality import claims as cl
from wikikv.quality import validators as v
from wikikv.quality.page import article_of, parse
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import is_under
from wikikv.store.records import FileRecord

CHUNK_PAGES = 500  # pages held at once (and the size of one multi-get)
# Cited articles kept from one chunk to the next, in characters of text: the pages of a chunk
# cite articles the next chunks cite again (a whole pass read each ~3 times at one copy of
# 2Wiki 6k); the oldest go first past this.
ARTICLE_CACHE_CHARS = 16 << 20


class _ChunkView(v.View):
    """A :class:`~wikikv.quality.validators.View` of one chunk of pages (and the articles they
    cite): existence still answers for the whole wiki."""

    def __init__(
        self,
        kb: KnowledgeBase,
        all_paths: set[str],
        pages: dict[str, FileRecord],
        links: bool = True,
        articles: dict[str, FileRecord | None] | None = None,
    ):
        self.kb = kb
        self.all_paths = all_paths
        self.pages = pages
        self.dirs = {}
        self.parsed = {p: parse(r.text, links) for p, r in pages.items()}
        self._articles = {} if articles is None else articles
        self._exists = {}
        # the articles the chunk cites, in one multi-get per 500 (not one read per page)
        cited = {n.path for page in self.parsed.values() for n in page.notes.values()}
        cited.update(s for r in pages.values() for s in r.meta.sources)
        self.articles(a for a in cited if article_of(a))


def validate_chunked(
    kb: KnowledgeBase, types: Iterable[str], chunk: int = CHUNK_PAGES
) -> list[v.Finding]:
    """What ``validate(kb, types=types)`` finds, page and claim checks in chunks of ``chunk``
    pages."""
    wanted = set(types)
    page_types = wanted & v.PAGE_TYPES
    all_paths = set(kb.prefix("/"))
    # the pages only: reading the articles and digests here only to drop them cost a decode
    # of every source text per pass
    order = sorted(p for p in all_paths if not is_under(p, "/sources"))
    out: list[v.Finding] = []
    names = cl.NameIndex()
    # Per page with claim-like facts: (path, (footnote, quote, cited article's title), own names)
    claimed: list[tuple[str, list[tuple[str, str, str]], set[str]]] = []
    titles: dict[str, str] = {"": ""}
    articles: dict[str, FileRecord | None] = {}  # shared by the chunks' views, bounded
    for i in range(0, len(order), chunk):
        part = order[i : i + chunk]
        pages = {
            p: rec
            for p, rec in zip(part, kb.get_many(part), strict=True)
            if isinstance(rec, FileRecord)
            and rec.meta.kind in v.PAGE_KINDS
            and not is_under(p, "/sources")
        }
        # only a dangling-link check reads the links (the content pass after a build has none)
        view = _ChunkView(kb, all_paths, pages, v.DANGLING in page_types, articles)
        if page_types:
            for p, rec in pages.items():
                found = v.check_page(view, p, rec, view.parsed[p], page_types)
                out += [f for f in found if f.type in page_types]
        if wanted & v.CLAIM_TYPES:
            for p, rec in pages.items():
                if rec.meta.kind == "entity":
                    names.add(p, [rec.meta.title, *rec.meta.aliases])
                rows = v.claim_rows(view.parsed[p])
                if not rows:
                    continue
                arts = [art for _, _, art in rows if art not in titles]
                view.articles(arts)
                for art in arts:
                    a = view.article(art)
                    titles[art] = a.meta.title if a is not None else ""
                triples = [(n, quote, titles[art]) for n, quote, art in rows]
                claimed.append((p, triples, v.own_names(rec)))
        _trim(articles, ARTICLE_CACHE_CHARS)
    if wanted & v.CLAIM_TYPES:
        found_claims: list[cl.Claim] = []
        for p, triples, own in claimed:
            found_claims += cl.claims_of(p, triples, names, own)
        out += [f for f in v.claim_findings(found_claims, names) if f.type in wanted]
    rest = wanted - v.PAGE_TYPES - v.CLAIM_TYPES
    if rest:
        out += v.validate(kb, types=rest)[1]
    return out


def _trim(articles: dict[str, FileRecord | None], limit: int) -> None:
    """Drop the oldest articles until the text of those left is within ``limit``."""
    sizes = [len(r.text) if r is not None else 0 for r in articles.values()]
    excess = sum(sizes) - limit
    for path, size in zip(list(articles), sizes, strict=True):
        if excess <= 0:
            break
        del articles[path]
        excess -= size


def repair_view(kb: KnowledgeBase, found: Iterable[v.Finding]) -> v.View:
    """The view a :class:`~wikikv.quality.repair.Repairer` needs for ``found``: the pages the
    findings are about (both pages of a contradiction), not the whole wiki."""
    scope: set[str] = set()
    for f in found:
        scope.add(f.path)
        if f.type == v.CONTRADICTION and f.target:
            scope.add(f.target)
    return v.View(kb, scope)
