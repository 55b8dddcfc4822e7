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
from typing import Protocol

# "X is / was / are / were (a|an|the|one of the)? ..." up to where the noun phrase ends.
_COPULA = re.compile(
    r"\b(?:is|was|are|were|has been|had been)\s+(?:also\s+|currently\s+|now\s+)?"
    r"(?:(?:one|any) of (?:the )?(?:most |many |several )?|a |an |the )",
    re.IGNORECASE,
)
_NP_END = re.compile(
    r"(?:,|;|:|\(|\)|\.(?:\s|$)|\s(?:of|by|in|from|who|whose|that|which|for|on|with|and|or|"
    r"at|to|based|located|directed|written|produced|released|known|born|situated|founded|"
    r"created|published|starring|where|between|under|near|about|as|since|during|after|"
    r"before|until|serving|playing|best|featuring|recorded|starring|set|consisting|made|"
    r"currently|formerly|previously|originally|mainly|primarily|mostly|also|now|still)\b)",
    re.IGNORECASE,
)
_PARTICIPLE = re.compile(r"^[a-z]{2,}ed$")
_ASIDE = re.compile(r"\s*\([^()]{0,40}\)")  # a parenthesis inside the noun phrase
_REFERS = re.compile(r"\bmay (?:also )?refer to\b|\bcan refer to\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
# Words that end a noun phrase without naming a kind of thing.
_NOT_HEAD = {
    "not",
    "along",
    "given",
    "only",
    "former",
    "retired",
    "professional",
    "famous",
    "well-known",
    "popular",
    "notable",
    "leading",
    "prominent",
    "major",
    "small",
    "large",
    "first",
    "second",
    "third",
    "last",
    "member",
    "part",
    "type",
    "kind",
    "name",
    "number",
    "list",
    "series of",
    "one",
    "term",
    "set",
    "held",
    "formed",
    "eldest",
    "youngest",
    "same",
    "best",
    "second-largest",
    "largest",
}
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
_IRREGULAR = {
    "man": "men",
    "woman": "women",
    "person": "people",
    "child": "children",
    "businessman": "businessmen",
    "businesswoman": "businesswomen",
    "sportsman": "sportsmen",
    "chairman": "chairmen",
    "congressman": "congressmen",
    "nobleman": "noblemen",
    "statesman": "statesmen",
    "clergyman": "clergymen",
    "series": "series",
    "species": "species",
    "genus": "genera",
    "people": "people",
    "footballer": "footballers",
    "fish": "fish",
    "aircraft": "aircraft",
}


def plural(noun: str) -> str:
    """A good-enough English plural of a category noun."""
    low = noun.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    for end, repl in (("man", "men"),):
        if low.endswith(end) and len(low) > 5:
            return low[: -len(end)] + repl
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
    text = sentence[:400]
    if _REFERS.search(text):
        return "disambiguation page"
    m = _COPULA.search(text)
    if m is None or m.start() > 160:
        return ""
    rest = _ASIDE.sub("", text[m.end() :])  # "football (soccer) player" is a player
    end = _NP_END.search(rest)
    phrase = rest[: end.start()] if end else rest[:80]
    words = _WORD.findall(phrase)
    # Drop trailing words that are not heads ("a former member" has no head here).
    while words and (
        words[-1].lower() in _NOT_HEAD
        or not words[-1][:1].islower()
        or _PARTICIPLE.match(words[-1])  # "a video game developed by …": the game
    ):
        words.pop()
    if not words or len(words) > 7:
        return ""
    head = words[-1].lower()
    if head in _NOT_HEAD or len(head) < 3 or not head.isalpha():
        return ""
    return str(_FAMILY.get(head, head))


def modifier(sentence: str) -> str:
    """The capitalized adjective of the noun phrase ("American" in "an American film
    director"): the second-level split of a category too large for one directory."""
    phrase = _phrase(sentence)
    out: list[str] = []
    for w in re.findall(r"[A-Za-z][A-Za-z'\-]*-?", phrase):
        if w[:1].isupper():
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


class _Doc(Protocol):
    about_kind: str
    title: str
    lang: str
    group: str
    summary: str


class _Entity(Protocol):
    key: str
    about: list[str]
    mentioned_in: dict[str, int]
    times_named: dict[str, int]


def doc_categories(docs: Mapping[str, _Doc]) -> dict[str, str]:
    """doc id → the category noun of its lead sentence ("" for Chinese or undefined)."""
    return {i: lead_category(d.summary) if d.lang != "zh" else "" for i, d in docs.items()}


def entity_chain(
    ent: _Entity, docs: Mapping[str, _Doc], cats: Mapping[str, str], lang: str
) -> list[str]:
    """The category labels of one entity, most specific first (see the module docstring).

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
            own = _specific(docs[doc_id].summary, plural(cat))
            break
    if not own and ent.about:
        qual = qualifier_category(docs[ent.about[0]].title)
        if qual:
            own = [plural(qual)]
    return own + _mentioned(ent, docs, cats)


_QUALIFIER = re.compile(r"\(([^()]*)\)\s*$")


def qualifier_category(title: str) -> str:
    """The kind a title's disambiguating qualifier names: "Hook (film)" → film, "Bush (2004
    band)" → band; "" for a qualifier that names no kind ("Paris (Texas)", "(born 1950)")."""
    m = _QUALIFIER.search(title)
    if m is None:
        return ""
    words = m.group(1).split()
    head = words[-1] if words else ""
    if not head.isalpha() or not head.islower() or head in _NOT_HEAD or len(head) < 3:
        return ""
    return _FAMILY.get(head, head)


def start_level(chain: Sequence[str]) -> int:
    """Where routing starts an entity on its chain: its most general own category, before the
    labels of where it is named ("in articles on …"), which only take in what merges upward."""
    own = [i for i, c in enumerate(chain) if not c.startswith(MENTION_PREFIX)]
    return own[-1] if own else len(chain) - 1


def _mentioned(ent: _Entity, docs: Mapping[str, _Doc], cats: Mapping[str, str]) -> list[str]:
    """["in articles on American films", "in articles on films"]: where the entity is named."""
    mentioning = _weighted(ent, docs, lambda d: "", cats)
    top = _majority(mentioning)
    if top:
        mods = Counter(modifier(docs[i].summary) for i in ent.mentioned_in if cats.get(i) == top)
        general = f"{MENTION_PREFIX}{plural(top)}"
        mod = _top(mods)
        return [f"{MENTION_PREFIX}{mod} {plural(top)}", general] if mod else [general]
    kinds = _weighted(ent, docs, lambda d: d.about_kind)
    if not kinds:
        return []
    kind = _majority(kinds)
    return [f"{MENTION_PREFIX}{_KIND_PLURAL.get(kind, 'other topics') if kind else SPREAD_EN}"]


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


def _phrase(sentence: str) -> str:
    m = _COPULA.search(sentence[:400])
    if m is None:
        return ""
    rest = _ASIDE.sub("", sentence[m.end() : m.end() + 120])
    end = _NP_END.search(rest)
    return rest[: end.start()] if end else rest


_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b")


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
