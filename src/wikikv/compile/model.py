"""The compiled model of a corpus: per-document analyses in, entities with paths, facts and
symmetric links out.

:func:`derive` is a pure function of the current set of :class:`DocAnalysis` records and the
schema: the same documents give the same entities, paths, facts, links and aliases whatever order
they arrived in. That is what makes incremental add / remove exact — removing a document and
adding it back yields the wiki that never lost it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import msgspec

from wikikv.compile import categories, subjects
from wikikv.compile.schema import Schema, plan_routing
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
    # per sentence: index of its subject mention, or subjects.CARRY / NONE / HEADING
    roles: list[int] = msgspec.field(default_factory=list)
    # LLM mode: the grounded page answer (facts, links with reasons, summaries, tags)
    llm: PageNotes | None = None


@dataclass(frozen=True)
class Fact:
    doc: str
    start: int
    end: int


@dataclass
class Entity:
    key: str
    name: str
    kind: str
    dim: str = ""
    path: str = ""
    about: list[str] = field(default_factory=list)
    mentioned_in: dict[str, int] = field(default_factory=dict)  # doc → first sentence index
    times_named: dict[str, int] = field(default_factory=dict)  # doc → how often it names it
    surfaces: dict[str, int] = field(default_factory=dict)
    aliases: list[str] = field(default_factory=list)
    qualifier: str = ""
    group: str = ""
    facts: list[Fact] = field(default_factory=list)
    mentions: list[Fact] = field(default_factory=list)  # sentences that only mention it
    confidence: float = 1.0  # how sure the type (and so the dimension) is
    links: dict[str, set[str]] = field(default_factory=dict)  # other key → reasons
    summary: str = ""  # LLM mode: the model's one-line summary of a page without a title doc
    tags: list[str] = field(default_factory=list)  # LLM mode: the model's tags


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


def title_entities(
    docs: dict[str, DocAnalysis], folder_corpus: bool
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
    docs: dict[str, DocAnalysis], folder_corpus: bool
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


def derive(docs: dict[str, DocAnalysis], schema: Schema) -> Model:
    """The entities of the current documents (see the module docstring)."""
    about, display, groups = title_entities(docs, schema.folder_corpus)
    variants = ents.title_variants(display.values())
    blocked = ents.ambiguous_bases(display.values())
    if schema.folder_corpus:
        dup_titles = Counter(ents.fold(d.title) for d in docs.values())
        blocked |= {t for t, n in dup_titles.items() if n > 1 and t not in display}
    entities: dict[str, Entity] = {}
    for doc_id in sorted(docs):
        key = about[doc_id]
        d = docs[doc_id]
        ent = entities.get(key)
        if ent is None:
            base, qual = ents.split_qualifier(display[key])
            ent = Entity(
                key, display[key], d.about_kind, qualifier=qual, group=groups.get(key, d.group)
            )
            entities[key] = ent
        ent.about.append(doc_id)

    _declared_aliases(docs, about, variants)
    short_names = _short_names(entities, blocked)

    # Mentions: resolve to title entities, or count candidates by document frequency.
    resolved: dict[str, list[tuple[str, MentionOut]]] = {}
    df: dict[str, int] = {}
    # Candidate names are counted as (key, surface) and (key, kind) pairs: flat dicts keep this
    # loop over every mention of the corpus cheap enough for a one-document incremental add.
    cand_surface: dict[tuple[str, str], int] = {}
    cand_kind: dict[tuple[str, str], int] = {}
    central: set[str] = set()  # names a document is about (a story's characters)
    evidenced: set[str] = set()  # names some document shows used as names (not only weak)
    # Resolution of a candidate key that is not an entity depends on the document only through
    # ``present`` and ``titled`` (see _resolve_short); memoise the rest per key.
    short_memo: dict[str, tuple[str, str | None]] = {}
    honorifics = ents.HONORIFICS
    alias_kind = ents.ALIAS_KIND
    order = sorted(docs)
    for doc_id in order:
        seen: set[str] = set()
        out: list[tuple[str, MentionOut]] = []
        mentions = docs[doc_id].mentions
        mkeys = [variants.get(m.key, m.key) for m in mentions]
        present: set[str] | None = None
        for m, key in zip(mentions, mkeys, strict=True):
            if key not in entities and m.kind in ("", "person"):
                memo = short_memo.get(key)
                if memo is None:
                    memo = short_memo[key] = _short_plan(key, entities, variants, short_names)
                fixed, target = memo
                if target is None:
                    key = fixed
                else:
                    if present is None:
                        present = {about[doc_id], *mkeys}
                    if target in present:
                        key = target
                    elif m.surface.split(" ", 1)[0].rstrip(".").casefold() in honorifics:
                        key = target
            if key in blocked or (len(key) < 2 and not (m.central and ents._has_han(key))):
                continue  # one letter is no name; one Han character is when central (羿, 禹)
            if m.kind == alias_kind and variants.get(ents.fold(m.surface), key) != key:
                continue  # "also known as Bloody Moon" where that title is another entity
            out.append((key, m))
            if key not in entities:
                if m.central:
                    central.add(key)
                if not m.weak:
                    evidenced.add(key)
                pair = (key, m.surface)
                cand_surface[pair] = cand_surface.get(pair, 0) + 1
                if m.kind:
                    kpair = (key, m.kind)
                    cand_kind[kpair] = cand_kind.get(kpair, 0) + 1
                if key not in seen:
                    df[key] = df.get(key, 0) + 1
                    seen.add(key)
        resolved[doc_id] = out
    chosen = {
        k
        for k, n in df.items()
        if (n >= MIN_DF or k in central) and k in evidenced and k not in entities
    }
    best_surface = _best(cand_surface, chosen)
    kinds = _kinds(cand_kind, chosen)
    for key in sorted(chosen):
        surface = best_surface[key]
        kind, confidence = kinds.get(key, ("", 0.0))
        by_name = ents.kind_by_name(surface) or kind_by_suffix(surface)
        if by_name and kind == "person" and weak_place(surface):
            confidence = min(confidence, 0.6)  # 冯雪峰 or 白问山: a name that ends like a place
        elif by_name:
            kind, confidence = by_name, max(confidence, 0.9)
        entities[key] = Entity(key, surface, kind or "topic", confidence=confidence or 0.5)

    for doc_id in order:
        src = about[doc_id]
        src_links = entities[src].links
        for key, m in resolved[doc_id]:
            ent = entities.get(key)
            if ent is None:
                continue
            surfaces = ent.surfaces
            surfaces[m.surface] = surfaces.get(m.surface, 0) + 1
            if key == src:
                continue
            if doc_id not in ent.mentioned_in:
                ent.mentioned_in[doc_id] = m.sent
            ent.times_named[doc_id] = ent.times_named.get(doc_id, 0) + 1
            ent.links.setdefault(src, set()).add("mentioned-by")
            src_links.setdefault(key, set()).add("mentions")

    _facts(entities, docs, resolved)
    from wikikv.compile.llm_notes import apply_page_notes  # it builds on this module's types

    llm_dropped = apply_page_notes(entities, docs, variants)
    parts = _name_parts(entities)
    for ent in entities.values():
        _aliases(ent, variants, display, parts)
    changed = _place(entities, schema, docs)
    return Model(
        entities=entities,
        about=about,
        routing_changed=changed,
        variants=variants,
        llm_dropped=llm_dropped,
    )


def _declared_aliases(
    docs: dict[str, DocAnalysis], about: dict[str, str], variants: dict[str, str]
) -> None:
    """A name a document declares for its own subject ("Lu Xun was the pen name of Zhou
    Shuren", "鲁迅，原名周树人": a mention of kind ``alias`` keyed by the subject) becomes a
    variant of it corpus-wide, unless it already names a title. Sorted, so order-independent."""
    for doc_id in sorted(docs):
        for m in docs[doc_id].mentions:
            if m.kind == ents.ALIAS_KIND and m.key == about[doc_id]:
                variants.setdefault(ents.fold(m.surface), m.key)


def _short_names(entities: dict[str, Entity], blocked: set[str]) -> dict[str, str]:
    """Surname → the one person title entity whose name ends with it ("holmes" → Sherlock
    Holmes); a surname two person titles share resolves to neither (homonyms stay apart)."""
    owners: dict[str, set[str]] = defaultdict(set)
    for ent in entities.values():
        if ent.kind != "person":
            continue
        parts = ents.split_qualifier(ent.name)[0].split(",")[0].split()
        if 2 <= len(parts) <= 4 and all(p[:1].isupper() for p in parts):
            owners[ents.fold(parts[-1])].add(ent.key)
    return {
        s: next(iter(keys))
        for s, keys in owners.items()
        if len(keys) == 1 and s not in blocked and len(s) >= 3
    }


def _resolve_short(
    key: str,
    titles: dict[str, Entity],
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
    key: str, titles: dict[str, Entity], variants: dict[str, str], short_names: dict[str, str]
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


def _kinds(counts: dict[tuple[str, str], int], keys: set[str]) -> dict[str, tuple[str, float]]:
    """Per key, the most frequent kind guess and the share of the guesses it got."""
    total: dict[str, int] = defaultdict(int)
    for (key, _), n in counts.items():
        if key in keys:
            total[key] += n
    best = _best(counts, keys)
    return {k: (v, counts[(k, v)] / total[k]) for k, v in best.items()}


def _best(counts: dict[tuple[str, str], int], keys: set[str]) -> dict[str, str]:
    """Per key, the most frequent value (ties: the smallest)."""
    out: dict[str, tuple[int, str]] = {}
    for (key, value), n in counts.items():
        if key in keys:
            cur = out.get(key)
            if cur is None or (-n, value) < (-cur[0], cur[1]):
                out[key] = (n, value)
    return {k: v for k, (_, v) in out.items()}


def _subjects(
    d: DocAnalysis, keyed: list[str | None], entities: dict[str, Entity]
) -> dict[int, str]:
    """Sentence index → the entity key that is its subject (see :mod:`subjects`): the subject
    mention's entity, or for a pronoun / ellipsis the nearest preceding subject, when that is a
    person named at most :data:`CARRY_SPAN` sentences before."""
    out: dict[int, str] = {}
    last: str | None = None
    last_idx = -(1 << 30)
    for idx, role in enumerate(d.roles):
        if role >= 0:
            key = keyed[role] if role < len(keyed) else None
            if key is not None and key in entities:
                out[idx] = last = key
                last_idx = idx
            else:
                last = None
        elif role == subjects.CARRY and last is not None and idx - last_idx <= CARRY_SPAN:
            if entities[last].kind == "person":
                out[idx] = last
                last_idx = idx
    return out


def _facts(
    entities: dict[str, Entity],
    docs: dict[str, DocAnalysis],
    resolved: dict[str, list[tuple[str, MentionOut]]],
) -> None:
    """Key facts: a title entity's digest sentences, then every sentence whose subject is the
    entity; "mentioned in": the other sentences that name it (bounded per document)."""
    subjects_of: dict[str, dict[int, str]] = {}
    for doc_id in sorted(docs):
        d = docs[doc_id]
        index = {id(m): i for i, m in enumerate(d.mentions)}
        keyed: list[str | None] = [None] * len(d.mentions)
        for key, m in resolved[doc_id]:
            i = index.get(id(m))
            if i is not None:
                keyed[i] = key
        subjects_of[doc_id] = _subjects(d, keyed, entities)
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
    for doc_id in sorted(docs):
        d = docs[doc_id]
        subj = subjects_of[doc_id]
        digest = set(d.digest[:ABOUT_FACTS])
        own = owners.get(doc_id, set())
        seen: set[tuple[str, int]] = set()
        for idx, key in sorted(subj.items()):
            ent = entities[key]
            if key in own and idx in digest:
                continue
            if len(ent.facts) < MAX_FACTS and 0 <= idx < len(d.sentences):
                sp = d.sentences[idx]
                ent.facts.append(Fact(doc_id, sp.start, sp.end))
            seen.add((key, idx))
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


def _name_parts(entities: dict[str, Entity]) -> Counter[str]:
    """How many entity names hold each word (folded): a first or last name several entities
    share ("nick") must not become an alias of one of them."""
    owners: Counter[str] = Counter()
    for ent in entities.values():
        words = ents.split_qualifier(ent.name)[0].replace(",", " ").split()
        if len(words) > 1:
            owners.update({ents.fold(w) for w in words})
    return owners


def _aliases(
    ent: Entity, variants: dict[str, str], display: dict[str, str], parts: Counter[str]
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
        if key in own_words and len(own_words) > 1 and parts[key] > 1:
            continue  # "Nick" for Nick Carter when Nick Drake is in the kb too
        names.add(s)
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
        if plan is not None or len(members) > schema.fanout:
            if cats is None:
                cats = categories.doc_categories(docs)
            chains = {
                e.key: categories.entity_chain(e, docs, cats, schema.language) for e in members
            }
        if plan is not None:
            labels = [plan.bucket(e.key, chains[e.key]) for e in members]
            counts = Counter(labels)
            if counts and max(counts.values()) > schema.fanout:
                plan, labels = None, None
        if plan is None and len(members) > schema.fanout:
            starts = {k: categories.start_level(c) for k, c in chains.items()}
            plan = schema.routing[dim] = plan_routing(
                keys, schema.fanout, chains, dim, schema.language, starts=starts
            )
            changed = True
            labels = [plan.bucket(e.key, chains[e.key]) for e in members]
        taken: dict[str, set[str]] = defaultdict(set)
        top = "/" + escape_segment(dim)
        bucket_dirs: dict[str, str] = {}
        for i, ent in enumerate(members):
            parent = top
            if labels is not None:
                label = labels[i]
                parent = bucket_dirs.get(label) or bucket_dirs.setdefault(
                    label, top + "/" + escape_segment(label)
                )
            seg = escape_segment(ent.name)
            n = 2
            used = taken[parent]
            while seg in used:
                seg = escape_segment(f"{ent.name} ({n})")
                n += 1
            used.add(seg)
            ent.path = parent + "/" + seg
    return changed
