"""What the wiki should hold: every node path with the signature of what it is rendered from,
and how to render it. The pipeline writes the nodes whose signature changed."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TypeVar

from wikikv.compile import pages as pg
from wikikv.compile.model import DocAnalysis, Entity, Fact, Model, article_path, digest_path
from wikikv.compile.packed import PackedTexts
from wikikv.compile.parsed import ParsedPage
from wikikv.compile.schema import Schema
from wikikv.llm.base import Descriptor
from wikikv.store import order
from wikikv.store.paths import ROOT, basename, escape_segment, parent, unescape_segment
from wikikv.store.records import FileMeta

SOURCES = "/sources"
ARTICLES = "/sources/articles"
DIGESTS = "/sources/digests"


def _sig(prefix: str, *parts: object) -> str:
    # repr() of nested tuples, lists and strings is stable across processes (no hash seed).
    data = repr(parts).encode("utf-8", "surrogatepass")
    return prefix + hashlib.blake2b(data, digest_size=12).hexdigest()


@dataclass(frozen=True, slots=True)
class Listed:
    """A page as the section and corpus summaries rank it (one per page and section it is
    ranked in, held through a full render: no ``__dict__``)."""

    key: str
    path: str
    name: str
    about: bool  # some document is about it


_T = TypeVar("_T")


def in_listing_order(items: Iterable[_T], path_of: Callable[[_T], str], is_dir: bool) -> list[_T]:
    """``items`` (rows, members: children of one directory) in the order that directory lists
    their paths (:mod:`wikikv.store.order`): its rows read as ``ls`` shows its children."""
    named = [(basename(path_of(it)), it) for it in items]
    if not named:
        return []
    key = order.sort_key(parent(path_of(named[0][1])), [n for n, _ in named], is_dir)
    return [it for _, it in sorted(named, key=lambda ni: key(ni[0]))]


def _rank_key(e: Entity) -> tuple[int, str]:
    return (-(len(e.about) + len(e.mentioned_in)), e.key)


@dataclass
class Desired:
    docs: dict[str, DocAnalysis]
    model: Model
    lang: str
    compiled_by: str
    prompt_version: str
    sigs: dict[str, str] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    # compressed: the listings wait through the whole render (wikikv.compile.packed)
    dir_text: MutableMapping[str, str] = field(default_factory=PackedTexts)
    doc_of: dict[str, str] = field(default_factory=dict)
    entity_at: dict[str, Entity] = field(default_factory=dict)
    # the documents' texts, for the summaries of pages with no document of their own (the
    # sentence that says what the entity is); loaded on demand in an incremental build
    texts: Mapping[str, str] = field(default_factory=dict)
    # An add's local render (wikikv.compile.local_render) holds only the nodes it may change:
    # ``stale`` then lists the pages and directories that go, ``ranked_at`` the best members of
    # each section it renders, and ``stored_summary`` the summary of a page it does not render.
    partial: bool = False
    stale: list[str] = field(default_factory=list)
    ranked_at: dict[str, list[Listed]] | None = None
    stored_summary: Callable[[Listed], str] | None = None

    def ranked(self, d: str) -> list[Listed]:
        """The pages of section ``d`` (a directory, or a dimension and its sub-directories),
        most documents first (then by key)."""
        if self.ranked_at is None:
            under: dict[str, list[Entity]] = {}
            for path, ent in self.entity_at.items():
                where = parent(path)
                under.setdefault(where, []).append(ent)
                if parent(where) != ROOT:  # a routing sub-dimension belongs to its dimension
                    under.setdefault(parent(where), []).append(ent)
            self.ranked_at = {
                w: [Listed(e.key, e.path, e.name, bool(e.about)) for e in sorted(m, key=_rank_key)]
                for w, m in under.items()
            }
        return self.ranked_at.get(d, [])

    def summary(self, m: Listed) -> str:
        """A ranked page's one-line summary (:func:`wikikv.compile.pages.entity_summary`)."""
        ent = self.entity_at.get(m.path)
        if ent is None and self.stored_summary is not None:
            return self.stored_summary(m)
        assert ent is not None, m.path
        return pg.entity_summary(ent, self.docs, self.lang, self.texts)

    def facts_of(self, path: str) -> list[Fact]:
        ent = self.entity_at.get(path)
        return ent.facts + ent.mentions if ent is not None else []

    def render(self, path: str, texts: dict[str, str]) -> tuple[str, FileMeta]:
        text, meta, _ = self.render_parts(path, texts)
        return text, meta

    def render_parts(
        self, path: str, texts: dict[str, str]
    ) -> tuple[str, FileMeta, ParsedPage | None]:
        """The node's text and meta, and for an entity page the page taken apart (see
        :func:`wikikv.compile.pages.render_entity_parts`; None for the other nodes)."""
        ent = self.entity_at.get(path)
        if ent is not None:
            return pg.render_entity_parts(
                ent,
                self.model.entities,
                self.docs,
                texts,
                self.lang,
                self.compiled_by,
                self.prompt_version,
            )
        text, meta = self._render_source(path, texts)
        return text, meta, None

    def _render_source(self, path: str, texts: dict[str, str]) -> tuple[str, FileMeta]:
        doc_id = self.doc_of[path]
        d = self.docs[doc_id]
        if path.startswith(ARTICLES + "/"):
            return texts[doc_id], pg.article_meta(d, texts[doc_id])
        about = self.model.entities[self.model.about[doc_id]].path
        return pg.render_digest(d, texts[doc_id], about, self.compiled_by, self.prompt_version)


class LazyTexts(Mapping[str, str]):
    """Document texts: the ones given, and any other read once through ``load`` when first
    asked for (an incremental build holds only the changed documents' texts)."""

    def __init__(self, given: dict[str, str], load: Callable[[str], str | None]) -> None:
        self._texts = dict(given)
        self._load = load

    def __getitem__(self, doc_id: str) -> str:
        text = self._texts.get(doc_id)
        if text is None:
            text = self._load(doc_id)
            if text is None:
                raise KeyError(doc_id)
            self._texts[doc_id] = text
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def entity_sig(ent: Entity, model: Model, docs: dict[str, DocAnalysis], extra: str) -> str:
    ents = model.entities
    links = [
        (ents[k].path, ents[k].name, ",".join(sorted(r))) for k, r in sorted(ent.links.items())
    ]
    facts = [(f.doc, f.start, f.end, docs[f.doc].fingerprint) for f in ent.facts]
    mentions = [(f.doc, f.start, f.end, docs[f.doc].fingerprint) for f in ent.mentions]
    about = [(a, docs[a].title, docs[a].summary) for a in ent.about]
    mentioned = sorted(ent.mentioned_in)
    return _sig(
        "e:",
        ent.path,
        ent.name,
        ent.kind,
        ent.dim,
        ent.qualifier,
        ent.group,
        ent.aliases,
        round(ent.confidence, 2),
        facts,
        mentions,
        links,
        ent.links_hidden,
        about,
        len(mentioned),
        [docs[m].title for m in mentioned[:3]],
        ent.summary,
        ent.tags,
        extra,
    )


def digest_sig(d: DocAnalysis, about: str, extra: str) -> str:
    """What a digest is rendered from (``about``: its subject's path)."""
    return _sig("g:", d.fingerprint, d.digest, about, d.title, d.group, extra)


def desired_nodes(
    kb_name: str,
    docs: dict[str, DocAnalysis],
    model: Model,
    schema: Schema,
    descriptor: Descriptor | None,
    compiled_by: str,
    prompt_version: str,
    only: set[str] | None = None,
    known: dict[str, str] | None = None,
    texts: Mapping[str, str] | None = None,
) -> Desired:
    """Every node the wiki should hold. With ``only`` (entity keys that may have changed) and
    ``known`` (the signatures recorded when pages were written), the signature of any other
    entity whose path is already known is taken as unchanged instead of recomputed — the
    incremental path; see :func:`wikikv.compile.pipeline.affected_keys` for why that is exact."""
    lang = schema.language
    # "is None", not "or": a LazyTexts holding no text yet is empty, hence falsy, yet loads
    want = Desired(
        docs, model, lang, compiled_by, prompt_version, texts={} if texts is None else texts
    )
    extra = f"{lang}|{compiled_by}|{prompt_version}"
    for doc_id, d in docs.items():
        a, g = article_path(doc_id), digest_path(doc_id)
        about = model.entities[model.about[doc_id]].path
        want.sigs[a] = "a:" + d.fingerprint
        want.sigs[g] = digest_sig(d, about, extra)
        want.doc_of[a] = doc_id
        want.doc_of[g] = doc_id
    by_dir: dict[str, list[Entity]] = defaultdict(list)
    for ent in model.entities.values():
        reuse = None
        if only is not None and known is not None and ent.key not in only:
            reuse = known.get(ent.path)
        want.sigs[ent.path] = reuse or entity_sig(ent, model, docs, extra)
        want.entity_at[ent.path] = ent
        by_dir[parent(ent.path)].append(ent)
    reuse_dirs: dict[str, str] = {}
    if only is not None and known is not None:
        reuse_dirs = _unchanged_dirs(want, by_dir, only, known)
    _dirs(want, kb_name, schema, descriptor, by_dir, len(docs), reuse_dirs)
    return want


def _unchanged_dirs(
    want: Desired, by_dir: dict[str, list[Entity]], only: set[str], known: dict[str, str]
) -> dict[str, str]:
    """Listing directories whose recorded signature still holds: a listing row is a function of
    what the member's signature covers (path, name, aliases, summary sources), so a directory
    none of whose members may have changed, and that lost no page (a recorded entity path no
    longer produced), lists the same rows."""
    lost = {parent(p) for p, sig in known.items() if sig.startswith("e:") and p not in want.sigs}
    out: dict[str, str] = {}
    for d, members in by_dir.items():
        sig = known.get(d)
        if sig is None or d in lost or any(e.key in only for e in members):
            continue
        out[d] = sig
    return out


def _dirs(
    want: Desired,
    kb_name: str,
    schema: Schema,
    descriptor: Descriptor | None,
    by_dir: dict[str, list[Entity]],
    n_docs: int,
    reuse: dict[str, str],
) -> None:
    """Directory texts and signatures; a directory in ``reuse`` keeps that signature and its
    text is not rendered (it is not written)."""
    zh = schema.language == "zh"
    counts: dict[str, int] = defaultdict(int)
    for d, members in by_dir.items():
        if d.count("/") == 2:  # a routing range
            counts[parent(d)] += len(members)
            if d in reuse:
                want.dirs.add(d)
                want.sigs[d] = reuse[d]
                continue
            _dir(want, d, range_text(schema, d, _member_rows(want, members)))
        else:
            counts[d] += len(members)
    for spec in schema.dimensions:
        d = "/" + escape_segment(spec.name)
        if d in reuse:
            want.dirs.add(d)
            want.sigs[d] = reuse[d]
            continue
        if d in by_dir:
            rows = _member_rows(want, by_dir[d])
        else:
            ranges = [r for r in by_dir if r.count("/") == 2 and parent(r) == d]
            if not ranges:
                continue  # a dimension nothing was filed under is not written (nor listed)
            rows = ranges_rows(
                [(r, len(by_dir[r])) for r in in_listing_order(ranges, str, True)], zh
            )
        _dir(want, d, pg.listing_text(spec.name, spec.description, rows, schema.language))
    top_dirs(want, kb_name, schema, descriptor, counts, n_docs)


def _member_rows(want: Desired, members: list[Entity]) -> list[tuple[str, str, str, str]]:
    """A directory's rows of pages, in listing order."""
    return [
        (e.path, e.name, ", ".join(e.aliases[:4]), _row_summary(want, e))
        for e in in_listing_order(members, lambda e: e.path, False)
    ]


def range_text(schema: Schema, d: str, rows: list[tuple[str, str, str, str]]) -> str:
    """The listing of a routing sub-dimension ``d``."""
    return pg.listing_text(*range_heading(schema, d), rows, schema.language)


def range_heading(schema: Schema, d: str) -> tuple[str, str]:
    """The title and description of a routing sub-dimension ``d``'s listing."""
    dim = unescape_segment(parent(d)[1:])
    label = unescape_segment(d.rsplit("/", 1)[1])
    return f"{dim} / {label}", schema.describe_route(dim, label)


def ranges_rows(ranges: list[tuple[str, int]], zh: bool) -> list[tuple[str, str, str, str]]:
    """A routed dimension's rows: its sub-directories and their page counts (``ranges`` in
    listing order)."""
    return [(r, unescape_segment(r.rsplit("/", 1)[1]), "", _pages(n, zh)) for r, n in ranges]


def _pages(n: int, zh: bool) -> str:
    return f"{n} 项" if zh else f"{n} page" if n == 1 else f"{n} pages"


def top_dirs(
    want: Desired,
    kb_name: str,
    schema: Schema,
    descriptor: Descriptor | None,
    counts: Mapping[str, int],
    n_docs: int,
) -> None:
    """The sources directories and the root (``counts``: pages per dimension directory)."""
    zh = schema.language == "zh"
    _dir(
        want,
        ARTICLES,
        ("# 原文\n> " if zh else "# Articles\n> ")
        + (
            f"{n_docs} 篇原文（入库时清理）"
            if zh
            else f"{n_docs} original articles, as stored (cleaned on ingest)"
        )
        + "\n",
    )
    _dir(
        want,
        DIGESTS,
        ("# 摘要\n> " if zh else "# Digests\n> ")
        + (
            f"{n_docs} 篇摘要：按重要性选出的原句，附字符位置"
            if zh
            else f"{n_docs} extractive digests: ranked sentences with their character offsets"
        )
        + "\n",
    )
    _dir(
        want,
        SOURCES,
        (
            "# 来源\n> 摘要与原文：实体页上的每条要点都引自这里。\n"
            if zh
            else "# Sources\n> Digests and original articles: every key fact on an "
            "entity page is cited from here.\n"
        )
        + f"\n- [[{ARTICLES}|articles]]\n- [[{DIGESTS}|digests]]\n",
    )
    _dir(want, ROOT, _root_text(kb_name, schema, descriptor, counts, n_docs))


def _row_summary(want: Desired, ent: Entity) -> str:
    return pg.one_line(pg.entity_summary(ent, want.docs, want.lang, want.texts), 120)


def set_dir(want: Desired, path: str, text: str) -> None:
    _dir(want, path, text)


def _dir(want: Desired, path: str, text: str) -> None:
    want.dirs.add(path)
    want.dir_text[path] = text
    want.sigs[path] = dir_sig(text)


def dir_sig(text: str) -> str:
    """What a directory is rendered from: its text."""
    return _sig("d:", text)


def _root_text(
    kb_name: str,
    schema: Schema,
    descriptor: Descriptor | None,
    counts: Mapping[str, int],
    n_docs: int,
) -> str:
    zh = schema.language == "zh"
    out = [f"# {kb_name}", ""]
    if descriptor is not None:
        if zh:
            out += [
                f"> 概览：{descriptor.about}",
                f"> 读者：{descriptor.audience}",
                f"> 偏向：{descriptor.bias}",
            ]
        else:
            out += [
                f"> Overview: {descriptor.about}",
                f"> For: {descriptor.audience}",
                f"> Bias: {descriptor.bias}",
            ]
    out += ["", "## 目录" if zh else "## Directory Catalog"]
    # the dimensions as the root lists them, those holding a page only (none is written empty)
    dims = {"/" + escape_segment(spec.name): spec for spec in schema.dimensions}
    for d in in_listing_order((d for d in dims if counts.get(d, 0)), str, True):
        spec, n = dims[d], counts[d]
        out.append(
            f"- [[{d}|{spec.name}/]] — {spec.description} "
            + (f"（{n} 页）" if zh else f"({_pages(n, zh)})")
        )
    out.append(
        f"- [[{SOURCES}|sources/]] — "
        + (
            f"摘要与原文（{n_docs} 篇）"
            if zh
            else f"digests and original articles ({n_docs} documents)"
        )
    )
    return "\n".join(out) + "\n"
