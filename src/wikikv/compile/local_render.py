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
  record (names, hence paths) and, for a member not rendered here, from that member's line in
  the listing as last written — a listing is rewritten whenever one of its members is, so the
  line is what the member's entity gives (one record read, not ~190 pages, for a much-named
  entity's directory). A listing whose text is not the one recorded when it was written gives
  no line: those rows come from the members' pages as last written (a page edited by hand is
  summarised from its entity record instead);
* the dimensions, from their :class:`~wikikv.compile.persisted.Section` records (page counts
  of each sub-directory, best-ranked members for the summaries), the sources directories and
  the root.

What goes (``Desired.stale``): the old paths of moved or vanished entities, and listing
directories and dimensions left without members. Everything else keeps the signature recorded
when it was written; the tests compare the wiki after an add with a full build node for node.
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
    article_path,
    digest_path,
    member_paths,
)
from wikikv.compile.persisted import LocalUpdate, Member, Section
from wikikv.compile.render import (
    Desired,
    Listed,
    digest_sig,
    dir_sig,
    entity_sig,
    in_listing_order,
    range_heading,
    ranges_rows,
    set_dir,
    top_dirs,
)
from wikikv.compile.schema import Schema
from wikikv.errors import CorruptRecord
from wikikv.llm.base import Descriptor
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import escape_segment, parent
from wikikv.store.records import DirRecord, FileRecord

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

    def dir_texts(self, dirs: Iterable[str], known: Mapping[str, str]) -> dict[str, str]:
        """The listings of ``dirs`` as last written (one record each); a text that is not the
        one recorded (``known``: the signatures as written) is left out."""
        need = sorted(dirs)
        out: dict[str, str] = {}
        for i in range(0, len(need), 500):
            chunk = need[i : i + 500]
            for d, rec in zip(chunk, self.kb.get_many(chunk), strict=True):
                if isinstance(rec, DirRecord) and dir_sig(rec.text) == known.get(d):
                    out[d] = rec.text
        self._add("listings (render)", len(need))
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


def _link_sums(
    kb: KnowledgeBase, up: LocalUpdate, reads: _Reads, render: set[str]
) -> dict[str, shown_links.SubjectSums]:
    """The per-subject sums that rank the links of each much-linked entity rendered: as the
    update wrote them, else the stored record (one read each); where neither fits the entity,
    summed from the subjects of all its documents, read at once (~7,000 at 100 MB)."""
    over = {k for k in render if shown_links.keeps_sums(reads.entities[k])}
    out = {k: up.link_sums[k] for k in over if k in up.link_sums}
    need = over - set(out)
    out.update(persisted.read_records(kb, "l", need, shown_links.SubjectSums))
    reads._add("l (render)", len(need))
    out = {k: s for k, s in out.items() if shown_links.fits(s, reads.entities[k])}
    docs = {d for k in over - set(out) for d in reads.entities[k].times_named}
    shown_links.prefetch_subjects(up.titles.about, docs)
    reads._add("subjects summed (render)", len(docs))
    return out


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
    # before the linked entities are read, so that only the shown ones are
    sums = _link_sums(kb, up, reads, render)
    for k in render:
        shown_links.bound_links(reads.entities[k], up.titles.about, sums=sums.get(k))
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
        rows_of[d] = [(k, p, m[k]) for k, p in _row_paths(d, m)]
    # a member neither rendered here nor renamed or moved keeps its row: its line in the
    # listing as last written (each listing rewritten with its members, so that line is what
    # its entity gives); the members' pages are read only where a listing does not read back
    kept = _kept_lines(
        up,
        members,
        rows_of,
        reads.dir_texts(rows_of, known),
        want,
    )
    reads._add("listing rows kept (render)", sum(len(k) for k in kept.values()))
    shown = {
        p
        for d, rows in rows_of.items()
        for k, p, _ in rows
        if p not in want.entity_at and k not in kept.get(d, {})
    }
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
            if d in known and d not in dims:  # a dimension goes below, once it holds nothing
                want.stale.append(d)
            continue
        reused = kept.get(d, {})
        lines = [reused[k] if k in reused else pg.row_line(*row(k, p)) for k, p, _ in rows]
        if d in dims:
            spec = schema.dimensions[dims.index(d)]
            heading = spec.name, spec.description
        else:
            heading = range_heading(schema, d)
        set_dir(want, d, pg.listing_of_lines(*heading, lines, schema.language))
        order = sorted(rows, key=lambda r: (-r[2].score, r[0]))
        ranked[d] = [Listed(k, p, m.name, m.about) for k, p, m in order]

    # dimensions, sources, root
    sections = reads.sections(dims)
    counts: dict[str, int] = {}
    for spec, d in zip(schema.dimensions, dims, strict=True):
        sec = sections.get(d, Section())
        counts[d] = sum(sec.counts.values())
        if not counts[d]:  # nothing filed under it: not written, or gone once emptied
            if d in known:
                want.stale.append(d)
            continue
        ranked.setdefault(d, [Listed(r.key, r.path, r.name, i < 0) for i, r in _classed(sec)])
        if d in sec.counts:  # a dimension without sub-directories: a listing (above)
            continue
        ranges = [(r, n) for r, n in sec.counts.items() if parent(r) == d]
        listed = ranges_rows(
            in_listing_order(ranges, lambda rn: rn[0], True), schema.language == "zh"
        )
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


def _kept_lines(
    up: LocalUpdate,
    members: Mapping[str, dict[str, Member]],
    rows_of: Mapping[str, list[tuple[str, str, Member]]],
    old_texts: Mapping[str, str],
    want: Desired,
) -> dict[str, dict[str, str]]:
    """For each listing, the lines of the members that keep their row: not rendered here, and
    under the same name and path as when the listing was last written. A listing whose last
    lines are not its members' rows as they were (edited by hand, or written by other code)
    keeps none."""
    out: dict[str, dict[str, str]] = {}
    for d, rows in rows_of.items():
        text = old_texts.get(d)
        if text is None:
            continue
        before = up.members_before.get(d, members[d])
        pairs = _row_paths(d, before)
        lines = text.split("\n")
        if len(lines) < len(pairs) + 4 or lines[-1]:
            continue
        old_rows = lines[len(lines) - 1 - len(pairs) : -1]
        if not all(
            line.startswith(f"- [[{p}|") for line, (_, p) in zip(old_rows, pairs, strict=True)
        ):
            continue
        was = {k: (p, before[k].name, line) for (k, p), line in zip(pairs, old_rows, strict=True)}
        out[d] = {
            k: was[k][2]
            for k, p, m in rows
            if k in was and was[k][:2] == (p, m.name) and p not in want.entity_at
        }
    return out


def _row_paths(d: str, members: Mapping[str, Member]) -> list[tuple[str, str]]:
    """The (key, path) of each member of listing ``d``, in the order its rows are written: paths
    follow from the names in key order (:func:`~wikikv.compile.model.member_paths`), rows from
    the paths in listing order."""
    keys = sorted(members)
    paths = member_paths(d, [members[k].name for k in keys])
    return in_listing_order(zip(keys, paths, strict=True), lambda kp: kp[1], False)


def _classed(sec: Section) -> list[tuple[int, persisted.Ranked]]:
    """A dimension's best members, both classes merged in rank order; the int is -1 for a
    member some document is about."""
    both = [(-1, r) for r in sec.top[0]] + [(1, r) for r in sec.top[1]]
    return sorted(both, key=lambda x: persisted.rank_order(x[1]))


def _summaries_from_entities(reads: _Reads, keys: list[str]) -> None:
    reads.load_entities(keys)
    reads.load_docs(i for k in keys for i in _doc_ids(reads.entities[k]))
