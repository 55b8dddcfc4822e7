"""The head noun of an English definition ("X was an American film director" → director): the
one reader of a lead sentence, for the category a page is filed under
(:mod:`wikikv.compile.categories`) and the kind it is typed as (:mod:`wikikv.text.kinds`).
Coordination is read as a reader does: "a film and television director", "a theatre and film
director" are directors, not films or theatres."""

from __future__ import annotations

import re
from functools import lru_cache

from wikikv.text.broad_kinds import BROAD, COMPOUNDS, broad_kind
from wikikv.text.nouns import kind_of_noun

# "X is / was / are / were (a|an|the|one of the)? ..." up to where the noun phrase ends.
COPULA = re.compile(
    r"\b(?:is|was|are|were|has been|had been)\s+(?:also\s+|currently\s+|now\s+)?"
    r"(?:(?:one|any) of (?:the )?(?:most |many |several )?|a |an |the )",
    re.IGNORECASE,
)
NP_END = re.compile(
    r"(?:,|;|:|\(|\)|\.(?:\s|$)|\s(?:of|by|in|from|who|whose|that|which|for|on|with|and|or|"
    r"at|to|based|located|directed|written|produced|released|known|born|situated|founded|"
    r"created|published|starring|where|between|under|near|about|as|since|during|after|"
    r"before|until|serving|playing|best|featuring|recorded|starring|set|consisting|made|"
    # a preposition of place or motion ("a road bridge across the Elbe river" is a bridge);
    # "over" only before an article or a name ("a voice over actor" is an actor)
    r"across|over(?=\s+(?:the\b|an?\b|(?-i:[A-Z])))|through|along|into|onto|upon|within|"
    r"among|amongst|around|against|beyond|toward|towards|via|throughout|beneath|behind|"
    r"inside|outside|alongside|beside|amid|"
    r"currently|formerly|previously|originally|mainly|primarily|mostly|also|now|still|"
    # a participle that opens a clause ("a shrub belonging to", "a team representing")
    r"belonging|running (?:between|from|through|along|across)|representing|speciali[sz]ing|"
    r"living|focus+ing|comprising|"
    r"containing|connecting|linking|spanning|flowing|depicting|describing|involving|"
    r"including|competing|performing|providing)\b)",
    re.IGNORECASE,
)
# "developed", "co-headlined"; not a kind noun that ends the same way ("a breed of dog").
_PARTICIPLE = re.compile(r"^[a-z][a-z\-]+ed$")
ASIDE = re.compile(r"\s*\([^()]{0,40}\)")  # a parenthesis inside the noun phrase
_REFERS = re.compile(r"\bmay (?:also )?refer to\b|\bcan refer to\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
# Words that end a noun phrase without naming a kind of thing.
NOT_HEAD = {
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
    "specifically",
    "best",
    "second-largest",
    "largest",
}


# "was King of …", "became Duke of …": a title without an article.
_TITLED = re.compile(
    r"\b(?:is|was|became|has been|had been)\s+(?:also\s+)?([A-Z][a-z]+)\s+(?:of|to)\b"
)
_PARENS = re.compile(r"\s*\([^()]{0,300}\)")
_SPACED_HYPHEN = re.compile(r"(\w)- (\w)")
_NATIVE_BORN = re.compile(r"\b([A-Z][a-z]+)[- ]born\b")


@lru_cache(maxsize=16384)  # the same lead sentences are read for every entity they mention
def normalized(sentence: str) -> str:
    """A lead sentence as the category reader wants it: parentheses (life spans, native
    spellings) dropped, "black- and- white" and "Australian- born" joined."""
    text = _PARENS.sub("", sentence)
    text = _SPACED_HYPHEN.sub(r"\1-\2", text)
    return _NATIVE_BORN.sub(r"\1-born", text)


def lead_head(sentence: str, title: str = "") -> str:
    """The head noun of a definitional lead sentence as written ("son" in "was the second son
    of …"; :func:`lead_category` files kinship under "family member"). A sentence opening with
    its ``title`` is read after it ("There Was a Crooked Man... is a 1970 western")."""
    if title and len(title) > 3 and sentence.startswith(title):
        sentence = "It" + sentence[len(title) :]
    text = normalized(sentence[:600])[:400]
    if _REFERS.search(text):
        return "disambiguation page"
    titled = _TITLED.search(text[:200])
    if titled and titled.group(1).lower() in BROAD:
        return titled.group(1).lower()  # "was King of the Franks", "became Duke of …"
    m = COPULA.search(text)
    if m is None or m.start() > 160:
        return ""
    rest = ASIDE.sub("", text[m.end() :])  # "football (soccer) player" is a player
    if _ANOTHER_NAME.match(rest):
        return ""  # "is the stage name of Shelley Graham": who that is, said elsewhere
    end = NP_END.search(rest)
    head = _head_of(rest[: end.start()] if end else rest[:80])
    later = _coordinated_head(rest, end.start()) if end else ""
    if later and kind_of_noun(later) not in (None, kind_of_noun(head)):
        # "a stage and film actress", "a film and television director": the first word was a
        # modifier; a person's noun ("a lawyer and White House Counsel") or a category noun
        # of no kind of its own ("a peer and Conservative Party politician") is a head and stays
        if kind_of_noun(head) not in (None, "person") or not broad_kind(head):
            return later
    return head


_ANOTHER_NAME = re.compile(r"(?:stage|pen|ring|birth|real|courtesy|professional) name\b", re.I)
# What opens an apposition or a place, not the next part of a list.
_NOT_A_LIST = frozenset("the a an in of at on from by for with to former".split())
# Between two parts of a coordinated noun phrase: ", ", " and ", ", and ", " or ".
_COORD = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def _coordinated_head(rest: str, at: int) -> str:
    """When the noun phrase that ends at ``rest[at]`` is one word of a list that goes on to a
    longer phrase ("stage, film and television character actress"), that phrase's head: the
    first words were its modifiers, not heads of their own ("" when no such phrase follows)."""
    while (sep := _COORD.match(rest, at)) is not None:
        end = NP_END.search(rest, sep.end())
        stop = end.start() if end else min(len(rest), sep.end() + 80)
        words = _WORD.findall(rest[sep.end() : stop])
        if words and words[0].lower() in _NOT_A_LIST:
            return ""  # "an Irish peer, the son of …", "a kun, or county, in …": no list
        if len(words) >= 2:
            return _head_of(rest[sep.end() : stop])
        if len(words) != 1 or end is None:
            return ""
        at = stop
    return ""


def _head_of(phrase: str) -> str:
    """The head noun of a definition's noun phrase as written, or ""."""
    words = _WORD.findall(phrase)
    # Drop trailing words that are not heads ("a former member" has no head here); a title
    # is a head though capitalized ("the last Queen of Bavaria").
    while words and (
        words[-1].lower() in NOT_HEAD
        or (not words[-1][:1].islower() and words[-1].lower() not in BROAD)
        or (  # "a video game developed by …": the game
            _PARTICIPLE.match(words[-1])
            and words[-1] not in BROAD
            and kind_of_noun(words[-1]) is None
        )
    ):
        words.pop()
    if not words or len(words) > 7:
        return ""
    head = str(words[-1]).lower()
    if head in NOT_HEAD or len(head) < 3 or not head.isalpha():
        return ""
    pair = f"{words[-2].lower()} {head}" if len(words) >= 2 else ""
    return pair if pair in COMPOUNDS else head  # "a mixed martial artist": no artist
