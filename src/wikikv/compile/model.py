"""The compiled model of a corpus: per-document analyses in, entities with paths, facts and
symmetric links out.

:func:`derive` is a pure function of the current set of :class:`DocAnalysis` records and the
schema: the same documents give the same entities, paths, facts, links and aliases whatever order
they arrived in. That is what makes incremental add / remove exact — removing a document and
adding it back yields the wiki that never lost it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from wikikv.compile import categories, subjects
from wikikv.compile.schema import Schema, plan_routing, range_routing
from wikikv.llm.base import MentionOut, PageNotes, SentenceSpan
from wikikv.store.paths import escape_segment
from wikikv.text import entities as ents
from wikikv.text.entities_zh_reader import kind_by_suffix, weak_place

MIN_DF = 2
ABOUT_FACTS = 30
MAX_FACTS = 150
MAX_MENTIONS = 150
MENTIONS_PER_DOC = 8
CARRY_SPAN = 3
MAX_ALIASES = 12
OTHER_SUBJECT = "\x00other"  # a sentence about someone no page is for ("Her father died")


class DocAnalysis(msgspec.Struct):
    """What the compile step learned about one document (stored in the kb's system keyspace)."""

    id: str
    title: str
    lang: str
    fingerprint: str
    group: str = ""
    about_kind: str = "topic"
    sentences: list[SentenceSpan] = msgspec.field(default_factory=list)
    digest: list[int] = msgspec.field(default_factory=list)
    mentions: list[MentionOut] = msgspec.field(default_factory=list)
    informative: list[int] = msgspec.field(default_factory=list)
    summary: str = ""
    # per sentence: index of its subject mention, or subjects.CARRY / NONE / HEADING / OTHER /
    # TOPIC
    roles: list[int] = msgspec.field(default_factory=list)
    # LLM mode: the grounded page answer (facts, links with reasons, summaries, tags)
    llm: PageNotes | None = None
    # the analysis code that wrote it (wikikv.compile.analyze.ANALYSIS_VERSION)
    version: str = ""
    # English: the category noun of its lead (categories.doc_category), read once here rather
    # than by every derive and every add that routes an entity by the documents naming it
    category: str = ""


class Fact(msgspec.Struct, frozen=True, array_like=True):
    doc: str
    start: int
    end: int


class Entity(msgspec.Struct, array_like=True):
    """One page's subject (a msgspec struct: the persisted model stores it as it is)."""

    key: str
    name: str
    kind: str
    dim: str = ""
    path: str = ""
    about: list[str] = msgspec.field(default_factory=list)
    mentioned_in: dict[str, int] = msgspec.field(default_factory=dict)  # doc → first sentence
    times_named: dict[str, int] = msgspec.field(default_factory=dict)  # doc → how often named
    surfaces: dict[str, int] = msgspec.field(default_factory=dict)
    aliases: list[str] = msgspec.field(default_factory=list)
    qualifier: str = ""
    group: str = ""
    facts: list[Fact] = msgspec.field(default_factory=list)
    mentions: list[Fact] = msgspec.field(default_factory=list)  # sentences that only mention it
    confidence: float = 1.0  # how sure the type (and so the dimension) is
    links: dict[str, set[str]] = msgspec.field(default_factory=dict)  # other key → reasons
    summary: str = ""  # LLM mode: the model's one-line summary of a page without a title doc
    tags: list[str] = msgspec.field(default_factory=list)  # LLM mode: the model's tags
    # links the page does not show (set only on a render's copy: see compile/shown_links.py)
    links_hidden: int = 0


@dataclass
class Model:
    entities: dict[str, Entity]
    about: dict[str, str]  # doc id → entity key
    routing_changed: bool = False
    variants: dict[str, str] = field(default_factory=dict)  # variant key → title entity key
    llm_dropped: dict[str, int] = field(default_factory=dict)  # model items with no page


def article_path(doc_id: str) -> str:
    return "/sources/articles/" + escape_segment(doc_id)


def digest_path(doc_id: str) -> str:
    return "/sources/digests/" + escape_segment(doc_id)


class _Titled(Protocol):
    title: str
    group: str
    lang: str


def title_entities(
    docs: Mapping[str, _Titled], folder_corpus: bool
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(doc → entity key, entity key → display name, entity key → qualifier group).
    In a JSONL corpus passages with one title describe one entity; in a folder corpus the same
    file name in two folders (后记 in two collections) names two works, told apart by folder."""
    by_title: dict[str, set[str]] = defaultdict(set)
    for d in docs.values():
        by_title[ents.fold(d.title)].add(d.group)
    about: dict[str, str] = {}
    display: dict[str, str] = {}
    groups: dict[str, str] = {}
    for doc_id in sorted(docs):
        d = docs[doc_id]
        key = ents.fold(d.title)
        name = d.title
        if folder_corpus and len(by_title[key]) > 1:
            name = f"{d.title}（{d.group}）" if d.lang == "zh" else f"{d.title} ({d.group})"
            key = ents.fold(name)
            groups[key] = d.group
        about[doc_id] = key
        display.setdefault(key, name)
    return about, display, groups


def gazetteer_for(
    docs: Mapping[str, _Titled], folder_corpus: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """(variant key → entity key, key → display) for the entity role of the provider."""
    _, display, _ = title_entities(docs, folder_corpus)
    variants = ents.title_variants(display.values())
    shown = dict(display)
    for variant, key in variants.items():
        if variant not in shown:
            base, _ = ents.split_qualifier(display[key])
            shown[variant] = base if ents.fold(base) == variant else display[key].split(",")[0]
    return variants, shown


class TitleRow(msgspec.Struct, array_like=True):
    """What the corpus-wide title tables need of one document: its title, group, language,
    kind, and the names it declares for its own subject (alias mentions: key, folded surface)."""

    title: str
    group: str
    lang: str
    about_kind: str
    aliases: list[tuple[str, str]] = msgspec.field(default_factory=list)


def title_row(d: DocAnalysis) -> TitleRow:
    return TitleRow(
        d.title,
        d.group,
        d.lang,
        d.about_kind,
        [(m.key, ents.fold(m.surface)) for m in d.mentions if m.kind == ents.ALIAS_KIND],
    )


class Titles(msgspec.Struct):
    """The corpus-wide tables derive resolves mentions with — a function of the documents'
    titles and declared names only (:class:`TitleRow`), so an incremental add recomputes them
    from one small record instead of every analysis."""

    about: dict[str, str]  # doc id → title entity key
    display: dict[str, str]  # title entity key → display name
    groups: dict[str, str]
    variants: dict[str, str]  # variant key → title entity key
    blocked: set[str]
    kinds: dict[str, str]  # title entity key → kind (its first document's)
    short_names: dict[str, str]


def title_tables(rows: Mapping[str, TitleRow], folder_corpus: bool) -> Titles:
    about, display, groups = title_entities(rows, folder_corpus)
    merges = cross_language_merges(rows, about)
    for gone, kept in merges.items():
        for doc_id, key in about.items():
            if key == gone:
                about[doc_id] = kept
        display.pop(gone)
        groups.pop(gone, None)
    variants = ents.title_variants(display.values())
    blocked = ents.ambiguous_bases(display.values())
    if folder_corpus:
        dup_titles = Counter(ents.fold(d.title) for d in rows.values())
        blocked |= {t for t, n in dup_titles.items() if n > 1 and t not in display}
    kinds: dict[str, str] = {}
    for doc_id in sorted(rows):
        kinds.setdefault(about[doc_id], rows[doc_id].about_kind)
    # A name a document declares for its own subject ("Lu Xun was the pen name of Zhou
    # Shuren", "鲁迅，原名周树人": a mention of kind ``alias`` keyed by the subject) becomes a
    # variant of it corpus-wide, unless it already names a title; a name two subjects declare
    # is an alias of neither (namesakes). Sorted: order-independent.
    claimed: dict[str, set[str]] = defaultdict(set)
    for doc_id in sorted(rows):
        for key, surface in rows[doc_id].aliases:
            key = merges.get(key, key)  # 鲁迅's 原名周树人 is Lu Xun's too once they are one
            if key == about[doc_id]:
                claimed[surface].add(key)
    for surface, keys in sorted(claimed.items()):
        if len(keys) == 1:
            variants.setdefault(surface, next(iter(keys)))
    short_names = _short_names(display, kinds, blocked)
    return Titles(about, display, groups, variants, blocked, kinds, short_names)


def cross_language_merges(rows: Mapping[str, TitleRow], about: Mapping[str, str]) -> dict[str, str]:
    """Titles one subject carries in two languages: a document that glosses its title with a
    name in another script ("Lu Xun (Chinese: 鲁迅)") which is itself a title of the corpus, in
    that script and of the same kind, makes the glossed title's documents about the glossing
    one (glossed key → kept key). The kept title's name stays the page's; the other becomes its
    alias. A title glossed by two subjects, or that glosses one itself, stays apart."""
    langs: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, set[str]] = defaultdict(set)
    for doc_id, r in rows.items():
        langs[about[doc_id]].add(r.lang)
        kinds[about[doc_id]].add(r.about_kind)
    claims: dict[str, set[str]] = defaultdict(set)
    for doc_id in sorted(rows):
        r, key = rows[doc_id], about[doc_id]
        for k, surface in r.aliases:
            if k != key or surface == key or surface not in langs:
                continue
            if ents.other_script(r.title, surface) and langs[surface].isdisjoint(langs[key]):
                if kinds[surface] == kinds[key]:
                    claims[surface].add(key)
    merged = {gone: next(iter(keys)) for gone, keys in claims.items() if len(keys) == 1}
    return {gone: kept for gone, kept in merged.items() if kept not in merged}


def title_entity(key: str, titles: Titles, first_doc: TitleRow) -> Entity:
    """A title entity before its documents are read (``first_doc``: its first document)."""
    _, qual = ents.split_qualifier(titles.display[key])
    return Entity(
        key,
        titles.display[key],
        titles.kinds[key],
        qualifier=qual,
        group=titles.groups.get(key, first_doc.group),
    )


# The character a Chinese work is named after (孔乙己 in 《孔乙己》, 范爱农 in the memoir 范爱农) is
# a person of their own, beside the work: a title takes over its name everywhere else, but not
# where its own text names the person.
PROTAGONIST = "（人物）"


def protagonist_key(title_key: str, title_kind: str) -> str:
    """The key of the person a work titled ``title_key`` is named after (a title that is
    itself a person's page keeps its key)."""
    return title_key if title_kind == "person" else title_key + PROTAGONIST


class Resolver:
    """Resolves the mentions of one document to entity or candidate keys (see derive)."""

    def __init__(self, titles: Titles) -> None:
        self.t = titles
        # Resolution of a candidate key that is not an entity depends on the document only
        # through ``present`` and ``titled`` (see _resolve_short); memoised per key.
        self.memo: dict[str, tuple[str, str | None]] = {}

    def resolve(self, doc_id: str, mentions: list[MentionOut]) -> list[tuple[str, MentionOut]]:
        t = self.t
        variants, entities, blocked = t.variants, t.display, t.blocked
        honorifics = ents.HONORIFICS
        alias_kind = ents.ALIAS_KIND
        short_memo = self.memo
        out: list[tuple[str, MentionOut]] = []
        mkeys = [variants.get(m.key, m.key) for m in mentions]
        present: set[str] | None = None
        for m, key in zip(mentions, mkeys, strict=True):
            if key not in entities and m.kind in ("", "person"):
                memo = short_memo.get(key)
                if memo is None:
                    memo = short_memo[key] = _short_plan(key, entities, variants, t.short_names)
                fixed, target = memo
                if target is None:
                    key = fixed
                else:
                    if present is None:
                        present = {t.about[doc_id], *mkeys}
                    if target in present:
                        key = target
                    elif m.surface.split(" ", 1)[0].rstrip(".").casefold() in honorifics:
                        key = target
            if m.kind == "person" and t.about.get(doc_id) == key and ents.has_han(key):
                key = protagonist_key(key, t.kinds.get(key, ""))
            if key in blocked or (len(key) < 2 and not (m.central and ents.has_han(key))):
                continue  # one letter is no name; one Han character is when central (羿, 禹)
            if m.kind == alias_kind and variants.get(ents.fold(m.surface), key) != key:
                continue  # "also known as Bloody Moon" where that title is another entity
            out.append((key, m))
        return out


class CandidateCounts(msgspec.Struct, array_like=True):
    """What the documents say of one name that is no title: per surface and per kind guess
    how often it was used, in how many documents (``df``), whether some document is about it
    (``central``) and whether some use is more than weak evidence of a name (``evidenced``)."""

    surfaces: dict[str, int] = msgspec.field(default_factory=dict)
    kinds: dict[str, int] = msgspec.field(default_factory=dict)
    df: int = 0
    central: int = 0
    evidenced: int = 0

    def chosen(self) -> bool:
        return (self.df >= MIN_DF or self.central > 0) and self.evidenced > 0

    def add(self, uses: list[MentionOut], sign: int = 1) -> None:
        """Count (``sign`` -1: uncount) one document's uses of the name."""
        self.df += sign
        for m in uses:
            if m.central:
                self.central += sign
            if not m.weak:
                self.evidenced += sign
            self.surfaces[m.surface] = self.surfaces.get(m.surface, 0) + sign
            if m.kind:
                # a use with evidence counts twice a weak one (jieba's tag alone): 罗曼罗兰 is
                # ns where essays name him in passing, a person where notes give his lifespan
                weight = 1 if m.weak else 2
                self.kinds[m.kind] = self.kinds.get(m.kind, 0) + sign * weight
        if sign < 0:
            self.surfaces = {k: n for k, n in self.surfaces.items() if n}
            self.kinds = {k: n for k, n in self.kinds.items() if n}


# A treaty is written in title marks (《辛丑条约》) but is an event of history to a reader.
_TREATY = "条约"


def candidate_entity(key: str, counts: CandidateCounts) -> Entity:
    """The entity a chosen candidate name becomes: its most used surface, its most guessed
    kind (ties: the smallest), unless the name itself says the kind."""
    surface = ents.written_whole(min(counts.surfaces, key=lambda s: (-counts.surfaces[s], s)))
    kind, confidence = "", 0.0
    if counts.kinds:
        kind = min(counts.kinds, key=lambda s: (-counts.kinds[s], s))
        confidence = counts.kinds[kind] / sum(counts.kinds.values())
    by_name = ents.kind_by_name(surface) or kind_by_suffix(surface)
    if by_name and kind == "person" and weak_place(surface):
        confidence = min(confidence, 0.6)  # 冯雪峰 or 白问山: a name that ends like a place
    elif by_name == "place" and kind == "person" and confidence == 1.0 and counts.evidenced:
        pass  # 施耐庵: every use is a person's despite the 庵 — a lifespan, a work he wrote
        # (a mention with a place's ending is a person only on such a sign)
    elif (
        (by_name in ("place", "person") or (by_name == "event" and not surface.endswith(_TREATY)))
        and kind in ("work", "org")
        and confidence > 0.5
        and ents.has_han(surface)
    ):
        pass  # 《出了象牙之塔》, 《湘君》, 《文学与革命》: a book or a journal the documents mark
        # as one, named like a place, a person or an event (湘君 ends like 向培良君)
    elif by_name:
        kind, confidence = by_name, max(confidence, 0.9)
    return Entity(key, surface, kind or "topic", confidence=confidence or 0.5)


def derive(docs: dict[str, DocAnalysis], schema: Schema) -> Model:
    """The entities of the current documents (see the module docstring)."""
    return derive_full(docs, schema).model


@dataclass
class Derived:
    """A full derive and the intermediate tables the persisted model keeps."""

    model: Model
    titles: Titles
    rows: dict[str, TitleRow]
    resolved: dict[str, list[tuple[str, MentionOut]]]
    candidates: dict[str, CandidateCounts]


def derive_full(docs: dict[str, DocAnalysis], schema: Schema) -> Derived:
    """:func:`derive`, keeping what :mod:`wikikv.compile.persisted` stores."""
    rows = {doc_id: title_row(d) for doc_id, d in docs.items()}
    titles = title_tables(rows, schema.folder_corpus)
    about, variants = titles.about, titles.variants
    entities: dict[str, Entity] = {}
    order = sorted(docs)
    for doc_id in order:
        key = about[doc_id]
        ent = entities.get(key)
        if ent is None:
            ent = entities[key] = title_entity(key, titles, rows[doc_id])
        ent.about.append(doc_id)

    # Mentions: resolve to title entities, or count candidates by document frequency.
    resolver = Resolver(titles)
    resolved: dict[str, list[tuple[str, MentionOut]]] = {}
    candidates: dict[str, CandidateCounts] = {}
    for doc_id in order:
        out = resolved[doc_id] = resolver.resolve(doc_id, docs[doc_id].mentions)
        for key, uses in candidate_uses(out, entities).items():
            counts = candidates.get(key)
            if counts is None:
                counts = candidates[key] = CandidateCounts()
            counts.add(uses)
    for key in sorted(k for k, c in candidates.items() if c.chosen()):
        entities[key] = candidate_entity(key, candidates[key])

    for doc_id in order:
        link_document(doc_id, about[doc_id], resolved[doc_id], entities)
    facts(entities, docs, resolved, order)
    from wikikv.compile.llm_notes import apply_page_notes  # it builds on this module's types

    llm_dropped = apply_page_notes(entities, docs, variants)
    parts = _name_parts(entities)
    for ent in entities.values():
        aliases(ent, variants, titles.display, parts)
    changed = _place(entities, schema, docs)
    model = Model(
        entities=entities,
        about=about,
        routing_changed=changed,
        variants=variants,
        llm_dropped=llm_dropped,
    )
    return Derived(model, titles, rows, resolved, candidates)


def candidate_uses(
    out: list[tuple[str, MentionOut]], is_entity: Container[str]
) -> dict[str, list[MentionOut]]:
    """One document's resolved uses of names that are not title entities, per name."""
    uses: dict[str, list[MentionOut]] = {}
    for key, m in out:
        if key not in is_entity:
            uses.setdefault(key, []).append(m)
    return uses


def link_document(
    doc_id: str,
    src: str,
    out: list[tuple[str, MentionOut]],
    entities: Mapping[str, Entity],
    is_entity: Container[str] | None = None,
) -> None:
    """Surfaces, "mentioned in" and the symmetric links one document (about ``src``) gives the
    entities it names. ``entities`` may hold only some entities (an incremental update): the
    others are left alone; ``is_entity`` then says which keys are entities at all."""
    known = entities if is_entity is None else is_entity
    src_ent = entities.get(src)
    for key, m in out:
        if key not in known:
            continue
        ent = entities.get(key)
        if ent is not None:
            surfaces = ent.surfaces
            surfaces[m.surface] = surfaces.get(m.surface, 0) + 1
        if key == src:
            continue
        if ent is not None:
            if doc_id not in ent.mentioned_in:
                ent.mentioned_in[doc_id] = m.sent
            ent.times_named[doc_id] = ent.times_named.get(doc_id, 0) + 1
            ent.links.setdefault(src, set()).add("mentioned-by")
        if src_ent is not None:
            src_ent.links.setdefault(key, set()).add("mentions")


def _resolve_short(
    key: str,
    titles: Container[str],
    variants: dict[str, str],
    short_names: dict[str, str],
    present: set[str],
    titled: bool = False,
) -> str:
    """A candidate name that is an honorific plus a title ("dr. john watson") or plus the
    surname of one person title ("mr. holmes"; ``titled``: the surface carried the honorific)
    resolves to that entity; a bare surname ("Holmes") only in a document that also names
    that person in full (or is about them)."""
    parts = key.split(" ", 1)
    if len(parts) == 2 and parts[0].rstrip(".") in ents.HONORIFICS:
        rest = variants.get(parts[1], parts[1])
        if rest in titles:
            return rest
        return short_names.get(rest, key) if " " not in rest else key
    if " " not in key:
        target = short_names.get(key)
        if target is not None and (titled or target in present):
            return target
    return key


def _short_plan(
    key: str, titles: Container[str], variants: dict[str, str], short_names: dict[str, str]
) -> tuple[str, str | None]:
    """:func:`_resolve_short` split into its document-independent part: ``(key', None)`` when
    the answer is ``key'`` whatever the document, ``(key, target)`` when it is ``target`` in a
    document that is titled or names ``target``, and ``key`` otherwise."""
    parts = key.split(" ", 1)
    if len(parts) == 2 and parts[0].rstrip(".") in ents.HONORIFICS:
        return _resolve_short(key, titles, variants, short_names, set()), None
    if " " not in key:
        target = short_names.get(key)
        if target is not None:
            return key, target
    return key, None


def _short_names(
    display: dict[str, str], kinds: dict[str, str], blocked: set[str]
) -> dict[str, str]:
    """Surname → the one person title entity whose name ends with it ("holmes" → Sherlock
    Holmes); a surname two person titles share resolves to neither (homonyms stay apart)."""
    owners: dict[str, set[str]] = defaultdict(set)
    for key, name in display.items():
        if kinds[key] != "person":
            continue
        parts = ents.split_qualifier(name)[0].split(",")[0].split()
        if 2 <= len(parts) <= 4 and all(p[:1].isupper() for p in parts):
            owners[ents.fold(parts[-1])].add(key)
    return {
        s: next(iter(keys))
        for s, keys in owners.items()
        if len(keys) == 1 and s not in blocked and len(s) >= 3
    }


def _subjects(
    d: DocAnalysis,
    keyed: list[str | None],
    is_entity: Container[str],
    kind_of: Callable[[str], str],
) -> dict[int, str]:
    """Sentence index → the entity key that is its subject (see :mod:`subjects`): the subject
    mention's entity, or for a pronoun / ellipsis the nearest preceding subject, when that is a
    person named at most :data:`CARRY_SPAN` sentences before. ``kind_of`` may say "" for an
    entity an incremental update did not load: only that entity's own sentences depend on it."""
    out: dict[int, str] = {}
    last: str | None = None
    last_idx = -(1 << 30)
    for idx, role in enumerate(d.roles):
        if role >= 0:
            key = keyed[role] if role < len(keyed) else None
            if key is not None and key in is_entity:
                out[idx] = last = key
                last_idx = idx
            else:
                last = None
        elif role == subjects.CARRY and last is not None and idx - last_idx <= CARRY_SPAN:
            if kind_of(last) == "person":
                out[idx] = last
                last_idx = idx
        elif role == subjects.OTHER:
            out[idx] = OTHER_SUBJECT  # about a relative: a fact of no page, a mention of hers
            last = None
        elif role == subjects.TOPIC:
            last = None  # a note on someone without a page: its 他 is not the last subject
    return out


def facts(
    entities: Mapping[str, Entity],
    docs: Mapping[str, DocAnalysis],
    resolved: Mapping[str, list[tuple[str, MentionOut]]],
    order: Iterable[str],
    is_entity: Container[str] | None = None,
) -> None:
    """Key facts: a title entity's digest sentences, then every sentence whose subject is the
    entity; "mentioned in": the other sentences that name it (bounded per document).

    ``order`` is every document naming the entities of ``entities``, sorted. An incremental
    update passes only the entities it recomputes (and ``is_entity`` for all entity keys): each
    entity's facts depend only on its own documents, in this order."""
    known: Container[str] = entities if is_entity is None else is_entity
    order = list(order)

    def kind_of(key: str) -> str:
        ent = entities.get(key)
        return "" if ent is None else ent.kind

    subjects_of: dict[str, dict[int, str]] = {}
    for doc_id in order:
        d = docs[doc_id]
        index = {id(m): i for i, m in enumerate(d.mentions)}
        keyed: list[str | None] = [None] * len(d.mentions)
        for key, m in resolved[doc_id]:
            i = index.get(id(m))
            if i is not None:
                keyed[i] = key
        subjects_of[doc_id] = _subjects(d, keyed, known, kind_of)
    for ent in entities.values():
        for doc_id in sorted(ent.about):
            d = docs[doc_id]
            subj = subjects_of[doc_id]
            for idx in d.digest[:ABOUT_FACTS]:
                if _heading(d, idx):
                    continue
                sp = d.sentences[idx]
                other = subj.get(idx, ent.key)
                # A sentence of a person's (place's …) own article whose subject is someone
                # else ("Her brother, Tom, was a painter") is about that one; every sentence of
                # a work is the work's content.
                if ent.kind != "work" and other != ent.key:
                    ent.mentions.append(Fact(doc_id, sp.start, sp.end))
                else:
                    ent.facts.append(Fact(doc_id, sp.start, sp.end))
    # The entities each document is about, once (asking every entity per document is
    # documents x entities: minutes on a 6k corpus).
    owners: dict[str, set[str]] = defaultdict(set)
    for k, e in entities.items():
        for doc_id in e.about:
            owners[doc_id].add(k)
    for doc_id in order:
        d = docs[doc_id]
        subj = subjects_of[doc_id]
        digest = set(d.digest[:ABOUT_FACTS])
        own = owners.get(doc_id, set())
        seen: set[tuple[str, int]] = set()
        for idx, key in sorted(subj.items()):
            seen.add((key, idx))
            subject = entities.get(key)
            if subject is None or (key in own and idx in digest):
                continue
            if len(subject.facts) < MAX_FACTS and 0 <= idx < len(d.sentences):
                sp = d.sentences[idx]
                subject.facts.append(Fact(doc_id, sp.start, sp.end))
        per_doc: dict[str, int] = defaultdict(int)
        for key, m in resolved[doc_id]:
            named = entities.get(key)
            idx = m.sent
            if named is None or (key, idx) in seen or not 0 <= idx < len(d.sentences):
                continue
            if _heading(d, idx):
                continue  # "# John Watson": a title line names him, it says nothing of him
            seen.add((key, idx))
            if key in own and idx in digest:
                continue
            if per_doc[key] >= MENTIONS_PER_DOC or len(named.mentions) >= MAX_MENTIONS:
                continue
            per_doc[key] += 1
            sp = d.sentences[idx]
            named.mentions.append(Fact(doc_id, sp.start, sp.end))


def _heading(d: DocAnalysis, idx: int) -> bool:
    return 0 <= idx < len(d.roles) and d.roles[idx] == subjects.HEADING


def name_words(name: str) -> set[str]:
    """The folded words of a name of several words (none for a one-word name)."""
    words = ents.split_qualifier(name)[0].replace(",", " ").split()
    return {ents.fold(w) for w in words} if len(words) > 1 else set()


def _name_parts(entities: dict[str, Entity]) -> Counter[str]:
    """How many entity names hold each word (folded): a first or last name several entities
    share ("nick") must not become an alias of one of them."""
    owners: Counter[str] = Counter()
    for ent in entities.values():
        owners.update(name_words(ent.name))
    return owners


def aliases(
    ent: Entity, variants: dict[str, str], display: dict[str, str], parts: Mapping[str, int]
) -> None:
    """Other names of the entity: the surfaces the texts use for it, except a single word of
    its own name that other entity names share (a first name, a family name); and the base of a
    qualified title when it is unique."""
    own = ents.fold(ent.name)
    own_words = {ents.fold(w) for w in ents.split_qualifier(ent.name)[0].replace(",", " ").split()}
    names = set()
    for s in ent.surfaces:
        key = ents.fold(s)
        if len(s) > 80 or key == own:
            continue
        if key in own_words and len(own_words) > 1 and parts.get(key, 0) > 1:
            continue  # "Nick" for Nick Carter when Nick Drake is in the kb too
        if variants.get(key, ent.key) != ent.key or (key in display and key != ent.key):
            continue  # another title's name: its own page ("The Trail of the Lonesome Pine")
        names.add(ents.written_whole(s))
    base, qual = ents.split_qualifier(ent.name)
    if qual and variants.get(ents.fold(base)) == ent.key:
        names.add(base)
    if "," in ent.name and variants.get(ents.fold(ent.name.split(",")[0])) == ent.key:
        names.add(ent.name.split(",")[0])
    folded: dict[str, str] = {}
    for n in sorted(names):
        folded.setdefault(ents.fold(n), n)
    ent.aliases = sorted(folded.values())[:MAX_ALIASES]


def _place(entities: dict[str, Entity], schema: Schema, docs: dict[str, DocAnalysis]) -> bool:
    """Assign dimensions and paths; plan a semantic routing level for a dimension over the
    bound (:func:`~wikikv.compile.schema.plan_routing`). Returns whether the schema's routing
    changed (the caller persists it)."""
    by_dim: dict[str, list[Entity]] = defaultdict(list)
    for ent in entities.values():
        ent.dim = schema.dimension_of(ent.kind)
        by_dim[ent.dim].append(ent)
    changed = False
    cats: dict[str, str] | None = None
    for dim, members in by_dim.items():
        members.sort(key=lambda e: e.key)
        plan = schema.routing.get(dim)
        keys = [e.key for e in members]
        labels: list[str] | None = None
        chains: dict[str, list[str]] = {}
        if (plan is not None and plan.groups) or (
            len(members) > schema.fanout and schema.semantic_routing
        ):
            if cats is None:
                cats = categories.doc_categories(docs)
            chains = {
                e.key: categories.entity_chain(e, docs, cats, schema.language) for e in members
            }
        if plan is not None:
            labels = [plan.bucket(e.key, chains.get(e.key, ())) for e in members]
            counts = Counter(labels)
            if counts and max(counts.values()) > schema.fanout:
                plan, labels = None, None
        if plan is None and len(members) > schema.fanout and not schema.semantic_routing:
            plan = schema.routing[dim] = range_routing(keys, schema.fanout)
            changed = True
            labels = [plan.bucket(e.key) for e in members]
        if plan is None and len(members) > schema.fanout:
            starts = {k: categories.start_level(c) for k, c in chains.items()}
            plan = schema.routing[dim] = plan_routing(
                keys, schema.fanout, chains, dim, schema.language, starts=starts
            )
            changed = True
            labels = [plan.bucket(e.key, chains[e.key]) for e in members]
        top = "/" + escape_segment(dim)
        under: dict[str, list[Entity]] = defaultdict(list)
        for i, ent in enumerate(members):
            under[top if labels is None else top + "/" + escape_segment(labels[i])].append(ent)
        for parent, ents_in in under.items():
            for ent, path in zip(
                ents_in, member_paths(parent, [e.name for e in ents_in]), strict=True
            ):
                ent.path = path
    return changed


def member_paths(parent: str, names: list[str]) -> list[str]:
    """The paths of a directory's members, their names given in key order: a name an earlier
    member took gets " (2)", " (3)" …"""
    used: set[str] = set()
    out: list[str] = []
    for name in names:
        seg = escape_segment(name)
        n = 2
        while seg in used:
            seg = escape_segment(f"{name} ({n})")
            n += 1
        used.add(seg)
        out.append(parent + "/" + seg)
    return out
