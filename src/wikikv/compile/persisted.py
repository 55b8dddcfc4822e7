"""The entity model kept in the kb, so that adding a document recomputes only what it touches.

A full derive (:func:`~wikikv.compile.model.derive_full`) writes, as system records under
``compile/model/`` (in bounded batches, the meta record last):

=========================  ===================================================================
``compile/model``          :class:`ModelMeta`: the code version that wrote it, corpus flags
``…/t*/<hash>``             the title tables, an entry a record, and the groups of titles they
                           are computed from (:mod:`wikikv.compile.title_index`)
``…/chosen``               the candidate names (no title) that became entities
``…/e/<hash>``             one entity: every field a page is rendered from
``…/c/<hash>``             one candidate name: its counts and the documents using it
``…/k/<hash>``             a mention key → the documents whose mentions use it
``…/p/<hash>``             a name word → the entities whose (several-word) names hold it
``…/d/<hash>``             a directory → its entity members (key → :class:`Member`)
``…/s/<hash>``             a dimension → :class:`Section`: pages per directory, best members
``…/r/<hash>``             a much-named entity → where it is named (:class:`categories.NamedIn`:
                           see :func:`~wikikv.compile.hub_merge.keeps_sums`)
``…/l/<hash>``             a much-linked entity → how often each subject's documents name it
                           (:class:`shown_links.SubjectSums`, which rank the links its page
                           shows: see :func:`~wikikv.compile.shown_links.keeps_sums`)
=========================  ===================================================================

:func:`add_documents` then updates the model for new documents (see its docstring) reading only
the records of the names, entities, documents and directories they touch, and returns ``None``
whenever the change is corpus-wide (a routing change, a directory over the bound, a title that
moves another document's subject, LLM notes, a model written by other code): the caller then
derives everything again, which rewrites the records. The tests compare the result with a
full derive of the same documents.
"""

from __future__ import annotations

import hashlib
import time
from bisect import bisect_left
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from wikikv.compile import categories, hub_merge, shown_links
from wikikv.compile.analyze import analysis_sources, source_hash
from wikikv.compile.model import (
    CandidateCounts,
    Derived,
    DocAnalysis,
    Entity,
    Resolver,
    TitleRow,
    Titles,
    aliases,
    candidate_entity,
    candidate_uses,
    facts,
    link_document,
    member_paths,
    name_words,
    title_entities,
    title_entity,
    title_row,
)
from wikikv.compile.schema import Schema
from wikikv.compile.title_index import (
    StoredGazetteer,
    TitleDelta,
    full_records,
    prefetch,
    stored_titles,
)
from wikikv.llm.base import MentionOut
from wikikv.store.backends.base import Delete, Op, Put
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import escape_segment, parent
from wikikv.text import entities as ents

META = "compile/model"
PREFIX = "compile/model/"
WRITE_CHUNK = 5000
_enc = msgspec.msgpack.Encoder()
T = TypeVar("T")
A = TypeVar("A", DocAnalysis, hub_merge.DocLabel)


def _code_version() -> str:
    """A hash of the code the model is a function of: a change to entity detection, analysis,
    derive or the records' layout (``title_index`` writes some) makes a stored model stale, and
    the next sync derives everything again."""
    here = Path(__file__).parent
    names = (
        "model.py",
        "persisted.py",
        "hub_merge.py",
        "categories.py",
        "title_index.py",
        "shown_links.py",
    )
    derive_sources = [here / n for n in names]
    return source_hash([*derive_sources, *analysis_sources()])


CODE_VERSION = _code_version()


class ModelMeta(msgspec.Struct):
    version: str
    folder: bool
    llm: bool
    docs: int
    # totals of the model, for the report of an add that never holds every entity
    entities: int = 0
    links: int = 0
    facts: int = 0


class Member(msgspec.Struct, array_like=True):
    """A directory member as listings and summaries rank it: its name (paths follow from the
    names in key order), how many documents are about it or mention it, whether one is about
    it."""

    name: str
    score: int
    about: bool


def member(e: Entity) -> Member:
    return Member(e.name, len(e.about) + len(e.mentioned_in), bool(e.about))


class Ranked(msgspec.Struct, array_like=True, frozen=True):
    key: str
    name: str
    path: str
    score: int


def rank_order(r: Ranked) -> tuple[int, str]:
    """Best first: most documents, then key (the order of the summaries' ranking)."""
    return (-r.score, r.key)


TOP = 16  # best members a dimension keeps per class (summaries read at most 12)


class Section(msgspec.Struct):
    """One dimension: the pages of each of its directories (the root's and the dimension's
    counts), how many of its members a document is about and how many it is not (``size``),
    and the best :data:`TOP` of each class (``top``: about, other), for the section and corpus
    summaries. An add updates it from the members that changed; only when a best member falls
    out and nothing known can take its place are the directories read again."""

    counts: dict[str, int] = msgspec.field(default_factory=dict)
    size: list[int] = msgspec.field(default_factory=lambda: [0, 0])
    top: list[list[Ranked]] = msgspec.field(default_factory=lambda: [[], []])


def dim_path(dim: str) -> str:
    return "/" + escape_segment(dim)


def sections_of(entities: Iterable[Entity]) -> dict[str, Section]:
    """The :class:`Section` of every dimension the entities fill."""
    out: dict[str, Section] = {}
    ranked: dict[str, list[list[Ranked]]] = {}
    for e in entities:
        d = dim_path(e.dim)
        sec = out.setdefault(d, Section())
        sec.counts[parent(e.path)] = sec.counts.get(parent(e.path), 0) + 1
        m = member(e)
        c = 0 if m.about else 1
        sec.size[c] += 1
        ranked.setdefault(d, [[], []])[c].append(Ranked(e.key, e.name, e.path, m.score))
    for d, sec in out.items():
        sec.counts = dict(sorted(sec.counts.items()))
        sec.top = [sorted(r, key=rank_order)[:TOP] for r in ranked[d]]
    return out


class CandidateRec(msgspec.Struct, array_like=True):
    counts: CandidateCounts
    docs: list[str]


# ---------------------------------------------------------------------------------- keys
def _h(name: str) -> str:
    return hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _key(kb: KnowledgeBase, family: str, name: str) -> bytes:
    return kb.keys.system(f"{PREFIX}{family}/{_h(name)}")


def family_key(kb: KnowledgeBase, family: str, name: str) -> bytes:
    """The key of the record of ``name`` in a family (``e``, ``d``, ``s`` …)."""
    return _key(kb, family, name)


def entity_key(kb: KnowledgeBase, key: str) -> bytes:
    return _key(kb, "e", key)


def _single(kb: KnowledgeBase, name: str) -> bytes:
    return kb.keys.system(PREFIX + name)


def mention_terms(m: MentionOut) -> set[str]:
    """The keys a mention is indexed under: its key, the rest after an honorific, and its folded
    surface — every title-table entry its resolution, or its entity's alias rules, read."""
    out = {m.key, ents.fold(m.surface)}  # the surface: aliases exclude another title's name
    parts = m.key.split(" ", 1)
    if len(parts) == 2 and parts[0].rstrip(".") in ents.HONORIFICS:
        out.add(parts[1])
    return out


def _doc_terms(d: DocAnalysis) -> set[str]:
    out: set[str] = set()
    for m in d.mentions:
        out |= mention_terms(m)
    return out


# --------------------------------------------------------------------------- full write
def write_full(
    kb: KnowledgeBase,
    derived: Derived,
    docs: dict[str, DocAnalysis],
    folder: bool,
    schema: Schema,
) -> None:
    """Replace the stored model by the one a full derive produced. Empties ``derived``'s
    per-document resolutions and candidate counts as they are written (the caller drops it
    next): what the records after them build then fits in the memory they held."""
    write = _Writes(kb)
    write([Delete(kb.keys.system(META))])
    old = [k for k, _ in kb.backend.scan(_single(kb, ""), _single(kb, "") + b"\xff")]
    write([Delete(k) for k in old])
    model = derived.model
    write(
        Put(_key(kb, family, name), _enc.encode(value))
        for family, name, value in full_records(derived.rows, derived.titles)
    )
    chosen = sorted(k for k in model.entities if k not in derived.titles.display)
    write([Put(_single(kb, "chosen"), _enc.encode(chosen))])
    write(Put(_key(kb, "e", k), _enc.encode(e)) for k, e in model.entities.items())
    cats = categories.doc_categories(docs)
    write(
        Put(_key(kb, "r", k), _enc.encode(categories.named_in(e, docs, cats, whole=True)))
        for k, e in model.entities.items()
        if hub_merge.keeps_sums(e, schema)
    )
    del cats
    write(
        Put(_key(kb, "l", k), _enc.encode(shown_links.subject_sums(e.times_named, model.about)))
        for k, e in model.entities.items()
        if shown_links.keeps_sums(e)
    )
    cand_docs: dict[str, list[str]] = {}
    terms: dict[str, list[str]] = {}
    for doc_id in sorted(docs):
        for key in candidate_uses(derived.resolved.pop(doc_id), derived.titles.display):
            cand_docs.setdefault(key, []).append(doc_id)
        for t in _doc_terms(docs[doc_id]):
            terms.setdefault(t, []).append(doc_id)
    write(
        Put(_key(kb, "c", k), _enc.encode(CandidateRec(c, cand_docs.get(k, []))))
        for k, c in derived.candidates.items()
    )
    derived.candidates.clear()
    del cand_docs
    write(Put(_key(kb, "k", t), _enc.encode(ids)) for t, ids in terms.items())
    del terms
    words: dict[str, list[str]] = {}
    dirs: dict[str, dict[str, Member]] = {}
    for k in sorted(model.entities):
        e = model.entities[k]
        for w in name_words(e.name):
            words.setdefault(w, []).append(k)
        dirs.setdefault(parent(e.path), {})[k] = member(e)
    write(Put(_key(kb, "p", w), _enc.encode(ks)) for w, ks in words.items())
    write(Put(_key(kb, "d", d), _enc.encode(m)) for d, m in dirs.items())
    write(
        Put(_key(kb, "s", d), _enc.encode(sec))
        for d, sec in sections_of(model.entities.values()).items()
    )
    llm = any(d.llm is not None for d in docs.values())
    ents_ = model.entities.values()
    meta = ModelMeta(
        CODE_VERSION,
        folder,
        llm,
        len(docs),
        len(model.entities),
        sum(len(e.links) for e in ents_),
        sum(len(e.facts) for e in ents_),
    )
    write([Put(kb.keys.system(META), _enc.encode(meta))])


class _Writes:
    """Writes ops in commits of at most :data:`WRITE_CHUNK` (bounded batches)."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    def __call__(self, ops: Iterable[Op]) -> None:
        chunk: list[Op] = []
        for op in ops:
            chunk.append(op)
            if len(chunk) >= WRITE_CHUNK:
                self.kb.commit(chunk)
                chunk = []
        if chunk:
            self.kb.commit(chunk)


# ------------------------------------------------------------------------ incremental add
class _Loader:
    """Decoded records, read once each (``get_many`` in chunks)."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    def many(self, keys: list[bytes]) -> Iterator[bytes | None]:
        for i in range(0, len(keys), 500):
            for item in self.kb.backend.get_many(keys[i : i + 500]):
                yield None if item is None else item.value

    def one(self, key: bytes) -> bytes | None:
        item = self.kb.backend.get(key)
        return None if item is None else item.value


@dataclass
class LocalUpdate:
    """What :func:`add_documents` changed, for the local render
    (:mod:`wikikv.compile.local_render`) and the report."""

    entities: dict[str, Entity]  # the records it rewrote (recomputed, re-aliased, moved)
    old_paths: dict[str, str]  # key → path before, of the entities that moved or went
    gone: set[str]
    relinked: set[str]  # other entities whose pages link one that appeared, went, moved, renamed
    members: dict[str, dict[str, Member]]  # directories whose members changed → members now
    members_before: dict[str, dict[str, Member]]  # … and those directories' members before
    titles: Titles
    docs: dict[str, DocAnalysis]  # the analyses it read, and the new ones
    meta: ModelMeta  # as written (totals after the add)
    link_sums: dict[str, shown_links.SubjectSums] = field(default_factory=dict)  # as written
    read: dict[str, int] = field(default_factory=dict)
    cpu_s: float = 0.0  # CPU time of the update itself


def read_records(
    kb: KnowledgeBase, family: str, names: Iterable[str], type_: type[T]
) -> dict[str, T]:
    """The records of ``names`` in a family that exist, decoded (``get_many`` in chunks)."""
    names = sorted(set(names))
    dec: msgspec.msgpack.Decoder[T] = msgspec.msgpack.Decoder(type_)
    out: dict[str, T] = {}
    raws = _Loader(kb).many([_key(kb, family, n) for n in names])
    for name, raw in zip(names, raws, strict=True):
        if raw is not None:
            out[name] = dec.decode(raw)
    return out


def usable(kb: KnowledgeBase) -> bool:
    """Whether an add may update the stored model (written by this code, no LLM notes)."""
    meta = load_meta(kb)
    return meta is not None and meta.version == CODE_VERSION and not meta.llm


def stored_analyses(kb: KnowledgeBase, ids: Iterable[str]) -> dict[str, DocAnalysis]:
    """The stored analyses of the documents ``ids`` that have one, read by key."""
    from wikikv.compile.state import doc_key

    order = sorted(set(ids))
    dec = msgspec.msgpack.Decoder(DocAnalysis)
    raws = _Loader(kb).many([doc_key(kb, i) for i in order])
    return {i: dec.decode(raw) for i, raw in zip(order, raws, strict=True) if raw is not None}


def add_gazetteer(
    kb: KnowledgeBase, titles: Iterable[tuple[str, str, str, str]], folder: bool
) -> tuple[ents.Gazetteer, Titles] | None:
    """The entity detector's gazetteer for an add of documents (id, title, group, language):
    the stored buckets with the new titles' entries, read bucket by bucket as the detector asks
    (:class:`~wikikv.compile.title_index.StoredGazetteer`), and the stored title tables it was
    computed from (for :func:`add_documents`); None when the new titles change the tables in a
    way only a full computation says (the caller builds the gazetteer from every title)."""

    def read(family: str, names: list[str], type_: Any) -> dict[str, Any]:
        return read_records(kb, family, names, type_)

    tables = stored_titles(read)
    rows = {i: TitleRow(t, g, lang, "") for i, t, g, lang in titles}

    delta = TitleDelta(tables, rows, folder, read)
    if delta.reason:
        return None
    return StoredGazetteer(read, delta.gaz_out, delta.gaz_in), tables


def load_meta(kb: KnowledgeBase) -> ModelMeta | None:
    item = kb.backend.get(kb.keys.system(META))
    if item is None:
        return None
    try:
        return msgspec.msgpack.decode(item.value, type=ModelMeta)
    except msgspec.DecodeError:
        return None


class _Fallback(Exception):
    """The change is corpus-wide (or the model cannot be trusted): derive everything."""


@dataclass
class Fallback:
    """Why :func:`add_documents` left the update to a full derive."""

    reason: str


def add_documents(
    kb: KnowledgeBase, new: dict[str, DocAnalysis], schema: Schema, tables: Titles | None = None
) -> LocalUpdate | Fallback:
    """Update the stored model for the documents ``new`` (ids the kb did not hold) and return it,
    or why only a full derive can say (see the module docstring).

    1. The title tables' entries the new titles change are computed from the groups of titles
       they fall in (:class:`~wikikv.compile.title_index.TitleDelta`); the keys whose
       resolution they change (new titles, variants, blocked bases, surnames) pick, through the
       mention-key index, the documents whose mentions must be resolved again.
    2. Those documents are resolved with the old and the new tables; the difference updates the
       candidate counts (a candidate may become an entity).
    3. Every entity such a document names (before or after), the entities whose alias rules read
       a changed table, and the new ones are recomputed from all their documents — the same
       functions as the full derive, restricted to them.
    4. Name-word counts, directory members and paths are updated; a member whose path changes
       is moved.
    """
    meta = load_meta(kb)
    if meta is None:
        return Fallback("no stored model")
    if meta.version != CODE_VERSION:
        return Fallback("the stored model was written by other code")
    if meta.llm or any(d.llm is not None for d in new.values()):
        return Fallback("LLM notes")
    try:
        return _Add(kb, new, schema, meta).run(tables)
    except _Fallback as exc:
        return Fallback(str(exc))


class _Add:
    def __init__(
        self, kb: KnowledgeBase, new: dict[str, DocAnalysis], schema: Schema, meta: ModelMeta
    ) -> None:
        self.kb = kb
        self.new = new
        self.schema = schema
        self.meta = meta
        self.load = _Loader(kb)
        self.docs: dict[str, DocAnalysis] = dict(new)
        self.labels: dict[str, hub_merge.DocLabel] = {}  # what the routing reads of the others
        self.sums: dict[str, categories.NamedIn] = {}  # a hub's stored sums, its added part in
        self.hub_added: dict[str, dict[str, int]] = {}  # a hub's added part of its naming counts
        self.link_sums: dict[str, shown_links.SubjectSums] = {}
        self._routing: tuple[dict[str, DocAnalysis | hub_merge.DocLabel], dict[str, str]] | None = (
            None
        )
        self.read: dict[str, int] = {}
        self.t_new: Titles | None = None
        self.tables: TitleDelta | None = None
        self._members: dict[str, dict[str, Member]] = {}
        self._members_before: dict[str, dict[str, Member]] = {}
        self._moved_from: dict[str, str] = {}
        self._sections: dict[str, Section | None] = {}
        self._meta = meta

    def _count(self, what: str, n: int) -> None:
        self.read[what] = self.read.get(what, 0) + n

    def _docs(self, ids: Iterable[str]) -> None:
        need = sorted(set(ids) - set(self.docs))
        self.docs.update((d.id, d) for d in self._analyses(need, DocAnalysis))
        self._count("documents", len(need))

    def _analyses(self, ids: list[str], type_: type[A]) -> Iterator[A]:
        """The stored analyses of ``ids``, decoded as ``type_`` (the whole analysis, or the
        fields a :class:`~wikikv.compile.hub_merge.DocLabel` reads)."""
        from wikikv.compile.state import doc_key

        dec = msgspec.msgpack.Decoder(type_)
        for raw in self.load.many([doc_key(self.kb, i) for i in ids]):
            if raw is None:
                raise _Fallback("a document the indexes name is missing")
            yield dec.decode(raw)

    def _hub_routing(
        self, hubs: dict[str, Entity], old_recs: dict[str, Entity], added: dict[str, set[str]]
    ) -> None:
        """What the routing reads of a hub, where its dimension routes by category (the
        directory of an entity named everywhere is set by the articles naming it most): its
        stored sums plus the part of the documents ``added`` (hub → those naming it), else the
        labels of all the documents naming it."""
        routed = [
            k for k, e in hubs.items() if self.schema.dimension_of(e.kind) in self.schema.routing
        ]
        kept = [k for k in routed if hub_merge.keeps_sums(old_recs[k], self.schema)]
        for k, old in self._records("r", kept, categories.NamedIn).items():
            new = {i: self.docs[i] for i in added[k]}
            part = categories.named_in(hubs[k], new, categories.doc_categories(new), whole=True)
            self.sums[k] = categories.add_named_in(old, part)
        named = {i for k in routed if k not in self.sums for i in old_recs[k].mentioned_in}
        need = sorted(named - set(self.docs))
        self.labels.update((d.id, d) for d in self._analyses(need, hub_merge.DocLabel))
        self._count("document labels", len(need))

    def _records(self, family: str, names: Iterable[str], type_: type[T]) -> dict[str, T]:
        names = sorted(set(names))
        self._count(family, len(names))
        return read_records(self.kb, family, names, type_)

    def run(self, t_old: Titles | None) -> LocalUpdate:
        """``t_old``: the stored title tables when the caller decoded them already."""
        kb = self.kb
        cpu = time.process_time()
        raw_chosen = self.load.one(_single(kb, "chosen"))
        if t_old is None:
            t_old = stored_titles(self._records)
        if raw_chosen is None:
            raise _Fallback("no chosen record")
        chosen_old = _Sorted(msgspec.msgpack.decode(raw_chosen, type=list[str]))
        rows = {i: title_row(d) for i, d in self.new.items()}
        tables = TitleDelta(t_old, rows, self.meta.folder, self._records)
        if tables.reason:
            raise _Fallback(tables.reason)
        t_new = self.t_new = tables.new
        self.tables = tables
        delta = tables.leading_to()

        # 1. documents whose resolution may change
        terms = self._records("k", delta, list[str])
        again = {i for ids in terms.values() for i in ids if isinstance(ids, list)}
        again -= set(self.new)
        self._docs(again)
        fresh = again | set(self.new)
        prefetch(t_old, {t for i in fresh for t in _doc_terms(self.docs[i])}, fresh)
        r_old, r_new = Resolver(t_old), Resolver(t_new)
        old_res = {i: r_old.resolve(i, self.docs[i].mentions) for i in sorted(again)}
        resolved = {
            i: r_new.resolve(i, self.docs[i].mentions) for i in sorted(again | set(self.new))
        }
        # every document resolved again counts as changed: a key can keep its spelling and
        # still change status (a candidate name that is now a title)
        changed_docs = sorted(resolved)

        # 2. candidate counts
        cand_keys: set[str] = set()
        old_uses: dict[str, dict[str, list[MentionOut]]] = {}
        new_uses: dict[str, dict[str, list[MentionOut]]] = {}
        for i in changed_docs:
            if i in old_res:
                old_uses[i] = candidate_uses(old_res[i], t_old.display)
                cand_keys |= set(old_uses[i])
            new_uses[i] = candidate_uses(resolved[i], t_new.display)
            cand_keys |= set(new_uses[i])
        cands = {
            k: v
            for k, v in self._records("c", cand_keys, CandidateRec).items()
            if isinstance(v, CandidateRec)
        }
        docs_before = {k: set(rec.docs) for k, rec in cands.items()}
        for i in changed_docs:
            for k, uses in old_uses.get(i, {}).items():
                rec = cands.get(k)
                if rec is None or i not in rec.docs:
                    raise _Fallback("candidate counts do not match the documents")
                rec.counts.add(uses, -1)
                rec.docs.remove(i)
            for k, uses in new_uses[i].items():
                rec = cands.setdefault(k, CandidateRec(CandidateCounts(), []))
                rec.counts.add(uses)
                _insort(rec.docs, i)  # a common name's list is long: kept sorted in place
        chosen_new = _Overlay(chosen_old)
        for k, rec in cands.items():
            if rec.counts.chosen() and k not in t_new.display:
                chosen_new.add(k)
            else:
                chosen_new.discard(k)
        for k in tables.keys_changed:
            if k in t_new.display:
                chosen_new.discard(k)
        is_old = _Either(t_old.display, chosen_old)
        is_new = _Either(t_new.display, chosen_new)

        # 3. the entities to recompute
        touched: set[str] = set()
        for i in changed_docs:
            touched.add(t_new.about[i])
            touched |= {k for k, _ in resolved[i]} | {k for k, _ in old_res.get(i, [])}
        touched |= {k for k in cand_keys if k in chosen_new or k in chosen_old}
        for k in sorted(chosen_new.changed()):  # a name that becomes (or stops being) an entity:
            for i in docs_before.get(k, set()) | set(cands[k].docs if k in cands else []):
                touched.add(t_new.about[i])  # the pages of the documents naming it link it
        touched |= tables.keys_changed  # a display name, kind or folder that changed
        for k in delta:  # the alias rules read variants of an entity's base and head
            touched |= {v for v in (t_old.variants.get(k), t_new.variants.get(k)) if v}
        touched = {k for k in touched if k in is_old or k in is_new}
        gone = {k for k in touched if k in is_old and k not in is_new}
        keep = touched - gone
        old_recs = self._records("e", touched, Entity)
        if set(old_recs) != {k for k in touched if k in is_old}:
            raise _Fallback("an entity record is missing")
        about_of: dict[str, list[str]] = {}  # title entity → its documents (new ones added)
        for k in (k for k in keep if k in t_new.display):
            about_of[k] = list(old_recs[k].about) if k in old_recs else []
        for i in sorted(self.new):
            if t_new.about[i] in about_of:
                about_of[t_new.about[i]].append(i)
        # a much-named entity is updated from its added documents alone (see hub_merge)
        starts = {  # the entities as the update starts them (made once: the hubs' check reads them)
            k: candidate_entity(k, cands[k].counts)
            for k in sorted(keep)
            if k in old_recs and k not in t_new.display
        }
        hubs = {k: e for k, e in starts.items() if hub_merge.mergeable(old_recs[k], e, resolved)}
        self._count("entities (from added documents)", len(hubs))
        docs_of: dict[str, set[str]] = {}
        for k in keep:
            if k in hubs:
                ids = set()
            elif k in old_recs:
                ids = set(old_recs[k].mentioned_in) | set(old_recs[k].about)
            elif k in cands:
                ids = set(cands[k].docs)
            else:
                ids = set()
            docs_of[k] = ids | set(about_of.get(k, []))
        for i in changed_docs:
            for k, _ in resolved[i]:
                if k in keep:
                    docs_of[k].add(i)
        everything = set().union(*docs_of.values()) if docs_of else set()
        self._docs(everything)
        rest = everything - set(resolved)
        prefetch(t_old, {t for i in rest for t in _doc_terms(self.docs[i])}, rest)
        for i in sorted(rest):
            resolved[i] = r_new.resolve(i, self.docs[i].mentions)
        ents_new: dict[str, Entity] = {}
        for k in sorted(keep - set(hubs)):
            if k in t_new.display:
                first = min(about_of[k])
                e = title_entity(k, t_new, title_row(self.docs[first]))
                e.about = sorted(about_of[k])
            else:
                e = starts.get(k) or candidate_entity(k, cands[k].counts)
            ents_new[k] = e
        # the others from all their documents; the hubs' part from their added documents
        # (separately: an old document of another entity may name a hub too)
        for group in (ents_new, {k: hub_merge.blank(e) for k, e in hubs.items()}):
            order = sorted(set().union(*(docs_of[k] for k in group))) if group else []
            for i in order:
                link_document(i, t_new.about[i], resolved[i], group, is_new)
            facts(group, self.docs, resolved, order, is_new)
            if group is not ents_new:
                for k, added in group.items():
                    self.hub_added[k] = added.times_named
                    ents_new[k] = hub_merge.merge(old_recs[k], hubs[k], added)
        self._hub_routing(hubs, old_recs, {k: docs_of[k] for k in hubs})

        # 4. names, directories, paths
        words_old = {k: name_words(e.name) for k, e in old_recs.items()}
        words_new = {k: name_words(e.name) for k, e in ents_new.items()}
        all_words = set().union(*words_old.values(), *words_new.values())
        parts_rec = {
            w: v for w, v in self._records("p", all_words, list[str]).items() if isinstance(v, list)
        }
        parts: dict[str, list[str]] = {w: list(parts_rec.get(w, [])) for w in all_words}
        before = {w: len(v) for w, v in parts.items()}
        # a common word's list holds thousands of keys (17k at 9 copies): changed in place, and
        # only the lists that changed are written
        changed_words: set[str] = set()
        for k, ws in words_old.items():
            for w in ws - words_new.get(k, set()):
                parts[w].remove(k)
                changed_words.add(w)
        for k, ws in words_new.items():
            for w in ws:
                if _insort(parts[w], k):
                    changed_words.add(w)
        crossed = {w for w in all_words if (before[w] > 1) != (len(parts[w]) > 1)}
        extra = {k for w in crossed for k in parts[w] if k not in touched}
        counts = {w: len(v) for w, v in parts.items()}
        extra_recs = self._records("e", extra, Entity)
        need_words = {w for e in extra_recs.values() for w in name_words(e.name)} - set(counts)
        counts.update(
            (w, len(v))
            for w, v in self._records("p", need_words, list[str]).items()
            if isinstance(v, list)
        )
        for e in [*ents_new.values(), *extra_recs.values()]:
            aliases(e, t_new.variants, t_new.display, counts)
        moved = self._place(ents_new, old_recs)
        self._update_sections(ents_new, moved, old_recs, gone)
        new_meta = self._new_meta(ents_new, old_recs, gone)
        parts_changed = {w: parts[w] for w in changed_words}
        sums = self._sum_ops(ents_new, old_recs, gone)
        sums += self._link_sum_ops(ents_new, old_recs, gone)
        self._write(
            chosen_new, ents_new, extra_recs, moved, gone, cands, parts_changed, new_meta, sums
        )
        updated = {**extra_recs, **moved, **ents_new}
        # pages linking to an entity that appeared, went, moved or was renamed name its path
        relinked: set[str] = set()
        old_paths = dict(self._moved_from)
        for k, e in ents_new.items():
            was = old_recs.get(k)
            if was is None or (was.path, was.name) != (e.path, e.name):
                relinked |= set(e.links) | (set(was.links) if was is not None else set())
            if was is not None and was.path != e.path:
                old_paths[k] = was.path
        for e in moved.values():
            relinked |= set(e.links)
        for k in gone:
            relinked |= set(old_recs[k].links)
            old_paths[k] = old_recs[k].path
        return LocalUpdate(
            entities=updated,
            old_paths=old_paths,
            gone=gone,
            relinked=relinked - gone - set(updated),
            members=self._members,
            members_before=self._members_before,
            titles=t_new,
            docs=self.docs,
            meta=new_meta,
            link_sums=self.link_sums,
            read=self.read,
            cpu_s=time.process_time() - cpu,
        )

    def _new_meta(
        self, ents_new: dict[str, Entity], old_recs: dict[str, Entity], gone: set[str]
    ) -> ModelMeta:
        m = self.meta
        before, after = list(old_recs.values()), list(ents_new.values())
        return ModelMeta(
            CODE_VERSION,
            m.folder,
            False,
            m.docs + len(self.new),
            m.entities + len(set(ents_new) - set(old_recs)) - len(gone),
            m.links + sum(len(e.links) for e in after) - sum(len(e.links) for e in before),
            m.facts + sum(len(e.facts) for e in after) - sum(len(e.facts) for e in before),
        )

    def _update_sections(
        self,
        ents_new: dict[str, Entity],
        moved: dict[str, Entity],
        old_recs: dict[str, Entity],
        gone: set[str],
    ) -> None:
        """Each changed member leaves its section entry and enters the new one (see
        :class:`Section`)."""
        was: dict[str, tuple[str, int, Ranked]] = {}
        now: dict[str, tuple[str, int, Ranked]] = {}
        for k, e in ents_new.items():
            if k in old_recs:
                was[k] = _entry(old_recs[k], old_recs[k].path)
            now[k] = _entry(e, e.path)
        for k, e in moved.items():
            was[k] = _entry(e, self._moved_from[k])
            now[k] = _entry(e, e.path)
        for k in gone:
            was[k] = _entry(old_recs[k], old_recs[k].path)
        changed = sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
        dims = {was[k][0] for k in changed if k in was} | {now[k][0] for k in changed if k in now}
        stored = self._records("s", dims, Section)
        for d in sorted(dims):
            sec = stored.get(d) or Section()
            size_before = list(sec.size)
            counts = dict(sec.counts)
            for k in changed:
                for entry, step in ((was.get(k), -1), (now.get(k), 1)):
                    if entry is not None and entry[0] == d:
                        where = parent(entry[2].path)
                        counts[where] = counts.get(where, 0) + step
                        sec.size[entry[1]] += step
            sec.counts = {w: n for w, n in sorted(counts.items()) if n}
            for c in (0, 1):
                top = sec.top[c]
                bound = rank_order(top[-1]) if top and size_before[c] > len(top) else None
                keep = [r for r in top if r.key not in changed]
                enter = [now[k][2] for k in changed if k in now and now[k][:2] == (d, c)]
                if bound is not None:  # below the bound an unseen member may rank higher
                    enter = [r for r in enter if rank_order(r) <= bound]
                ranked = sorted(keep + enter, key=rank_order)
                if len(ranked) < min(TOP, sec.size[c]):
                    ranked = self._refill(sec, c)
                sec.top[c] = ranked[:TOP]
            self._sections[d] = sec if sum(sec.size) else None

    def _refill(self, sec: Section, c: int) -> list[Ranked]:
        """Every member of a class, from the section's directories: a best member fell out and
        nothing known can take its place."""
        stored = self._records(
            "d", [d for d in sec.counts if d not in self._members], dict[str, Member]
        )
        out: list[Ranked] = []
        for d in sec.counts:
            m = self._members.get(d, stored.get(d, {}))
            keys = sorted(m)
            for k, path in zip(keys, member_paths(d, [m[k].name for k in keys]), strict=True):
                if (0 if m[k].about else 1) == c:
                    out.append(Ranked(k, m[k].name, path, m[k].score))
        return sorted(out, key=rank_order)

    def _routing_docs(
        self,
    ) -> tuple[dict[str, DocAnalysis | hub_merge.DocLabel], dict[str, str]]:
        """What the routing reads of the documents (the labels read and the analyses), and their
        lead categories: built once, for the placing and the stored sums."""
        if self._routing is None:
            docs: dict[str, DocAnalysis | hub_merge.DocLabel] = {**self.labels, **self.docs}
            self._routing = docs, categories.doc_categories(docs)
        return self._routing

    def _place(self, ents_new: dict[str, Entity], old_recs: dict[str, Entity]) -> dict[str, Entity]:
        """Dimensions and paths of the recomputed entities; returns other members that moved."""
        schema = self.schema
        docs, cats = self._routing_docs()
        new_parent: dict[str, str] = {}
        for k, e in ents_new.items():
            e.dim = schema.dimension_of(e.kind)
            top = "/" + escape_segment(e.dim)
            plan = schema.routing.get(e.dim)
            if plan is None:
                new_parent[k] = top
            else:
                chain = categories.entity_chain(e, docs, cats, schema.language, self.sums.get(k))
                new_parent[k] = top + "/" + escape_segment(plan.bucket(k, chain))
        old_parent = {k: parent(e.path) for k, e in old_recs.items()}
        dirs = set(new_parent.values()) | set(old_parent.values())
        members = {
            d: dict(v)
            for d, v in self._records("d", dirs, dict[str, Member]).items()
            if isinstance(v, dict)
        }
        self._members_before = {d: dict(m) for d, m in members.items()}
        path_was: dict[str, str] = {}  # a member's path follows from the names in its directory
        for d, m in members.items():
            keys = sorted(m)
            path_was.update(zip(keys, member_paths(d, [m[k].name for k in keys]), strict=True))
        for k, d in old_parent.items():
            members.get(d, {}).pop(k, None)
        for k, d in new_parent.items():
            members.setdefault(d, {})[k] = member(ents_new[k])
        for m in members.values():
            if len(m) > schema.fanout:
                raise _Fallback("a directory would exceed the fan-out bound")
        paths: dict[str, str] = {}
        for d, m in members.items():
            keys = sorted(m)
            paths.update(zip(keys, member_paths(d, [m[k].name for k in keys]), strict=True))
        others = [k for k in paths if k not in ents_new and path_was.get(k) != paths[k]]
        moved: dict[str, Entity] = {}
        if others:
            recs = self._records("e", others, Entity)
            for k in others:
                rec = recs.get(k)
                if rec is None:
                    raise _Fallback("a member's entity record is missing")
                if rec.path != paths[k]:
                    self._moved_from[k] = rec.path
                    rec.path = paths[k]
                    moved[k] = rec
        for k, e in ents_new.items():
            e.path = paths[k]
        self._members = members
        return moved

    def _write(
        self,
        chosen: _Overlay,
        ents_new: dict[str, Entity],
        extra: dict[str, Entity],
        moved: dict[str, Entity],
        gone: set[str],
        cands: dict[str, CandidateRec],
        parts: dict[str, list[str]],
        meta: ModelMeta,
        sums: list[Op],
    ) -> None:
        kb = self.kb
        ops: list[Op] = list(sums)
        if chosen.changed():
            ops.append(Put(_single(kb, "chosen"), _enc.encode(chosen.names())))
        assert self.tables is not None
        td = self.tables
        for family, name, value in [*td.records, *td.gaz_records(), *td.table_records()]:
            key = _key(kb, family, name)
            ops.append(
                Delete(key) if value is None or value == [] else Put(key, _enc.encode(value))
            )
        for e in [*extra.values(), *moved.values(), *ents_new.values()]:
            ops.append(Put(_key(kb, "e", e.key), _enc.encode(e)))
        ops += [Delete(_key(kb, "e", k)) for k in gone]
        for k, rec in cands.items():
            if rec.docs:
                ops.append(Put(_key(kb, "c", k), _enc.encode(rec)))
            else:
                ops.append(Delete(_key(kb, "c", k)))
        for w, ks in parts.items():
            ops.append(Put(_key(kb, "p", w), _enc.encode(ks)) if ks else Delete(_key(kb, "p", w)))
        for d, m in self._members.items():
            ops.append(Put(_key(kb, "d", d), _enc.encode(m)) if m else Delete(_key(kb, "d", d)))
        for d, sec in self._sections.items():
            key = _key(kb, "s", d)
            ops.append(Delete(key) if sec is None else Put(key, _enc.encode(sec)))
        terms: dict[str, set[str]] = {}
        for i, doc in self.new.items():
            for t in _doc_terms(doc):
                terms.setdefault(t, set()).add(i)
        stored = self._records("k", terms, list[str])
        for t, ids in terms.items():
            prev = stored.get(t)
            merged = list(prev) if isinstance(prev, list) else []
            for i in sorted(ids):  # a common key's list is long (every document using it)
                _insort(merged, i)
            ops.append(Put(_key(kb, "k", t), _enc.encode(merged)))
        ops.append(Put(kb.keys.system(META), _enc.encode(meta)))
        kb.commit(ops)

    def _sum_ops(
        self, ents_new: dict[str, Entity], old_recs: dict[str, Entity], gone: set[str]
    ) -> list[Op]:
        """The stored sums of the recomputed entities that keep them (a hub's merged ones, the
        others' from all the documents naming them, which the add read); the others' go."""
        kb, schema = self.kb, self.schema
        docs, cats = self._routing_docs()
        ops: list[Op] = []
        for k, e in ents_new.items():
            if hub_merge.keeps_sums(e, schema):
                sums = self.sums.get(k)
                if sums is None:
                    sums = categories.named_in(e, docs, cats, whole=True)
                ops.append(Put(_key(kb, "r", k), _enc.encode(sums)))
            elif k in old_recs and hub_merge.keeps_sums(old_recs[k], schema):
                ops.append(Delete(_key(kb, "r", k)))
        ops += [Delete(_key(kb, "r", k)) for k in gone if hub_merge.keeps_sums(old_recs[k], schema)]
        return ops

    def _link_sum_ops(
        self, ents_new: dict[str, Entity], old_recs: dict[str, Entity], gone: set[str]
    ) -> list[Op]:
        """The stored :class:`~wikikv.compile.shown_links.SubjectSums` of the recomputed
        entities over the bound: a hub's stored ones plus its added documents' part, the others'
        (and an entity crossing the bound) summed from all the documents naming them, whose
        subjects the add read to link them (or reads now); the others' go. An entity not
        recomputed keeps its naming counts, and no stored document's subject changes in an add,
        so its record stays exact."""
        assert self.t_new is not None
        about = self.t_new.about
        keeps = shown_links.keeps_sums
        merged = [k for k in self.hub_added if keeps(ents_new[k]) and keeps(old_recs[k])]
        stored = self._records("l", merged, shown_links.SubjectSums)
        for k in merged:
            if k in stored:
                added = shown_links.subject_sums(self.hub_added[k], about)
                sums = shown_links.add_sums(stored[k], added)
                if shown_links.fits(sums, ents_new[k]):
                    self.link_sums[k] = sums
        self._count("subject sums added to", len(self.link_sums))
        whole = [k for k, e in ents_new.items() if keeps(e) and k not in self.link_sums]
        need = {d for k in whole for d in ents_new[k].times_named}
        shown_links.prefetch_subjects(about, need)
        self._count("subjects summed", len(need))
        for k in whole:
            self.link_sums[k] = shown_links.subject_sums(ents_new[k].times_named, about)
        kb = self.kb
        ops: list[Op] = [
            Put(_key(kb, "l", k), _enc.encode(sums)) for k, sums in self.link_sums.items()
        ]
        for k, e in ents_new.items():
            if k in old_recs and keeps(old_recs[k]) and not keeps(e):
                ops.append(Delete(_key(kb, "l", k)))
        ops += [Delete(_key(kb, "l", k)) for k in gone if keeps(old_recs[k])]
        return ops


def _entry(e: Entity, path: str) -> tuple[str, int, Ranked]:
    m = member(e)
    return dim_path(e.dim), 0 if m.about else 1, Ranked(e.key, e.name, path, m.score)


def _insort(names: list[str], name: str) -> bool:
    """Insert ``name`` into the sorted list ``names`` unless it holds it; whether it did."""
    at = bisect_left(names, name)
    if at < len(names) and names[at] == name:
        return False
    names.insert(at, name)
    return True


class _Sorted:
    """A sorted list of names as a set, by bisection: the chosen record (41k names at 9 copies)
    is read by every add, and a set of all of it cost more than the lookups."""

    def __init__(self, names: list[str]) -> None:
        self.sorted = names

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        names = self.sorted
        at = bisect_left(names, key)
        return at < len(names) and names[at] == key


class _Overlay:
    """The names of a :class:`_Sorted` with some added and some dropped."""

    def __init__(self, base: _Sorted) -> None:
        self.base = base
        self.added: set[str] = set()
        self.dropped: set[str] = set()

    def add(self, key: str) -> None:
        self.dropped.discard(key)
        if key not in self.base:
            self.added.add(key)

    def discard(self, key: str) -> None:
        self.added.discard(key)
        if key in self.base:
            self.dropped.add(key)

    def __contains__(self, key: object) -> bool:
        return key in self.added or (key not in self.dropped and key in self.base)

    def changed(self) -> set[str]:
        """The names in the base or here, not both."""
        return self.added | self.dropped

    def names(self) -> list[str]:
        out = [k for k in self.base.sorted if k not in self.dropped]
        for k in self.added:
            _insort(out, k)
        return out


class _Either:
    """Keys in any of several containers (the title keys and the chosen names, without
    building their union)."""

    def __init__(self, *parts: Container[str]) -> None:
        self.parts = parts

    def __contains__(self, key: object) -> bool:
        return any(key in p for p in self.parts)


__all__ = ["add_documents", "write_full", "title_entities"]
