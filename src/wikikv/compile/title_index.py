"""The title tables kept by key, so that an add updates the entries its titles change.

:func:`wikikv.compile.model.title_tables` is a function of every document's title: which name
is a title entity, which variants (a base without its qualifier, a head before a comma, a
declared name) lead to one, which bare names are blocked, which surnames name one person. Each
entry depends on a few groups of titles, so the persisted model keeps those groups as records
(``compile/model/<family>/<hash>``):

=========  ============================================================================
``tg``     a folded title → the documents with that title (id, title, group, language, kind)
``tb``     a folded base or head → the title keys it comes from (``q``: a qualifier's base)
``tc``     a declared name → the title keys whose own documents declare it
``ts``     a surname → the person title keys whose names end with it
``gz``     a first word and a second (:func:`gaz_bucket`) → the entity detector's gazetteer
           entries starting with them; a first word alone → its one-word entries
``ta``     a document → the title entity it is about
``tt``     a title key → its display name, kind and folder (:class:`TitleEntry`)
``tv``     a variant (or declared name) → the title key it leads to
``tr``     a title key → the variants leading to it
``tx``     a blocked bare name (a homonym, a title used in two folders)
``tn``     a surname → the one person title it names
=========  ============================================================================

The tables themselves (:class:`~wikikv.compile.model.Titles`) are read through
:func:`stored_titles`: each lookup reads its record when first asked for (:class:`Lazy`), and
the add's new tables are :class:`Overlay` s of its changes on them.

:class:`TitleDelta` reads the groups of the new titles, and computes the entries of the tables
they change exactly as the full computation would; the add then patches the stored tables and
writes back the groups. The gazetteer the entity detector reads for the new documents is the
stored one with the new titles' entries (:class:`StoredGazetteer`), read bucket by bucket.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Mapping
from typing import Any

import msgspec

from wikikv.compile.model import TitleRow, Titles
from wikikv.text import entities as ents

Read = Callable[[str, list[str], Any], dict[str, Any]]


class TitleDoc(msgspec.Struct, array_like=True, frozen=True):
    id: str
    title: str
    group: str
    lang: str
    kind: str


class Owner(msgspec.Struct, array_like=True, frozen=True):
    key: str
    qual: bool  # the base of a qualified title (else the head before a comma)


class GazEntry(msgspec.Struct, array_like=True, frozen=True):
    variant: str
    toks: tuple[str, ...]
    key: str


def gaz_bucket(toks: tuple[str, ...]) -> str:
    """The ``gz`` record an entry is stored in: its first two words (a tab between: a folded
    word holds none), or its one word. The detector asks a position for the entries that can
    match before the next word (:meth:`wikikv.text.entities.Gazetteer.candidates`), so an add
    decodes only the buckets its text's word pairs name (a common first word's whole bucket
    holds tens of thousands of entries at 36 copies)."""
    return toks[0] if len(toks) == 1 else f"{toks[0]}\t{toks[1]}"


def gaz_order(e: GazEntry) -> tuple[int, tuple[str, ...], str, str]:
    """The order of a stored ``gz`` bucket: the detector's (longest name first, then name and
    key), so that reading a bucket needs no sort (a common first word's holds thousands of
    entries at 36 copies); the variant last makes it total."""
    return -len(e.toks), e.toks, e.key, e.variant


class TitleEntry(msgspec.Struct, array_like=True, frozen=True):
    display: str
    kind: str
    group: str  # the folder of a title qualified by it, else ""


_MISSING = object()


class Lazy(dict[str, Any]):
    """A stored table read by key: each key's record is read when first asked for (a missing
    one is remembered as missing); :meth:`prefetch` reads many at once. It cannot be listed."""

    def __init__(self, fetch: Callable[[list[str]], dict[str, Any]]) -> None:
        super().__init__()
        self._fetch = fetch
        self._absent: set[str] = set()

    def prefetch(self, keys: Iterable[str]) -> None:
        need = sorted({k for k in keys if not dict.__contains__(self, k) and k not in self._absent})
        if need:
            found = self._fetch(need)
            for k in need:
                if k in found:
                    dict.__setitem__(self, k, found[k])
                else:
                    self._absent.add(k)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        self.prefetch([key])
        return dict.__contains__(self, key)

    def __getitem__(self, key: str) -> Any:
        self.prefetch([key])
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self.prefetch([key])
        return dict.get(self, key, default)


class LazySet(set[str]):
    """A stored set read by key (membership only)."""

    def __init__(self, table: Lazy) -> None:
        super().__init__()
        self.table = table

    def __contains__(self, key: object) -> bool:
        return key in self.table


class Overlay(dict[str, Any]):
    """A table with an add's changes over the stored one (``base``): what it sets or removes,
    read through to the base otherwise; :meth:`changes` lists them."""

    def __init__(self, base: Mapping[str, Any]) -> None:
        super().__init__()
        self.base = base
        self.gone: set[str] = set()

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        return key not in self.gone and key in self.base

    def __getitem__(self, key: str) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        if key in self.gone:
            raise KeyError(key)
        return self.base[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __setitem__(self, key: str, value: Any) -> None:
        self.gone.discard(key)
        dict.__setitem__(self, key, value)

    def pop(self, key: str, default: Any = _MISSING) -> Any:
        value = self.get(key, default)
        dict.pop(self, key, None)
        self.gone.add(key)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def changes(self) -> dict[str, Any]:
        """Key → new value, or None for a removed key."""
        out: dict[str, Any] = dict.fromkeys(self.gone)
        out.update(dict.items(self))
        return out


class OverlaySet(set[str]):
    """A set with an add's changes over the stored one."""

    def __init__(self, base: Container[str]) -> None:
        super().__init__()
        self.base = base
        self.removed: set[str] = set()

    def __contains__(self, key: object) -> bool:
        if set.__contains__(self, key):
            return True
        return key not in self.removed and key in self.base

    def add(self, key: str) -> None:
        self.removed.discard(key)
        set.add(self, key)

    def discard(self, key: object) -> None:
        set.discard(self, key)
        if isinstance(key, str):
            self.removed.add(key)


def stored_titles(read: Read) -> Titles:
    """The stored title tables, each entry read from its record when first asked for."""

    def table(family: str, pick: Callable[[Any], Any] = lambda v: v, kind: Any = str) -> Lazy:
        def fetch(keys: list[str]) -> dict[str, Any]:
            found = read(family, keys, kind)
            return {k: pick(v) for k, v in found.items() if pick(v) is not None}

        return Lazy(fetch)

    return Titles(
        about=table("ta"),
        display=table("tt", lambda e: e.display, TitleEntry),
        groups=table("tt", lambda e: e.group or None, TitleEntry),
        variants=table("tv"),
        blocked=LazySet(table("tx", kind=bool)),
        kinds=table("tt", lambda e: e.kind, TitleEntry),
        short_names=table("tn"),
    )


def prefetch(titles: Titles, keys: Iterable[str], docs: Iterable[str] = ()) -> None:
    """Read at once the entries of ``keys`` (mention keys, folded surfaces) the resolution of
    some documents will ask for, and the subjects of ``docs``."""
    keys = set(keys)
    for t in (titles.variants, titles.short_names, titles.display):
        if isinstance(t, Lazy):
            t.prefetch(keys)
    if isinstance(titles.blocked, LazySet):
        titles.blocked.table.prefetch(keys)
    targets = {titles.variants.get(k) for k in keys} | {titles.short_names.get(k) for k in keys}
    if isinstance(titles.display, Lazy):
        titles.display.prefetch(t for t in targets if t)
    if isinstance(titles.about, Lazy):
        titles.about.prefetch(docs)


# ------------------------------------------------------------- the pieces of one title
def name_of(doc: TitleDoc, qualified: bool) -> str:
    if not qualified:
        return doc.title
    return f"{doc.title}（{doc.group}）" if doc.lang == "zh" else f"{doc.title} ({doc.group})"


def owners_of(key: str, name: str) -> list[tuple[str, Owner]]:
    """The bases a title's name gives (see :func:`wikikv.text.entities.title_variants`)."""
    out: list[tuple[str, Owner]] = []
    base, qual = ents.split_qualifier(name)
    if qual:
        out.append((ents.fold(base), Owner(key, True)))
    head = name.split(",", 1)[0]
    if "," in name and len(head.split()) >= 2:
        out.append((ents.fold(head), Owner(key, False)))
    return out


def surname_of(name: str, kind: str) -> str | None:
    """The surname a person title gives (see ``model._short_names``)."""
    if kind != "person":
        return None
    parts = ents.split_qualifier(name)[0].split(",")[0].split()
    if 2 <= len(parts) <= 4 and all(p[:1].isupper() for p in parts):
        return ents.fold(parts[-1])
    return None


def shown(variant: str, key: str, display: Mapping[str, str]) -> str:
    """The spelling the gazetteer matches a variant by (see ``model.gazetteer_for``)."""
    if variant in display:
        return display[variant]
    base, _ = ents.split_qualifier(display[key])
    return base if ents.fold(base) == variant else display[key].split(",")[0]


def gaz_entry(variant: str, key: str, display: Mapping[str, str]) -> GazEntry | None:
    toks = ents.gazetteer_tokens(shown(variant, key, display))
    return GazEntry(variant, toks, key) if toks else None


# --------------------------------------------------------------------------- full write
def full_records(rows: Mapping[str, TitleRow], titles: Titles) -> Iterable[tuple[str, str, object]]:
    """(family, name, value) of every record, from a full computation of the tables."""
    groups: dict[str, list[TitleDoc]] = defaultdict(list)
    for doc_id in sorted(rows):
        r = rows[doc_id]
        groups[ents.fold(r.title)].append(TitleDoc(doc_id, r.title, r.group, r.lang, r.about_kind))
    for tk, docs in groups.items():
        yield "tg", tk, docs
    bases: dict[str, list[Owner]] = defaultdict(list)
    surnames: dict[str, list[str]] = defaultdict(list)
    for key in sorted(titles.display):
        name = titles.display[key]
        for b, o in owners_of(key, name):
            bases[b].append(o)
        s = surname_of(name, titles.kinds[key])
        if s is not None:
            surnames[s].append(key)
    for b, owners in bases.items():
        yield "tb", b, sorted(set(owners), key=lambda o: (o.key, o.qual))
    for s, keys in surnames.items():
        yield "ts", s, keys
    claimed: dict[str, set[str]] = defaultdict(set)
    for doc_id in sorted(rows):
        about = titles.about[doc_id]
        for key, surface in rows[doc_id].aliases:
            if key not in titles.display and titles.variants.get(key) == about:
                key = about  # a title merged into its other language's (model.title_tables)
            if key == about:
                claimed[surface].add(key)
    for surface, claimers in claimed.items():
        yield "tc", surface, sorted(claimers)
    yield from table_records(titles)
    buckets: dict[str, list[GazEntry]] = defaultdict(list)
    for variant, key in pure_variants(titles).items():
        entry = gaz_entry(variant, key, titles.display)
        if entry is not None:
            buckets[gaz_bucket(entry.toks)].append(entry)
    for name, entries in buckets.items():
        yield "gz", name, sorted(entries, key=gaz_order)


def table_records(titles: Titles) -> Iterable[tuple[str, str, object]]:
    """The records of the tables themselves (see the module docstring)."""
    for doc_id, key in titles.about.items():
        yield "ta", doc_id, key
    for key, name in titles.display.items():
        yield "tt", key, TitleEntry(name, titles.kinds[key], titles.groups.get(key, ""))
    leading: dict[str, list[str]] = defaultdict(list)
    for variant, key in titles.variants.items():
        yield "tv", variant, key
        leading[key].append(variant)
    for key, variants in leading.items():
        yield "tr", key, sorted(variants)
    for x in titles.blocked:
        yield "tx", x, True
    for surname, key in titles.short_names.items():
        yield "tn", surname, key


def pure_variants(titles: Titles) -> dict[str, str]:
    """The variants of the titles alone (without declared names): the gazetteer's."""
    return ents.title_variants(titles.display.values())


# ------------------------------------------------------------------------ the delta
class _Fallback(Exception):
    pass


class TitleDelta:
    """The tables after adding titles (``rows``: the new documents), from the stored tables
    ``old`` and the groups the new titles touch, read through ``read(family, names, type)``.

    ``changed`` holds every key whose entry of some table changed (display, kind, group,
    variant, blocked, short name); ``new`` is the patched tables; ``records`` the groups to
    write back; ``gaz_out`` / ``gaz_in`` the gazetteer entries that went and came."""

    def __init__(self, old: Titles, rows: Mapping[str, TitleRow], folder: bool, read: Read) -> None:
        self.old = old
        self.folder = folder
        self.read = read
        self.records: list[tuple[str, str, object]] = []
        self.changed: set[str] = set()
        self.keys_changed: set[str] = set()
        self.new_keys: set[str] = set()
        self.blocked_changed: set[str] = set()
        self.gaz_out: list[GazEntry] = []
        self.gaz_in: list[GazEntry] = []
        self.reason = ""
        try:
            self.new = self._compute(rows)
        except _Fallback as exc:
            self.reason = str(exc)
            self.new = old

    def _compute(self, rows: Mapping[str, TitleRow]) -> Titles:
        old = self.old
        by_tk: dict[str, list[TitleDoc]] = defaultdict(list)
        for doc_id in sorted(rows):
            r = rows[doc_id]
            if any(ents.other_script(r.title, surface) for _, surface in r.aliases):
                raise _Fallback("a title glossed in another language may merge two titles")
            by_tk[ents.fold(r.title)].append(
                TitleDoc(doc_id, r.title, r.group, r.lang, r.about_kind)
            )
        stored: dict[str, list[TitleDoc]] = self.read("tg", sorted(by_tk), list[TitleDoc])
        glossed: dict[str, list[str]] = self.read("tc", sorted(by_tk), list[str])
        if any(ents.other_script(tk, k) for tk, keys in glossed.items() for k in keys):
            raise _Fallback("a new title is another language's title's declared name")
        about, display = Overlay(old.about), Overlay(old.display)
        kinds, groups = Overlay(old.kinds), Overlay(old.groups)
        keys_changed: set[str] = set()
        dup: dict[str, int] = {}
        for tk, new_docs in by_tk.items():
            have = stored.get(tk, [])
            docs = sorted([*have, *new_docs], key=lambda d: d.id)
            self.records.append(("tg", tk, docs))
            dup[tk] = len(docs)
            qualified = self.folder and len({d.group for d in docs}) > 1
            if have and qualified != (self.folder and len({d.group for d in have}) > 1):
                raise _Fallback("a new title changes another document's subject")
            firsts: dict[str, TitleDoc] = {}
            before: set[str] = set()
            for d in docs:
                key = ents.fold(name_of(d, qualified))
                if d.id in rows:
                    about[d.id] = key
                else:
                    before.add(key)
                    if old.about.get(d.id) != key:
                        raise _Fallback("a new title changes another document's subject")
                firsts.setdefault(key, d)
            for key, first in firsts.items():
                if (key in old.display) != (key in before):  # two groups give one key
                    raise _Fallback("a title equals another title's qualified name")
                name = name_of(first, qualified)
                group = first.group if qualified else groups.get(key)
                if (display.get(key), kinds.get(key), groups.get(key)) != (name, first.kind, group):
                    keys_changed.add(key)
                    display[key], kinds[key] = name, first.kind
                    if group is not None:
                        groups[key] = group

        # the bases and heads of titles whose names changed, and the new declared names
        moves: dict[str, list[tuple[Owner | None, Owner | None]]] = defaultdict(list)
        for key in keys_changed:
            for b, o in owners_of(key, old.display[key]) if key in old.display else []:
                moves[b].append((o, None))
            for b, o in owners_of(key, display[key]):
                moves[b].append((None, o))
        claims: dict[str, set[str]] = defaultdict(set)
        for doc_id in sorted(rows):
            for key, surface in rows[doc_id].aliases:
                if key == about[doc_id]:
                    claims[surface].add(key)
        names = sorted(keys_changed | set(moves) | set(claims) | set(by_tk))
        base_rec: dict[str, list[Owner]] = self.read("tb", names, list[Owner])
        claim_rec: dict[str, list[str]] = self.read("tc", sorted(claims), list[str])
        owners_old = {v: base_rec.get(v, []) for v in names}
        owners_new = dict(owners_old)
        for b, pairs in moves.items():
            owners = list(owners_old[b])
            for gone, came in pairs:
                if gone is not None:
                    owners.remove(gone)
                if came is not None:
                    owners.append(came)
            owners_new[b] = sorted(set(owners), key=lambda o: (o.key, o.qual))
            self.records.append(("tb", b, owners_new[b]))
        for surface, keys in claims.items():
            self.records.append(("tc", surface, sorted(set(claim_rec.get(surface, [])) | keys)))

        def pure(v: str, disp: Mapping[str, str], owners: Mapping[str, list[Owner]]) -> str | None:
            if v in disp:
                return v
            keys = {o.key for o in owners.get(v, [])}
            return next(iter(keys)) if len(keys) == 1 else None

        variants = Overlay(old.variants)
        self.pure_old: dict[str, str | None] = {}
        self.pure_new: dict[str, str | None] = {}
        for v in names:
            self.pure_old[v] = pure(v, old.display, owners_old)
            self.pure_new[v] = final = pure(v, display, owners_new)
            claimed = set(claim_rec.get(v, [])) | claims.get(v, set())
            if final is None and len(claimed) == 1:
                final = next(iter(claimed))
            if variants.get(v) != final:
                self.changed.add(v)
                if final is None:
                    variants.pop(v, None)
                else:
                    variants[v] = final

        # blocked bases (qualified homonyms; in a folder corpus, titles used in two folders)
        blocked = OverlaySet(old.blocked)
        blocked_changed: set[str] = set()
        xs = set(moves) | set(by_tk) | keys_changed
        if self.folder:
            more: dict[str, list[TitleDoc]] = self.read("tg", sorted(xs - set(dup)), list[TitleDoc])
            dup.update((x, len(more.get(x, []))) for x in xs - set(dup))
        for x in xs:
            quals = {o.key for o in owners_new.get(x, []) if o.qual}
            now_blocked = len(quals) > 1 or (self.folder and dup.get(x, 0) > 1 and x not in display)
            if now_blocked != (x in blocked):
                self.changed.add(x)
                blocked_changed.add(x)
                if now_blocked:
                    blocked.add(x)
                else:
                    blocked.discard(x)

        # surnames of person titles
        sn_moves: dict[str, list[tuple[str | None, str | None]]] = defaultdict(list)
        for key in keys_changed:
            if key in old.display:
                s0 = surname_of(old.display[key], old.kinds[key])
                if s0 is not None:
                    sn_moves[s0].append((key, None))
            s1 = surname_of(display[key], kinds[key])
            if s1 is not None:
                sn_moves[s1].append((None, key))
        surnames = sorted(set(sn_moves) | blocked_changed)
        sn_rec: dict[str, list[str]] = self.read("ts", surnames, list[str])
        short = Overlay(old.short_names)
        for s in surnames:
            owning = set(sn_rec.get(s, []))
            for gone_k, came_k in sn_moves.get(s, []):
                if gone_k is not None:
                    owning.discard(gone_k)
                if came_k is not None:
                    owning.add(came_k)
            if s in sn_moves:
                self.records.append(("ts", s, sorted(owning)))
            one = len(owning) == 1 and s not in blocked and len(s) >= 3
            target = next(iter(owning)) if one else None
            if short.get(s) != target:
                self.changed.add(s)
                if target is None:
                    short.pop(s, None)
                else:
                    short[s] = target

        # the gazetteer: a pure variant's entry, spelled from its title's display name
        for v in names:
            k0, k1 = self.pure_old[v], self.pure_new[v]
            e0 = gaz_entry(v, k0, old.display) if k0 is not None else None
            e1 = gaz_entry(v, k1, display) if k1 is not None else None
            if e0 != e1:
                if e0 is not None:
                    self.gaz_out.append(e0)
                if e1 is not None:
                    self.gaz_in.append(e1)
        self.keys_changed = keys_changed
        self.new_keys = {k for k in keys_changed if k not in old.display}
        self.blocked_changed = blocked_changed
        self.changed |= keys_changed
        return Titles(about, display, groups, variants, blocked, kinds, short)

    def table_records(self) -> list[tuple[str, str, object]]:
        """The records of the table entries the new titles changed (a removed one: None)."""
        new = self.new
        out: list[tuple[str, str, object]] = []
        assert isinstance(new.about, Overlay)
        assert isinstance(new.variants, Overlay)
        assert isinstance(new.short_names, Overlay)
        out += [("ta", doc_id, key) for doc_id, key in new.about.changes().items()]
        for key in sorted(self.keys_changed):
            entry = TitleEntry(new.display[key], new.kinds[key], new.groups.get(key, ""))
            out.append(("tt", key, entry))
        moved = new.variants.changes()
        out += [("tv", v, key) for v, key in moved.items()]
        targets = {t for v, key in moved.items() for t in (self.old.variants.get(v), key) if t}
        leading: dict[str, list[str]] = self.read("tr", sorted(targets), list[str])
        for t in sorted(targets):
            now = set(leading.get(t, []))
            for v, key in moved.items():
                if key == t:
                    now.add(v)
                elif self.old.variants.get(v) == t:
                    now.discard(v)
            out.append(("tr", t, sorted(now) or None))
        out += [("tx", x, True if x in new.blocked else None) for x in sorted(self.blocked_changed)]
        out += [("tn", s, key) for s, key in new.short_names.changes().items()]
        return out

    def leading_to(self) -> set[str]:
        """The keys whose resolution the tables may answer differently: those whose entries
        changed, and every variant that leads to one of them (before the add; the variants
        that changed are among the changed keys)."""
        leading: dict[str, list[str]] = self.read("tr", sorted(self.changed), list[str])
        return self.changed.union(*leading.values())

    def gaz_records(self) -> list[tuple[str, str, object]]:
        """The gazetteer buckets the new titles change, read and patched."""
        names = sorted({gaz_bucket(e.toks) for e in [*self.gaz_out, *self.gaz_in]})
        stored: dict[str, list[GazEntry]] = self.read("gz", names, list[GazEntry])
        out: list[tuple[str, str, object]] = []
        for name in names:
            bucket = list(stored.get(name, []))
            for e in self.gaz_out:
                if gaz_bucket(e.toks) == name:
                    bucket.remove(e)
            bucket += [e for e in self.gaz_in if gaz_bucket(e.toks) == name]
            out.append(("gz", name, sorted(bucket, key=gaz_order)))
        return out


_Entry = tuple[tuple[str, ...], str]


class StoredGazetteer(ents.Gazetteer):
    """The gazetteer of the ``gz`` records, read a bucket at a time as the detector asks for a
    position's candidates, with the entries of titles not stored yet (``came``) merged in and
    those they replace (``gone``) left out, ordered as
    :meth:`wikikv.text.entities.Gazetteer.finish` orders them. ``decoded`` counts the stored
    buckets read."""

    def __init__(
        self, read: Read, gone: Iterable[GazEntry] = (), came: Iterable[GazEntry] = ()
    ) -> None:
        super().__init__()
        self._read = read
        self._changed: dict[str, tuple[set[GazEntry], list[GazEntry]]] = {}
        for e in gone:
            self._changed.setdefault(gaz_bucket(e.toks), (set(), []))[0].add(e)
        for e in came:
            self._changed.setdefault(gaz_bucket(e.toks), (set(), []))[1].append(e)
        self._buckets: dict[str, list[_Entry]] = {}
        self.decoded = 0

    def prefetch(self, toks: list[tuple[str, int, int]], folded: list[str]) -> None:
        positions = ents.gazetteer_positions(toks, folded)
        names = {first for first, _ in positions}
        names |= {f"{first}\t{second}" for first, second in positions if second is not None}
        self._load(names - self._buckets.keys())

    def _load(self, names: Iterable[str]) -> None:
        need = sorted(names)
        if not need:
            return
        found: dict[str, list[GazEntry]] = self._read("gz", need, list[GazEntry])
        self.decoded += len(found)
        for name in need:
            stored = found.get(name, [])
            change = self._changed.get(name)
            if change is not None:
                gone, came = change
                stored = sorted([e for e in stored if e not in gone] + came, key=gaz_order)
            # in the detector's order (gaz_order): the same (name, key) of two variants are
            # neighbours
            bucket: list[_Entry] = []
            last: _Entry | None = None
            for e in stored:
                pair = (e.toks, e.key)
                if pair != last:
                    bucket.append(pair)
                    last = pair
            self._buckets[name] = bucket

    def _bucket(self, name: str) -> list[_Entry]:
        if name not in self._buckets:
            self._load([name])
        return self._buckets[name]

    def candidates(self, first: str, second: str | None) -> Iterable[_Entry]:
        singles = self._bucket(first)
        if second is None:
            return singles
        more = self._bucket(f"{first}\t{second}")
        return more + singles if more and singles else more or singles
