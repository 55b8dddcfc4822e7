"""English reader pass of 2026-11-27, afternoon (enreader7): kinds read from whole words of a
title's qualifier, and from the nouns the listings' shelves file (each test fails with its rule
removed)."""

from __future__ import annotations

from wikikv.text.kinds import classify_title, kind_of_qualifier


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
