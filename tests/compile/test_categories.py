"""The offline Architect's reading of the corpus: category nouns of definitional lead sentences,
their plurals, and the category chains of entities (English and Chinese)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from wikikv.compile.categories import (
    DRAW,
    MENTION_PREFIX,
    SPREAD_EN,
    SPREAD_ZH,
    add_named_in,
    describe_label,
    doc_categories,
    doc_category,
    draw_category,
    entity_chain,
    lead_category,
    lead_head,
    modifier,
    named_in,
    plural,
    qualifier_category,
    title_category,
    title_head,
)


@pytest.mark.parametrize(
    ("sentence", "category"),
    [
        ("Hook is a 2011 album by the band Foo.", "album"),
        ("Teutberga was a queen of Lotharingia by marriage to Lothair II.", "queen"),
        ("Etan Boritzer( born 1950) is an American writer of children's literature.", "writer"),
        ("Jawty is a village in the administrative district of Gmina Susz.", "village"),
        ("Pál Gábor was a Hungarian film director and screenwriter.", "director"),
        ("Lambert was the second son of Adalbert II of Tuscany.", "family member"),
        ("Anna of Austria may refer to:", "disambiguation page"),
        (
            "Patrik Wozniacki is a Danish footballer currently playing at FC Græsrødderne.",
            "footballer",
        ),
        (
            "Zach Bogosian is an American ice hockey defenceman currently with the Sabres.",
            "defenceman",
        ),
        ("Per Nielsen is a retired Danish professional football (soccer) player.", "player"),
        ("Halo 3 is a 2007 video game developed for the Xbox 360 console.", "game"),
        ("Foo Inc. is a company headquartered in Ohio.", "company"),
        ("Aspirin is a drug used to treat pain.", "drug"),
        ("The film was released in Japan on 10 October 2009.", ""),
        ("After serving as publicity director of St.", ""),
        # Titles: capitalized, or without an article; a life span does not hide the copula.
        ("Henry I (4 May 1008 – 4 August 1060) was King of the Franks from 1031.", "king"),
        ("Maria Theresa (2 July 1849 – 3 February 1919) was the last Queen of Bavaria.", "queen"),
        ("Beatrice of Vienne( 1160 –1230) was a Countess of Savoy by marriage.", "countess"),
        ("Marsha Rowe( born 1944) is an Australian- born journalist and writer.", "journalist"),
        ("Léonide Moguy( 1899 – 1976) was a Russian born French film director.", "director"),
        ("The Night of Nights is a 1939 black- and- white drama film.", "film"),
        # A list of modifiers before the head is no list of heads ...
        ("Yvonne Owen( 1923–1990) was a British stage and film actress.", "actress"),
        ("Maya Kazan is an American stage, TV and film actress and director.", "actress"),
        ("Jack Smight was an American theatre and film director.", "director"),
        ("Yaadein is a 1964 black and white Hindi film directed by Sunil Dutt.", "film"),
        # ... but a person's noun, a category noun of its own, an apposition or a place is
        ("Greg Craig is an American lawyer and former White House Counsel.", "lawyer"),
        ("Henry Sturt was a British peer and Conservative Party politician.", "peer"),
        ("Hildebrand Alington was an Irish peer, the son of William Alington.", "peer"),
        ("Anna Smith is an American singer and record producer.", "singer"),
        ("Usi County is a kun, or county, in westernmost Chagang Province.", "kun"),
        ("Sonia Grey is the stage name of Sonia Colone, an Italian actress.", ""),
    ],
)
def test_lead_category(sentence: str, category: str) -> None:
    assert lead_category(sentence) == category


def test_a_lead_opening_with_its_title_is_read_after_it() -> None:
    lead = "There Was a Crooked Man... is a 1970 western starring Kirk Douglas."
    assert lead_category(lead) == ""  # "Was a Crooked Man" is no definition
    assert lead_category(lead, "There Was a Crooked Man...") == "western"


@pytest.mark.parametrize(
    ("noun", "plural_form"),
    [
        ("album", "albums"),
        ("city", "cities"),
        ("businessman", "business people"),
        ("church", "churches"),
        ("series", "series"),
        ("person", "people"),
        ("day", "days"),
        ("champions", "champions"),
        ("colleges", "colleges"),
        ("bus", "buses"),
        ("class", "classes"),
        ("chess", "chess"),  # a game: "in articles on chess", not "chesses"
        ("genus", "genera"),
        ("actress", "actors"),
        ("actor", "actors"),
        ("duchess", "dukes and duchesses"),
        ("noblewoman", "nobles"),
        ("patriarch", "patriarchs"),  # "/people/patriarches" was a listing's name
        ("monarch", "monarchs"),
        ("march", "marches"),
        ("larch", "larches"),
    ],
)
def test_plural(noun: str, plural_form: str) -> None:
    assert plural(noun) == plural_form


def test_modifier_takes_the_whole_proper_adjective() -> None:
    assert modifier("Der Hauptmann is a 1954 West German film.") == "West German"
    assert modifier("X is a 2011 album by Y.") == ""


@dataclass
class Doc:
    title: str
    lang: str
    group: str
    summary: str
    about_kind: str = "topic"
    category: str = field(init=False)

    def __post_init__(self) -> None:  # what the analysis stores
        self.category = doc_category(self.title, self.summary, self.lang)


@dataclass
class Ent:
    key: str
    about: list[str] = field(default_factory=list)
    mentioned_in: dict[str, int] = field(default_factory=dict)
    times_named: dict[str, int] = field(default_factory=dict)


def test_english_chain_is_specific_first_then_where_it_is_named() -> None:
    docs = {
        "a": Doc("Hook", "en", "", "Hook is a 1991 American film directed by Steven Spielberg."),
        "b": Doc("Jaws", "en", "", "Jaws is a 1975 American film."),
    }
    cats = {"a": "film", "b": "film"}
    assert entity_chain(Ent("hook", about=["a"]), docs, cats, "en") == [
        "1990s American films",
        "American films",
        "films",
        "films and television",  # the broad kind a group too small to stand merges into
    ]
    spielberg = Ent("steven spielberg", mentioned_in={"a": 0, "b": 0})
    assert entity_chain(spielberg, docs, cats, "en") == [
        "in articles on American films",
        "in articles on films",
        "in articles on films and television",
    ]
    # The articles naming him share a decade: that is the finer split.
    docs["b"] = Doc("Jaws", "en", "", "Jaws is a 1993 American film.")
    assert entity_chain(spielberg, docs, cats, "en")[0] == "in articles on 1990s American films"


def test_chinese_chain_is_the_collection_or_the_work_a_character_appears_in() -> None:
    docs = {
        "k": Doc("孔乙己", "zh", "呐喊", "孔乙己是……"),
        "g": Doc("故乡", "zh", "呐喊", "我冒了严寒……"),
        "z": Doc("祝福", "zh", "彷徨", "旧历的年底……"),
    }
    cats = dict.fromkeys(docs, "")
    assert entity_chain(Ent("孔乙己", about=["k"]), docs, cats, "zh") == ["呐喊"]
    runtu = Ent("闰土", mentioned_in={"g": 3})
    assert entity_chain(runtu, docs, cats, "zh") == ["《故乡》", "见于《呐喊》"]
    # Named mostly in one work: that work is its home, though a note elsewhere names it once.
    xianglin = Ent("祥林嫂", mentioned_in={"z": 0, "k": 5}, times_named={"z": 9, "k": 1})
    assert entity_chain(xianglin, docs, cats, "zh") == ["《祝福》", "见于《彷徨》"]


def test_a_name_spread_over_the_corpus_is_filed_as_such_not_under_one_place() -> None:
    docs = {
        "k": Doc("孔乙己", "zh", "呐喊", "……"),
        "g": Doc("故乡", "zh", "呐喊", "……"),
        "z": Doc("祝福", "zh", "彷徨", "……"),
        "r": Doc("随感录", "zh", "热风", "……"),
        "h": Doc("华盖集题记", "zh", "华盖集", "……"),
    }
    cats = dict.fromkeys(docs, "")
    author = Ent("鲁迅", mentioned_in=dict.fromkeys("kgzrh", 0), times_named={"r": 2})
    assert entity_chain(author, docs, cats, "zh") == [SPREAD_ZH]
    assert "多个集子" in describe_label("人物", SPREAD_ZH, "zh", False, False)
    en_docs = {
        "a": Doc("Hook", "en", "", "Hook is a 1991 American film.", "work"),
        "b": Doc("Ringo Starr", "en", "", "Ringo Starr is an English drummer.", "person"),
        "c": Doc("Thames", "en", "", "The Thames is a river in England.", "place"),
    }
    en_cats = {"a": "film", "b": "drummer", "c": "river"}
    london = Ent("london", mentioned_in={"a": 1, "b": 1, "c": 1})
    assert entity_chain(london, en_docs, en_cats, "en") == [f"{MENTION_PREFIX}{SPREAD_EN}"]


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("Hook (film)", "film"),
        ("Bush (2004 band)", "band"),
        ("Paris (Texas)", ""),
        ("Lu Xun", ""),
        ("Anna (born 1950)", ""),
    ],
)
def test_a_title_qualifier_names_a_kind(title: str, kind: str) -> None:
    assert qualifier_category(title) == kind


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("List of birds of South America", "list"),
        ("Robert Plant discography", "discography"),
        ("Capalaba bus station", "station"),
        ("The King", ""),  # a capitalized last word is a name, not a kind
        ("Orange Field Tea Factory", ""),
        ("Hook", ""),
    ],
)
def test_a_title_names_a_kind(title: str, kind: str) -> None:
    assert title_category(title) == kind


@pytest.mark.parametrize(
    ("title", "head"),
    [
        ("Immigration to Bhutan", "immigration"),  # a common noun opens the title
        ("Assassination of John F. Kennedy", "assassination"),
        ("Sports teams in Florida", "team"),  # the head before the preposition, singular
        ("Morocco 2026 FIFA World Cup bid", "bid"),
        ("Ælfwine of Warwick", ""),  # a name opens the title
        ("Henry of Navarre", ""),
        ("Bull and Terrier", ""),
        ("Treaty", ""),  # one word: a name
        ("Chinese people in Kyrgyzstan", ""),  # a population: /topics/people misleads
    ],
)
def test_a_descriptive_title_names_its_head(title: str, head: str) -> None:
    assert title_head(title) == head


def test_a_title_head_files_a_page_its_lead_does_not_define_but_not_a_person() -> None:
    docs = {
        "i": Doc("Immigration to Bhutan", "en", "", "Immigration to Bhutan has a long history."),
        "w": Doc(
            "Williams sisters",
            "en",
            "",
            "The Williams sisters (Venus, born 1980) play tennis.",
            "person",
        ),
    }
    docs["l"] = Doc("List of Arsenal F.C. players (1–24 appearances)", "en", "", "Arsenal won.")
    cats = dict.fromkeys(docs, "")
    assert entity_chain(Ent("i", about=["i"]), docs, cats, "en") == [
        "immigrations",
        "society and culture",
    ]
    # a list's title says so before its qualifier
    assert entity_chain(Ent("l", about=["l"]), docs, cats, "en") == [
        "lists",
        "lists and statistics",
    ]
    assert entity_chain(Ent("w", about=["w"]), docs, cats, "en") == [
        "people born in the 1980s",
        "people born in the 20th century",
    ]


def test_a_kind_noun_ending_like_a_participle_is_a_head() -> None:
    # "breed" is no participle; "co-headlined" is one
    assert lead_category("The German longhaired pointer (GLP) is a breed of dog.") == "breed"
    sentence = "The Beautiful Monsters Tour was a North American concert tour co-headlined by Hole."
    assert lead_category(sentence) == "tour"


@pytest.mark.parametrize(
    ("sentence", "head"),
    [
        ("Olearia canescens is a shrub belonging to the family Asteraceae.", "shrub"),
        ("The BC Lions are a professional Canadian football team competing in the CFL.", "team"),
        ("X is an electrified double track railway running between A and B.", "railway"),
        ("Y is an American football running back for the Beavers.", "back"),  # a position
        ("Carole Post is the Deputy Chief Operating Officer of USF Health.", "officer"),
        ("Z is the only progressive think tank specifically focussing on policy.", "tank"),
    ],
)
def test_a_participle_clause_ends_the_noun_phrase(sentence: str, head: str) -> None:
    assert lead_head(sentence) == head


def test_a_mountain_range_is_not_filed_under_ranges() -> None:
    assert plural(lead_category("The Karakoram is a large mountain range spanning borders.")) == (
        "mountain ranges"
    )


def test_a_people_is_filed_among_peoples() -> None:
    assert (
        plural(lead_category("The Olkola were an Indigenous Australian people of Queensland."))
        == "peoples"
    )


def test_a_tournament_draw_is_filed_by_its_title_not_its_lead() -> None:
    doc = Doc("2012 BMW Open – Doubles", "en", "", "A and B were the defending champions.")
    other = Doc("Hook", "en", "", "Hook is a 2011 album by the band Foo.")
    cats = doc_categories({"d": doc, "h": other})
    assert cats == {"d": DRAW, "h": "album"}
    assert draw_category("2009 China Open – Women's Doubles") == DRAW
    assert draw_category("Doubles") == ""


def test_kinship_splits_by_relation_and_period() -> None:
    docs = {
        "l": Doc("Lambert", "en", "", "Lambert (1102 – 1150) was the second son of Adalbert."),
        "w": Doc("Bertha", "en", "", "Bertha was the wife of Lothair."),
    }
    cats = {"l": "family member", "w": "family member"}
    assert entity_chain(Ent("lambert", about=["l"]), docs, cats, "en") == [
        "sons and daughters born in the 12th century",
        "sons and daughters",
        "family members",
    ]
    assert entity_chain(Ent("bertha", about=["w"]), docs, cats, "en") == [
        "wives and husbands",
        "family members",
    ]
    named = Ent("adalbert", mentioned_in={"l": 1})
    assert entity_chain(named, docs, cats, "en") == [
        "in articles on sons and daughters born in the 12th century",
        "in articles on sons and daughters",
        "in articles on family members",
    ]


def test_a_person_without_a_kind_is_filed_by_the_period_of_the_life_span() -> None:
    docs = {
        "s": Doc(
            "Susan Whitson", "en", "", "Susan Whitson (born 1948) was press secretary.", "person"
        ),
        "p": Doc("Paul", "en", "", "Paul (1901 – 1960) served the king.", "person"),
        "q": Doc("Quill", "en", "", "Quill (1903 – 1970) served the queen.", "person"),
        "t": Doc("Treaty", "en", "", "The Treaty (1648) ended the war."),
    }
    cats = dict.fromkeys(docs, "")
    assert entity_chain(Ent("susan", about=["s"]), docs, cats, "en") == [
        "people born in the 1940s",
        "people born in the 20th century",
    ]
    assert entity_chain(Ent("treaty", about=["t"]), docs, cats, "en") == []  # a date, no life
    # Named in articles on people of one century (and of no one kind of person).
    named = Ent("chamber", mentioned_in={"p": 1, "q": 1})
    assert entity_chain(named, docs, cats, "en") == [
        "in articles on people born in the 20th century",
        "in articles on people",
    ]


@pytest.mark.parametrize(
    ("sentence", "head"),
    [
        ("The Waldschlösschen Bridge is a road bridge across the Elbe river in Dresden.", "bridge"),
        ("The Linjiang Bridge is a bridge over the Yalu River, connecting two cities.", "bridge"),
        ("Muskegon State Park is a 1233 acre state park along Lake Michigan.", "park"),
        ("Taman is a residential neighbourhood within the city of George Town.", "neighbourhood"),
        ("Elwood Edwards is an American voice over actor.", "actor"),  # "over" before no noun
    ],
)
def test_a_preposition_of_place_ends_the_noun_phrase(sentence: str, head: str) -> None:
    """ "a road bridge across the Elbe river" filed the bridge under rivers."""
    assert lead_head(sentence) == head


def test_where_an_entity_is_named_sums_over_any_split_of_its_documents() -> None:
    """The stored sums of a much-named entity (what an add updates from its new documents
    alone) give the chain the documents themselves give, however they are split."""
    docs = {
        "a": Doc("Hook", "en", "", "Hook is a 1991 American film.", "work"),
        "b": Doc("Jaws", "en", "", "Jaws is a 1993 American film.", "work"),
        "c": Doc("Ran", "en", "", "Ran is a 1985 Japanese film.", "work"),
        "l": Doc("Lambert", "en", "", "Lambert (1102 – 1150) was the second son of Adalbert."),
        "m": Doc("Odo", "en", "", "Odo (1110 – 1160) was the eldest son of Hugh."),
        "p": Doc("Paul", "en", "", "Paul (1901 – 1960) served the king.", "person"),
        "q": Doc("Quill", "en", "", "Quill (1903 – 1970) served the queen.", "person"),
        "d": Doc("Ringo Starr", "en", "", "Ringo Starr is an English drummer.", "person"),
    }
    cats = {**dict.fromkeys("abc", "film"), **dict.fromkeys("lm", "family member"), "d": "drummer"}
    cats.update(p="", q="")
    for named in ("abc", "abd", "lm", "lma", "pq", "pqd", "abcdlmpq"):
        ent = Ent("x", mentioned_in=dict.fromkeys(named, 0), times_named={named[0]: 3})
        want = entity_chain(ent, docs, cats, "en")
        assert want  # each set files the entity somewhere
        for cut in range(len(named) + 1):
            part_a = {i: docs[i] for i in named[:cut]}
            part_b = {i: docs[i] for i in named[cut:]}
            sums = add_named_in(
                named_in(ent, part_a, cats, whole=True), named_in(ent, part_b, cats, whole=True)
            )
            assert entity_chain(ent, {}, cats, "en", sums) == want, (named, cut)
