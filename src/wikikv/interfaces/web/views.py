"""What each browser page shows, computed from a kb view (the caller's ACL applied) — plain data
for the templates, no HTTP here, so the bench times exactly this work.

Backlinks: the store keeps no reverse-link index, so the candidates are the pages this one links
to (a compiled wiki links both ways) and the pages a search for its title finds; a candidate is a
backlink when its ``links`` or its text names this page's path.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from wikikv.interfaces.web.markdown import Citation, Links, render
from wikikv.search import search
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT, basename, join, parent, unescape_segment
from wikikv.store.records import DirRecord, FileRecord, NodeRecord, RedirectRecord
from wikikv.vault.items import split_front_matter

BACKLINK_CANDIDATES = 20
ARTICLES = "/sources/articles/"


_URL_SAFE = re.compile(r"[A-Za-z0-9/_.~ -]*")


def quote_path(path: str) -> str:
    """``quote(path, safe="/")``, with a fast path for the plain ASCII names most paths have
    (a 1,000-entry directory page quotes two thousand of them)."""
    if _URL_SAFE.fullmatch(path):
        return path.replace(" ", "%20")
    return quote(path, safe="/")


@dataclass
class Urls:
    """The browser's URLs for one kb (``prefix`` is ``/wiki/<kb>``)."""

    prefix: str

    def page(self, path: str) -> str:
        return f"{self.prefix}/page?path={quote_path(path)}"

    def source(self, cite: Citation) -> str:
        query = urlencode({"path": cite.path, "s": cite.start, "e": cite.end})
        return f"{self.prefix}/page?{query}#cite"

    def links(self) -> Links:
        return Links(page_url=self.page, source_url=self.source)


@dataclass
class Crumb:
    name: str
    url: str


@dataclass
class Child:
    name: str
    url: str
    is_dir: bool
    count: int | None = None  # entries of a sub-directory


@dataclass
class PageLink:
    title: str
    url: str
    path: str


@dataclass
class View:
    """One rendered page, directory or source document."""

    kind: str  # "dir" | "page" | "source"
    path: str
    title: str
    crumbs: list[Crumb]
    html: str = ""  # sanitized HTML (Markdown pages and directory texts)
    source_before: str = ""  # source documents: raw text around the cited quote
    source_quote: str = ""
    source_after: str = ""
    cited: tuple[int, int] | None = None
    dirs: list[Child] = field(default_factory=list)
    files: list[Child] = field(default_factory=list)
    meta: list[tuple[str, str]] = field(default_factory=list)
    source_links: list[PageLink] = field(default_factory=list)
    backlinks: list[PageLink] = field(default_factory=list)
    redirected_from: str = ""


def display_name(path: str) -> str:
    return "/" if path == ROOT else unescape_segment(basename(path))


def crumbs(path: str, urls: Urls) -> list[Crumb]:
    out = [Crumb("/", urls.page(ROOT))]
    if path == ROOT:
        return out
    walked = ROOT
    for seg in path[1:].split("/"):
        walked = join(walked, seg)
        out.append(Crumb(unescape_segment(seg), urls.page(walked)))
    return out


def tree(kb: KnowledgeBase, urls: Urls) -> list[Child]:
    """The root's directories with their entry counts (the sidebar)."""
    root = kb.get(ROOT)
    if not isinstance(root, DirRecord):
        return []
    full = kb.ls_all(ROOT) if root.meta.pages else None
    names = full.sub_dirs if full is not None else root.sub_dirs
    return _dir_children(kb, ROOT, names, urls)


def _dir_children(kb: KnowledgeBase, path: str, names: list[str], urls: Urls) -> list[Child]:
    paths = [join(path, n) for n in names]
    out: list[Child] = []
    for name, p, rec in zip(names, paths, kb.get_many(paths), strict=True):
        if isinstance(rec, DirRecord):
            out.append(Child(unescape_segment(name), urls.page(p), True, rec.meta.entry_count))
    return out


def directory(kb: KnowledgeBase, rec: DirRecord, urls: Urls) -> View:
    listing = kb.ls_all(rec.path) if rec.meta.pages else None
    sub_dirs = listing.sub_dirs if listing is not None else rec.sub_dirs
    files = listing.files if listing is not None else rec.files
    view = View("dir", rec.path, display_name(rec.path), crumbs(rec.path, urls))
    text = without_title_heading(rec.text, view.title) if rec.text else ""
    view.html = render(text, urls.links(), urls.prefix) if text else ""
    view.dirs = _dir_children(kb, rec.path, sub_dirs, urls)
    view.files = [Child(unescape_segment(n), urls.page(join(rec.path, n)), False) for n in files]
    return view


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M UTC") if ts else ""


def _meta_rows(rec: FileRecord, words: dict[str, str]) -> list[tuple[str, str]]:
    m = rec.meta
    rows = [(words["kind"], m.kind)]
    if m.aliases:
        rows.append((words["aliases"], ", ".join(m.aliases)))
    if m.tags:
        rows.append((words["tags"], ", ".join(m.tags)))
    rows.append((words["confidence"], f"{m.confidence:.2f}"))
    rows.append((words["updated"], _when(m.updated_at)))
    rows.append((words["version"], str(m.version)))
    return rows


def backlinks(kb: KnowledgeBase, rec: FileRecord, urls: Urls) -> list[PageLink]:
    candidates = dict.fromkeys(p for p in rec.meta.links if p != rec.path)
    title = rec.meta.title or display_name(rec.path)
    for hit in search(kb, title, limit=BACKLINK_CANDIDATES):
        if hit.path != rec.path:
            candidates.setdefault(hit.path)
    marker = "[[" + rec.path
    out: list[PageLink] = []
    for p, other in zip(candidates, kb.get_many(list(candidates)), strict=True):
        if isinstance(other, FileRecord) and (rec.path in other.meta.links or marker in other.text):
            out.append(PageLink(other.meta.title or display_name(p), urls.page(p), p))
    out.sort(key=lambda link: link.title.casefold())
    return out


def page(
    kb: KnowledgeBase,
    rec: FileRecord,
    urls: Urls,
    words: dict[str, str],
    cited: tuple[int, int] | None,
) -> View:
    view = View("page", rec.path, rec.meta.title or display_name(rec.path), crumbs(rec.path, urls))
    view.meta = _meta_rows(rec, words)
    view.source_links = [PageLink(display_name(s), urls.page(s), s) for s in rec.meta.sources]
    view.backlinks = backlinks(kb, rec, urls)
    if rec.path.startswith(ARTICLES):
        # A source document is raw text: shown as written, so citation offsets land exactly.
        view.kind = "source"
        text = rec.text
        if cited is not None and 0 <= cited[0] <= cited[1] <= len(text):
            view.cited = cited
            view.source_before = text[: cited[0]]
            view.source_quote = text[cited[0] : cited[1]]
            view.source_after = text[cited[1] :]
        else:
            view.source_before = text
        return view
    view.html = render(
        without_title_heading(body_of(rec.text), view.title), urls.links(), urls.prefix
    )
    return view


def without_title_heading(text: str, title: str) -> str:
    """``text`` without a first heading that repeats the title the page already shows above
    it (compiled pages and directories open with "# <name>")."""
    head, sep, rest = text.lstrip("\n").partition("\n")
    if head.strip() == f"# {title}":
        return rest if sep else ""
    return text


def body_of(text: str) -> str:
    """The text to render: a leading YAML front-matter block (compiled pages carry LLM-Wiki's)
    repeats the metadata table, so it is dropped; an unparsable one is shown as written."""
    try:
        fields, body = split_front_matter(text)
    except ValueError:
        return text
    return body if fields else text


def node_view(
    kb: KnowledgeBase,
    rec: NodeRecord,
    urls: Urls,
    words: dict[str, str],
    cited: tuple[int, int] | None = None,
) -> View:
    if isinstance(rec, DirRecord):
        return directory(kb, rec, urls)
    if isinstance(rec, FileRecord):
        return page(kb, rec, urls, words, cited)
    raise TypeError(f"cannot show a {type(rec).__name__}")  # redirects are followed before


def follow(kb: KnowledgeBase, path: str) -> tuple[NodeRecord | None, str]:
    """The record at ``path`` and, when a redirect led there, the path it was asked as."""
    raw = kb.get(path, follow_redirects=False)
    if isinstance(raw, RedirectRecord):
        return kb.get(path), path
    return raw, ""


def parent_of(path: str) -> str:
    return parent(path) if path != ROOT else ROOT
