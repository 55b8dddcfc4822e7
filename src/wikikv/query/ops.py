"""Read operators of the query layer, as JSON-ready values: wiki_search, wiki_read (pages and
directory indices with the links on them), drill_down (the nodes under a node, down to a level)
and roll_up (a node's ancestors).

Links of a page are its wikilinks — ``[[Target]]``, ``[[Target|label]]``, ``[[Target#section]]``
in the text — and the entries of ``meta.links``; each is resolved to a path: a target that starts
with ``/`` is a path already, anything else is looked up in the kb's name index (exact, folded
match on names, titles and aliases). A link that resolves nowhere keeps ``path: None``, so a
reader can tell a dangling link from a missing one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

from wikikv.errors import InvalidPath, NotFound
from wikikv.search.ranking import search
from wikikv.store.access_stats import record_hits
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT, ancestors, basename, depth, join, unescape_segment
from wikikv.store.records import DirRecord, FileRecord, NodeRecord

WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]+))?\]\]")
MAX_READ_PATHS = 100
MAX_DRILL_NODES = 5000
ARTICLES_DIR = "/sources/articles/"
DIGESTS_DIR = "/sources/digests/"
MAX_DRILL_LEVELS = 8
OVERVIEW_CHARS = 280

JSON = dict[str, Any]


def wiki_search(
    kb: KnowledgeBase, query: str, limit: int = 10, kinds: Collection[str] | None = None
) -> list[JSON]:
    """Ranked pages for ``query``: path, title, summary, score, kind and why they matched."""
    hits = search(kb, query, limit=limit, kinds=kinds)
    record_hits(kb, [hit.path for hit in hits])  # access statistics (in memory)
    return [hit.to_dict() for hit in hits]


def parse_wikilinks(text: str) -> list[tuple[str, str]]:
    """``(target, label)`` of every wikilink in ``text``, in order, repeats dropped."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for m in WIKILINK.finditer(text):
        target = m.group(1).strip()
        label = (m.group(2) or target).strip()
        if target and target not in seen:
            seen.add(target)
            out.append((target, label))
    return out


class LinkResolver:
    """Resolves link targets to paths, remembering answers for the length of one call."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self._memo: dict[str, str | None] = {}

    def resolve(self, target: str) -> str | None:
        if target in self._memo:
            return self._memo[target]
        path: str | None = None
        if target.startswith("/"):
            try:
                path = self.kb.norm(target) if self.kb.exists(target) else None
            except InvalidPath:
                path = None
        else:
            hits = [h.path for h in self.kb.find_names(target, limit=8, exact=True)]
            if hits:
                # Prefer a page over a directory of the same name, then the shortest path.
                recs = self.kb.get_many(hits)
                pages = [h for h, r in zip(hits, recs, strict=True) if isinstance(r, FileRecord)]
                path = min(pages or hits, key=lambda h: (len(h), h))
        self._memo[target] = path
        return path

    def links(self, text: str, meta_links: Sequence[str] = ()) -> list[JSON]:
        out: list[JSON] = []
        seen: set[str] = set()
        pairs = [(t, lb, "wikilink") for t, lb in parse_wikilinks(text)]
        pairs += [(t, t, "meta") for t in meta_links if t]
        for target, label, via in pairs:
            path = self.resolve(target)
            key = path or f"?{target}"
            if key in seen:
                continue
            seen.add(key)
            out.append({"target": target, "label": label, "path": path, "via": via})
        return out


def _page(rec: FileRecord, resolver: LinkResolver) -> JSON:
    m = rec.meta
    return {
        "path": rec.path,
        "type": "file",
        "kind": m.kind,
        "title": m.title or unescape_segment(rec.name),
        "summary": m.summary,
        "aliases": list(m.aliases),
        "tags": list(m.tags),
        "sources": list(m.sources),
        "lint_status": m.lint_status,
        "version": m.version,
        "updated_at": m.updated_at,
        "text": rec.text,
        "links": resolver.links(rec.text, m.links),
    }


def _directory(kb: KnowledgeBase, rec: DirRecord, resolver: LinkResolver) -> JSON:
    sub_dirs, files = rec.sub_dirs, rec.files
    if rec.meta.pages:
        full = kb.ls_all(rec.path)
        sub_dirs, files = full.sub_dirs, full.files
    return {
        "path": rec.path,
        "type": "dir",
        "kind": "dir",
        "title": unescape_segment(rec.name) if rec.name else ROOT,
        "version": rec.meta.version,
        "updated_at": rec.meta.updated_at,
        "text": rec.text,
        "sub_dirs": [join(rec.path, n) for n in sub_dirs],
        "files": [join(rec.path, n) for n in files],
        "links": resolver.links(rec.text),
    }


def wiki_read(kb: KnowledgeBase, paths: Sequence[str]) -> list[JSON]:
    """Pages and directory indices at ``paths`` (one batch read), each with its resolved links.
    A path with no record gives ``{"path": p, "error": "not found"}``; a redirect is followed and
    reported with ``requested``."""
    if len(paths) > MAX_READ_PATHS:
        raise InvalidPath(
            paths[MAX_READ_PATHS], "too-many-paths", f"read at most {MAX_READ_PATHS} paths"
        )
    norm = [kb.norm(p) for p in paths]
    resolver = LinkResolver(kb)
    out: list[JSON] = []
    for path, rec in zip(norm, kb.get_many(norm), strict=True):
        if rec is None:
            out.append({"path": path, "error": "not found"})
            continue
        item = _render(kb, rec, resolver)
        if item is None:
            out.append({"path": path, "error": "not found"})
            continue
        if item["path"] != path:
            item["requested"] = path
        out.append(item)
    return out


def _render(kb: KnowledgeBase, rec: NodeRecord, resolver: LinkResolver) -> JSON | None:
    if isinstance(rec, FileRecord):
        return _page(rec, resolver)
    if isinstance(rec, DirRecord):
        return _directory(kb, rec, resolver)
    return None


def _overview(text: str) -> str:
    """The first paragraph of a directory's text, cut to a readable length."""
    para = text.strip().split("\n\n", 1)[0].strip()
    return para if len(para) <= OVERVIEW_CHARS else para[: OVERVIEW_CHARS - 1] + "…"


def drill_down(kb: KnowledgeBase, path: str = ROOT, levels: int = 1) -> JSON:
    """The nodes under ``path`` down to ``levels`` below it (parents before children), each with
    its relative level and type. Stops at ``MAX_DRILL_NODES`` and says so (``truncated``)."""
    levels = max(0, min(levels, MAX_DRILL_LEVELS))
    root = kb.get(path)
    if root is None:
        raise NotFound(f"no page or directory at {kb.norm(path)!r} in kb {kb.name!r}")
    nodes: list[JSON] = [_node(root.path, 0, root)]
    truncated = False
    frontier = [root] if isinstance(root, DirRecord) else []
    for level in range(1, levels + 1):
        nxt: list[DirRecord] = []
        for d in frontier:
            full = kb.ls_all(d.path)
            child_dirs = [join(d.path, n) for n in full.sub_dirs]
            for rec in kb.get_many(child_dirs) if level < levels else []:
                if isinstance(rec, DirRecord):
                    nxt.append(rec)
            for p in child_dirs:
                nodes.append({"path": p, "level": level, "type": "dir", "name": _name(p)})
            for n in full.files:
                p = join(d.path, n)
                nodes.append({"path": p, "level": level, "type": "file", "name": _name(p)})
            if len(nodes) >= MAX_DRILL_NODES:
                truncated = True
                break
        if truncated:
            break
        frontier = nxt
    if isinstance(root, FileRecord):  # a page drills down to its digests, then its articles
        nodes += _drill_sources(kb, root, levels)
        truncated = len(nodes) > MAX_DRILL_NODES
    else:
        nodes.sort(key=lambda n: (n["path"].split("/"), n["level"]))
    return {
        "path": root.path,
        "levels": levels,
        "nodes": nodes[:MAX_DRILL_NODES],
        "truncated": truncated,
    }


def _drill_sources(kb: KnowledgeBase, page: FileRecord, levels: int) -> list[JSON]:
    """Below a page (ADR-029 tiers): the digests of the articles it cites, then the articles.
    A digest's own sources are its article; an article has nothing below it."""
    out: list[JSON] = []
    seen = {page.path}
    frontier = [page]
    for level in range(1, levels + 1):
        below: list[str] = []
        for rec in frontier:
            for src in rec.meta.sources:
                step = src
                if rec.meta.kind != "digest" and src.startswith(ARTICLES_DIR):
                    step = DIGESTS_DIR + src[len(ARTICLES_DIR) :]
                if step not in seen:
                    seen.add(step)
                    below.append(step)
        got = dict(zip(below, kb.get_many(below), strict=True))
        records: list[FileRecord] = []
        for path in below:
            found = got[path]
            if found is None and path.startswith(DIGESTS_DIR):  # no digest tier: the article
                found = kb.get(ARTICLES_DIR + path[len(DIGESTS_DIR) :])
            if isinstance(found, FileRecord):
                records.append(found)
        for rec in records:
            out.append(_node(rec.path, level, rec))
        frontier = records
        if not frontier or len(out) >= MAX_DRILL_NODES:
            break
    return out


def _name(path: str) -> str:
    return unescape_segment(basename(path)) if path != ROOT else ROOT


def _node(path: str, level: int, rec: NodeRecord) -> JSON:
    kind = "dir" if isinstance(rec, DirRecord) else "file"
    node: JSON = {"path": path, "level": level, "type": kind, "name": _name(path)}
    if isinstance(rec, DirRecord):
        node["overview"] = _overview(rec.text)
    elif isinstance(rec, FileRecord):
        node["title"] = rec.meta.title or _name(path)
    return node


def roll_up(kb: KnowledgeBase, path: str) -> list[JSON]:
    """The ancestors of ``path`` from the root down to its parent, each with its overview."""
    p = kb.norm(path)
    if not kb.exists(p):
        raise NotFound(f"no page or directory at {p!r} in kb {kb.name!r}")
    chain = ancestors(p)
    out: list[JSON] = []
    for a, rec in zip(chain, kb.get_many(chain), strict=True):
        node: JSON = {"path": a, "level": depth(a), "name": _name(a)}
        node["overview"] = _overview(rec.text) if isinstance(rec, DirRecord) else ""
        out.append(node)
    return out


__all__ = ["drill_down", "parse_wikilinks", "roll_up", "wiki_read", "wiki_search"]
