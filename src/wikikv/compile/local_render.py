"""The render of an incremental add: only the nodes the model update may have changed.

A full render (:func:`wikikv.compile.render.desired_nodes`) lists every node with its
signature. After :func:`wikikv.compile.persisted.add_documents` the add knows what changed, so
it builds the same :class:`~wikikv.compile.render.Desired` for those nodes alone, reading their
records by key (never a scan of the entities or the pages):

* the pages of the entities the update rewrote and of the entities linking one that appeared,
  went, moved or was renamed (the link targets' paths and names, and the documents they cite,
  are read by key);
* the new documents' articles and digests, and the digests of documents whose subject moved
  (a digest names its subject's path);
* every listing directory a rewritten entity enters or leaves: its rows come from its members
  record (names, hence paths) and, for a member not rendered here, from the summary, name and
  aliases on that member's page as last written — the page's signature covers everything a row
  shows, so a member not re-rendered lists the same row (a page edited by hand is summarised
  from its entity record instead);
* the dimensions, from their :class:`~wikikv.compile.persisted.Section` records (page counts
  of each sub-directory, best-ranked members for the summaries), the sources directories and
  the root.

What goes (``Desired.stale``): the old paths of moved or vanished entities, and listing
directories left without members. Everything else keeps the signature recorded when it was
written; the tests compare the wiki after an add with a full build node for node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from wikikv.compile import pages as pg
from wikikv.compile import persisted, shown_links
from wikikv.compile.model import (
    DocAnalysis,
    Entity,
    Model,
    Titles,
    article_path,
    digest_path,
    member_paths,
)
from wikikv.compile.persisted import LocalUpdate, Member, Section
from wikikv.compile.render import (
    Desired,
    Listed,
    digest_sig,
    entity_sig,
    range_text,
    ranges_rows,
    set_dir,
    top_dirs,
)
from wikikv.compile.schema import Schema
from wikikv.compile.summaries import SECTION_PAGES
from wikikv.compile.title_index import Lazy, Overlay
from wikikv.errors import CorruptRecord
from wikikv.llm.base import Descriptor
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import escape_segment, parent
from wikikv.store.records import FileRecord

Row = tuple[str, str, str, str]


class _Reads:
    """Records read by key, each once, counted by family (for the tests and the benchmark)."""

    def __init__(self, kb: KnowledgeBase, up: LocalUpdate) -> None:
        self.kb = kb
        self.up = up
        self.entities: dict[str, Entity] = dict(up.entities)
        self.docs: dict[str, DocAnalysis] = dict(up.docs)
        self.pages: dict[str, FileRecord | None] = {}
        self.count = up.read

    def _add(self, what: str, n: int) -> None:
        self.count[what] = self.count.get(what, 0) + n

    def load_entities(self, keys: Iterable[str]) -> None:
        need = sorted(set(keys) - set(self.entities) - self.up.gone)
        dec = msgspec.msgpack.Decoder(Entity)
        raws = _many(self.kb, [persisted.entity_key(self.kb, k) for k in need])
        for k, raw in zip(need, raws, strict=True):
            if raw is None:
                raise CorruptRecord(f"no entity record for {k!r}")
            self.entities[k] = dec.decode(raw)
        self._add("e (render)", len(need))

    def load_docs(self, ids: Iterable[str]) -> None:
        from wikikv.compile.state import doc_key

        need = sorted(set(ids) - set(self.docs))
        dec = msgspec.msgpack.Decoder(DocAnalysis)
        for i, raw in zip(need, _many(self.kb, [doc_key(self.kb, i) for i in need]), strict=True):
            if raw is None:
                raise CorruptRecord(f"no analysis for document {i!r}")
            self.docs[i] = dec.decode(raw)
        self._add("documents (render)", len(need))

    def load_pages(self, paths: Iterable[str]) -> None:
        need = sorted(set(paths) - set(self.pages))
        for i in range(0, len(need), 500):
            chunk = need[i : i + 500]
            for p, rec in zip(chunk, self.kb.get_many(chunk), strict=True):
                self.pages[p] = rec if isinstance(rec, FileRecord) else None
        self._add("pages (render)", len(need))

    def members(self, dirs: Iterable[str]) -> dict[str, dict[str, Member]]:
        out = {d: self.up.members[d] for d in dirs if d in self.up.members}
        need = sorted(set(dirs) - set(out))
        dec = msgspec.msgpack.Decoder(dict[str, Member])
        raws = _many(self.kb, [persisted.family_key(self.kb, "d", d) for d in need])
        for d, raw in zip(need, raws, strict=True):
            out[d] = {} if raw is None else dec.decode(raw)
        self._add("d (render)", len(need))
        return out

    def sections(self, dims: list[str]) -> dict[str, Section]:
        dec = msgspec.msgpack.Decoder(Section)
        raws = _many(self.kb, [persisted.family_key(self.kb, "s", d) for d in dims])
        self._add("s (render)", len(dims))
        return {d: dec.decode(raw) for d, raw in zip(dims, raws, strict=True) if raw is not None}


def _many(kb: KnowledgeBase, keys: list[bytes]) -> list[bytes | None]:
    out: list[bytes | None] = []
    for i in range(0, len(keys), 500):
        out += [None if it is None else it.value for it in kb.backend.get_many(keys[i : i + 500])]
    return out


def _prefetch_subjects(titles: Titles, docs: set[str]) -> None:
    """Read the subjects of ``docs`` at once (through the add's overlay to the stored table)."""
    about = titles.about.base if isinstance(titles.about, Overlay) else titles.about
    if isinstance(about, Lazy):
        about.prefetch(docs)


def _doc_ids(e: Entity) -> set[str]:
    """The documents an entity's page and signature read (titles, fingerprints, summaries)."""
    return (
        {f.doc for f in e.facts}
        | {f.doc for f in e.mentions}
        | set(e.about)
        | set(sorted(e.mentioned_in)[:3])
    )


def local_desired(
    kb: KnowledgeBase,
    up: LocalUpdate,
    new: Mapping[str, DocAnalysis],
    schema: Schema,
    descriptor: Descriptor | None,
    compiled_by: str,
    prompt_version: str,
    known: Mapping[str, str],
    texts: Mapping[str, str],
    edited: set[str],
) -> Desired:
    """The nodes an add may have changed (see the module docstring); ``known`` is the
    signature map of the written pages, ``edited`` the paths people edited."""
    reads = _Reads(kb, up)
    render = (set(up.entities) | up.relinked) - up.gone
    reads.load_entities(render)
    # before the linked entities are read, so that only the shown ones are; the subjects of the
    # documents naming a much-linked entity rank its links, read at once (~8,000 at 100 MB)
    over = [
        reads.entities[k] for k in render if len(reads.entities[k].links) > shown_links.MAX_SHOWN
    ]
    _prefetch_subjects(up.titles, {d for e in over for d in e.times_named})
    for k in render:
        shown_links.bound_links(reads.entities[k], up.titles.about)
    reads.load_entities(k for r in render for k in reads.entities[r].links)
    moved_about = [
        a for k, p in up.old_paths.items() if k not in up.gone for a in reads.entities[k].about
    ]
    reads.load_docs({i for r in render for i in _doc_ids(reads.entities[r])} | set(moved_about))
    model = Model(entities=reads.entities, about=up.titles.about, variants=up.titles.variants)
    want = Desired(reads.docs, model, schema.language, compiled_by, prompt_version, texts=texts)
    want.partial = True
    extra = f"{schema.language}|{compiled_by}|{prompt_version}"
    for k in sorted(render):
        ent = reads.entities[k]
        want.sigs[ent.path] = entity_sig(ent, model, reads.docs, extra)
        want.entity_at[ent.path] = ent
    for doc_id in sorted({*new, *moved_about}):
        doc = reads.docs[doc_id]
        about = reads.entities[up.titles.about[doc_id]].path
        g = digest_path(doc_id)
        want.sigs[g] = digest_sig(doc, about, extra)
        want.doc_of[g] = doc_id
        if doc_id in new:
            a = article_path(doc_id)
            want.sigs[a] = "a:" + doc.fingerprint
            want.doc_of[a] = doc_id

    # listing directories a rewritten entity enters or leaves
    dims = ["/" + escape_segment(spec.name) for spec in schema.dimensions]
    listing = {parent(up.entities[k].path) for k in up.entities} | {
        parent(p) for p in up.old_paths.values()
    }
    members = reads.members(listing)
    ranked: dict[str, list[Listed]] = {}
    rows_of: dict[str, list[tuple[str, str, Member]]] = {}
    for d in sorted(listing):
        m = members[d]
        keys = sorted(m)
        paths = member_paths(d, [m[k].name for k in keys])
        rows_of[d] = [(k, p, m[k]) for k, p in zip(keys, paths, strict=True)]
    for d in [d for d in rows_of if d not in dims]:
        rendered = [p for _, p, _ in rows_of[d] if p in want.entity_at]
        reads.load_pages(p for p in rendered if p not in edited)
        if _listing_unchanged(up, d, members[d], rows_of[d], reads.pages, edited, want):
            del rows_of[d]  # its text would be the same: not read, not rewritten
            reads._add("listings kept (render)", 1)
    shown = {p for rows in rows_of.values() for k, p, _ in rows if p not in want.entity_at}
    reads.load_pages(shown - edited)
    # a page edited by hand (or deleted) does not show what its entity gives: summarised from
    # the entity record instead
    own = {p for p in shown if p in edited or reads.pages.get(p) is None}
    _summaries_from_entities(
        reads, [k for rows in rows_of.values() for k, p, _ in rows if p in own]
    )

    def row(k: str, path: str) -> Row:
        ent = want.entity_at.get(path)
        if ent is None and path in own:
            ent = reads.entities[k]
        if ent is not None:
            summary = pg.entity_summary(ent, reads.docs, want.lang, texts)
            return path, ent.name, ", ".join(ent.aliases[:4]), pg.one_line(summary, 120)
        page = reads.pages[path]
        assert page is not None
        meta = page.meta
        return path, meta.title, ", ".join(meta.aliases[:4]), pg.one_line(meta.summary, 120)

    for d, rows in rows_of.items():
        if not rows:
            if d in known and d not in dims:  # a dimension stays, listing nothing
                want.stale.append(d)
            continue
        listed = [row(k, p) for k, p, _ in rows]
        if d in dims:
            spec = schema.dimensions[dims.index(d)]
            text = pg.listing_text(spec.name, spec.description, listed, schema.language)
        else:
            text = range_text(schema, d, listed)
        set_dir(want, d, text)
        order = sorted(rows, key=lambda r: (-r[2].score, r[0]))
        ranked[d] = [Listed(k, p, m.name, m.about) for k, p, m in order]

    # dimensions, sources, root
    sections = reads.sections(dims)
    counts: dict[str, int] = {}
    for spec, d in zip(schema.dimensions, dims, strict=True):
        sec = sections.get(d, Section())
        counts[d] = sum(sec.counts.values())
        ranked.setdefault(d, [Listed(r.key, r.path, r.name, i < 0) for i, r in _classed(sec)])
        if d in sec.counts:  # a dimension without sub-directories: a listing (above)
            continue
        ranges = [(r, n) for r, n in sorted(sec.counts.items()) if parent(r) == d]
        listed = ranges_rows(ranges, schema.language == "zh")
        set_dir(want, d, pg.listing_text(spec.name, spec.description, listed, schema.language))
    n_docs = up.meta.docs
    top_dirs(want, kb.name, schema, descriptor, counts, n_docs)
    want.ranked_at = ranked

    def stored_summary(m: Listed) -> str:
        page = None
        if m.path not in edited:
            reads.load_pages([m.path])
            page = reads.pages.get(m.path)
        if page is None:  # edited by hand or deleted: from the entity record
            _summaries_from_entities(reads, [m.key])
            return pg.entity_summary(reads.entities[m.key], reads.docs, want.lang, texts)
        return page.meta.summary

    want.stored_summary = stored_summary
    old = set(up.old_paths.values())
    want.stale += sorted(p for p in old if p not in want.sigs and p in known)
    return want


def _listing_unchanged(
    up: LocalUpdate,
    d: str,
    now: dict[str, Member],
    rows: list[tuple[str, str, Member]],
    pages: Mapping[str, FileRecord | None],
    edited: set[str],
    want: Desired,
) -> bool:
    """Whether a routed directory's listing reads as before: the same members under the same
    names (so paths), the same best-ranked ones (its summary is made of theirs), and each page
    rendered here showing the title, aliases and summary its page showed (what its row and the
    summary take from it). A much-named entity's add rewrites its page and bumps its count, but
    its directory of ~190 rows need not be read and written again."""
    before = up.members_before.get(d)
    if before is None or {k: m.name for k, m in before.items()} != {
        k: m.name for k, m in now.items()
    }:
        return False
    if _best(before) != _best(now):
        return False
    for _, path, _ in rows:
        ent = want.entity_at.get(path)
        if ent is None:
            continue
        page = pages.get(path)
        if path in edited or page is None:
            return False
        summary = pg.entity_summary(ent, want.docs, want.lang, want.texts)
        if (page.meta.title, page.meta.aliases[:4], page.meta.summary) != (
            ent.name,
            ent.aliases[:4],
            summary,
        ):
            return False
    return True


def _best(members: dict[str, Member]) -> list[tuple[str, bool]]:
    """The members a directory's summary is made of, in rank order."""
    order = sorted(members, key=lambda k: (-members[k].score, k))[:SECTION_PAGES]
    return [(k, members[k].about) for k in order]


def _classed(sec: Section) -> list[tuple[int, persisted.Ranked]]:
    """A dimension's best members, both classes merged in rank order; the int is -1 for a
    member some document is about."""
    both = [(-1, r) for r in sec.top[0]] + [(1, r) for r in sec.top[1]]
    return sorted(both, key=lambda x: persisted.rank_order(x[1]))


def _summaries_from_entities(reads: _Reads, keys: list[str]) -> None:
    reads.load_entities(keys)
    reads.load_docs(i for k in keys for i in _doc_ids(reads.entities[k]))
