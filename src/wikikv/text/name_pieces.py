"""What a capitalised English word is when it stands alone (see :mod:`wikikv.text.entities`).

A one-word name met in two documents became a page. Many of them are no names of their own
but pieces of longer ones (the HotpotQA wiki's "Year" of "Rookie of the Year", "Speaker" of
"Speaker of the United States House", "Division" of "Division 2"): such a use is *weak* — it
still reaches a page that other uses make, but makes none. A name the text places — after a place's name and a comma
("Birmingham, Alabama"), in a list of places, after "the state / city / region of" — is a
place.

Each helper takes the document's text, its tokens (word, start, end) and the run ``k:j``.
"""

from __future__ import annotations

from wikikv.text.kinds import kind_of_noun

Tokens = list[tuple[str, int, int]]

# Words that may follow a place's qualifier ("Knoxville, Tennessee, where …", "Birmingham,
# Alabama and Atlanta"): the sentence goes on. A verb after the name opens a new clause with it
# as the subject ("in Providence Plantations, Brown is the seventh-oldest"), and a preposition
# may say what the name is in or of ("Wendy Corduroy in Gravity Falls, and Megan in Sanjay and
# Craig"; "a politician in Quebec, Canada, Member of the National Assembly").
_AFTER_PLACE = frozenset("and or where which that since until during before after when".split())
# What joins a name to the place before it: "Atlanta, Georgia", "Mississippi, Georgia, and
# Alabama", "in Heidelberg and Leiden." (what follows must end the clause: not "played for
# Hvidovre IF in Denmark and Roda JC and Ajax in the Netherlands").
_PLACE_JOINS = (", ", ", and ", " and ", ", or ")


def _gap(text: str, toks: Tokens, a: int, b: int) -> str:
    return text[toks[a][2] : toks[b][1]]


def piece_of_name(text: str, toks: Tokens, k: int, j: int) -> bool:
    """Whether the one-word run ``toks[k]`` is used here as a piece of a longer name, not as a
    name of its own:

    - the tail or head of an "X of the Y" name whose "of the" cut it: "Rookie of the Year",
      "Miss Model of the World"; "Speaker of the United States House";
    - a word a number follows: "Division 2", "Top 25 Drummers", "Channel 4".
    """
    if j != k + 1:
        return False
    if (
        k >= 3
        and toks[k - 1][0] == "the"
        and toks[k - 2][0] == "of"
        and toks[k - 3][0][:1].isupper()
        and _gap(text, toks, k - 3, k) == " of the "
    ):
        return True
    if j + 2 < len(toks) and toks[j][0] == "of" and toks[j + 1][0] == "the":
        if toks[j + 2][0][:1].isupper() and _gap(text, toks, k, j + 2) == " of the ":
            return True
    if j < len(toks) and _gap(text, toks, k, j) == " ":
        nxt = toks[j][0]
        if nxt[:1].isdigit():
            return True
    return False


def placed_by_context(text: str, toks: Tokens, k: int, j: int, last_place_end: int) -> bool:
    """Whether the name ``toks[k:j]`` is a place by what is written around it:

    - it follows a place's name and a comma, or closes a list of places ("in Birmingham,
      Alabama", "in Ethiopia, Kenya, … and Yemen"), and no new clause starts after it;
    - "the state of Georgia", "the city of Newark", "the Karakoram region of the Himalaya":
      a lowercase place noun and "of" (or "of the") before it.
    """
    start = toks[k][1]
    if toks[j - 1][0].endswith(("'s", "’s")):
        return False  # "in the trail of Hui's critically acclaimed film"
    if last_place_end >= 0 and text[last_place_end:start] in _PLACE_JOINS:
        end = toks[j - 1][2]
        after = text[end : end + 1]
        if not after or after in ",.;)" or toks[j - 1][0].endswith("."):
            return True
        if after == " " and j < len(toks) and toks[j][0] in _AFTER_PLACE:
            return True
    head = j < len(toks) and toks[j][0] == "of"  # "the territory of the Kings of the Burgundians"
    others = any(kind_of_noun(w.lower()) not in (None, "place") for w, _, _ in toks[k:j])
    if k >= 2 and not head and not others:
        m = k - 1
        if toks[m][0] == "the" and m >= 2 and j == k + 1:
            m -= 1  # "the Karakoram region of the Himalaya"; not "of the Victorian Legislative …"
        if toks[m][0] == "of" and toks[m - 1][0][:1].islower():
            gap = text[toks[m - 1][2] : start]
            if kind_of_noun(toks[m - 1][0]) == "place" and gap in (" of ", " of the "):
                return True
    return False


# Prepositions after which a name is most often a place and a list of places follows ("in
# Ethiopia, Kenya and Yemen", "a teacher … in Birmingham, Alabama"); not "on", "from" and "at",
# which open lists of days, labels, guests and clubs ("on Wednesdays and Fridays", "guest
# appearances from Rick Ross, Lloyd, …", "playing at Oldham and Aston Villa").
_LIST_PLACE_PREP = frozenset({"in", "near"})


def opens_places(text: str, toks: Tokens, k: int) -> bool:
    """Whether the name at ``toks[k]`` follows "in" or "near" (the caller has typed it a place
    already): names joined to it by commas and "and" are places too."""
    return k >= 1 and toks[k - 1][0] in _LIST_PLACE_PREP and _gap(text, toks, k - 1, k) == " "
