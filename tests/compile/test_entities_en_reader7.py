"""English reader pass of 2026-11-27, afternoon (enreader7): kinds read from whole words of a
title's qualifier, and from the nouns the listings' shelves file (each test fails with its rule
removed)."""

from __future__ import annotations

from wikikv.compile.analyze import analyze
from wikikv.compile.categories import lead_category, plural
from wikikv.compile.ingest import Document
from wikikv.llm.extractive import ExtractiveProvider
from wikikv.text.broad_kinds import broad_kind
from wikikv.text.digest import split_sentences
from wikikv.text.entities import Gazetteer, english_mentions
from wikikv.text.kinds import classify_title, kind_of_qualifier

_NO_TITLES = Gazetteer().finish()


def _mentions(text: str, about: str = "", about_person: bool = True) -> dict[str, tuple[str, str]]:
    """Each mention's surface → (its key, its kind), with no titles known."""
    found = english_mentions(text, split_sentences(text, "en"), _NO_TITLES, about, about_person)
    return {m.surface: (m.key, m.kind) for m in found}


def test_a_qualifier_is_read_by_whole_words() -> None:
    # a person's word inside a place's name: "(Queensland)" holds "queen"
    river = "The Bowen River is a river located in North Queensland, Australia."
    assert classify_title("Bowen River (Queensland)", river, "en") == "place"
    assert kind_of_qualifier("United Kingdom") is None
    # a work's word inside a person's noun: "filmmaker", "playwright", "chess player"
    assert kind_of_qualifier("filmmaker") == "person"
    assert kind_of_qualifier("playwright") == "person"
    assert kind_of_qualifier("chess player") == "person"
    assert kind_of_qualifier("Tarkington novel") == "work"  # no king in "Tarkington"
    # plurals and the compounds of the lists still count
    assert kind_of_qualifier("TV miniseries") == "work"
    assert kind_of_qualifier("Archbishop of Lyon") == "person"
    assert kind_of_qualifier("1950 films") == "work"


def test_a_qualifier_s_head_noun_names_a_person_or_a_work() -> None:
    assert kind_of_qualifier("Royal Navy officer") == "person"
    assert kind_of_qualifier("wife of Mehmed II") == "person"
    assert kind_of_qualifier("short story") == "work"
    # a name in capitals is no kind noun: the series an episode is of
    assert kind_of_qualifier("How I Met Your Mother") is None
    episode = "Bad News is the 13th episode of the sixth season of the sitcom."
    assert classify_title("Bad News (How I Met Your Mother)", episode, "en") == "work"
    # an organization or an event there is the setting of a life, not the subject's kind
    assert kind_of_qualifier("Han dynasty") is None
    assert kind_of_qualifier("rugby league") is None
    assert kind_of_qualifier("season 3") is None


def test_a_noun_the_shelves_file_with_people_types_a_person() -> None:
    chronicler = "David Scotus was a Gaelic chronicler who died in 1139."
    assert classify_title("David Scotus", chronicler, "en") == "person"
    librarian = "Hélène Grenier was a Canadian librarian born in 1900 who died in 1992."
    assert classify_title("Hélène Grenier", librarian, "en") == "person"
    patriarch = "Basil of Jerusalem was the Patriarch of Jerusalem from 821 to 842."
    assert classify_title("Basil of Jerusalem", patriarch, "en") == "person"
    soprano = "Wilhelmine Schröder-Devrient was a German operatic soprano."
    assert classify_title("Wilhelmine Schröder-Devrient", soprano, "en") == "person"


def test_nouns_of_the_other_shelves_type_works_places_orgs_and_events() -> None:
    western = "There Was a Crooked Man... is a 1970 western starring Kirk Douglas."
    assert classify_title("There Was a Crooked Man...", western, "en") == "work"
    mall = "Citadel Mall is a regional shopping mall located in Charleston."
    assert classify_title("Citadel Mall", mall, "en") == "place"
    brewery = "The Grans Brewery is a brewery founded in 1899 in Sandefjord, Norway."
    assert classify_title("Grans Brewery", brewery, "en") == "org"
    offensive = "Operation Perch was a British offensive of the Second World War."
    assert classify_title("Operation Perch", offensive, "en") == "event"


def test_a_shelved_noun_types_as_a_head_only_and_not_when_it_names_things_too() -> None:
    # a modifier before the head: an "executive car", a "United States Army private"
    car = "The Acura EL is a subcompact executive car built at Honda's plant."
    assert classify_title("Acura EL", car, "en") != "person"
    private = "Glendon Oakley Jr. is an African-American United States Army private."
    assert classify_title("Glendon Oakley Jr.", private, "en") != "org"
    # a game genre, an aircraft: shelved with sportspeople, but no person
    shooter = "Doom is a 1993 first-person shooter developed by id Software."
    assert classify_title("Doom", shooter, "en") != "person"
    fighter = "The Dassault Rafale is a French twin-engine multirole fighter."
    assert classify_title("Dassault Rafale", fighter, "en") != "person"
    # an adjective of politics before an organization's noun
    party = "The Federation of Independents was a German nationalist and national-liberal party."
    assert classify_title("Federation of Independents", party, "en") != "person"


def test_a_regnal_name_is_a_person_s() -> None:
    # named in passing, with no cue around them, they were under /topics (about 60 in 2Wiki 6k)
    text = (
        "She was a granddaughter of Louis XIV of France. In 1171, Pope Innocent III wrote to "
        "the abbot. The estate passed to García Sánchez III of Navarre. Later, King Louis XV "
        "of France bought it. The sequel, Decadent Evil II, was shot in 2007. The house was "
        "damaged in World War II."
    )
    found = _mentions(text)
    for name in (
        "Louis XIV of France",
        "Pope Innocent III",
        "García Sánchez III of Navarre",
        "King Louis XV of France",
    ):
        assert found[name][1] == "person", (name, found)
    # a sequel's or a war's numeral alone says nothing
    assert found["Decadent Evil II"][1] != "person"
    assert found["World War II"][1] != "person"


def test_an_office_before_a_full_name_is_a_person_s_title() -> None:
    text = "The port was opened by President Aníbal Pinto in 1878. It sailed from Rome."
    assert _mentions(text)["President Aníbal Pinto"][1] == "person"
    # an office and a name's last word that names a kind: a place or a firm
    text = "The dance was held at the Governor Morris Hall in 1878."
    assert _mentions(text).get("Governor Morris Hall", ("", ""))[1] != "person"


def test_the_realm_a_person_is_of_is_no_surname() -> None:
    # "France" alone, after "Louis XIV of France", was folded into the king; Savoy, Navarre,
    # Limburg were named in fewer documents than they are
    text = (
        "She married Louis XIV of France in 1660. By then France was at war with Spain. The "
        "count of Savoy was her cousin."
    )
    found = _mentions(text)
    assert found["France"][0] == "france", found
    # in the article on a titled person, the realm is no short form of the title either
    text = "Hugh II of Arborea was a judge. By then Arborea was a kingdom. Hugh died in 1336."
    found = _mentions(text, "Hugh II of Arborea")
    assert found["Arborea"][0] == "arborea", found
    assert found["Hugh"][0] == "hugh ii of arborea", found


def test_a_name_with_a_ruler_s_epithet_is_a_person_s() -> None:
    text = (
        "The duchy passed to Philip the Good in 1419. His daughter married Henry the Lion. "
        "The film Meet the Parents was shot in 2000."
    )
    found = _mentions(text)
    assert found["Philip the Good"][1] == "person", found
    assert found["Henry the Lion"][1] == "person", found
    assert found["Meet the Parents"][1] != "person", found


def test_a_document_s_category_is_read_from_its_whole_first_sentence() -> None:
    # the summary is cut at 200 characters: "was the founding mona…" filed the topics its article
    # named under "/topics/in articles on monas"
    text = (
        "King Dongmyeong of Goguryeo (58 BCE – 19 BCE, r. 37 BCE – 19 BCE) or "
        "Dongmyeongseongwang (), which literally means Holy King of the East, also known by his "
        "birth name Jumong (), was the founding monarch of the kingdom of Goguryeo. He ruled well."
    )
    doc = Document(id="d", title="Dongmyeong of Goguryeo", text=text, fingerprint="f", lang="en")
    analysis = analyze(doc, ExtractiveProvider())
    assert analysis.summary.endswith("…")
    assert analysis.category == "monarch"


def test_a_two_word_kind_is_read_whole() -> None:
    # "mixed martial artists" were filed with painters ("/people/artists"), civil servants on a
    # shelf "servants", the Three Stooges' short subjects under /topics and /places
    fighter = "Chris Weidman (born June 17, 1984) is an American mixed martial artist."
    assert lead_category(fighter, "Chris Weidman") == "martial artist"
    assert broad_kind(lead_category(fighter, "Chris Weidman")) == "athletes and sportspeople"
    official = "Eric Chan (born 1959) is a Hong Kong civil servant who is the Director."
    assert plural(lead_category(official, "Eric Chan")) == "civil servants"
    short = "Self-Made Maids is a 1950 short subject directed by Jules White."
    assert classify_title("Self-Made Maids", short, "en") == "work"
    # the head's own kind otherwise: "an actor and martial artist" is an actor
    assert lead_category("X is an American actor and martial artist.", "X") == "actor"


def test_a_relative_named_after_son_of_or_wife_of_is_a_person() -> None:
    text = (
        "He was the older brother of Stephen Vincent Benét. She married the son of Peter "
        "Beckford in 1745. He was the grandfather of Cambodia's current king. He is the uncle "
        "of Rangers defender Jon Flanagan. He was the second son of Hon. William Cavendish. "
        "He was the husband of Prime Minister of Luxembourg, Xavier Bettel."
    )
    found = _mentions(text)
    assert found["Stephen Vincent Benét"][1] == "person", found
    assert found["Peter Beckford"][1] == "person", found
    # a possessive, a word before a noun, a title cut at its full stop, an office: no name
    for word in ("Cambodia", "Rangers", "Hon", "Prime Minister of Luxembourg"):
        assert found[word][1] != "person", (word, found)


def test_the_verb_stars_opens_a_list_of_people() -> None:
    found = _mentions("The film stars Ann Dvorak and John Litel, and was shot in 1936.")
    assert found["John Litel"][1] == "person", found
