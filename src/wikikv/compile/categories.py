"""What kind of thing a page is about, read from the corpus itself (the offline Architect's
signal for semantic sub-dimensions).

English encyclopaedic passages open with a definitional sentence: "X is a 2011 album by Y",
"X was an American film director". The head noun of the predicate's noun phrase ("album",
"director") names the category; its plural ("albums", "directors") names a sub-dimension a
reader would look under. Chinese texts do not define themselves that way; there the category
is where a page lives in the corpus: the collection a text belongs to, the work a character
appears in (see :func:`home_label`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Protocol

import msgspec

from wikikv.text.broad_kinds import BROAD, BROAD_LABELS, RELATION, broad_kind
from wikikv.text.kinds import kind_of_noun
from wikikv.text.lead import ASIDE, COPULA, NOT_HEAD, NP_END, lead_head, normalized

# "the second son of ..." defines a person by kinship: one sub-dimension for all of them.
_FAMILY: dict[str, str] = dict.fromkeys(
    [
        "son",
        "daughter",
        "wife",
        "husband",
        "brother",
        "sister",
        "father",
        "mother",
        "child",
        "widow",
        "consort",
        "heir",
        "grandson",
        "granddaughter",
        "nephew",
        "niece",
        "spouse",
    ],
    "family member",
)
FAMILY = "family member"
_IRREGULAR = {
    "man": "men",
    "woman": "women",
    "person": "people",
    "child": "children",
    "sportsman": "sportsmen",
    "chairman": "chairmen",
    "congressman": "congressmen",
    "statesman": "statesmen",
    "clergyman": "clergymen",
    "series": "series",
    "species": "species",
    "genus": "genera",
    "people": "peoples",  # "were an Indigenous Australian people": a people, not persons
    "range": "mountain ranges",  # "/places/ranges" reads as a range of names
    "footballer": "footballers",
    "fish": "fish",
    "chess": "chess",  # a game, no count noun: "in articles on chess"
    "aircraft": "aircraft",
}


# Gendered forms of one kind of person share one group: a reader looks for an actress among
# the actors, and "dukes" beside "duchesses" are two shelves of one kind.
_SHARED: dict[str, str] = {
    "actor": "actors",
    "actress": "actors",
    "comedienne": "comedians",
    "poetess": "poets",
    "sculptress": "sculptors",
    "aviatrix": "aviators",
    "songstress": "singers",
    "businessman": "business people",  # the broad group's own name: one directory
    "businesswoman": "business people",
    "noble": "nobles",
    "nobleman": "nobles",
    "noblewoman": "nobles",
    **dict.fromkeys(("king", "queen"), "kings and queens"),
    **dict.fromkeys(("prince", "princess"), "princes and princesses"),
    **dict.fromkeys(("duke", "duchess"), "dukes and duchesses"),
    **dict.fromkeys(("count", "countess"), "counts and countesses"),
    **dict.fromkeys(("emperor", "empress"), "emperors and empresses"),
    **dict.fromkeys(("baron", "baroness"), "barons and baronesses"),
    **dict.fromkeys(("viscount", "viscountess"), "viscounts and viscountesses"),
    **dict.fromkeys(("margrave", "margravine"), "margraves and margravines"),
    **dict.fromkeys(("landgrave", "landgravine"), "landgraves and landgravines"),
}


_GREEK_ARCH = re.compile(r"(?:patri|matri|mon|olig|ex|ep|tetr|hier|heresi|ethn|nom)arch$")


def plural(noun: str) -> str:
    """A good-enough English plural of a category noun (one label for a kind's gendered
    forms: actress → actors, duchess → dukes and duchesses)."""
    low = noun.lower()
    if low in _SHARED:
        return _SHARED[low]
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    for end, repl in (("man", "men"),):
        if low.endswith(end) and len(low) > 5:
            return low[: -len(end)] + repl
    if _GREEK_ARCH.search(low):
        return low + "s"  # "patriarchs", "monarchs": a Greek ruler's "-arch" is no "march"
    if re.search(r"[^aeiou]y$", low):
        return low[:-1] + "ies"
    if re.search(r"[^su]s$", low) and not low.endswith("is"):
        return low  # already plural: "one of the champions", "one of the colleges"
    if re.search(r"(s|x|z|ch|sh)$", low):
        return low + "es"
    return low + "s"


def lead_category(sentence: str, title: str = "") -> str:
    """The category noun (singular, lower case) of a definitional lead sentence, or "" when the
    sentence does not define its subject."""
    head = lead_head(sentence, title)
    return str(_FAMILY.get(head, head))


def modifier(sentence: str) -> str:
    """The capitalized adjective of the noun phrase ("American" in "an American film
    director"): the second-level split of a category too large for one directory."""
    phrase = _phrase(sentence)
    out: list[str] = []
    for w in re.findall(r"[A-Za-z][A-Za-z'\-]*-?", phrase):
        if w[:1].isupper() and w.lower() not in BROAD:  # a title ("Countess") is the head
            out.append(w)
        elif out:
            break
    name = " ".join(out).replace("- ", "-").rstrip("-")
    return name if 2 < len(name) <= 30 else ""


MENTION_PREFIX = "in articles on "
# Where an entity named all over the corpus goes (see _majority).
SPREAD_EN = "many subjects"
SPREAD_ZH = "见于多个集子"
_KIND_PLURAL = {
    "person": "people",
    "place": "places",
    "work": "works",
    "org": "organizations",
    "organization": "organizations",
    "topic": "other topics",
    "event": "events",
}


def leftover_labels(dim: str) -> tuple[str, str]:
    """The directories an over-full "other <dim>" is split into before name ranges (see
    :func:`wikikv.compile.schema.plan_routing`): pages of a kind of their own, pages only named
    in passing."""
    return f"other kinds of {dim}", f"other {dim} named in passing"


class _Doc(Protocol):
    about_kind: str
    category: str
    title: str
    lang: str
    group: str
    summary: str


class _Entity(Protocol):
    key: str
    about: list[str]
    mentioned_in: dict[str, int]
    times_named: dict[str, int]


def doc_category(title: str, summary: str, lang: str) -> str:
    """The category noun of a document's lead sentence ("" for Chinese or undefined); a
    tournament's draw by its title, whatever its lead says ("X and Y were the defending
    champions" names no kind of page). Stored in its analysis (``DocAnalysis.category``)."""
    if lang == "zh":
        return ""
    return draw_category(title) or lead_category(summary, title)


def doc_categories(docs: Mapping[str, _Doc]) -> dict[str, str]:
    """doc id → :func:`doc_category`, as its analysis stored it."""
    return {i: d.category for i, d in docs.items()}


DRAW = "singles and doubles"
_DRAW_TITLE = re.compile(
    r"\s[–-]\s(?:(?:Men's|Women's|Mixed|Boys'|Girls'|Wheelchair)\s)?(?:Singles|Doubles)$"
)


def draw_category(title: str) -> str:
    """ "2012 BMW Open – Doubles", "2009 China Open – Women's Doubles": one draw of a
    tournament (:data:`DRAW`), else ""."""
    return DRAW if _DRAW_TITLE.search(title) else ""


def entity_chain(
    ent: _Entity,
    docs: Mapping[str, _Doc],
    cats: Mapping[str, str],
    lang: str,
    sums: NamedIn | None = None,
) -> list[str]:
    """The category labels of one entity, most specific first (see the module docstring);
    ``sums``: the entity's stored :class:`NamedIn` (English), read instead of ``docs``.

    English: an entity with a definitional article gets ["American films", "films"]; one that is
    only mentioned gets ["in films"] from the articles that name it most. Chinese: a work gets
    its collection ("呐喊"); a person, place or thing only mentioned gets the work it appears in
    most and that work's collection (["《孔乙己》", "《呐喊》"])."""
    if lang == "zh":
        if ent.about:
            group = docs[ent.about[0]].group
            return [group] if group else []
        works = _weighted(ent, docs, lambda d: d.title)
        groups = _weighted(ent, docs, lambda d: d.group)
        out: list[str] = []
        work = _majority(works)
        if work:
            out.append(f"《{work}》")
        if groups:
            group = _majority(groups)
            out.append(f"见于《{group}》" if group else SPREAD_ZH)
        return out
    own: list[str] = []
    for doc_id in ent.about:
        cat = cats.get(doc_id, "")
        if cat:
            own = _own_chain(docs[doc_id].summary, cat)
            break
    if not own and ent.about:
        title = docs[ent.about[0]].title
        # "List of Arsenal F.C. players (1–24 appearances)" is a list, not an appearance
        listed = "list" if _LIST_TITLE.match(title) else ""
        qual = listed or qualifier_category(title) or title_category(title)
        if qual:
            own = [plural(qual)] + ([broad_kind(qual)] if broad_kind(qual) else [])
    if not own:
        own = person_chain(ent, docs)
    if not own and ent.about:
        # After a person's life span: "Williams sisters (… b. 1980)" is filed by period, not
        # under "sisters"
        head = title_head(docs[ent.about[0]].title)
        if head:
            own = [plural(head)] + ([broad_kind(head)] if broad_kind(head) else [])
    return own + named_in_chain(sums if sums is not None else named_in(ent, docs, cats))


def _own_chain(summary: str, cat: str) -> list[str]:
    """["1950s American films", "American films", "films", "films and television"]: the kinds
    of a page by its own lead sentence, ending with the broad kind its noun belongs to (where a
    group too small to stand merges); kinship is split by relation ("sons and daughters")."""
    if cat == FAMILY:
        relation = RELATION.get(lead_head(summary), "")
        if not relation:
            return [plural(cat)]
        born = born_in(summary)
        return ([f"{relation} {born}"] if born else []) + [relation, plural(cat)]
    own = _specific(summary, plural(cat))
    broad = broad_kind(cat)
    return own + [broad] if broad and broad not in own else own


_QUALIFIER = re.compile(r"\(([^()]*)\)\s*$")


def qualifier_category(title: str) -> str:
    """The kind a title's disambiguating qualifier names: "Hook (film)" → film, "Bush (2004
    band)" → band; "" for a qualifier that names no kind ("Paris (Texas)", "(born 1950)")."""
    m = _QUALIFIER.search(title)
    if m is None:
        return ""
    words = m.group(1).split()
    head = words[-1] if words else ""
    if not head.isalpha() or not head.islower() or head in NOT_HEAD or len(head) < 3:
        return ""
    return _FAMILY.get(head, head)


def coarse_level(chain: Sequence[str]) -> int:
    """The most general label routing may start an entity at: its broad kind when it has one
    ("athletes and sportspeople", not "footballers"), else as :func:`start_level`. PageSplit
    proposes plans from here too: a few broad sub-dimensions refined where they overflow."""
    own = [i for i, c in enumerate(chain) if not c.startswith(MENTION_PREFIX)]
    if own:
        return own[-1]
    return len(chain) - 1


_LIST_TITLE = re.compile(r"^lists? of\b", re.IGNORECASE)


def title_category(title: str) -> str:
    """The kind a title itself names when its lead sentence does not define it: "List of birds
    of South America" → list, "Robert Plant discography" → discography, "Capalaba bus station"
    → station (a lower-case last word that names a kind; "The King" names a film, not a king)."""
    if _LIST_TITLE.match(title):
        return "list"
    words = title.split()
    last = words[-1].strip(".,;:!?\"'") if len(words) >= 2 else ""
    if last == "discography" or (last.islower() and last in BROAD):
        return last
    return ""


# Where a descriptive title's noun phrase ends: "Immigration to Bhutan", "Limbs of the horse".
_TITLE_END = re.compile(r"\s(?:of|to|in|for|on|at|under|from|between|during|by|and)\s|\s[–(]")
# A capitalized first word that is a common noun ("Assassination of …", "History of …"), not
# a given name ("Adèle of Dreux").
_NOUN_ENDING = re.compile(r"(?:tion|sion|ment|ism|ity|ship|ence|ance|ory|ogy|ics|ure)$")


def title_head(title: str) -> str:
    """The head noun of a descriptive title, the way Wikipedia names a topic: the last word of
    its noun phrase, lower case ("Sports teams in Florida" → team, "2018 FIFA World Cup bid" →
    bid, "Assassination of John F. Kennedy" → assassination); "" for a name ("Bull Terrier",
    "Ælfwine of Warwick", "Treaty") — a capitalized word counts only as the first word of a
    longer title and a common noun."""
    words = _TITLE_END.split(title, maxsplit=1)[0].split()
    if not words or len(title.split()) < 2:
        return ""  # a one-word title is a name ("Treaty", "Tonality"): it says no kind
    head = words[-1]
    if not head.islower():
        first = len(words) == 1 and head[:1].isupper() and head[1:].islower()
        low = head.lower()
        if not (first and (low in BROAD or kind_of_noun(low) or _NOUN_ENDING.search(low))):
            return ""
        head = low
    if not re.fullmatch(r"[a-z]{3,}", head) or head in NOT_HEAD or head == "people":
        return ""  # "Chinese people in Kyrgyzstan": a population, not a kind of page
    return _singular(head)


def _singular(noun: str) -> str:
    """ "teams" → team, "sports" → sport: a title's plural head as the category noun
    :func:`plural` expects ("statistics", "series" stay)."""
    if noun in _IRREGULAR or noun.endswith(("ss", "us", "is", "ics", "ies")) or len(noun) < 5:
        return noun
    return noun[:-1] if noun.endswith("s") else noun


def start_level(chain: Sequence[str]) -> int:
    """Where routing starts an entity on its chain: its most general own category, before the
    broad kind and the labels of where it is named ("in articles on …"), which only take in what
    merges upward."""
    own = [
        i for i, c in enumerate(chain) if not c.startswith(MENTION_PREFIX) and c not in BROAD_LABELS
    ]
    if own:
        return own[-1]
    named = [
        i
        for i, c in enumerate(chain)
        if c.startswith(MENTION_PREFIX) and c.removeprefix(MENTION_PREFIX) not in BROAD_LABELS
    ]
    return named[-1] if named else len(chain) - 1


class NamedIn(msgspec.Struct, array_like=True, omit_defaults=True):
    """What :func:`named_in_chain` reads of the documents naming an entity, as sums over them:
    an add updates a much-named entity's by its new documents alone (:func:`add_named_in`).
    Built by :func:`named_in` for the documents it needs (``whole=False``: those of the kind of
    article naming it most) or for all of them (``whole=True``: what is stored)."""

    cats: dict[str, int] = msgspec.field(default_factory=dict)  # category → times named
    mods: dict[str, dict[str, int]] = msgspec.field(default_factory=dict)  # cat → modifier → docs
    decades: dict[str, dict[str, int]] = msgspec.field(default_factory=dict)  # "mod\tdecade"
    relations: dict[str, int] = msgspec.field(default_factory=dict)  # family articles
    family_born: dict[str, int] = msgspec.field(default_factory=dict)
    kinds: dict[str, int] = msgspec.field(default_factory=dict)  # about kind → times named
    people_born: dict[str, int] = msgspec.field(default_factory=dict)  # articles on people


def named_in(
    ent: _Entity, docs: Mapping[str, _Doc], cats: Mapping[str, str], whole: bool = False
) -> NamedIn:
    """The sums over the documents naming ``ent`` (those in ``docs``)."""
    out = NamedIn()
    ids = [i for i in ent.mentioned_in if i in docs]
    for i in ids:
        cat = cats.get(i, "")
        if cat:
            out.cats[cat] = out.cats.get(cat, 0) + max(ent.times_named.get(i, 0), 1)
    top = "" if whole else _majority(Counter(out.cats))
    for i in ids:
        cat = cats.get(i, "")
        if cat and (whole or cat == top):
            _count_lead(out, cat, docs[i].summary)
    if whole or not top and not _majority(_broads(out.cats)):
        for i in ids:
            doc = docs[i]
            if doc.about_kind:
                n = max(ent.times_named.get(i, 0), 1)
                out.kinds[doc.about_kind] = out.kinds.get(doc.about_kind, 0) + n
            if doc.about_kind == "person":
                _bump(out.people_born, born_in(doc.summary))
    return out


def _count_lead(out: NamedIn, cat: str, lead: str) -> None:
    mod = modifier(lead)
    _bump(out.mods.setdefault(cat, {}), mod)
    _bump(out.decades.setdefault(cat, {}), f"{mod}\t{_decade(lead)}")
    if cat == FAMILY:
        _bump(out.relations, RELATION.get(lead_head(lead), ""))
        _bump(out.family_born, born_in(lead))


def _bump(counts: dict[str, int], key: str, n: int = 1) -> None:
    counts[key] = counts.get(key, 0) + n


def add_named_in(old: NamedIn, added: NamedIn) -> NamedIn:
    """The sums over two disjoint sets of documents (both built ``whole``)."""

    def plus(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
        out = dict(a)
        for k, n in b.items():
            _bump(out, k, n)
        return out

    def plus_by_cat(
        a: dict[str, dict[str, int]], b: dict[str, dict[str, int]]
    ) -> dict[str, dict[str, int]]:
        return {c: plus(a.get(c, {}), b.get(c, {})) for c in [*a, *(c for c in b if c not in a)]}

    return NamedIn(
        plus(old.cats, added.cats),
        plus_by_cat(old.mods, added.mods),
        plus_by_cat(old.decades, added.decades),
        plus(old.relations, added.relations),
        plus(old.family_born, added.family_born),
        plus(old.kinds, added.kinds),
        plus(old.people_born, added.people_born),
    )


def _broads(cats: Mapping[str, int]) -> Counter[str]:
    out: Counter[str] = Counter()
    for cat, n in cats.items():
        out[broad_kind(cat)] += n
    return out


def named_in_chain(sums: NamedIn) -> list[str]:
    """["in articles on American films", "in articles on films"]: where the entity is named."""
    top = _majority(Counter(sums.cats))
    if top:
        general = f"{MENTION_PREFIX}{plural(top)}"
        broad = broad_kind(top)
        out = [general] + ([f"{MENTION_PREFIX}{broad}"] if broad else [])
        if top == FAMILY:
            relation = _top(Counter(sums.relations))
            if not relation:
                return out
            born = _most(Counter(sums.family_born))
            finer = [f"{MENTION_PREFIX}{relation} {born}"] if born else []
            return [*finer, f"{MENTION_PREFIX}{relation}", *out]
        mod = _top(Counter(sums.mods.get(top, {})))
        if not mod:
            return out
        # The decade the articles of that kind share, when most of them share one ("in
        # articles on 1930s American films"): the split of a group too large for one directory.
        decades: Counter[str] = Counter()
        for key, n in sums.decades.get(top, {}).items():
            m, decade = key.split("\t")
            if m == mod:
                decades[decade] += n
        decade = _most(decades)
        finer = [f"{MENTION_PREFIX}{decade} {mod} {plural(top)}"] if decade else []
        return [*finer, f"{MENTION_PREFIX}{mod} {plural(top)}", *out]
    # No one kind of article names it most: the broad kind most of them share ("in articles on
    # athletes and sportspeople": a place named in articles on footballers, boxers, cyclists).
    broad = _majority(_broads(sums.cats))
    if broad:
        return [f"{MENTION_PREFIX}{broad}"]
    if not sums.kinds:
        return []
    kind = _majority(Counter(sums.kinds))
    general = f"{MENTION_PREFIX}{_KIND_PLURAL.get(kind, 'other topics') if kind else SPREAD_EN}"
    if kind != "person":
        return [general]
    # Named in articles on people of no one kind: the century most of them were born in.
    born = _most(Counter(sums.people_born))
    return [f"{general} {born}", general] if born else [general]


def person_chain(ent: _Entity, docs: Mapping[str, _Doc]) -> list[str]:
    """["people born in the 1840s", "people born in the 19th century"] for a person whose own
    article names no kind but gives a life span: the period is what the corpus offers."""
    for doc_id in ent.about:
        doc = docs[doc_id]
        life = _LIFE.search(doc.summary[:300])
        if doc.about_kind == "person" or (life is not None and _LIFE_CUE.search(life.group(0))):
            decade, century = _born(doc.summary)
            if century:
                return [f"people born in the {decade}", f"people born in the {century}"]
    return []


_LIFE = re.compile(r"\(([^()]{0,80}?)\b(1[0-9]{3}|20[0-2][0-9])\b[^()]{0,80}\)?")
# A parenthesis that gives a life span, not any date: "born", or two years joined by a dash.
_LIFE_CUE = re.compile(r"\bborn\b|\b\d{3,4}\b[^()]{0,60}?[–-][^()]{0,60}?\b\d{3,4}\b")


def _born(sentence: str) -> tuple[str, str]:
    """("1840s", "19th century") from the life span or birth year that opens a lead sentence
    ("Henry I (4 May 1008 – …)", "Marsha Rowe (born 1944)"), else ("", "")."""
    m = _LIFE.search(sentence[:300])
    if m is None:
        return "", ""
    year = int(m.group(2))
    n = year // 100 + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{year // 10 * 10}s", f"{n}{suffix} century"


def born_in(sentence: str) -> str:
    """ "born in the 19th century" from a lead sentence's life span, else ""."""
    century = _born(sentence)[1]
    return f"born in the {century}" if century else ""


def _weighted(
    ent: _Entity,
    docs: Mapping[str, _Doc],
    label: Callable[[_Doc], str],
    cats: Mapping[str, str] | None = None,
) -> Counter[str]:
    """Label → how often the entity is named in documents with that label (a document that
    names it counts at least once): its home by where it is named most, not by how many
    short notes happen to name it once."""
    out: Counter[str] = Counter()
    for doc_id in ent.mentioned_in:
        if doc_id not in docs:
            continue
        key = cats.get(doc_id, "") if cats is not None else label(docs[doc_id])
        if key:
            out[key] += max(ent.times_named.get(doc_id, 0), 1)
    return out


def _majority(counts: Counter[str]) -> str:
    """The label holding at least half the weight, or "": an entity named all over the corpus
    (the author, his city, his journal) belongs to no one collection or kind of article, and
    filing it under the one that names it a little more than the others misleads a reader."""
    total = sum(counts.values())
    if not total:
        return ""
    top = _top(counts)
    return top if counts[top] * 2 >= total else ""


def _most(counts: Counter[str]) -> str:
    """The label held by more than half the weight (a tie names no one decade or century)."""
    total = sum(counts.values())
    top = _top(counts) if total else ""
    return top if top and counts[top] * 2 > total else ""


def _specific(sentence: str, general: str) -> list[str]:
    """["1950s American films", "American films", "films"]: decade and modifier when present."""
    mod = modifier(sentence)
    year = _YEAR.search(_phrase(sentence))
    out = [general]
    if mod:
        out.insert(0, f"{mod} {general}")
    if year:
        out.insert(0, f"{int(year.group(1)) // 10 * 10}s {out[0]}")
    return out


@lru_cache(maxsize=16384)
def _phrase(sentence: str) -> str:
    text = normalized(sentence[:600])
    m = COPULA.search(text[:400])
    if m is None:
        return ""
    rest = ASIDE.sub("", text[m.end() : m.end() + 120])
    end = NP_END.search(rest)
    return rest[: end.start()] if end else rest


_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b")


def _decade(sentence: str) -> str:
    """ "1930s" when the lead's noun phrase dates its subject ("a 1932 American film"), else ""."""
    year = _YEAR.search(_phrase(sentence))
    return f"{int(year.group(1)) // 10 * 10}s" if year else ""


def _top(counts: Counter[str]) -> str:
    return min(counts, key=lambda k: (-counts[k], k))


def describe_label(dim: str, label: str, lang: str, is_range: bool, is_other: bool) -> str:
    """One sentence saying what a routing directory of ``dim`` labelled ``label`` holds."""
    if lang == "zh":
        if is_range:
            return f"按名称排列的{label}（该组过大，无法再按类别细分）。"
        if is_other:
            return f"语料中没有共同类别可归的{dim}条目。"
        if label == SPREAD_ZH:
            return f"在多个集子中都出现的{dim}。"
        if label.startswith("见于《"):
            return f"{label[2:]}中各篇提到的{dim}。"
        if label.startswith("《"):
            return f"出现在{label}中的{dim}。"
        return f"收入《{label}》的{dim}条目。"
    if is_range:
        return f"{label}: a group too large for one directory, cut by name."
    if is_other:
        return f"{dim.capitalize()} with no kind shared by enough pages to form a sub-dimension."
    if label.startswith("in articles on "):
        return f"{dim.capitalize()} without an article of their own, named {label}."
    return f"{dim.capitalize()} whose articles define them as {label}."
