"""English reader pass of 2026-11-29: one-word names under /topics of the HotpotQA wiki that are
pieces of longer names, compass words, or places the text places (sentences from the HotpotQA
corpus; each test fails with its rule removed)."""

from __future__ import annotations

from wikikv.text.digest import split_sentences
from wikikv.text.entities import Gazetteer, Mention, english_mentions

_NO_TITLES = Gazetteer().finish()


def _found(text: str, about: str = "X", about_person: bool = False) -> dict[str, Mention]:
    """Each mention's surface → the mention, with no titles known."""
    found = english_mentions(text, split_sentences(text, "en"), _NO_TITLES, about, about_person)
    return {m.surface: m for m in found}


def test_a_compass_word_alone_is_no_name() -> None:
    text = (
        "As a founding work of modern Western literature, it appears on lists. "
        "While the festival's mandate is to serve Northern artists, artists from around the "
        "world attend. It was split and admitted as the states of North and South Dakota."
    )
    found = _found(text)
    assert "Western" not in found
    assert "Northern" not in found
    assert "North" not in found
    # a compass word that opens a longer name is untouched
    assert "South Dakota" in found
    # nor is a word of the person's own name in the article on that person
    own = _found("The album was produced by West himself.", "Kanye West", True)
    assert own["West"].key == "kanye west"


def test_the_pieces_of_an_x_of_the_y_name_make_no_page() -> None:
    text = (
        "He played for the Seattle Seahawks, and was recognized as the NFL Defensive Rookie "
        "of the Year. Along with Schuyler Colfax, Garner is one of two individuals to serve as "
        "Vice President of the United States and Speaker of the United States House of "
        "Representatives."
    )
    found = _found(text)
    assert found["Year"].weak  # the tail of "Rookie of the Year"
    assert found["Speaker"].weak  # the head of "Speaker of the United States House …"
    assert not found["Garner"].weak


def test_a_word_a_number_follows_is_a_piece() -> None:
    text = (
        "They currently play in the third highest level (Division 1) where the season lasts "
        "from April to November. In 2001, the publication named Smith one of the Top 25 "
        "Drummers of All Time."
    )
    found = _found(text)
    assert found["Division"].weak
    assert found["Top"].weak


def test_a_number_word_inside_a_sentence_opens_the_name() -> None:
    text = "Sun He was a prince of the state of Eastern Wu in the Three Kingdoms period."
    found = _found(text)
    assert "Three Kingdoms" in found
    assert "Kingdoms" not in found
    # at a sentence's start it is still no part of a name
    assert "Two" not in " ".join(_found("Two Americans won the prize in 1990.").keys())


def test_a_name_after_a_place_and_a_comma_is_a_place() -> None:
    text = (
        "She was a high school English teacher at Hoover High School in Birmingham, Alabama. "
        "It is found in Ethiopia, Kenya, Somalia, Tanzania, Uganda, and Yemen. "
        "He studied in Heidelberg and Leiden."
    )
    found = _found(text)
    assert [found[n].kind for n in ("Alabama", "Kenya", "Yemen", "Leiden")] == ["place"] * 4


def test_a_new_clause_or_a_list_of_guests_is_no_place() -> None:
    text = (
        "The album features guest appearances from Rick Ross, Lloyd, Ne-Yo, Big Sean, Miguel, "
        "and Jeremih. It aired on Wednesdays and Fridays. He also gained three England caps "
        "while playing at Oldham and Aston Villa. It was founded in the English Colony of "
        "Rhode Island and Providence Plantations, Brown is the seventh-oldest institution."
    )
    found = _found(text)
    assert "place" not in {found[n].kind for n in ("Miguel", "Jeremih", "Fridays", "Aston Villa")}
    assert found["Brown"].kind != "place"  # a verb after it: a new clause
    more = _found(
        "He is a Danish footballer who played for Hvidovre IF in Denmark and Roda JC and Ajax "
        "in the Netherlands. She voices Wendy Corduroy in Gravity Falls, and Megan in Sanjay "
        "and Craig. He was a politician in Quebec, Canada, Member of the National Assembly. "
        "The film followed in the trail of Hui's critically acclaimed Vietnam film. It was "
        "part of the territory of the Kings of the Burgundians."
    )
    assert more["Ajax"].kind != "place"  # "in the Netherlands" says where Ajax is
    assert more["Megan"].kind != "place"  # a role "in" a show
    assert more["Hui"].kind != "place"
    assert more["Kings"].kind != "place"  # the head of "Kings of the Burgundians"


def test_a_place_noun_and_of_places_the_name() -> None:
    text = (
        "The agency serves 3000 foster children throughout the state of Georgia annually. "
        "Gasherbrum I is located in the Karakoram region of the Himalaya. "
        "The Electoral district of Bass is an electoral district of the Victorian Legislative "
        "Assembly."
    )
    found = _found(text)
    assert found["Georgia"].kind == "place"
    assert found["Himalaya"].kind == "place"
    # not a body a district belongs to
    assert found["Victorian Legislative Assembly"].kind != "place"
