"""Page text → safe HTML: Markdown (markdown-it-py, raw HTML off) with wikilinks and citation
markers turned into links, then sanitized (nh3, an allow-list of tags, attributes and URL schemes).

Document text is data, never markup: with ``html`` off every ``<tag>`` in a page is shown as text;
markdown-it refuses ``javascript:``/``vbscript:``/``data:`` link targets; and nh3 runs last as a
second, independent wall (the page is also served under a Content-Security-Policy that allows no
inline script). ``[[target|label]]`` and ``[^n]`` are parsed by our own inline rules, so their text
goes through the renderer's escaping like any other text.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from urllib.parse import quote

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from wikikv.compile.pages import NOTE_LINE
from wikikv.store.paths import ROOT, basename, unescape_segment

_TAGS = {
    "a", "p", "br", "hr", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "img",
    "del", "sup", "span",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title", "class"},
    "img": {"src", "alt", "title"},
    "sup": {"class", "id"},
    "span": {"class"},
    "th": {"style"},
    "td": {"style"},
}
_SCHEMES = {"http", "https", "mailto"}
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")
_CITE = re.compile(r"\[\^(\d{1,4})\]")


@dataclass
class Citation:
    """``[^n]: [[path]] chars s-e`` — where a fact's quote sits in its source article."""

    n: str
    path: str
    start: int
    end: int


@dataclass
class Links:
    """How the renderer turns targets into URLs, and what it saw on the way."""

    page_url: Callable[[str], str]
    source_url: Callable[[Citation], str]
    citations: dict[str, Citation] = field(default_factory=dict)
    targets: list[str] = field(default_factory=list)


def citations_of(text: str) -> dict[str, Citation]:
    out: dict[str, Citation] = {}
    for line in text.split("\n"):
        m = NOTE_LINE.match(line)
        if m:
            out[m.group("n")] = Citation(
                m.group("n"), m.group("path"), int(m.group("s")), int(m.group("e"))
            )
    return out


def link_label(target: str) -> str:
    """What a wikilink without a label shows: the page's own name, unescaped ("彷徨/祝福" for
    [[/sources/articles/彷徨%2F祝福]], a citation's source), not its escaped path."""
    if not target.startswith("/") or target == ROOT:
        return target
    return unescape_segment(basename(target)) or target


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    m = _WIKILINK.match(src, pos)
    if m is None:
        return False
    if not silent:
        links: Links = state.env["links"]
        target = m.group(1).strip()
        label = (m.group(2) or "").strip() or link_label(target)
        links.targets.append(target)
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": links.page_url(target), "class": "wikilink"}
        text = state.push("text", "", 0)
        text.content = label
        state.push("link_close", "a", -1)
    state.pos = m.end()
    return True


def _cite_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("[^", pos):
        return False
    m = _CITE.match(src, pos)
    if m is None:
        return False
    links: Links = state.env["links"]
    cite = links.citations.get(m.group(1))
    if cite is None:
        return False
    if not silent:
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": links.source_url(cite), "class": "cite"}
        text = state.push("text", "", 0)
        text.content = f"[{cite.n}]"
        state.push("link_close", "a", -1)
    state.pos = m.end()
    return True


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False})
    md.enable("table").enable("strikethrough")
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.before("link", "cite", _cite_rule)
    return md


_MD = _parser()

# A compiled directory index is mostly lines like "- [[/people/X|X]] — one-line summary". A run of
# such lines with nothing Markdown could read in the summary is rendered here, straight to the
# list markdown-it would produce (every piece escaped): about ten times faster, which is what
# keeps a 1,000-entry directory page fast. Anything else goes through markdown-it.
_LIST_LINE = re.compile(r"- \[\[([^\[\]|#\n]+)(?:\|([^\[\]\n]*))?\]\]((?: [—-] [^\n]*)?)")
# No Markdown punctuation, no control characters or tabs (markdown-it rewrites NUL, expands
# tabs), and no trailing whitespace (markdown-it trims it).
_PLAIN = re.compile(r"(?:[^*_`\[\]<>!\\&~|#:\x00-\x1f\x7f-\x9f]*[^*_`\[\]<>!\\&~|#:\s])?")
_RUN_MIN = 8


def _fast_item(line: str, links: Links) -> str | None:
    m = _LIST_LINE.fullmatch(line)
    if (
        m is None
        or _PLAIN.fullmatch(m.group(3)) is None
        or _PLAIN.fullmatch(m.group(2) or "") is None
    ):
        return None
    target = m.group(1).strip()
    label = (m.group(2) or "").strip() or target
    if not target or label != (m.group(2) or target):
        return None  # padding markdown-it would trim differently: let it decide
    label = m.group(2) or link_label(target)
    links.targets.append(target)
    href = escape(links.page_url(target), quote=True)
    return f'<li><a href="{href}" class="wikilink">{escape(label, quote=False)}</a>' + (
        escape(m.group(3), quote=False) + "</li>"
    )


def _blocks(text: str, links: Links) -> list[str]:
    """Markdown source and pre-rendered HTML, in order: runs of plain wikilink list lines
    between blank lines (or the text's ends) become HTML, the rest stays Markdown."""
    out: list[str] = []
    pending: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        at_block_start = i == 0 or not lines[i - 1].strip()
        j = i
        items: list[str] = []
        while at_block_start and j < len(lines) and (item := _fast_item(lines[j], links)):
            items.append(item)
            j += 1
        if len(items) >= _RUN_MIN and (j == len(lines) or not lines[j].strip()):
            out.append("\n".join(pending))
            pending = []
            out.append("<ul>\n" + "\n".join(items) + "\n</ul>\n")
            i = j
            continue
        if items:  # not a whole block: forget what was recorded for it
            del links.targets[len(links.targets) - len(items) :]
        pending.append(lines[i])
        i += 1
    out.append("\n".join(pending))
    return out


def sanitize(html: str) -> str:
    """The allow-list pass: only known tags, attributes and URL schemes survive."""
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes=_SCHEMES,
        clean_content_tags={"script", "style"},
        link_rel="noopener noreferrer nofollow",
        filter_style_properties={"text-align"},
    )


_CACHE: OrderedDict[tuple[str, str], str] = OrderedDict()
CACHE_ENTRIES = 256
CACHE_MIN_CHARS = 4096  # short texts render in well under a millisecond: not worth keeping


def render(text: str, links: Links, cache_key: str = "") -> str:
    """Safe HTML of a page body. With ``cache_key`` (what the URLs depend on, e.g. the kb's URL
    prefix), long texts are kept by their exact content, so an edit — or a view whose text
    differs — never gets another's HTML; a large directory index then renders once per change."""
    key = (cache_key, text)
    if cache_key and len(text) >= CACHE_MIN_CHARS:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    if not links.citations:
        links.citations = citations_of(text)
    env = {"links": links}
    parts = _blocks(text, links)
    html = "".join(
        part if k % 2 else (_MD.render(part, env) if part.strip() else "")
        for k, part in enumerate(parts)
    )
    out = sanitize(html)
    if cache_key and len(text) >= CACHE_MIN_CHARS:
        _CACHE[key] = out
        if len(_CACHE) > CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return out


def clear_cache() -> None:
    _CACHE.clear()


def page_href(prefix: str, path: str) -> str:
    return f"{prefix}/page?path={quote(path, safe='/')}"
