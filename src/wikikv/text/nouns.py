"""Common nouns that name a kind of thing ("composer" → person, "band" → org): the head words
both readers of an English definition (:mod:`wikikv.text.kinds`, :mod:`wikikv.text.lead`) map a
noun phrase's head to a page's kind by."""

from __future__ import annotations

from wikikv.text.broad_kinds import BROAD, RELATION

HEAD_WORDS: dict[str, str] = {}
for _kind, _words in (
    (
        "person",
        """actor actress singer musician politician footballer writer author director painter
        poet composer bishop king queen prince princess noble nobleman noblewoman lawyer judge
        officer soldier general scientist physicist chemist philosopher cricketer athlete
        player rapper journalist producer architect engineer businessman businesswoman
        economist historian priest monk nun emperor empress duke duchess count countess lord
        lady dancer model screenwriter filmmaker novelist playwright artist photographer
        designer coach manager diplomat activist inventor entrepreneur missionary theologian
        mathematician drummer guitarist bassist pianist violinist vocalist songwriter
        singer-songwriter conductor comedian broadcaster presenter statesman monarch ruler
        sultan cardinal pope saint consort regent heir claimant pretender aristocrat
        courtier knight baronet baron baroness earl marquess viscount footballer boxer
        wrestler jockey swimmer cyclist sprinter golfer skier official administrator civil
        servant teacher educator academic professor physician surgeon nurse psychologist
        sociologist anthropologist linguist botanist zoologist biologist geologist
        astronomer sculptor illustrator cartoonist animator editor publisher critic
        columnist commentator host personality entertainer magician astronaut pilot
        explorer navigator admiral commander colonel captain lieutenant sergeant spy
        criminal murderer terrorist gangster outlaw justice senator governor mayor
        woman man girl boy advisor adviser consultant strategist founder co-founder chairman
        chairwoman chairperson president vice-president secretary spokesman spokeswoman
        spokesperson minister publicist lobbyist banker investor philanthropist chef son
        daughter wife husband brother sister mother father widow fellow scholar researcher
        principal leader cellist flautist saxophonist trumpeter organist harpist clarinetist
        cinematographer forester ventriloquist illusionist ballerina bodybuilder gymnast
        driver rider mountaineer surveyor ornithologist entomologist paleontologist
        archaeologist geographer cartographer naturalist psychiatrist neurologist rabbi imam
        evangelist preacher pastor vicar abbot abbess martyr concubine racer skater rower
        biathlete triathlete fencer canoeist kayaker hurdler marathoner motorcyclist
        bobsledder snowboarder surfer""",
    ),
    (
        "work",
        """film movie album song single novel book television series sitcom play opera
        musical poem game documentary soundtrack ep anthology story novella comic manga
        newspaper magazine painting sculpture miniseries telenovela serial show episode
        compilation ballet symphony concerto sonata hymn anthem""",
    ),
    (
        "org",
        """band group company corporation university college school club party team
        organization organisation label agency institute association society firm brand
        airline network channel dynasty duo trio quartet ensemble orchestra choir franchise
        manufacturer retailer publisher studio conglomerate charity foundation union
        federation league council ministry department committee commission""",
    ),
    (
        "place",
        """city town village river county district state province island mountain lake
        country region municipality commune suburb neighbourhood neighborhood hamlet
        township parish valley airport station building church castle bridge park stadium
        street road settlement capital peninsula desert forest island islands mountains
        range volcano glacier bay harbour harbor port canal cathedral temple mosque palace
        museum library arena hall tower house mansion monument prison hospital peak summit
        creek stream brook tributary reservoir skyscraper hotel casino plantation theatre
        theater""",
    ),
    (
        "event",
        """battle war election festival tournament championship competition ceremony
        conference treaty revolution event season siege massacre rebellion uprising
        campaign expedition""",
    ),
):
    for _w in _words.split():
        HEAD_WORDS.setdefault(_w, _kind)


# The kind of the things each shelf of the listings holds (:mod:`wikikv.text.broad_kinds`): a
# noun the shelves file with people names a person ("chronicler", "librarian", "patriarch",
# "emir"), one filed with films a work ("western", "thriller"), and so on — the two tables
# agree instead of a page being shelved with writers but typed a topic.
_SHELF_KINDS = {
    "person": """athletes and sportspeople|musicians and singers|writers and journalists|
        scientists and scholars|politicians, officials and lawyers|royalty and nobility|
        clergy and religious figures|artists and designers|actors, presenters and entertainers|
        film and television makers|business people|military people|explorers and adventurers|
        criminals""",
    "work": "films and television|music and recordings|books and periodicals",
    "place": "settlements|regions and territories|natural features|buildings and sites",
    "org": "companies and businesses|institutions and agencies|teams and bands",
    "event": "events",
}
# Shelved nouns that name other things too: a game genre or an aircraft ("a first-person
# shooter", "a multirole fighter"), a device, a garment, a ship, a TV episode, an army unit.
_NOT_BY_SHELF = frozenset(
    """shooter fighter receiver runner jumper sailor trainer tackle bass catcher climber diver
    forward winger bowler kicker striker anchor promoter pilot major chief royal dealer planter
    carrier division department area body administration case race operation flight hunt
    meeting bid special feature short record release track hit tour concert collection
    strip cape range structure complex site square border force unit government army chain
    collective edition celebrity business nationalist socialist revolutionary abolitionist
    unionist""".split()
)
# Read as a definition's head only, not among its modifiers as HEAD_WORDS are (an "executive
# car" is no executive, a "United States Army private" no army).
SHELF_WORDS: dict[str, str] = {
    noun: kind
    for kind, labels in _SHELF_KINDS.items()
    for label in labels.split("|")
    for noun, shelf in BROAD.items()
    if shelf == label.strip() and noun not in _NOT_BY_SHELF and noun not in HEAD_WORDS
}
SHELF_WORDS.update((noun, "person") for noun in RELATION if noun not in HEAD_WORDS)


def kind_of_noun(word: str) -> str | None:
    """The kind a common noun names ("composer" → person, "band" → org), if it is one."""
    w = word.casefold()
    last = w.rsplit("-", 1)[-1]
    return HEAD_WORDS.get(w) or HEAD_WORDS.get(last) or SHELF_WORDS.get(w) or SHELF_WORDS.get(last)
