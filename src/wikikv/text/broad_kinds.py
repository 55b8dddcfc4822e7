"""Broad kinds above the category nouns of English lead sentences: where a sub-dimension too
small to stand alone ("mountaineers", 2 pages) merges upward ("athletes and sportspeople")
before it would fall into "other <dimension>".

The category noun is read from the corpus (:mod:`wikikv.compile.categories`); this table only
says which broad kind a noun belongs to — an editor's knowledge, as a librarian's shelf groups
are. A noun not listed has no broad kind and stays as it was. Family relations ("son of",
"wife of": all filed as *family members*) are split the same way, by relation.
"""

from __future__ import annotations

_GROUPS: dict[str, str] = {
    "athletes and sportspeople": (
        "athlete footballer player boxer wrestler mountaineer racer weightlifter golfer "
        "quarterback forward jumper curler baseman vaulter winger lineman bobsledder hurdler "
        "biathlete hurler pitcher goaltender goalkeeper rider handballer thrower receiver coach "
        "skier luger cricketer trampolinist linebacker defenseman defenceman tackle catcher "
        "driver sprinter rower defender infielder outfielder diver fencer cyclist gymnast "
        "fighter referee swimmer runner jockey trainer medalist medallist skater snowboarder "
        "climber sailor canoeist archer shooter marathoner decathlete heptathlete sportsman "
        "sportswoman midfielder striker halfback fullback kicker bowler "
        "batsman umpire"
    ),
    "musicians and singers": (
        "musician singer composer soprano mezzo-soprano contralto tenor baritone bass conductor "
        "percussionist bassist fiddler violinist violist guitarist organist lyricist rapper "
        "vocalist keyboardist librettist pianist flautist cellist songwriter singer-songwriter "
        "drummer orchestrator trumpeter saxophonist clarinetist harpist accordionist dj "
        "bandleader arranger chorister"
    ),
    "writers and journalists": (
        "writer author editor poet novelist playwright dramatist screenwriter essayist "
        "journalist critic biographer translator publisher sonneteer chronicler columnist "
        "sportswriter lexicographer memoirist reporter satirist storyteller"
    ),
    "scientists and scholars": (
        "scientist scholar astronomer botanist economist researcher geologist linguist "
        "geophysicist pathologist physicist naturalist physiologist ecologist anatomist "
        "gastroenterologist historian philologist psychiatrist sociologist zoologist "
        "cartographer paediatrician pediatrician classicist numismatist rhetorician orientalist "
        "biochemist chemist paleontologist palaeontologist palaeoecologist paleoecologist "
        "engineer philosopher professor academic biologist anthropologist conchologist "
        "mathematician physician doctor surgeon ophthalmologist actuary educationist educator "
        "behaviorist hydrographer librarian antiquarian agriculturalist horticulturist "
        "statistician inventor astrophysicist archaeologist psychologist nurse "
        "entomologist ornithologist meteorologist neurologist cardiologist psychoanalyst "
        "geographer ethnographer sinologist egyptologist teacher lecturer"
    ),
    "politicians, officials and lawyers": (
        "politician minister senator statesman diplomat official mayor governor president "
        "congressman congresswoman representative administrator lawyer attorney barrister "
        "jurist judge advocate bureaucrat chancellor commissioner servant reformer nationalist "
        "socialist abolitionist campaigner activist planner legislator ambassador councillor "
        "councilor premier magistrate prosecutor revolutionary suffragist unionist"
    ),
    "royalty and nobility": (
        "princess duchess prince king queen regent royal noblewoman nobleman noble peer "
        "peeress baron baroness count countess duke earl lord knight infanta infante emperor "
        "empress monarch sovereign caliph amir emir bey khan sultan pretender heiress "
        "aristocrat gentlewoman courtier dowager voivode jarl atabeg seigneur chieftain chief "
        "chiefess ruler kugyo pharaoh margrave landgrave marquess marquis viscount shah tsar "
        "czar maharaja raja rajah nawab"
    ),
    "clergy and religious figures": (
        "rabbi bishop archbishop preacher clergyman monk nun abbess abbot saint prelate "
        "cardinal priest patriarch missionary theologian mujtahid pope imam martyr deacon "
        "pastor friar cleric"
    ),
    "artists and designers": (
        "painter illustrator engraver artist sculptor potter etcher calligrapher draughtsman "
        "pastellist architect designer cartoonist animator printmaker illuminator embroiderer "
        "photographer muralist ceramicist"
    ),
    "actors, presenters and entertainers": (
        "actor actress host presenter model dancer ballerina magician performer celebrity "
        "socialite comedian clown broadcaster announcer anchor commentator personality "
        "ventriloquist entertainer impresario promoter sportscaster showman choreographer"
    ),
    "film and television makers": (
        "filmmaker director producer cinematographer cameraman creator showrunner"
    ),
    "business people": (
        "entrepreneur industrialist financier banker businessperson businessman businesswoman "
        "tycoon magnate restaurateur executive stockbroker merchant dealer landowner planter "
        "millionaire millionairess philanthropist owner chef sommelier investor shipowner "
        "manufacturer-owner"
    ),
    "military people": (
        "general officer commander lieutenant captain soldier admiral cadet crusader marshal "
        "colonel major sergeant brigadier commodore aviator pilot"
    ),
    "explorers and adventurers": "adventurer explorer astronaut cosmonaut traveller traveler "
    "pioneer settler navigator",
    "criminals": "murderer robber criminal conman assassin gangster outlaw pirate spy",
    "films and television": (
        "film documentary western serial drama series miniseries noir thriller short feature "
        "special comedy melodrama mockumentary shockumentary featurette telefilm telenovela "
        "episode show cartoon movie sitcom program programme broadcast television anime "
        "soap"
    ),
    "music and recordings": (
        "album song single compilation ballad soundtrack mixtape recording opera oratorio "
        "musical tune record release ep track jingle hit symphony concerto concert tour "
        "operetta cantata"
    ),
    "books and periodicals": (
        "novel book magazine newspaper periodical essay story tale play poem volume "
        "publication edition almanac memoir manifesto strip comic trilogy anthology novella "
        "journal collection"
    ),
    "settlements": (
        "city town village suburb community hamlet locality commune comune municipality "
        "settlement townland corregimiento neighbourhood neighborhood borough capital port"
    ),
    "regions and territories": (
        "county region territory state province district division guberniya area empire "
        "border kingdom country republic parish prefecture canton department governorate"
    ),
    "natural features": (
        "river tributary creek stream lake peak summit mountain range island valley bay "
        "glacier waterfall forest desert cape beach hill volcano reservoir"
    ),
    "buildings and sites": (
        "building hotel house mansion church chapel cathedral museum station stadium arena "
        "ballpark airport airfield mall market bazaar prison theatre theater campus complex "
        "skyscraper barn park memorial landmark site venue nightclub road route plantation "
        "structure mine castle palace bridge tower monument temple mosque hospital library "
        "street square garden cemetery "
        "lighthouse trail"
    ),
    "companies and businesses": (
        "company bank retailer manufacturer corporation conglomerate airline brewery business "
        "label network channel provider brand store carrier imprint constructor firm studio "
        "publisher-company subsidiary restaurant chain distillery winery"
    ),
    "institutions and agencies": (
        "party agency society union institution institute university college school "
        "organization organisation army force unit league council body administration "
        "government ministry committee association foundation academy "
        "federation"
    ),
    "teams and bands": "club team band ensemble duo trio quartet orchestra collective group choir",
    "events": (
        "battle race season conflict offensive war bombing meeting conference election "
        "tournament championship scandal assault operation flight rodeo hunt ceremony festival "
        "case siege massacre uprising revolt rebellion treaty competition "
        "assassination impeachment expedition pilgrimage invasion bid gala"
    ),
    "living things": (
        "plant species genus angiosperm shrub tree dog hound chicken bird fish animal "
        "breed cultivar flower insect mammal reptile "
        "fern shark arthropod scorpion arachnid subfamily fungus orchid whale"
    ),
    "law and justice": (
        "law statute decree doctrine deduction right accord agreement constitution amendment "
        "verdict ruling"
    ),
    "science and medicine": (
        "compound protein tumor tumour radiation syndrome disease disorder condition mineral "
        "element molecule enzyme hormone gene virus bacterium theorem equation "
        "dimorphism drug vaccine"
    ),
    "awards and prizes": "award prize trophy medal",
    "society and culture": (
        "culture history immigration sexuality stereotype movement phenomenon tradition idiom "
        "persecution discrimination migration"
    ),
    "lists and statistics": "list discography filmography statistics bibliography timeline",
    "sports and games": "sport card",
    "food and drink": "cocktail cheese beer wine dish drink food beverage sauce liqueur",
    "machines and weapons": (
        "sword computer telescope console car helmet shotgun howitzer caliber aircraft ship "
        "locomotive engine rifle gun vehicle tank submarine rocket satellite "
        "musket carbine cruiser destroyer frigate battleship tugboat ferry boat"
    ),
}
BROAD: dict[str, str] = {noun: label for label, nouns in _GROUPS.items() for noun in nouns.split()}
# Two-word kinds whose last word alone names another shelf's: a "mixed martial artist" is a
# fighter, not an artist; a "civil servant" an official, not a servant; a "short subject" a film.
COMPOUNDS: dict[str, str] = {
    "martial artist": "athletes and sportspeople",
    "civil servant": "politicians, officials and lawyers",
    "public servant": "politicians, officials and lawyers",
    "short subject": "films and television",
}
BROAD.update(COMPOUNDS)
BROAD_LABELS = frozenset(_GROUPS)
_RELATIONS: dict[str, str] = {
    "sons and daughters": (
        "son daughter child heir grandson granddaughter nephew niece stepson stepdaughter"
    ),
    "wives and husbands": "wife husband widow consort spouse",
    "fathers and mothers": "father mother",
    "brothers and sisters": "brother sister",
}
RELATION: dict[str, str] = {
    noun: label for label, nouns in _RELATIONS.items() for noun in nouns.split()
}


def broad_kind(noun: str) -> str:
    """The broad kind of a singular category noun ("mountaineer" → "athletes and
    sportspeople"), or "" when it has none; a compound ("singer-songwriter", "film director")
    is read by its last part."""
    low = noun.lower()
    if low in BROAD:
        return BROAD[low]
    last = low.replace("-", " ").split()[-1] if low.strip() else ""
    return BROAD.get(last, "")
