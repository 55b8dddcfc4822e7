"""Named entities: detection (English and Chinese) and name-variant folding (kinds:
:mod:`wikikv.text.kinds`).

English has no statistical NER model offline here, so detection combines a *gazetteer* of the
corpus's own titles (and their variants) with capitalization rules; "Holmes" / "Mr. Holmes"
resolve to "Sherlock Holmes" inside a document that names him in full (document-local
coreference). Chinese uses jieba's part-of-speech tags (nr person, ns place, nt organization, nz
other proper noun) plus 《书名》 titles.

Every name is reduced to a *key* by :func:`fold`: NFKC (full-width → half-width), case-folded,
whitespace collapsed, a leading English article dropped. Two surfaces with one key are one entity;
a parenthetical qualifier ("Heat (film)") is part of the key, so homonyms stay apart, and the bare
name becomes an alias only when exactly one title carries it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from wikikv.text.digest import Sentence
from wikikv.text.kinds import (
    classify_title,
    kind_by_name,
    kind_of_noun,
    kind_of_qualifier,
    split_qualifier,
)
from wikikv.text.name_lists import listed_people, opens_list
from wikikv.text.name_pieces import opens_places, piece_of_name, placed_by_context

# The kind rules live in :mod:`wikikv.text.kinds`; re-exported for callers of this module.
__all__ = [
    "ALIAS_KIND",
    "HONORIFICS",
    "KINDS",
    "Gazetteer",
    "Mention",
    "ambiguous_bases",
    "build_gazetteer",
    "classify_title",
    "declared_aliases",
    "other_script",
    "english_mentions",
    "fold",
    "kind_by_name",
    "kind_of_qualifier",
    "split_qualifier",
    "title_variants",
]

KINDS = ("person", "place", "org", "work", "event", "topic")
# A lone "&" is a word of its own: it joins two parts of one name ("Procter & Gamble", "U.S. News
# & World Report"); skipped over, it split the name in two and made a page of each half.
# A word written with a stray space after a hyphen, as 2Wiki writes many ("Chow Yun- fat",
# "Qaleh- ye", "German- born"), goes on over it and folds as written whole (see fold()).
_TOKEN = re.compile(
    r"[A-Za-zÀ-ÖØ-öø-ÿĀ-ſ0-9][\w'’.&-]*(?:(?<=-) (?=[a-zß-öø-ÿ])[\w'’.&-]+)*|&(?= )"
)
_SPACED_HYPHEN = re.compile(r"(?<=\w)- (?=\w)")
_CONNECT = frozenset(
    {
        "of",
        "de",
        "la",
        "le",
        "von",
        "van",
        "der",
        "den",
        "da",
        "du",
        "del",
        "di",
        "y",
        "the",
        "&",
        "al",
        "bin",
        "el",
    }
)
_ARTICLES = frozenset({"The", "A", "An"})
_TITLE_CONNECT = frozenset(
    "of in on at for to and & the a an from with without into under upon over".split()
)
# A quoted title: its quotes, its longest run of words, the lowercase words it may hold.
_OPEN_QUOTES = '"“'
_CLOSE_QUOTES = '"”'
_QUOTED_WORDS = 9
_QUOTED_CONNECT = _TITLE_CONNECT | frozenset(
    "or nor but as by is are my your me you it not".split()
)
_MONTHS = frozenset(
    """January February March April May June July August September October November
    December""".split()
)
_LANGUAGES = frozenset(
    """Hindi Tamil Telugu Kannada Malayalam Marathi Bengali Urdu Punjabi Gujarati Odia Sanskrit
    Persian Arabic Hebrew Turkish Swahili Tagalog Cantonese Mandarin Esperanto""".split()
)
_NOBLE = frozenset({"earl", "duke", "count", "baron", "marquess", "viscount"})
_PLACE_PREP = frozenset({"in", "at", "near", "from", "on"})
_WORK_VERBS = frozenset(
    """starred star stars appeared appears appear featured features played plays published
    released written wrote appearing starring featuring role roles cast""".split()
)
HONORIFICS = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "miss",
        "dr",
        "sir",
        "lady",
        "lord",
        "prof",
        "professor",
        "saint",
        "st",
        "king",
        "queen",
        "prince",
        "princess",
        "president",
        "general",
        "captain",
        "judge",
        "rev",
        "madame",
        "monsieur",
    }
)
_SKIP_SINGLE = frozenset(
    """The A An In On At To For From By With And Or But Is Was Were He She His Her They Their It
    Its This That These Those There Then When Where While After Before During Since Although
    However Also As If Following According Despite Between Under Over Its One Two Three
    January February March April May June July August September October November December
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mr Mrs Ms Dr St Sir Lady Lord
    American British English French German Italian Spanish Russian Chinese Japanese Indian
    Canadian Australian European African Irish Scottish Welsh Dutch Swedish Norwegian Danish
    Polish Greek Roman Latin Christian Catholic Jewish Muslim Islamic Republican Democratic
    Democrat Born Died Many Most Some Several Other Another Each Every Both All No Not Now
    Later Early Although Because Through Until Upon Within Without His Hers Him We Our You I
    Episode Season Chapter Part Book Volume Act Scene""".split()
)
# Number words of _SKIP_SINGLE that open a name inside a sentence ("the Three Kingdoms period",
# "Three Days Grace"); at a sentence's start they are a count ("Two Americans won").
_NUMBER_WORDS = frozenset({"One", "Two", "Three"})
# Capitalised alone only in a title or a question ("Now What?", "What's on TV"): never a name
# by themselves (a title that opens with one, "How I Met Your Mother", keeps it in its run).
# Not "Who": mid-sentence it is the band ("the English rock band the Who").
_QUESTION_WORDS = frozenset("What Whom Whose Which Why How Where".split())
_DEMONYM = re.compile(r"^[A-Z][a-z]+(?:ian|ese|ish|ean)$")
# Nationalities and peoples the suffixes above miss: an adjective alone ("an Israeli
# satellite", "Swiss banks") is no name; a longer name it opens ("Israeli Air Force", "Soviet
# Union") is one, and keeps it.
_DEMONYMS = frozenset(
    """Israeli Soviet Swiss Czech Slovak Serb Croat Thai Iraqi Pakistani Bangladeshi Nepali
    Somali Yemeni Omani Qatari Kuwaiti Saudi Emirati Bahraini Afghan Uzbek Kazakh Tajik Turkmen
    Kyrgyz Mexican Cuban Jamaican Kenyan Ugandan Rwandan Moroccan Tibetan Dominican Venezuelan
    Nicaraguan Guatemalan Honduran Salvadoran Uruguayan Paraguayan Angolan Samoan Filipino
    Argentine Basque Catalan Arab Yugoslav Florentine Himalayan Minoan Hispanic Latino Nordic
    Slavic Germanic Icelandic""".split()
)
# Their first halves in a compound ("Austro-Hungarian"); alone "Franco" is a man.
_COMBINING = frozenset("Anglo Franco Austro Sino Indo Afro Greco Italo Russo Judeo".split())
# The nationalities of _SKIP_SINGLE (its faiths and parties are no demonyms).
_SKIP_DEMONYMS = frozenset(
    """American British English French German Italian Spanish Russian Chinese Japanese Indian
    Canadian Australian European African Irish Scottish Welsh Dutch Swedish Norwegian Danish
    Polish Greek Roman Latin Jewish""".split()
)
# Words of _SKIP_SINGLE that are no name alone but open one: "Democratic Party", "British
# Columbia" — its nationalities, faiths and parties.
_NAME_ADJECTIVES = _SKIP_DEMONYMS | frozenset(
    "Christian Catholic Muslim Islamic Republican Democratic Democrat".split()
)
_ROMAN = re.compile(r"^[IVXLCDM]+$")
# Offices a country's initials may stand before ("U.S. Senator Kennedy"): the name is after them.
_OFFICES = frozenset(
    """president senator ambassador marshal secretary representative attorney congressman
    congresswoman governor general admiral consul envoy""".split()
)
_INITIALISM = re.compile(r"^(?:[A-Z]\.){2,}$")
# A quoted or bracketed nickname inside a full name: 'Christopher James "Chris" Evans'.
_NICKNAME = re.compile(r" [\"“(][A-Z][\w.'’-]{0,20}[\"”)] ")

# Context that says a name is a person's (issue 8 item 2): a role, a kinship word or a title
# before it ("head coach George O'Leary", "his son, Giusto", "directed by ..."), a life span or
# "who" after it, a personal honorific in it.
_ROLES = frozenset(
    """coach manager singer actor actress director producer writer author novelist poet
    playwright screenwriter composer songwriter painter sculptor photographer architect
    drummer guitarist bassist pianist violinist vocalist rapper musician footballer player
    quarterback pitcher striker goalkeeper defender midfielder boxer wrestler cricketer
    jockey athlete journalist presenter broadcaster comedian dancer model politician senator
    congressman congresswoman governor mayor chancellor minister lawyer judge bishop pope
    cardinal priest emperor empress scientist physicist chemist mathematician economist
    historian philosopher professor teacher founder co-founder inventor entrepreneur
    businessman businesswoman chef designer filmmaker teammate wife husband son daughter
    brother sister father mother uncle aunt nephew niece cousin widow widower grandson
    granddaughter grandfather grandmother stepson stepdaughter fiancé fiancée""".split()
)
# More occupations that say the same before a name ("trumpeter Miles Davis", "critic Roger
# Ebert"), kept apart from _ROLES, which also guards nationality-led names: "American Scholar"
# (a journal) must keep its adjective.
_OCCUPATIONS = frozenset(
    """critic cinematographer editor trumpeter saxophonist trombonist clarinetist cellist
    organist keyboardist percussionist harpist flautist bandleader lyricist choreographer
    illustrator cartoonist animator singer-songwriter astronaut surgeon diplomat psychologist
    geologist astronomer naturalist entomologist explorer engineer banker investor educator
    statesman spokesman nobleman noblewoman ballerina""".split()
)
# Offices a name can be the title of ("Member of Parliament", "Secretary of State"): what is
# said after such a title ("…, who") is said of its holder, not of the office.
_OFFICE_TITLES = frozenset(
    """member secretary minister speaker governor mayor chancellor president chairman
    director ambassador representative senator commissioner treasurer attorney""".split()
)
# ", the first African-American Supreme Court Justice," / ", an English painter": the head noun
# of an appositive right after a name (up to the next comma or the end of the sentence).
_APPOSITIVE = re.compile(
    r", (?:the|an?) (?:[\w'’-]+ ){0,6}?([A-Za-z-]+)(?=[,.;]| (?:of|from|in|at|for|who|and)\b)"
)
# Kinship before "of" and a name ("daughter of Peter Beckford"); not "father" or "mother",
# which also say who began a school or a nation ("the father of Impressionism").
_KIN_OF = frozenset(
    """son daughter brother sister wife husband widow widower child grandson granddaughter
    nephew niece cousin stepson stepdaughter uncle aunt grandfather grandmother""".split()
)
_BY_PERSON = frozenset(
    "directed written composed illustrated painted sculpted choreographed coached".split()
)
_STARRING = frozenset({"starring", "co-starring", "stars", "starred"})
# A title of rank before "of" names the title, not one holder: "Duke of Bavaria" (held by a
# dozen men of the corpus), "King of France", "Countess of Blois".
_RANKS = frozenset(
    """king queen prince princess duke duchess archduke archduchess emperor empress tsar czar
    infanta infante
    sultan pharaoh earl count countess baron baroness marquess marchioness viscount
    viscountess margrave margravine landgrave landgravine elector lord lady""".split()
)
# What puts a nickname in quotes: 'nicknamed" William the Rich"', 'known as "the Fat"'.
_NICKNAME_CUE = re.compile(
    r"\b(?:nicknamed|known as|called|dubbed|surnamed|byname)[,]?\s?[\"“]\s?$"
)
_PERSONAL_HONORIFICS = frozenset(
    """mr mrs ms miss dr sir dame lady lord prof professor rev king queen prince princess
    archduke archduchess duke duchess emperor empress tsar czar sultan pharaoh""".split()
)
_PERSON_AFTER = re.compile(
    r"\s?\((?:born|b\.|died|d\.|c\.|née|nee)\b|\s?\(\d{3,4}\s*[–-]\s*\d{3,4}\)"
    r"|(?:'s|’s) (?:wife|husband|son|daughter|brother|sister|father|mother|widow|children)\b"
    r"|, who\b"
)


_TITLE_WORDS = HONORIFICS | _OFFICE_TITLES | _RANKS | frozenset("hon capt grand prime".split())


def _kin_named(text: str, toks: list[tuple[str, int, int]], j: int, run: list[str]) -> bool:
    """Whether the run after "son of" / "wife of" is the relative's name: not a title alone
    ("son of Hon. William Cavendish" cut at "Hon", "daughter of Grand Duke"), an office of a
    place ("husband of Prime Minister of Luxembourg"), a possessive ("grandfather of
    Cambodia's king"), a word before a noun ("daughter of Byzantine emperor Justin II", "son of
    Wimbledon champion Gerald Patterson") or a name cut before a title ("son of U.S. Senator")."""
    words = [w.rstrip(".").lower() for w in run]
    if words[-1] in _TITLE_WORDS or ("of" in words and words[0] in _TITLE_WORDS):
        return False
    last = toks[j - 1][0]
    if last.endswith(("'s", "’s")):
        return False
    if last.endswith(".") and not _INITIALISM.match(last):
        return True  # the sentence ends with the name
    nxt = toks[j][0] if j < len(toks) else ""
    gap = text[toks[j - 1][2] : toks[j][1]] if j < len(toks) else ""
    # nor a name cut before a title ("daughter of U.S. Senator …"): a capitalized word follows
    return not (gap == " " and (nxt[:1].isupper() or (nxt[:1].islower() and kind_of_noun(nxt))))


def written_whole(name: str) -> str:
    """``name`` with the stray spaces after its hyphens dropped ("Jean- Paul Sartre" as a page
    title is "Jean-Paul Sartre")."""
    return _SPACED_HYPHEN.sub("-", name) if "- " in name else name


@functools.lru_cache(maxsize=1 << 18)
def fold(name: str) -> str:
    """The key a name is compared under (see the module docstring)."""
    s = unicodedata.normalize("NFKC", name).casefold().replace("’", "'")
    s = " ".join(s.split())
    s = written_whole(s)  # "Chow Yun- fat" is "Chow Yun-fat"
    if s.startswith("the ") and len(s) > 4:
        s = s[4:]
    return s.strip(" .,;:")


@dataclass(frozen=True)
class Mention:
    """A name found in a document: its key, the surface as written, where, and a kind guess.
    ``gaz`` is true when the surface matched a corpus title or alias (None marks a
    sentence-initial single word kept only if coreference resolves it)."""

    key: str
    surface: str
    kind: str
    sent: int
    start: int
    end: int
    gaz: bool | None = False
    central: bool = False
    # the document gives no evidence that this word is used as a name here (a word the
    # dictionary knows): it resolves to a page, but does not make one by itself
    weak: bool = False


@dataclass
class Gazetteer:
    """Corpus titles and their variants: folded token sequences → entity key."""

    by_first: dict[str, list[tuple[tuple[str, ...], str]]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    size: int = 0
    # first word → its bucket's multi-word entries by second word, and its one-word entries
    # (None: the bucket is not longest first, so it is scanned whole); see candidates()
    _by_second: dict[str, _Split | None] = field(default_factory=dict, repr=False, compare=False)

    def add(self, surface: str, key: str) -> None:
        """Add one spelling; call :meth:`finish` after the last one."""
        toks = gazetteer_tokens(surface)
        if toks:
            self.by_first.setdefault(toks[0], []).append((toks, key))
            self._by_second.clear()

    def finish(self) -> Gazetteer:
        """Longest sequences first (ties in a fixed order), duplicates dropped."""
        for first, bucket in self.by_first.items():
            self.by_first[first] = sorted(set(bucket), key=lambda x: (-len(x[0]), x))
        self.size = sum(len(b) for b in self.by_first.values())
        self._by_second.clear()
        return self

    def prefetch(self, toks: list[tuple[str, int, int]], folded: list[str]) -> None:
        """Told the words of a text before :func:`english_mentions` scans it: a gazetteer read
        from the store reads the buckets of its :func:`gazetteer_positions` at once (this one
        holds them all)."""

    def candidates(self, first: str, second: str | None) -> Iterable[_Entry]:
        """The entries of ``first``'s bucket, in its order, that can match before a word
        ``second`` (None: the text ends): one-word entries and those whose second word it is.
        The others cannot match there; skipping them spares a scan of the whole bucket per
        capitalised word (a common first name's bucket holds hundreds of titles)."""
        if first not in self._by_second:
            self._by_second[first] = _split(self.by_first.get(first, ()) or ())
        split = self._by_second[first]
        if split is None:
            return self.by_first.get(first, ()) or ()
        longer, singles = split
        if second is None:
            return singles
        more = longer.get(second)
        return singles if more is None else (more + singles if singles else more)


_Entry = tuple[tuple[str, ...], str]
_Split = tuple[dict[str, list[_Entry]], list[_Entry]]


def _split(bucket: Iterable[_Entry]) -> _Split | None:
    """``bucket``'s multi-word entries by second word and its one-word entries, each in bucket
    order; None when a one-word entry comes before a longer one (a bucket not longest first),
    where putting the one-word entries last would change which entry matches first."""
    longer: dict[str, list[_Entry]] = {}
    singles: list[_Entry] = []
    for entry in bucket:
        if len(entry[0]) == 1:
            singles.append(entry)
        elif singles:
            return None
        else:
            longer.setdefault(entry[0][1], []).append(entry)
    return longer, singles


def gazetteer_tokens(surface: str) -> tuple[str, ...]:
    """The folded words a gazetteer matches a spelling by."""
    return tuple(fold(t) for t in _TOKEN.findall(surface))


def title_variants(titles: Iterable[str]) -> dict[str, str]:
    """Variant key → title key: the title itself, its base without a unique parenthetical
    qualifier, and the multi-word head before a comma when unique ("Van Hook Township")."""
    title_keys = {fold(t): t for t in titles}
    base_owners: dict[str, set[str]] = {}
    for key, title in title_keys.items():
        base, qual = split_qualifier(title)
        if qual:
            base_owners.setdefault(fold(base), set()).add(key)
        head = title.split(",", 1)[0]
        if "," in title and len(head.split()) >= 2:
            base_owners.setdefault(fold(head), set()).add(key)
    out = {k: k for k in title_keys}
    for base, owners in base_owners.items():
        if base not in title_keys and len(owners) == 1:
            out[base] = next(iter(owners))
    return out


def ambiguous_bases(titles: Iterable[str]) -> set[str]:
    """Bare names shared by several qualified titles (homonyms): never an entity of their own."""
    owners: dict[str, int] = {}
    for t in titles:
        base, qual = split_qualifier(t)
        if qual:
            owners[fold(base)] = owners.get(fold(base), 0) + 1
    return {b for b, n in owners.items() if n > 1}


def own_short_names(title: str) -> set[str]:
    """The shorter names a title gives its subject: the base without the qualifier ("Heat" of
    "Heat (film)") and the head before a comma ("Margaret of Valois" of "Margaret of Valois,
    Countess of Blois"). Inside that document they name the subject itself."""
    base = split_qualifier(title)[0]
    out = {fold(base), fold(base.split(",", 1)[0])} if title else set()
    return {k for k in out if k and k != fold(title)}


def build_gazetteer(variants: dict[str, str], display: dict[str, str]) -> Gazetteer:
    """A gazetteer over the variant keys (display: key → a surface spelling)."""
    gaz = Gazetteer()
    for variant, key in variants.items():
        gaz.add(display.get(variant, variant), key)
    return gaz.finish()


def sentence_of(sentences: Sequence[Sentence], pos: int, hint: int) -> int:
    """The index of the sentence holding offset ``pos``, searched forward from ``hint``."""
    i = hint
    while i < len(sentences) and sentences[i].end <= pos:
        i += 1
    return min(i, len(sentences) - 1) if sentences else 0


def english_mentions(
    text: str,
    sentences: Sequence[Sentence],
    gaz: Gazetteer,
    about: str = "",
    about_person: bool = True,
) -> list[Mention]:
    """Gazetteer matches (longest first) and capitalized runs, with document-local coreference:
    a surname or an honorific form resolves to the full name the document uses."""
    toks = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    folded = [fold(t[0]) for t in toks]
    sent_starts = {s.start for s in sentences}
    about_key = fold(about)
    own_names = own_short_names(about)
    about_words = set(split_qualifier(about)[0].replace(",", " ").split())
    out: list[Mention] = []
    openers: set[int] = set()  # mentions that open a list of people (text/name_lists.py)
    i = 0
    hint = 0
    n = len(toks)
    last_place = -1  # where the last name the text places ends ("Birmingham, Alabama")
    gaz.prefetch(toks, folded)
    while i < n:
        word, start, _ = toks[i]
        if not (word[0].isupper() or word[0].isdigit()):
            i += 1
            continue
        hit = _match_gazetteer(text, toks, folded, i, gaz, start in sent_starts)
        if (
            hit is None
            and word.rstrip(".").lower() in HONORIFICS
            and i + 1 < n
            and _contiguous(text, toks, i, i + 2)
        ):
            # "Dr. John Watson": an honorific before a corpus title is part of its surface
            hit = _match_gazetteer(text, toks, folded, i + 1, gaz, False)
        if hit is not None:
            end = toks[hit[0] - 1][2]
            surface = text[start:end].rstrip(".")
            hint = sentence_of(sentences, start, hint)
            key = hit[1]
            if key != about_key and fold(surface) in own_names:
                # "Margaret of Valois" in the article "Margaret of Valois, Countess of Blois" is
                # its own subject, not the other title of that name (a namesake)
                key = about_key
            if (
                _after_place_preposition(text, toks, i) and opens_places(text, toks, i)
            ) or placed_by_context(text, toks, i, hit[0], last_place):
                last_place = start + len(surface)
            out.append(Mention(key, surface, "", hint, start, start + len(surface), True))
            i = hit[0]
            continue
        j = i + 1
        # A run opened by an article may be a title of a work: its lowercase function words
        # ("A Study in Scarlet", "The Hound of the Baskervilles") keep it whole.
        titled = word in _ARTICLES
        connected = False
        quoted = _quoted_title(text, toks, i)
        if quoted:
            # kept whole; a work only if a lowercase word had cut it ('"John Paul Jones"' may
            # be a man's name in quotes, '"Death or Canada"' is a title)
            # (nor is one a noble's style: '"Grand Duke of Bosnia"')
            words = [toks[m][0] for m in range(i, quoted)]
            styled = "of" in words and any(
                w.lower() in _PERSONAL_HONORIFICS or w.lower() in _NOBLE
                for w in words[: words.index("of")]
            )
            # a nickname in quotes is no title: 'nicknamed" William the Rich"'
            nickname = _NICKNAME_CUE.search(text, max(0, toks[i][1] - 16), toks[i][1])
            connected = any(w[0].islower() for w in words) and not styled and not nickname
            j = quoted
        while not quoted and j < n and _contiguous(text, toks, j - 1, j + 1):
            w = toks[j][0]
            prev = toks[j - 1][0]
            if (
                prev.endswith(".")
                and len(prev) > 2
                and prev[:-1].lower() not in HONORIFICS
                and (
                    not _INITIALISM.match(prev)
                    or toks[j][1] in sent_starts
                    or w in _SKIP_SINGLE
                    or w.lower() in _OFFICES
                )
            ):
                # "Watson. Mr" — a full stop ends the name unless it ends an honorific or an
                # initialism inside the sentence ("U.S. Army", not "the U.S. The next year";
                # "U.S. President George W. Bush" is the president, not a name with "U.S.")
                break
            if w[0].isupper():
                j += 1
                continue
            skip = _function_words(text, toks, j, titled)
            if not skip and not titled and w == "and" and _of_and(text, toks, i, j):
                skip = 1
            if skip:
                connected = connected or titled
                j += skip + 1
            else:
                break
        k = i
        while (
            k < j
            and toks[k][0] in _SKIP_SINGLE
            and toks[k][0] != "The"
            and not (connected or quoted)
            and (k + 1 >= j or toks[k + 1][0] != "&")  # "Lord & Taylor" is one name
            and not _adjective_of_name(toks, k, j)
            and not (toks[k][0] in _NUMBER_WORDS and k + 1 < j and toks[k][1] not in sent_starts)
        ):
            k += 1  # a number word stays inside a sentence: "the Three Kingdoms period"
        k = max(k, _past_compound_adjective(toks, k, j))
        if k < j and toks[k][0] == "The" and k + 1 < j:
            pass  # "The Beatles": the article stays in the surface, fold() drops it from the key
        elif k < j and toks[k][0] == "The":
            k += 1
        if k >= j:
            i = j
            continue
        run = [t[0].replace("- ", "-") for t in toks[k:j]]
        s0 = toks[k][1]
        surface = _without_stop(text[s0 : toks[j - 1][2]])
        if run[-1].endswith(("'s", "’s")) and len(run[-1]) > 3:
            # "Leonard's then-wife": the possessive ending is no part of the name
            run[-1] = run[-1][:-2]
            surface = surface[:-2]
        initial = s0 in sent_starts
        key = ""
        nick = _NICKNAME.match(text, toks[j - 1][2]) if 2 <= len(run) <= 3 else None
        if nick is not None and not connected:
            # 'Christopher James "Chris" Evans': the run goes on after the nickname; its first
            # and middle names alone are no one's name
            tail = [t for t in toks[j:] if t[1] >= nick.end()][:2]
            last = [t for t in tail if t[0][:1].isupper()][:1]
            if last and last[0][1] == nick.end():
                key = fold(" ".join([*run, last[0][0]]))
                run = [*run, last[0][0]]
                j = toks.index(last[0]) + 1
                surface = text[s0 : toks[j - 1][2]].rstrip(".")
        # a demonym alone is no name, unless it is a word of the subject's own ("Slovak" in
        # the article on Hillel Slovak): coreference folds it into his name
        surname = about_person and len(run) == 1 and run[0].rstrip(".") in about_words
        common = (  # "The EP was sold at live events": a common noun, not in "The Boxer" (dog)
            len(run) == 2
            and run[0] == "The"
            and kind_of_noun(run[1].rstrip("."))
            and run[1].rstrip(".") not in about_words
        )
        if not common and _is_candidate(run, False, 9 if connected or quoted else 6, surname):
            hint = sentence_of(sentences, s0, hint)
            work = connected and not _rank_title(run)  # "The King of Poland" is no title
            kind = kind_by_name(surface) or ("work" if work else "")
            if not kind and not connected and (_regnal_name(run) or _epithet_name(run)):
                kind = "person"  # "Louis XIV of France", "Pope Innocent III", "Cnut the Great"
            if not kind and len(run) <= 3 and _after_place_preposition(text, toks, k):
                kind = "place"
            placed = len(run) <= 3 and placed_by_context(text, toks, k, j, last_place)
            if not kind and placed:
                kind = "place"  # "in Birmingham, Alabama", "the state of Georgia"
            if not kind and not connected and _person_context(text, toks, k, j, run):
                kind = "person"
            if not kind and not connected and opens_list(toks, k):
                kind = "person"  # "actors were Harriet and Bibi Andersson, Liv Ullmann"
            if kind == "person" and opens_list(toks, k):
                openers.add(len(out))
            if placed or (kind == "place" and opens_places(text, toks, k)):
                last_place = s0 + len(surface)
            # a piece of a longer name ("Rookie of the Year", "Division 2") reaches a page
            # other uses make, makes none
            weak = not (kind or quoted or surname) and piece_of_name(text, toks, k, j)
            # A sentence-initial single word is kept only if coreference resolves it below.
            out.append(
                Mention(
                    key or fold(surface),
                    surface,
                    kind,
                    hint,
                    s0,
                    s0 + len(surface),
                    False if not initial or len(run) > 1 else None,
                    weak=weak,
                )
            )
        i = j
    listed = listed_people(text, out, openers)
    out = [replace(m, kind="person") if n in listed else m for n, m in enumerate(out)]
    out = _own_subject(out, about, sentences, own_names)
    lower = frozenset(f for t, f in zip(toks, folded, strict=True) if t[0][:1].islower())
    titles = {m.key: t for m in out if m.gaz is None for t in _single_titles(gaz, m.key)}
    return _coref(out, about, about_person, lower, titles)


def _without_stop(surface: str) -> str:
    """A name without the full stop after it, unless the stop ends an initialism ("U.S.",
    "D.C."): the page "U.S" lost it."""
    last = surface.rsplit(" ", 1)[-1]
    return surface if _INITIALISM.match(last) else surface.rstrip(".")


def _own_subject(
    mentions: list[Mention], about: str, sentences: Sequence[Sentence], own_names: set[str]
) -> list[Mention]:
    """Names that are the document's own subject under a shorter name: the head of its title
    anywhere in it ("William II" in "William II, Count of Perche"), and the name its first
    sentence opens with when the title begins with it ("William II (1196 – 1231) was the lord
    of Dampierre" in "William II of Dampierre"). Namesakes with other titles keep apart."""
    if not about:
        return mentions
    key = fold(about)
    base = fold(split_qualifier(about)[0]).split()
    opening = sentences[0].start if sentences else -1
    first = next((s for s in sentences if not s.text.lstrip().startswith("#")), None)
    if first is not None:
        opening = first.start + len(first.text) - len(first.text.lstrip())
    out: list[Mention] = []
    for m in mentions:
        words = fold(m.surface).split()
        mine = fold(m.surface) in own_names or (
            m.start == opening and len(words) >= 2 and base[: len(words)] == words
        )
        if mine and m.key != key:
            m = Mention(key, m.surface, m.kind, m.sent, m.start, m.end, True, m.central, m.weak)
        out.append(m)
    return out


def _single_titles(gaz: Gazetteer, key: str) -> list[str]:
    """The entity a one-word gazetteer spelling ``key`` names (a title like "Toto"), if any."""
    return [k for seq, k in gaz.candidates(key, None) if seq == (key,)][:1]


def gazetteer_positions(
    toks: list[tuple[str, int, int]], folded: list[str]
) -> set[tuple[str, str | None]]:
    """The (word, next word) of each position :func:`english_mentions` may ask the gazetteer's
    candidates for: a capitalised word or a number, and the word after an honorific."""
    n = len(toks)
    at = [i for i, t in enumerate(toks) if t[0][0].isupper() or t[0][0].isdigit()]
    at += [i + 1 for i in at if i + 1 < n and toks[i][0].rstrip(".").lower() in HONORIFICS]
    return {(folded[i], folded[i + 1] if i + 1 < n else None) for i in at}


def _match_gazetteer(
    text: str,
    toks: list[tuple[str, int, int]],
    folded: list[str],
    i: int,
    gaz: Gazetteer,
    sentence_initial: bool,
) -> tuple[int, str] | None:
    word = toks[i][0]
    for seq, key in gaz.candidates(folded[i], folded[i + 1] if i + 1 < len(folded) else None):
        j = i + len(seq)
        if j > len(toks) or tuple(folded[i:j]) != seq:
            continue
        if len(seq) == 1 and (
            sentence_initial or word in _SKIP_SINGLE or not word[0].isupper() or len(word) < 3
        ):
            continue
        if not _contiguous(text, toks, i, j, allow_comma=True):
            continue
        if j < len(toks) and toks[j][0][0].isupper() and _contiguous(text, toks, j - 1, j + 1):
            continue  # "Blue Murder": a title that is only the head of a longer name
        return j, key
    return None


def _contiguous(
    text: str, toks: list[tuple[str, int, int]], i: int, j: int, allow_comma: bool = False
) -> bool:
    """Tokens i..j-1 are separated only by spaces (a comma — unless ``allow_comma``, for titles
    like "Lambert, Margrave of Tuscany" — or a line break ends a name)."""
    ok = (" ", ", ", "", " (", ") ") if allow_comma else (" ",)
    for a in range(i, j - 1):
        if text[toks[a][2] : toks[a + 1][1]] not in ok:
            return False
    return True


def _quoted_title(text: str, toks: list[tuple[str, int, int]], i: int) -> int:
    """The end of a quoted title that opens at ``toks[i]`` ('"Further Reflections on the Death
    of a Porcupine"', '"Death or Canada"', '"All the Same"'): every word up to the closing quote
    capitalized or a function word, at least two words (0: no such title). Cut at its
    function words, its parts made pages ("Death", "the Same")."""
    start = toks[i][1]
    if _spaced_open_quote(text, start):
        pass  # 2Wiki's style: 'collection," This Angel on My Chest.," won'
    elif start < 1 or text[start - 1] not in _OPEN_QUOTES:
        return 0
    elif start > 1 and not (text[start - 2].isspace() or text[start - 2] in "(["):
        return 0
    for m in range(i, min(len(toks), i + _QUOTED_WORDS)):
        word, _, end = toks[m]
        if m > i and not _contiguous(text, toks, m - 1, m + 1):
            return 0
        if not (word[0].isupper() or word[0].isdigit() or word in _QUOTED_CONNECT):
            return 0
        after = text[end : end + 3].lstrip(",.!?")[:1]
        if after and after in _CLOSE_QUOTES:  # not the end of the text: no quote closes there
            return m + 1 if m > i and (word[0].isupper() or word[0].isdigit()) else 0
    return 0


def _spaced_open_quote(text: str, start: int) -> bool:
    """Whether the word at ``start`` may open a quotation written the 2Wiki way, a space after
    the quote ('directing" 7th Heaven"( 1927)', 'collection," This Angel on My Chest.," won').
    A closing quote looks the same there ('significance." Dash has written'): the caller's
    check that every word up to the next quote is a title's tells them apart."""
    q = start - 2
    return q >= 0 and text[q + 1] == " " and text[q] in _OPEN_QUOTES


def _function_words(text: str, toks: list[tuple[str, int, int]], j: int, titled: bool) -> int:
    """How many lowercase connecting words at ``j`` lead to a capitalized word that continues
    the name (0: the name ends at ``j``). Outside a title only one of ``_CONNECT`` ("Bank of
    England"); inside a title up to two function words ("of the", "in")."""
    allowed = _TITLE_CONNECT if titled else _CONNECT
    limit = 2 if titled else 1
    m = 0
    while m < limit and j + m < len(toks) and toks[j + m][0].lower() in allowed:
        if toks[j + m][0][0].isupper():
            return 0
        m += 1
        nxt = j + m
        if nxt >= len(toks) or not toks[nxt][0][0].isupper():
            continue
        if titled and toks[j][0] == "and" and toks[nxt][0] in _ARTICLES:
            return 0  # "A Study in Scarlet and The Sign of Four": two titles
        if _contiguous(text, toks, j - 1, nxt + 1):
            return m
    return 0


def _adjective_of_name(toks: list[tuple[str, int, int]], k: int, j: int) -> bool:
    """Whether ``toks[k]``, a word that is no name alone, is the first word of the name
    ``toks[k:j]``: a nationality, faith or party before a capitalized word ("Democratic Party",
    "Catholic Church", "British Columbia", "French Revolution") — cut off, the rest named a page
    "Party", "Church", "Columbia". Not before an office or a role: "German Chancellor Helmut
    Kohl" is the chancellor."""
    if toks[k][0] not in _NAME_ADJECTIVES or k + 1 >= j:
        return False
    nxt = toks[k + 1][0].rstrip(".").lower()
    if nxt in _OFFICES or nxt in HONORIFICS or nxt in _ROLES or nxt in ("prime", "vice"):
        return False
    rest = [t[0] for t in toks[k + 1 : j]]
    if all(w in _SKIP_SINGLE for w in rest):
        return False  # "African American", "Roman Catholic": adjectives, no name
    head = next((rest[i - 1] for i, w in enumerate(rest) if i and w[:1].islower()), rest[-1])
    # one word ("Democratic Party", "Roman Polanski"), or a longer name headed by a kind word
    # ("American Civil War", "European Space Agency"); not "American Steve Nichols"
    return len(rest) == 1 or bool(kind_by_name(head) or kind_of_noun(head.rstrip(".")))


def _of_and(text: str, toks: list[tuple[str, int, int]], i: int, j: int) -> bool:
    """Whether "and" at ``j`` joins the last two words of one name opened at ``i`` by "X of"
    ("University of Science and Technology", "Academy of Arts and Sciences"): the run holds
    "of", and one capitalized word after "and" ends it. Two words after it are most likely a
    second name ("the Duke of York and Prince Edward")."""
    if not any(toks[a][0] == "of" for a in range(i + 1, j)):
        return False
    nxt = j + 1
    if nxt >= len(toks) or not toks[nxt][0][0].isupper() or toks[nxt][0] in _SKIP_SINGLE:
        return False
    if not _contiguous(text, toks, j - 1, nxt + 1):
        return False
    if toks[nxt][0].endswith(("'s", "’s")):
        return False  # "the Battle of Britain and Germany's …"
    after = nxt + 1
    return (
        after >= len(toks)
        or toks[nxt][0].endswith(".")
        or not (
            _contiguous(text, toks, nxt, after + 1)
            and (toks[after][0][0].isupper() or toks[after][0] in _CONNECT)
        )
    )


def _after_place_preposition(text: str, toks: list[tuple[str, int, int]], k: int) -> bool:
    """A short name right after "in / at / near / from / on" ("born in Edinburgh", "set on
    Dartmoor") is most likely a place — unless the verb is one works take ("starred in")."""
    if k < 1 or toks[k][0] in _ARTICLES or text[toks[k - 1][2] : toks[k][1]] != " ":
        return False
    first = toks[k][0]
    if first[0].isdigit() or first in _MONTHS:
        return False  # "on 14 June", "in May 1990": a date
    if first in _LANGUAGES or first.rstrip(".").lower() in _NOBLE:
        return False  # "in Hindi", "from Earl of Stafford"
    if toks[k - 1][0] not in _PLACE_PREP:
        return False
    return k < 2 or toks[k - 2][0].lower() not in _WORK_VERBS


def _person_context(
    text: str, toks: list[tuple[str, int, int]], k: int, j: int, run: list[str]
) -> bool:
    """Whether the text around the name ``toks[k:j]`` says it is a person's (see _ROLES)."""
    if len(run) > 4 or any(t[0].isdigit() for t in run):
        return False
    if len(run) >= 3 and run[0].lower() in _OFFICE_TITLES and run[1] in ("of", "for"):
        return False  # "a British Member of Parliament, who …": the office, not its holder
    if _rank_title(run):
        return False  # "Henry IX, Duke of Bavaria": the title; the holder is the name before
    if len(run) >= 2 and run[0].rstrip(".").lower() in _PERSONAL_HONORIFICS:
        return True
    if _office_before_name(run):
        return True  # "President Aníbal Pinto", "Senator Ted Kennedy"
    # What follows the name ("…, who", "(born …") is said of the whole phrase when the name
    # ends one: "Prince Claus of the Netherlands, who was …" is no sign that the Netherlands is
    # a person.
    if not _ends_titled_phrase(text, toks, k):
        if _PERSON_AFTER.match(text, toks[j - 1][2]):
            return True
        appos = _APPOSITIVE.match(text, toks[j - 1][2])
        if appos is not None and kind_of_noun(appos.group(1)) == "person":
            return True  # "Thurgood Marshall, the first African-American Supreme Court Justice"
    if k < 1 or text[toks[k - 1][2] : toks[k][1]] not in (" ", ", "):
        return False
    prev = toks[k - 1][0]
    if prev in _ROLES or prev in _STARRING:
        return True
    if prev == "of" and k >= 2 and toks[k - 2][0] in _KIN_OF:
        # "the older brother of Stephen Vincent Benét", "daughter of George Burns"
        return _kin_named(text, toks, j, run)
    if prev in _OCCUPATIONS and text[toks[k - 1][2] : toks[k][1]] == " ":
        return True  # not past a comma: "a psychologist, UNICEF chairwoman"
    if prev in ("is", "was") and k >= 2 and toks[k - 2][0] in _ROLES:
        return True  # "Their head coach was George O'Leary"
    return (
        prev == "by"
        and k >= 2
        and toks[k - 2][0] in _BY_PERSON
        and text[toks[k - 1][2] : toks[k][1]] == " "
    )


# Offices written before a holder's name as a title ("President John F. Kennedy"); not
# "General", which opens the names of firms and services ("General Electric", "General
# Hospital") as often.
_OFFICE_STYLES = frozenset(
    """president senator governor congressman congresswoman ambassador admiral marshal
    chancellor""".split()
)


def _office_before_name(run: list[str]) -> bool:
    """Whether a run is an office and a full name ("President Francisco Antonio Pinto"): two
    or three capitalized words or initials after it, the last no kind noun ("Governor Morris
    Hall" names a building)."""
    names = [w.rstrip(".") for w in run[1:]]
    return (
        run[0].lower() in _OFFICE_STYLES
        and 2 <= len(names) <= 3
        and all(w[:1].isupper() and w.replace("-", "").isalpha() for w in names)
        and not any(w in _SKIP_SINGLE for w in names)
        and not kind_of_noun(names[-1])
        and not kind_by_name(" ".join(names))
    )


# Ranks and styles before a ruler's regnal name ("King Louis XV of France", "Pope Innocent
# III", "Tsar Nicholas II of Russia").
_REGNAL_STYLES = _RANKS | frozenset("pope antipope emperor shah saint st".split())


def _regnal_name(run: list[str]) -> bool:
    """Whether a run is a ruler's regnal name: one to three names and a Roman numeral after a
    rank ("Pope Innocent III", "Emperor Paul I") or before "of" and a realm ("Louis XIV of
    France", "García Sánchez III of Navarre"); a sequel's numeral alone ("Decadent Evil II",
    "World War II") says nothing."""
    words = [w.rstrip(".") for w in run]
    styled = len(words) > 2 and words[0].lower() in _REGNAL_STYLES
    if styled:
        words = words[1:]
    at = next((i for i, w in enumerate(words) if _ROMAN.match(w)), -1)
    if not 1 <= at <= 3 or not all(w[:1].isupper() and w.isalpha() for w in words[:at]):
        return False
    if any(w in _SKIP_SINGLE or kind_of_noun(w) for w in words[:at]):
        return False  # "Part II", "Volume III", "Star Wars Episode IV"
    rest = words[at + 1 :]
    if not rest:
        return styled
    realm = rest[2:] if rest[:2] == ["of", "the"] else rest[1:]
    return rest[0] == "of" and bool(realm) and all(w[:1].isupper() for w in realm)


# A ruler's epithet after "the": "Cnut the Great", "Henry the Lion", "William the Conqueror".
_EPITHETS = frozenset(
    """Great Good Pious Bald Fat Simple Younger Elder Old Young Rich Black Red White Fair Wise
    Bold Brave Just Mad Lame Blind Tall Stout Proud Cruel Terrible Magnificent Peaceful
    Victorious Holy Lion Conqueror Confessor Unready Silent Small Child Hammer Navigator
    Lawgiver Liberator Apostate Martyr Prisoner Steadfast Quarrelsome Fowler""".split()
)


def _epithet_name(run: list[str]) -> bool:
    """Whether a run is a name and a ruler's epithet ("Philip the Good", "Catherine the
    Great"); not a title that has a verb or a kind word before "the" ("Meet the Parents",
    "Join the Triumph": no epithet follows)."""
    epithet = run[2].rstrip(".") if len(run) == 3 else ""
    return bool(epithet) and run[1] == "the" and epithet in _EPITHETS and run[0] not in _SKIP_SINGLE


def _rank_title(run: list[str]) -> bool:
    """ "Duke of Bavaria", "The King of Poland", "Grand Duke of Tuscany": a title of rank."""
    ranked = run[1:] if run[0] in ("The", "Grand", "Crown") else run
    return len(ranked) >= 3 and ranked[0].lower() in _RANKS and ranked[1] == "of"


def _ends_titled_phrase(text: str, toks: list[tuple[str, int, int]], k: int) -> bool:
    """Whether the name starting at ``toks[k]`` follows "of" or "of the" right after a
    capitalised word: the place or house of a titled name ("Prince Claus of the Netherlands"),
    not its head ("the son of Henry Smith, who …" keeps its cue: "son" is lowercase; so does
    "(son of Emilio Aguinaldo, Jr) of Emilio Aguinaldo, the first President": a bracket)."""
    i = k - 1
    if i >= 0 and toks[i][0] == "the":
        i -= 1
    return (
        i >= 1
        and toks[i][0] == "of"
        and toks[i - 1][0][:1].isupper()
        and text[toks[i - 1][2] : toks[i][1]] == " "
    )


def _is_demonym(word: str) -> bool:
    """Whether one word is a nationality or people and nothing more: "Israeli", "Americans",
    "Greek-American", "French-language" (a compound of them, or one before a lowercase word)."""
    parts = word.split("-")
    if len(parts) > 1:
        return (parts[0] in _COMBINING or _is_demonym(parts[0])) and all(
            _is_demonym(p) or p[:1].islower() for p in parts[1:]
        )
    if word.endswith("s") and len(word) > 4 and _is_demonym(word[:-1]):
        return True  # "Americans", "Europeans"
    return word in _DEMONYMS or word in _SKIP_DEMONYMS or bool(_DEMONYM.match(word))


# Words that qualify a demonym without making a name of it: "South African", "West German".
_COMPASS = frozenset(
    """North South East West Northern Southern Eastern Western Central Southeast Southwest
    Northeast Northwest""".split()
)
_YEAR = re.compile(r"^\d[\d,]*$")


def _demonym_phrase(run: list[str]) -> bool:
    """Whether a run of several words is a nationality and what qualifies it, no name: a year
    ("a 1927 American silent film" made a page "1927 American", one per year and country), a
    compass word ("South African", "East German"), a listed demonym ("Soviet Armenian",
    "French- Armenian" as 2Wiki spaces it, "Anglo- Irish"), or "The" before a listed one ("The
    Japanese", "The Italian"; a suffix alone says too little after it: "The Guardian")."""
    *head, last = (w.rstrip(".").rstrip("-") for w in run)
    if not _is_demonym(last) and not (last in _COMPASS and _YEAR.match(head[0])):
        return False  # "a 1926 American Western film": the genre too
    if head[:1] == ["The"]:
        head = head[1:]
        if not head:
            return last in _SKIP_DEMONYMS or last in _DEMONYMS
    # a demonym before it only if listed: "Brian Cornish", "Julian Parrish" are names
    listed = _SKIP_DEMONYMS | _DEMONYMS | _COMBINING
    return all(_YEAR.match(w) or w in _COMPASS or w in listed for w in head)


# Second halves of hyphenated adjectives: "Emmy-winning", "London-based", "German-born".
_COMPOUND_ADJECTIVE_ENDS = frozenset(
    """winning nominated born based language speaking owned led run made produced directed
    founded funded backed sponsored themed inspired style era""".split()
)


def _past_compound_adjective(toks: list[tuple[str, int, int]], k: int, j: int) -> int:
    """Where the name of the run ``toks[k:j]`` starts: past its last hyphenated adjective
    ("Academy Award-winning Meryl Streep" is Meryl Streep; "the Emmy- winning special" names
    nothing), else at ``k``."""
    start = k
    for n in range(k, j):
        tail = toks[n][0].rsplit("-", 1)
        if len(tail) == 2 and tail[1].strip().rstrip(".") in _COMPOUND_ADJECTIVE_ENDS:
            start = n + 1
    return start


def _is_candidate(
    run: list[str], sentence_initial: bool, longest: int = 6, surname: bool = False
) -> bool:
    if not run or len(run) > longest:
        return False
    if any(len(t) > 30 for t in run):
        return False
    if len(run) == 1:
        w = run[0].rstrip(".")
        if sentence_initial or w in _SKIP_SINGLE or w in _QUESTION_WORDS or len(w) < 3:
            return False
        if _is_demonym(w) and not surname:
            return False
        if w in _COMPASS and not surname:
            return False  # "Western art", "the North", "Northern artists": no name alone
        if w.isdigit() or not w[0].isupper() or w.isupper() and len(w) <= 2:
            return False
        if _ROMAN.match(w):
            return False  # "III" of "Ester James Junior, III"
    if len(run) == 2 and run[0] == "The" and _is_demonym(run[1]) and not _DEMONYM.match(run[1]):
        # "The German-language version", "The Chinese" at a sentence's start; a suffix alone
        # says too little after "The" ("The Guardian")
        return False
    if len(run) >= 2 and _demonym_phrase(run):
        return False
    if all(t[0].isdigit() or t in _MONTHS for t in run):
        return False  # "17 April", "April 1975", "14 November 1893": a date, not a name
    return True


def _coref(
    mentions: list[Mention],
    about: str,
    about_person: bool,
    lower: frozenset[str] = frozenset(),
    titles: dict[str, str] | None = None,
) -> list[Mention]:
    """Fold short forms into the full names the same document uses: a single word that is the
    last (or, for the person the document is about, first) word of a full name, and an
    honorific with one name ("Mr. Holmes"). A gazetteer match is never redirected."""
    surname: dict[str, tuple[str, str]] = {}
    if about and about_person:
        base = split_qualifier(about)[0].split(",")[0].split()
        if len(base) >= 2:
            if not _realm_last(base):
                surname.setdefault(fold(base[-1]), (fold(about), "person"))
            surname.setdefault(fold(base[0]), (fold(about), "person"))
    for m in mentions:
        parts = m.surface.split()
        if (
            m.kind == "person"
            and len(parts) >= 2
            and parts[0].rstrip(".").lower() not in HONORIFICS
            and not _realm_last(parts)
        ):
            surname.setdefault(fold(parts[-1]), (m.key, m.kind))
    named = {m.key for m in mentions if m.gaz is not None}
    out: list[Mention] = []
    for m in mentions:
        parts = m.surface.split()
        honorific = len(parts) == 2 and parts[0].rstrip(".").lower() in HONORIFICS
        short = parts[-1] if honorific else (parts[0] if len(parts) == 1 else None)
        target = surname.get(fold(short)) if short and not m.gaz else None
        if target is not None and target[0] != m.key:
            out.append(
                Mention(target[0], m.surface, target[1] or m.kind, m.sent, m.start, m.end, True)
            )
        elif m.gaz is None:
            # An unresolved sentence-initial single word ("London rebuilt the docks"): a name
            # if the document also uses it as one elsewhere, or if it is a corpus title the
            # document never writes in lower case; else most likely a capitalized common word.
            title = (titles or {}).get(m.key)
            if m.key in named:
                out.append(Mention(m.key, m.surface, m.kind, m.sent, m.start, m.end, False))
            elif title is not None and m.key not in lower:
                out.append(Mention(title, m.surface, m.kind, m.sent, m.start, m.end, True))
        elif short and honorific:
            out.append(Mention(fold(short), m.surface, "person", m.sent, m.start, m.end, m.gaz))
        else:
            out.append(m)
    return out


def _realm_last(parts: list[str]) -> bool:
    """Whether a person's name ends in the realm or house it is "of" ("Louis XIV of France",
    "Hugh II of Arborea", "Philip III of Nassau- Saarbrücken", "Elizabeth II of the United
    Kingdom"): its last word is no surname — "France" alone is the country, not the king."""
    return "of" in written_whole(" ".join(parts)).split()[1:-1]


def has_han(word: str) -> bool:
    """Whether ``word`` holds a Han character (Chinese text, names and titles)."""
    return any("\u3400" <= c <= "\u9fff" for c in word)


def other_script(name: str, other: str) -> bool:
    """Whether two names are written in different scripts (鲁迅 / Lu Xun)."""
    return has_han(name) != has_han(other)


ALIAS_KIND = "alias"
_EN_ALIAS = re.compile(
    r"\b(?:(?:pen|stage|real|birth|courtesy) name (?:of|was|is)|also known as|better known as"
    r"|a\.k\.a\.?)\s+((?:[A-Z][\w'’-]+\s){0,3}[A-Z][\w'’-]+)"
)
_ZH_ALIAS = re.compile(
    r"(?:原名|本名|笔名|又名|字|号)[:：]?([\u4e00-\u9fff]{2,4}?)(?=[，,。；、（(]|$)"
)
ALIAS_SENTENCES = 3
# The subject's name in another script, glossed right after the title where the article opens:
# "Lu Xun (Chinese: 鲁迅; …)", "鲁迅（Lu Xun，1881—1936）" — one subject declared across languages.
_EN_GLOSS = r"\s*\((?:(?:[Ss]implified |[Tt]raditional )?(?:Chinese|Japanese|Korean)[:：]?\s*)?"
_EN_GLOSS += r"([\u3400-\u9fff]{1,8})(?=[;,)；，\s])"
_ZH_GLOSS = (
    r"\s*[（(](?:英文|英语|English)?[:：]?\s*([A-Z][A-Za-z'’.-]*(?: [A-Z][A-Za-z'’.-]*){0,4})"
)
_ZH_GLOSS += r"(?=[，,；;）)])"


_GLOSS_AFTER_TITLE = {"zh": re.compile(_ZH_GLOSS), "en": re.compile(_EN_GLOSS)}


def _title_gloss(
    title: str, text: str, sentences: Sequence[Sentence], lang: str
) -> tuple[int, re.Match[str]] | None:
    """The first place in ``sentences`` where the title is followed by its name in the other
    script ("Lu Xun (Chinese: 鲁迅)", "鲁迅（Lu Xun，…"): the sentence's index and the match.
    The gloss pattern is compiled once; a pattern per title cost a compile per document."""
    if not title:
        return None
    rx = _GLOSS_AFTER_TITLE["zh" if lang == "zh" else "en"]
    for idx, s in enumerate(sentences):
        at = text.find(title, s.start, s.end)
        while at >= 0:
            m = rx.match(text, at + len(title), s.end)
            if m is not None:
                return idx, m
            at = text.find(title, at + 1, s.end)
    return None


def declared_aliases(
    title: str, text: str, sentences: Sequence[Sentence], lang: str
) -> list[Mention]:
    """Other names a document gives its own subject in its first sentences ("Lu Xun was the
    pen name of Zhou Shuren", "鲁迅，原名周树人"): mentions of kind ``alias`` keyed by the title,
    which the model turns into corpus-wide variants of the title's entity."""
    key = fold(title)
    rx = _ZH_ALIAS if lang == "zh" else _EN_ALIAS
    out: list[Mention] = []
    for idx, s in enumerate(sentences[:ALIAS_SENTENCES]):
        for m in rx.finditer(text, s.start, s.end):
            name = m.group(1)
            if fold(name) != key:
                out.append(Mention(key, name, ALIAS_KIND, idx, m.start(1), m.end(1), True))
    g = _title_gloss(title, text, sentences[:ALIAS_SENTENCES], lang)
    if g is not None:
        idx, m = g
        out.append(Mention(key, m.group(1), ALIAS_KIND, idx, m.start(1), m.end(1), True))
    if lang != "zh":
        full = _declared_full_name(title, text, sentences)
        if full is not None:
            out.append(full)
    return out


# The name an article opens with, before its verb or bracket: "Arsenal Football Club is ...",
# 'Christopher James "Chris" Evans (born 1 April 1966) is ...'.
_OPENING_NAME = re.compile(
    r"(?:The )?((?:[A-Z][\w'’.&-]*|of|de|von|van|der|da|di|du|la|le|y)"
    r"(?: (?:[\"“(][A-Z][\w.'’-]{0,20}[\"”)]|[A-Z][\w'’.&-]*|of|de|von|van|der|da|di|du|la|le|y))"
    r"{1,7})(?=,? (?:is|was|are|were|has|had)\b|\s?\()"
)


def _declared_full_name(title: str, text: str, sentences: Sequence[Sentence]) -> Mention | None:
    """The fuller name an English article's first sentence gives its subject ("Arsenal Football
    Club is ..." in the article "Arsenal F.C.", "Jeffrey Thomas Porcaro (April 1, 1954 – ...)"
    in "Jeff Porcaro") as an alias of the title, when it spells out the title: every word of
    the title in order, a word matching a longer form ("Jeff" / "Jeffrey") or an abbreviation
    its initials spell ("F.C." / "Football Club"), with middle names between them."""
    idx = next((i for i, s in enumerate(sentences) if not s.text.lstrip().startswith("#")), -1)
    if idx < 0:
        return None
    s = sentences[idx]
    lead = len(s.text) - len(s.text.lstrip())
    m = _OPENING_NAME.match(text, s.start + lead, s.end)
    if m is None:
        return None
    name = m.group(1)
    words = [w for w in name.split() if not w.startswith(('"', "“", "("))]
    if fold(" ".join(words)) in {fold(title), *own_short_names(title)}:
        return None  # the title's own base ("James Adam" of "James Adam (architect)")
    if not _spells_out(title, words):
        return None
    # the alias is the name without its nickname; the mention spans the name as written
    return Mention(fold(title), " ".join(words), ALIAS_KIND, idx, m.start(1), m.end(1), True)


def _spells_out(title: str, words: list[str]) -> bool:
    want = [fold(w) for w in split_qualifier(title)[0].split(",", 1)[0].split()]
    have = [fold(w) for w in words]
    if len(have) < 2 or len(want) < 1:
        return False
    i = j = 0
    while i < len(want) and j < len(have):
        w, h = want[i], have[j]
        letters = w.replace(".", "")
        if w == h or (len(w) >= 3 and h.startswith(w) and i == 0):
            i, j = i + 1, j + 1  # the same word, or a short form of the first name
        elif (
            "." in w
            and len(letters) >= 2
            and "".join(x[0] for x in have[j : j + len(letters)]) == letters
        ):
            i, j = i + 1, j + len(letters)  # "F.C." spelled out as "Football Club"
        elif i > 0 and j + 1 < len(have):
            j += 1  # a middle name
        else:
            return False
    return i == len(want) and j == len(have)
