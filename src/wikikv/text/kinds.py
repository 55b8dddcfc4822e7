"""Entity kinds: what a document's title names (person, place, work, ...), from its
parenthetical qualifier, its first sentence (English definition patterns; for Chinese, a
definition of the title as a person or a place), or the shape of the name."""

from __future__ import annotations

import re

from wikikv.text.comma_titles import kind_of_comma_title
from wikikv.text.lead import lead_head
from wikikv.text.nouns import HEAD_WORDS, kind_of_noun

__all__ = ["kind_of_noun"]  # re-exported: the kind a common noun names

_QUALIFIER = re.compile(r"^(.*\S)\s*[(（]([^()（）]+)[)）]\s*$")

_KIND_SUFFIX = [
    (
        re.compile(
            r"\b(University|College|School|Academy|Institute|Company|Corporation|Inc|Ltd|"
            r"Records|Party|Club|FC|Band|Association|Society|Council|Ministry|Army|Navy|"
            r"Church|Bank|Airlines|Group|Team|League|Agency|Museum|Library|Guard|Corps)\b"
        ),
        "org",
    ),
    (
        re.compile(
            r"\b(River|Lake|County|City|Mountain|Mountains|Island|Islands|State|Province|"
            r"Street|Sea|Ocean|Valley|Bay|Township|Village|District|Park|Castle|Airport|"
            r"Station|Bridge|Kingdom|Empire|Republic)\b"
        ),
        "place",
    ),
    (
        re.compile(
            r"\b(War|Battle|Olympics|Championship|Championships|Cup|Election|Festival|"
            r"Revolution|Treaty|Awards?|Games|Tournament|Prize)\b"
        ),
        "event",
    ),
]
# A qualifier's kind words match whole words (a plural too): "(filmmaker)" is no film,
# "(chess player)" no play, "(Queensland)" no queen and "(Tarkington novel)" no king.
_WORK_Q = re.compile(
    r"\b(?:film|album|song|novel|book|tv|(?:mini)?series|play|opera|poem|magazine|"
    r"newspaper|video game|soundtrack|ep|single|musical|comic|manga)s?\b",
    re.I,
)
_PERSON_Q = re.compile(
    r"\b(?:actor|actress|singer|musician|politician|footballer|writer|author|"
    r"director|painter|poet|composer|(?:arch)?bishop|king|queen|saint|born|died|"
    r"cricketer|athlete|rapper|journalist|player|general|judge)(?:e?s)?\b",
    re.I,
)
# from a word's start: "(racing driver)" is no river ("townland", "stately home" still are places)
_PLACE_Q = re.compile(
    r"\b(?:city|town|village|river|county|district|state|province|island|"
    r"mountain|lake|country)",
    re.I,
)
_ORG_Q = re.compile(
    r"\b(?:band|company|university|college|school|club|party|team|organization|"
    r"magazine publisher|label)s?\b",
    re.I,
)
_QUALIFIER_WORD = re.compile(r"[a-z]+", re.I)
# A word of the definition's noun phrase before its kind word; a preposition ends the phrase
# ("is an American plant ecologist at the University of Copenhagen" names no university).
_W = r"(?:(?!(?:of|at|in|on|for|from|by|with|to|into|near|across|within)\b)[\w-]+ )"
_FIRST_PERSON = re.compile(
    r"^[^()]{0,60}?(?<! is)(?<! was)\(\s*(?:c|b|d|fl)\.$"  # the first sentence cut at "Edwin (c."
    r"|\((?:[^()]*\b(?:born|died|c\.|b\.|d\.)(?:\s|\b)|[^()]*\d{3,4}\s*[–—-]\s*(?:[\w,]+\s+){0,3}\d{3,4}"
    r"|[^()]*\b\d{1,2} \w+ \d{3,4}\s*[–—-][^()]*\b\d{1,2} \w+ \d{3,4}\))"
    rf"|\bwas an? {_W}{{0,4}}(?:actor|actress|singer|musician|politician|footballer|writer|"
    r"author|director|painter|poet|composer|bishop|king|queen|prince|princess|noble|nobleman|"
    r"lawyer|judge|officer|soldier|general|scientist|physicist|chemist|philosopher|"
    r"cricketer|athlete|player|rapper|journalist|producer|architect|engineer|businessman|"
    r"economist|historian|priest|monk|emperor|duke|count|countess|lord|lady|dancer|model|"
    r"screenwriter|filmmaker|novelist|playwright|artist|photographer|designer|coach|"
    r"manager|diplomat|activist|inventor|entrepreneur|missionary|theologian|mathematician|"
    r"drummer|guitarist|bassist|pianist|violinist|percussionist|vocalist|songwriter|conductor|"
    r"comedian|broadcaster|presenter|statesman|monarch|ruler|sultan|cardinal|pope|saint)\b"
    rf"|\bis an? {_W}{{0,4}}(?:actor|actress|singer|musician|politician|footballer|"
    r"writer|author|director|painter|poet|composer|rapper|journalist|producer|player|model|"
    r"novelist|artist|businessman|coach|comedian|dancer|detective|character|"
    r"drummer|guitarist|pianist|songwriter|scientist|philosopher|lawyer|physician)\b"
    r"|\b(?:is|was) the (?:pen|stage|real|birth|courtesy) name of\b"
    r"|^(?-i:(?:Dr|Mr|Mrs|Ms|Miss|Sir|Dame|Professor|Prof)\.? [A-Z])",
    re.I,
)
_FIRST_WORK = re.compile(
    rf"\b(?:is|was) an? {_W}{{0,4}}(?:film|movie|album|song|single|novel|book|"
    r"television|TV|series|sitcom|play|opera|musical|poem|video game|documentary|soundtrack|"
    r"EP|anthology|short story|novella|comic|manga|newspaper|magazine|painting|sculpture)\b"
    # an object shown in a museum: a painting's date in brackets is no life span ("The St.
    # Vitus Madonna (c. 1395–1415) … is exhibited in its original frame")
    r"|\b(?:is|are|was|were) (?:now |currently |permanently )?(?:exhibited|displayed|on display|"
    r"on view)\b|\bhangs in\b",
    re.I,
)
_FIRST_PLACE = re.compile(
    # "is a cave in the municipality of …": a thing in a place is most likely a place itself
    r"\b(?:is|was) an? (?:[\w-]+ ){0,5}(?:city|town|village|river|county|district|state|"
    r"province|island|mountain|lake|country|region|municipality|commune|suburb|"
    r"neighbourhood|neighborhood|hamlet|township|parish|valley|airport|station|"
    r"building|church|castle|bridge|park|stadium|street|road|settlement|capital)\b"
    r"|\bis the capital\b",
    re.I,
)
_FIRST_ORG = re.compile(
    rf"\b(?:is|was) an? {_W}{{0,5}}(?:band|group|company|corporation|university|college|"
    r"school|club|party|team|organization|organisation|label|newspaper|agency|institute|"
    r"association|society|firm|brand|airline|network|channel|dynasty)\b",
    re.I,
)
_FIRST_EVENT = re.compile(
    rf"\b(?:is|was) an? {_W}{{0,4}}(?:battle|war|election|festival|tournament|"
    r"championship|competition|ceremony|conference|treaty|revolution|event|season)\b",
    re.I,
)


_HEADING = re.compile(r"^\s*#+[ \t]*")
_ZH_PERSON = re.compile(
    r"^[（(][^）)]*\d{3,4}[^）)]*[）)]|^[，,]?(?:原名|本名|笔名|字|号|又名)"
    r"|^[^。；]{0,20}?(?:\d{3,4}年(?:\d{1,2}月)?(?:\d{1,2}日)?(?:生|出生)|生于|出生于)"
    r"|^是[^。；]{0,25}?(?:作家|诗人|散文家|翻译家|学者|思想家|政治家|画家|教授|演员|歌手|"
    r"人物|哥哥|弟弟|姐姐|妹妹|儿子|女儿|父亲|母亲|妻子|丈夫)"
)
_ZH_PLACE = re.compile(
    r"^(?:位于|地处)|^是[^。；]{0,25}?(?:城市|名城|古城|省会|首都|县城|城镇|乡镇|村庄|地区|港口|"
    r"省|市|县|镇|村)(?:[，。,；]|$)"
)


def split_qualifier(title: str) -> tuple[str, str]:
    """("Heat", "film") for "Heat (film)"; (title, "") when there is no qualifier."""
    m = _QUALIFIER.match(title)
    return (m.group(1), m.group(2)) if m else (title, "")


def kind_of_qualifier(qualifier: str) -> str | None:
    if not qualifier:
        return None
    for rx, kind in (
        (_WORK_Q, "work"),
        (_PERSON_Q, "person"),
        (_ORG_Q, "org"),
        (_PLACE_Q, "place"),
    ):
        if rx.search(qualifier):
            return kind
    # else its head noun when that names a person or a work ("(songwriter)", "(Royal Navy
    # officer)", "(wife of Mehmed II)", "(Argentine telenovela)"); an organization or an event
    # there is the setting of a person's life more often than the subject's kind ("(Han
    # dynasty)", "(rugby league)", "(season 3)"); a capitalized word is a name ("(How I Met
    # Your Mother)", "(New Girl)")
    words = _QUALIFIER_WORD.findall(re.split(r"\bof\b|,", qualifier)[0])
    head = kind_of_noun(words[-1]) if words and words[-1].islower() else None
    return head if head in ("person", "work") else None


def classify_title(title: str, first_sentence: str, lang: str) -> str:
    """The kind of the entity a document is about, from its title and first sentence."""
    head = _strip_heading(first_sentence, title)[:300]
    if lang == "zh":
        return _classify_zh(title, head)
    base, qual = split_qualifier(title)
    by_qual = kind_of_qualifier(qual)
    if by_qual:
        return by_qual
    # the one head-noun reader first (it reads "a film and television director" as a director,
    # where the phrase reader below stopped at "film"); that reader where it finds no kind noun
    by_head = kind_of_noun(lead_head(head, title) or "-") or _kind_of_head(head)
    if by_head:
        return by_head
    if _called_by_surname(base, head):
        return "person"
    for rx, kind in (
        (_FIRST_WORK, "work"),
        (_FIRST_EVENT, "event"),
        (_FIRST_ORG, "org"),
        (_FIRST_PLACE, "place"),
        (_FIRST_PERSON, "person"),
    ):
        if rx.search(head):
            return kind
    # a comma: a place's qualifier ("Weldon, California") unless what follows it says a noble's
    # title, a date or a phrase ("John, King of England", "… election, 2006", "… other stories")
    return kind_by_name(base) or kind_of_comma_title(base if "," in base else title) or "topic"


# The noun phrase a definition opens with ("was a French princess of the Valois dynasty", "is a
# Canadian film director and producer"): its head — the last kind word before a preposition, a
# clause or a comma — names the kind, wherever other kind words come later in the sentence.
_DEFINITION = re.compile(
    r"\b(?:is|was|are|were) (?:an?|one of the|the) ((?:[\w'’-]+ ){0,7}[\w'’-]+)"
)
# Where the noun phrase of a definition may end: before a preposition, a clause or a participle.
_PHRASE_END = frozenset(
    """of in on at from for by with who which that whose based located founded directed
    written produced released published and or to known about starring featuring set
    created owned operated serving dedicated named built used formed developed designed
    across through along into onto upon within among amongst around against beyond toward
    towards via throughout beneath behind inside outside alongside beside amid""".split()
)


def _kind_of_head(head: str) -> str | None:
    """The kind the head noun of the first definition in ``head`` names, if it is one: the
    last kind word before the first place the noun phrase may end, or, when none is there,
    before a later one ("is a sports and entertainment arena located in …": not "sports")."""
    m = _DEFINITION.search(head)
    if m is None:
        return None
    words = m.group(1).casefold().split()
    ends = [i for i in range(1, len(words)) if words[i] in _PHRASE_END]
    if m.end(1) == len(head) or head[m.end(1)] in ",.;:(":
        ends.append(len(words))
    # "is a/an …": the last kind word of the phrase ("an American rock band"); "is the …" and a
    # phrase past its first "and" (longer, less sure): only its last word ("the second official
    # bid" is no official)
    loose = not m.group(0).split()[1] == "the"
    for end in ends:
        for at in reversed(range(end)) if loose else range(end - 1, end):
            word = words[at]
            # the phrase's last word by either table, a modifier before it by HEAD_WORDS alone
            # ("a subcompact executive car" is no executive)
            if at == end - 1:
                kind = kind_of_noun(word)
            else:
                kind = HEAD_WORDS.get(word) or HEAD_WORDS.get(word.rsplit("-", 1)[-1])
            if kind is not None:
                return kind
        if end < len(words) and words[end] not in ("and", "or"):
            return None  # past a preposition or a clause: "a member of the House of …"
        loose = False
    return None


def _strip_heading(text: str, title: str) -> str:
    """The first sentence without a Markdown heading ("# Lu Xun\n\nLu Xun was …", or the
    heading joined to the next sentence by a space)."""
    m = _HEADING.match(text)
    if m is None:
        return text
    rest = text[m.end() :]
    if rest.startswith(title):
        rest = rest[len(title) :]
    return rest.lstrip()


def _classify_zh(title: str, head: str) -> str:
    """A Chinese document is a *work* (a piece of a single-author corpus: an essay, a story, a
    preface) unless its first sentence is a definition of its title as a person ("鲁迅，原名周树人，
    1881年生于…", "周作人是…散文家") or a place ("绍兴是浙江省的一座…名城")."""
    head = head.lstrip()
    base = title if head.startswith(title) else split_qualifier(title)[0].strip()
    if not base or not head.startswith(base):
        return "work"  # 《孔乙己》是…小说: a title in book quotes is a work
    rest = head[len(base) :][:80]
    if rest[:1].isspace():
        return "work"  # "柔石小传 柔石，原名…": the title, then a text about someone else
    if _ZH_PERSON.search(rest):
        return "person"
    if _ZH_PLACE.search(rest):
        return "place"
    return "work"


def _called_by_surname(name: str, head: str) -> bool:
    """Whether the first sentence calls the title's bearer by an honorific and the title's last
    word ("… Ms. Wesman founded …" of Jane Wesman), or says that one was born ("One of six
    children, Preedy was born in …"): only a person is."""
    parts = name.split()
    if len(parts) < 2 or not parts[-1][:1].isupper():
        return False
    surname = re.escape(parts[-1])
    called = rf"\b(?:Mr|Ms|Mrs|Miss|Dr|Sir)\.? {surname}\b|\b{surname} (?:was|is) born\b"
    return re.search(called, head) is not None


def kind_by_name(name: str) -> str | None:
    for rx, kind in _KIND_SUFFIX:
        if rx.search(name):
            return kind
    return None
