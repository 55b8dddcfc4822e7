"""Sentences that say who or what a name is (Chinese): the summary of an entity page that has
no document of its own. "那地方叫平桥村，是一个离海边不远……的小村庄" says what 平桥村 is;
"平桥村只有一只早出晚归的航船是大船" only says something about it.

What counts, strongest first:

* the name opens the sentence and a copula or a naming verb follows it: "闰土是…", "鲁迅，原名
  周树人", "孙伏园（1894—1966），浙江绍兴人" (a note of the annotated edition); then the same at the
  start of a later clause ("在四十余被害的青年之中，刘和珍君是我的学生");
* the sentence names it: "那地方叫平桥村，是…", "这少年便是闰土。" (a naming verb, then the name,
  then the end of a clause), or names its bearer "卫老婆子叫她祥林嫂，说是自己母家的邻舍" (the
  name as the object of 叫/称/唤 + 她/他; one point more when the clause goes on to say who), or
  gives a title ("…的结集，名为《西滢闲话》，…", "题为《荆生》，", "原名《三侠五义》，"; never a
  person's: a story titled after its hero says what the story is);
* a note's head word and its gloss: "⑺罗汉豆：即蚕豆。", or a lifespan right after the name; a
  note that opens with a title in 《》 ("〔3〕《萌芽》文艺月刊，鲁迅、冯雪峰编辑…"), or a sentence
  mid-note that does, with its kind, author, founding or other title after the comma ("《二月》，
  中篇小说，…", "《汉书》，东汉班固著。", "《舆论报》，一九二二年创刊于北京，…").

A sentence that ends like what it defines (…的人, …村, …之一) gets one point more; a question
never defines, and a long sentence (a story's paragraph) loses a point.
"""

from __future__ import annotations

import re

from wikikv.text.fact_lines import points_back

# The note marks of the annotated edition: 〔3〕, ⑶, （⒊）, and the circled ③ of a few files
# (阿Ｑ正传, 《呐喊》自序, 论雷峰塔的倒掉: "③《小孤孀上坟》：当时流行的一出绍兴地方戏。").
_NOTE_MARK = re.compile(
    r"^[\s\u3000“”‘’\"']*(?:〔[0-9０-９]{1,3}〕|[⑴-⒇①-⑳]|（[⒈-⒛]）)?[\s\u3000]*"
)
_CIRCLED = frozenset("①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳")
_NOTE_ONLY = re.compile(r"^[\s\u3000]*(?:〔[0-9０-９]{1,3}〕|[⑴-⒇①-⑳]|（[⒈-⒛]）)[\s\u3000]*")
# After 即, what makes it "at once" or "even if" rather than "is": "章士钊即潜逃天津" (he fled at
# once), 即使, 即刻, 即以…, 即由….
_JI_NOT_COPULA = "使|便|刻|日|行|将|被|可|如|若|以|由|因|潜|逃|离|赴|回|去|往|到|已|又"
_COPULA = re.compile(
    r"^(?:君|先生|女士|氏)?(?:[（(][^）)\n]{0,40}[）)])?[，,]?\s*"
    r"(?:是|乃|即(?!" + _JI_NOT_COPULA + r")|就是|便是|原是|本是|原名|本名|又名|笔名|字|号"
    # …or its other name: "南北战争也叫“美国内战”（1861—1865），美国北部资产阶级对…的战争。"
    r"|也叫|又叫|(?:亦|也|又|通|俗)称(?!赞|颂|许|道|谢|奇|快|是|心|病|职|臣|帝|王|霸)|亦名)"
    r"(?!不|否|在|从|要|会|能|说)"
)
# A naming verb right before the name; not after a negation ("我又并非就是阿Ｑ"), and a bare 叫
# not after a pronoun ("我叫阿毛，没有应": I called him).
_NAMING_BEFORE = re.compile(
    r"(?:(?<![我你他她们])叫|名叫|叫做|叫作|名为|称为|唤作|(?<![非不没未])(?:便是|就是|即是))$"
)
# A note giving the usual spelling or the other title of what its head names: "陀思妥夫斯奇（…）
# 通译陀思妥耶夫斯基，俄国作家", "《易经》，即《周易》，…是古代记载占卜的书" — the name after 通译 / 今译
# / 即, bare or in book-title marks, and then the end of a clause.
_ANOTHER_NAME_BEFORE = re.compile(r"(?:通译|今译|又译|亦译|也译|一译|或译|即)《?$")
# A title given by a verb of naming or titling, whole in book-title marks and ending its clause:
# "陈西滢…专栏文章的结集，名为《西滢闲话》，…", "他后来结集为《西滢闲话》，…", "题为《荆生》，载于…",
# "一九三七年改名为《中山日报》" — the clause says what the titled thing is (not "题为《X》的讲演",
# where the title qualifies a noun that follows).
_TITLED_AS = re.compile(
    r"(?:名为|名曰|名之曰|叫做|叫作|称为|题为|题名为?|集名为?|结集为|辑为|编为|改题为|原题为|改名为?"
    r"|原名|又名|一名|全称)$"
)
# The name as the object of a naming verb: "卫老婆子叫她祥林嫂，说是自己母家的邻舍", "大家都叫她
# 祥林嫂", "所以他的父亲叫他闰土" — what people call someone is who that someone is.
_NAMING_OBJECT = re.compile(r"(?:叫|称|唤|喊|称呼)(?:她|他|伊)(?:做|作)?$")
# "他叫范爱农，是…": a pronoun and 叫 'is called', then who (a bare "我叫阿毛" is a call).
_CALLED = re.compile(r"(?:他|她|伊)(?:名)?叫$")
# A story bringing someone in: "(有|坐着|来了)一个杨二嫂" — 'a certain 杨二嫂'.
_INTRODUCED = re.compile(r"(?:有|坐着|住着|来了|出来|进来|是)(?:一个|一位)$")
# What the naming clause goes on to say of its bearer: "，说是自己母家的邻舍", "，是一个…".
_NAMING_GLOSS = re.compile(r"^[，,](?:说是|是|原是|本是|乃是)")
_CLAUSE_END = frozenset("，。；！、）)：,;!")
# The name, a short aside between commas, then the copula: "长妈妈，已经说过，是…".
# What the copula's predicate opens with when it points back at what was said before (它的,
# 他的, 该, 这个): the sentence does not say who the entity is by itself.
_LEANS_ON_CONTEXT = re.compile(r"^\s*(?:它|他|她|伊|其|该|此|这|那)")
_ASIDE_COPULA = re.compile(r"[，,][^，,。；;！？]{1,6}[，,](?:是|就是|便是|原是|本是)(?!不|否)")
# Words that may stand between a clause's start and its subject: "，只有连殳是出外游学的学生",
# "；然而柳妈是善女人，吃素，不杀生的".
_CLAUSE_ADVERB = re.compile(
    r"(?:只有|惟有|唯有|独有|原来|本来|然而|但是|可是|不过|因为|所以|但|而)$"
)
_CLAUSE_START = frozenset("，；：,;:")
# A note's head word, then a separator and the gloss ("嫦娥　古代神话中人物", "罗汉豆：即蚕豆"); not
# a longer head that starts with the name ("美国退还的赔款　指…").
# 指 'refers to' right after a name inside a note: "⑤金心异指钱玄同，…", "先帝爷，指刘备。"
_POINTS_TO = re.compile(r"^[，,]?[\s\u3000]*指(?!出|着|挥|责|摘|定|示|导|望|点|教|使|令)\S")
_GLOSS = re.compile(r"^(?:[（(][^）)\n]{0,40}[）)])?(?:[\s\u3000]+|[：:，,])[\s\u3000]*\S")
# The verbs that give a name in quotes: "其中有一个人物叫“金心异”", "…的幕僚，叫“刑名师爷”" (not
# 便是 / 即是, which say what something is: "“非革命”即是“反革命”").
_CALLS = re.compile(r"(?:(?<![我你他她们])叫|名叫|叫做|叫作|名为|称为|唤作|称作|号称)$")
# A year early in the bracket after a name, or a span of years after a longer Latin gloss
# ("卢骚（ＪAＪAＲｏｕｓｓｅａｕ，1712—1778）").
_LIFESPAN = re.compile(r"^[（(](?:[^）)\n]{0,12}\d{3,4}|[^）)\n]{0,40}?\d{3,4}\s*[—–－-])")
_NATIVE = re.compile(r"[省县州府市镇乡村]?人[，,。；）)]|人。$")
_KIND_END = re.compile(
    r"(?:的人|之一|的一个|村庄?|镇|庄|城|县|省|地方|学校|刊物|杂志|报纸|团体|组织|者|家|人物)[。；！]?$"
)
_LONG = 120


_MIN_TOLD = 10
_SPEECH_OPEN = ("“", "‘", "「", "『")


def describes(sentence: str, names: list[str]) -> bool:
    """Whether a sentence whose subject is the entity can stand as its summary when none
    defines it: narrative (not a line of speech: no opening quote, no 你), a statement (not a
    question or an exclamation) of some length, not the line before a speech ("…说：")."""
    text = sentence.strip()
    body = text.rstrip("”’\"'」』")
    if len(body) < _MIN_TOLD or text.startswith(_SPEECH_OPEN) or "你" in text or "您" in text:
        return False
    if any(q in text for q in _SPEECH_OPEN) or text.endswith(("”", "’")):
        return False  # a sentence that quotes someone's words (or ends them) tells what was said
    if body.endswith(("？", "?", "！", "!", "：", ":")) or _SPEECH_TAG_END.search(body):
        return False  # a question, or the line around a speech ("柳妈不耐烦的看着她的脸，说。")
    if _HEDGE.search(text):
        return False  # a guess or a likeness: "禹也真好像是一条虫。"
    head = _NOTE_MARK.match(text)
    body = text[head.end() :] if head else text
    for name in sorted((n for n in names if n), key=len, reverse=True):
        at = text.find(name)
        if at >= 0:
            end = at + len(name)
            if _NATIVE_OF_SOMEONE.match(text, end) and text[at - 1 : at] in _GLOSS_BREAK:
                return False  # "陈百年，名大齐，浙江海盐人": where someone was from
            longer = _LONGER_HEAD.match(body, len(name)) if body.startswith(name) else None
            if longer and not body[longer.end() :].lstrip(" \t\u3000").startswith(name):
                return False  # "〔4〕湖南灾民的布告　指…": a note on a longer term (but
                # "伏羲八卦体　伏羲，我国古代传说中的帝王" goes on to say who 伏羲 was)
            return not text.startswith(_OTHER_ONE, end)  # 四铭太太 is his wife
    return True


# A place in a note's gloss of someone, after a comma or a lifespan: "…（1883—1940），四川彭山
# 人。", "按朱谦之，福建闽侯人，…" — the sentence is about that someone, not the place.
_NATIVE_OF_SOMEONE = re.compile(r"[\u4e00-\u9fff（）()]{0,10}人(?:[，,。；;）)]|$)")
_GLOSS_BREAK = frozenset("，,）)")
# A note's head word that only starts with the name, then the gap before its gloss: "云南起义　…",
# "土耳其革命　指…" explain the rising and the revolution, not the province or the country.
_LONGER_HEAD = re.compile(r"[\u4e00-\u9fff]{1,10}[ \t\u3000]")


# The line around a speech ends with the verb of saying: "柳妈不耐烦的看着她的脸，说。", "王胡轻蔑
# 的抬起眼来说。" (the words follow on the next line).
_SPEECH_TAG_END = re.compile(r"(?:说|道|问|答|嚷|喊)[。.]$")
# A guess or a likeness says who no one is: "或者说这就是陈士成。", "禹也真好像是一条虫。"
_HEDGE = re.compile(r"或者|也许|大概|仿佛|彷佛|似乎|好像|好象|恐怕|未必|像是|象是")
# After a name, what makes the phrase someone else: 四铭太太, 七斤嫂, 阿Q的母亲.
_OTHER_ONE = ("的", "之", "太太", "嫂", "奶奶", "老婆", "家", "们")
# After the name that opens a sentence, a verb of being or having: the sentence says what the
# entity is like ("阿Ｑ没有家，住在未庄的土谷祠里", "七斤虽然住在农村") rather than what it did once.
_STATIVE = re.compile(
    r"^(?:虽然|本来|原来|向来|一向|从来|平时|是|有|没有|姓|住在|住|名|原是|本是|已经是|便是|也是|却是)"
)
_LEAD_CHARS = " \t\u3000“”‘’「」『』（）()—…但而于是可然"


# After a name, what makes it a time ("辛亥革命后任绍兴军政分府都督": after the revolution, someone
# took office), not the subject; not 后来 'later' ("上海后来…") nor 前往 'go to'. The callers
# look at a few characters after the name.
_AS_TIME = re.compile(
    r"^(?:后(?!来)|前(?!往|进|去)|时|以后|以前|之后|之前|期间|以来)"
    # …or the name's founding, fall or outbreak as a time: "中国共产党成立后，任党的总书记"
    r"|^(?:成立|建立|创立|失败|爆发|发生|结束|解散|灭亡|覆灭|胜利)(?:后|以后|之后|时|以来|前|以前|之前)"
    # …or someone's death, rise or rule: "袁世凯死后，在日本帝国主义支持下，几次把持北洋政府" (段祺瑞
    # did), "段祺瑞执政之际，虽颇有人造了谣言" (the writer speaks)
    r"|^(?:死|逝世|去世|病故|下台|倒台|上台|执政|当政|在位|称帝|窃国|失势)(?:之际|后|以后|之后|时)"
    r"|^之际"
)


def names_a_time(after_name: str) -> bool:
    """Whether the text right after a name makes the name a point in time (X后, X时, X以来)."""
    return bool(_AS_TIME.match(after_name))


def opens_with(sentence: str, names: list[str]) -> bool:
    """Whether the sentence opens with one of ``names`` (after quotes and an opener such as
    但, 于是), not as a time (辛亥革命后…): the entity is what it speaks of first."""
    body = sentence.lstrip(_LEAD_CHARS)
    return any(n and body.startswith(n) and not names_a_time(body[len(n) :]) for n in names)


def tells_what_it_is(sentence: str, names: list[str]) -> bool:
    """Whether a sentence opens with the entity's name and a verb of being or having (see
    :data:`_STATIVE`)."""
    body = sentence.lstrip(_LEAD_CHARS)
    for name in sorted((n for n in names if n), key=len, reverse=True):
        if body.startswith(name):
            return bool(_STATIVE.match(body[len(name) :].lstrip("，, ")))
    return False


def in_speech(text: str, pos: int) -> bool:
    """Whether ``pos`` lies inside a quotation: one opened earlier in its paragraph, or one
    whose next quotation mark closes it — a quotation running over several paragraphs whose
    later paragraphs do not reopen it (a critic's article quoted at length: "…鲁迅先生竟跑出了
    现社会…鲁迅先生躲避了。”"); the look ahead stops after a few paragraphs."""
    start = text.rfind("\n", 0, pos) + 1
    before = text[start:pos]
    if before.count("“") > before.count("”"):
        return True
    ahead = _NEXT_QUOTE.search(text, pos, min(len(text), pos + _QUOTE_LOOKAHEAD))
    return ahead is not None and ahead.group() == "”"


_NEXT_QUOTE = re.compile("[“”]")
_QUOTE_LOOKAHEAD = 1500  # characters: a few paragraphs


def without_note_mark(sentence: str) -> str:
    """``sentence`` without the note marker it opens with ("〔2〕柏生即孙伏园…" → "柏生即孙伏园…"),
    for a summary line (the key fact keeps the verbatim quote)."""
    head = _NOTE_ONLY.match(sentence)
    return sentence[head.end() :] if head else sentence


def defining_score(
    sentence: str, names: list[str], person: bool = False, mid_note: bool = False
) -> int:
    """How well ``sentence`` says who or what one of ``names`` is (0: it does not); see the
    module docstring. A ``person`` is never defined by a title given in book-title marks: "发表
    的那时题为《眉间尺》" names the story, not its hero. ``mid_note``: the sentence stands inside
    an editors' note, not at its head."""
    text = sentence.strip()
    if not text or text.rstrip("”’\"'").endswith(("？", "?", "！", "!")):
        return 0  # a question or an exclamation ("老栓，就是运气了你！") says who no one is
    if "你" in text or "您" in text:
        return 0  # words said to someone
    if _HEDGE.search(text):
        return 0  # a guess or a likeness (或者说这就是陈士成, 禹也真好像是一条虫)
    head = _NOTE_MARK.match(text)
    body = text[head.end() :] if head else text
    mark = head.group().strip(" \t\u3000“”‘’\"'") if head else ""
    # a circled mark opens a note only at the head of a line ("③《小孤孀上坟》：…"); after a
    # full stop it is the inline mark of the sentence before ("…的。⑥单是禁止，…")
    is_note = bool(mark) and (mark not in _CIRCLED or mid_note)
    if person and points_back(body):
        return 0  # "鲁迅是主要撰稿者…之一，并于该刊在上海出版后…": the note's journal, unnamed
    best = 0
    for name in sorted((n for n in names if n), key=len, reverse=True):
        score = _score_name(body, name, is_note, person)
        if not score and is_note and body.startswith(f"“{name}”"):
            # a note's head word in quotes: "〔2〕“公民团”　指袁世凯雇用的流氓打手，…",
            # "〔5〕“好人政府”是胡适等人…提出的政治主张"
            score = _score_name(name + body[len(name) + 2 :], name, True, person)
        if not score and body.startswith("按" + name):
            # the editors' "按" inside a note glosses like a note: "按任鸿隽，四川巴县人，科学家。"
            score = _score_name(body[1:], name, True, person)
        if not score and mid_note and body.startswith(name):
            rest = body[len(name) :]
            if _GLOSS.match(rest) and _NATIVE.search(rest):
                score = 4  # "俞复，江苏无锡人，当时“灵学派”的重要人物之一。" later in a note
            elif _POINTS_TO.match(rest):
                score = 3  # "…御驾三请”。先帝爷，指刘备。": the editors say whom it means
        best = max(best, score)
    if best and _KIND_END.search(body):
        best += 1
    if best and len(body) > _LONG:
        best -= 1
    return max(best, 0)


def _score_name(body: str, name: str, is_note: bool, person: bool = False) -> int:
    score = 0
    if not person and body.startswith(f"《{name}》") and _BRACKET_KIND.match(body, len(name) + 2):
        return 2  # "《十二个》（苏联ＡA勃洛克作长诗，胡译。…）": a bibliography's entry (an
        # editors' note on the title, which says more, wins)
    if (
        is_note
        and body.startswith(f"《{name}》")
        and len(body) > len(name) + 4
        and not _LONGER_HEAD.match(body, len(name) + 2)
    ):
        return 3  # a note on a book or a journal: "〔3〕《萌芽》文艺月刊，鲁迅、冯雪峰编辑…"
        # (not on a longer term: "〔2〕《呐喊》印行第二版　一九三○年一月…")
    if body.startswith((f"《{name}》，", f"《{name}》,")) and _TITLE_GLOSS.match(
        body, len(name) + 3
    ):
        return 3  # "《天演论》，严复于一八九五年翻译的…前两篇的题名，…": a title and what it is
    if body.startswith(name):
        rest = body[len(name) :]
        copula = _COPULA.match(rest)
        if copula and _LEANS_ON_CONTEXT.match(rest[copula.end() :]):
            return 0  # "鲁迅是它的发起人之一": who "它" is was said before; alone it says nothing
        if person and _LIFESPAN.match(rest) and _NATIVE.search(rest):
            score = 5  # "胡适（1891—1962）　字适之，安徽绩溪人，…": the editors' own gloss of
            # who someone was beats a copula one note says in passing ("胡适是杜威学说的宣传者")
        elif copula:
            score = 4
        elif _ASIDE_COPULA.match(rest):
            score = 3  # "长妈妈，已经说过，是一个一向带领着我的女工"
        elif _LIFESPAN.match(rest) or (is_note and _GLOSS.match(rest) and _NATIVE.search(rest)):
            score = 4
        elif is_note and _GLOSS.match(rest):
            score = 2
    at = body.find(name)
    while at >= 0 and score < 3:
        end = at + len(name)
        after = body[end : end + 1]
        lead = _CLAUSE_ADVERB.sub("", body[:at])
        if lead and lead[-1] in _CLAUSE_START and _COPULA.match(body[end:]):
            score = 3  # "在四十余被害的青年之中，刘和珍君是我的学生。", "全山村中，只有连殳是…"
        elif _NAMING_BEFORE.search(body[:at]) and (after == "" or after in _CLAUSE_END):
            score = max(score, 3 if body[end : end + 2] in ("，是", ",是") else 2)
        elif _NAMING_OBJECT.search(body[:at]) and (after == "" or after in _CLAUSE_END):
            score = max(score, 3 if _NAMING_GLOSS.match(body[end:]) else 2)
        elif _CALLED.search(body[:at]) and _NAMING_GLOSS.match(body[end:]):
            score = max(score, 3)  # "他叫范爱农，是徐伯荪的学生。"
        elif is_note and _ANOTHER_NAME_BEFORE.search(body[:at]) and _names_end(body, at, end):
            # "…（1821—1881）　通译陀思妥耶夫斯基，俄国作家。" says who; "长安　即西安。" and
            # "H女士（即许广平）" only that some other name was theirs
            score = max(score, 3 if _GLOSS_AFTER.match(body, _past_title(body, at, end)) else 1)
        elif _LIFESPAN.match(body[end:]):
            score = max(score, 2)
        elif (
            not person
            and body[at - 1 : at] == "《"
            and _TITLED_AS.search(body[: at - 1])
            and _names_end(body, at, end)
        ):
            score = max(score, 2)  # "…的结集，名为《西滢闲话》，一九二八年…出版"
        elif (
            not person
            and body[at - 1 : at] == "《"
            and _TITLE_LEAD.fullmatch(body, 0, at - 1)
            and _OTHER_TITLE_THEN_IS.match(body, end)
        ):
            score = max(score, 3)  # "现存《老子》（一名《道德经》），分…两篇，是…的言论集。"
        elif (
            not person
            and body[at - 1 : at] == "《"
            and _KIND_BEFORE_TITLE.search(body[: at - 1])
            and body[end : end + 1] == "》"
            and not _ANOTHER_TITLE_AFTER.match(body, end + 1)
            and "：“" not in body  # not the line before someone's words ("…里说：“…”")
        ):
            score = max(score, 1)  # "他的剧本《玩偶之家》，写娜拉…": the title with its kind
        elif (
            body[at - 1 : at] == "“"
            and body[end : end + 1] == "”"
            and _CALLS.search(body[: at - 1])
            and (body[end + 1 : end + 2] in ("", *_CLAUSE_END))
        ):
            score = max(score, 2)  # "其中有一个人物叫“金心异”，即影射钱玄同。"
        elif (
            not person
            and body[at - 1 : at] == "《"
            and body[end : end + 1] == "》"
            and (_KIND_AFTER_TITLE.match(body, end + 1) or _PUBLISHED.search(body[: at - 1]))
            and not _ANOTHER_TITLE_AFTER.match(body, end + 1)
            and not _quoted(body, at)
        ):
            score = max(score, 1)  # "成仿吾《从文学革命到革命文学》一文", "…发表的《致志摩》"
        elif _INTRODUCED.search(body[:at]) and (after == "" or after in _CLAUSE_END):
            score = max(score, 2)  # "…豆腐店里确乎终日坐着一个杨二嫂，人都叫伊“豆腐西施”。"
        at = body.find(name, end)
    return score


# A title's first clause that is a noun phrase saying what kind of writing it is, wherever the
# sentence stands (mid-note: "…不云笔译。”《天演论》，严复…翻译的…前两篇的题名，…").
_TITLE_GLOSS = re.compile(
    r"[^，,。；;！？]{2,80}的(?:题名|书名|书|著作|译本|译名|小说|剧本|诗集|文集|刊物|杂志|报纸|作品)"
    r"(?=[，,。；;]|$)"
    # …or, mid-note, a kind of periodical or writing with no 的 ("《二月》，中篇小说，…",
    # "《北斗》，文艺月刊，…", "《东方杂志》，综合性刊物，…"), its author ("《汉书》，东汉班固著。",
    # "《书目答问》，张之洞在四川学政任内所著，…"), its founding ("《舆论报》，一九二二年创刊于北京，…")
    # or its other title ("《劳动问题》，原名《国际劳动问题》，…") — what a note says first of a title
    r"|[^，,。；;！？《》“”]{0,30}"
    r"(?:周刊|旬刊|半月刊|月刊|季刊|刊物|杂志|报纸|日报|小说|剧本|诗集|文集|论文集|丛书|笔记)"
    r"(?=[，,。；;]|$)"
    r"|[^，,。；;！？《》“”]{2,30}(?:所著|著|撰|所作)(?=[，,。；;]|$)"
    r"|[^，,。；;！？《》“”]{2,20}创刊(?:于[^，,。；;！？]{1,12})?(?=[，,。；;]|$)"
    r"|(?:原名|又名|一名|全称)《[^《》]{1,30}》(?=[，,。；;]|$)"
)
# A title, its other title in brackets, then a later clause that says with 是 what it is: "现存
# 《老子》（一名《道德经》），分《道经》、《德经》上下两篇，是战国时人编纂的传为老聃的言论集。" — the
# bracket makes the title the clause's subject (when it opens the sentence: not "指他所著《道德经》
# （即《老子》），是…"), and 是 gives its kind.
_TITLE_LEAD = re.compile(r"[\u4e00-\u9fff]{0,4}")  # 现存 'the extant': the title opens its clause
_OTHER_TITLE_THEN_IS = re.compile(
    r"》[（(](?:一名|又名|即|原名|亦名|亦称|又称|简称|全称)《[^《》]{1,30}》[）)]"
    r"(?:[，,][^。；;！？]*?)?[，,](?:是|乃)(?!不|否)"
)
# A kind of writing right before a title, as its apposition: "他的剧本《玩偶之家》", "泰戈尔的诗集
# 《新月集》".
_KIND_BEFORE_TITLE = re.compile(
    r"(?:剧本|诗剧|小说|诗集|文集|论文集|小说集|散文集|杂文集|三部曲|童话|长诗|史诗|画集"
    r"|自传|回忆录|代表作|主要著作|著作)$"
)
# What a title's bracket says first when the title opens its sentence, as in the bibliography
# 鲁迅译著书目 ("《十二个》（苏联ＡA勃洛克作长诗，胡译。", "《华盖集》（短评集之二，…", "《莽原》
# （周刊。…", "《古小说钩沈》三十六卷（辑周至隋散逸小说。"): who wrote, compiled or translated it, or
# its kind — not a bracket of years or of the original's Latin title.
_BRACKET_KIND = re.compile(
    r"(?:[上中下]册|[一二三四五六七八九十百]{1,3}[卷册])?[（(][^（）()。\n]{0,30}?"
    r"(?:作|著|编|辑|译|撰|小说|诗|剧|戏曲|童话|论文|随笔|散文|短评|杂感|杂文|文集|周刊|旬刊"
    r"|月刊|季刊|停刊|讲义|会议录|画|回忆)"
)
# A kind after a title, in apposition: "成仿吾《从文学革命到革命文学》一文中的话", "辛克莱在《拜金
# 艺术》一书中曾说", "《风流皇后》一剧" (not 一部分 'a part of').
_KIND_AFTER_TITLE = re.compile(r"一(?:文|书|诗|剧|篇|首|部(?!分))")
# A title its author or journal published: "成仿吾在《洪水》…（一九二七年一月）发表的《完成我们的
# 文学革命》中，说…", "…载有姜华的《学匪与学阀》".
_PUBLISHED = re.compile(
    r"(?:(?:发表|刊载|刊登|连载|登载)(?:了|过)?的?"
    r"|(?:载有|刊有|发表有)(?:[\u4e00-\u9fff（）()]{2,10}的)?)$"
)
# A title in a list of titles ("《新月集》、《飞鸟集》", "《穷人》和《罪与罚》") is one of several.
_ANOTHER_TITLE_AFTER = re.compile(r"[、，,]?\s*(?:和|与|及|以及)?\s*《")
# What follows a name and a comma when the note goes on to say what it names: "，俄国作家。"
_GLOSS_AFTER = re.compile(r"[，,][^。；;]{4,}")


def _past_title(body: str, at: int, end: int) -> int:
    """Where the name at ``body[at:end]`` ends, past its closing 》 when a 《 opens it."""
    return end + 1 if body[at - 1 : at] == "《" and body[end : end + 1] == "》" else end


def _names_end(body: str, at: int, end: int) -> bool:
    """Whether the name at ``body[at:end]`` ends its clause: the end of the text or a clause
    mark after it, past the closing 》 when a 《 opens it."""
    if body[at - 1 : at] == "《" and body[end : end + 1] != "》":
        return False  # 即《周易·系辞》: a part of the book, not the book
    after = body[_past_title(body, at, end)][:1] if _past_title(body, at, end) < len(body) else ""
    return after == "" or after in _CLAUSE_END


# A summary that is one short sentence is thin ("这少年便是闰土。"): it takes its neighbour in the
# paragraph — the sentence before when it opens with a demonstrative ("这少年" is the boy of the
# picture before it), else the sentence after when that one goes on about the same one (a
# pronoun or a dropped subject: "他是能装弶捉小鸟雀的。").
_SHORT = 24
_SUMMARY_MAX = 3
_SENTENCE_END = re.compile(r"[。！？!?]+[”’」』]*")
_DEMONSTRATIVE = re.compile(
    r"^[\s\u3000“]*(?:这|那|此)[\u4e00-\u9fff]{0,3}(?:便是|就是|即是|是|乃)"
)
_GOES_ON = re.compile(
    r"^[\s\u3000]*(?:他|她|伊)(?!们)|^[\s\u3000]*(?:便|就|又|也|却|才|只|还|已|都)"
)


def summary_sentences(text: str, start: int, end: int, names: list[str]) -> str:
    """The summary a defining sentence ``text[start:end]`` makes (1–3 sentences, see above):
    the sentence itself when it says enough, else with the neighbour that says who it means,
    within its paragraph; never a question."""
    para_end = text.find("\n", end)
    para_end = len(text) if para_end < 0 else para_end
    end = _past_bracket(text, start, end, para_end)
    own = _note_gloss(text[start:end].strip(), names)
    if len(own) >= _SHORT:
        return own
    parts = [own]
    if _DEMONSTRATIVE.match(own):
        head = text[:start].rstrip()  # the paragraph before when the sentence opens its own
        before = _last_sentence(head[head.rfind("\n") + 1 :])
        if before and not _is_question(before):
            parts.insert(0, before)
    after = _first_sentence(text[end:para_end])
    if (
        len(parts) < _SUMMARY_MAX
        and after
        and not _is_question(after)
        and (_GOES_ON.match(after) or any(n and after.lstrip().startswith(n) for n in names))
    ):
        parts.append(after)
    return "".join(p.strip() for p in parts)


_BRACKET_RUN = 90  # characters a bracket left open may run on past its sentence


def _past_bracket(text: str, start: int, end: int, para_end: int) -> int:
    """Where a sentence ends that opens a bracket and stops inside it ("《华盖集》（短评集之二，皆
    一九二五年作。" + "印行所同上。）"): after the bracket's close when that comes soon in the
    paragraph, else ``end``."""
    chunk = text[start:end]
    if chunk.count("（") <= chunk.count("）"):
        return end
    close = text.find("）", end, min(para_end, end + _BRACKET_RUN))
    if close < 0 or "（" in text[end:close]:
        return end
    return close + 1


def _note_gloss(sentence: str, names: list[str]) -> str:
    """A note glossing several words in one sentence → the gloss that holds the name: the part
    between semicolons where it first occurs when that is not the first ("〔4〕《论语》　记录孔丘言行
    的书；《易经》，即《周易》，…是古代记载占卜的书。" for 周易), else up to the next semicolon that
    opens another book's gloss (…；《三姊妹》，中篇小说…). A semicolon inside a quotation, or one
    that goes on about the same thing ("字逸少；琅邪临沂人"), is no border. Any other sentence
    as it is."""
    head = _NOTE_ONLY.match(sentence)
    if head is None or "；" not in sentence:
        return sentence
    body = sentence[head.end() :]
    found = [at for at in (body.find(n) for n in names if n) if at >= 0]
    if not found:
        return sentence
    at = min(found)
    borders = [i for i, ch in enumerate(body) if ch == "；" and not _quoted(body, i)]
    begin = max((i + 1 for i in borders if i < at), default=0)
    later = [i for i in borders if i > at and (begin > 0 or body.startswith("《", i + 1))]
    gloss = body[begin : later[0]].rstrip() + "。" if later else body[begin:]
    return sentence[: head.end()] + gloss.strip()


def _quoted(text: str, pos: int) -> bool:
    return text.count("“", 0, pos) > text.count("”", 0, pos)


def _is_question(sentence: str) -> bool:
    return sentence.strip().rstrip("”’\"'」』").endswith(("？", "?"))


def _last_sentence(chunk: str) -> str:
    ends = [m.end() for m in _SENTENCE_END.finditer(chunk)]
    if not ends or ends[-1] < len(chunk.rstrip()):
        return ""  # the chunk does not end a sentence: the defining one starts mid-sentence
    cut = ends[-2] if len(ends) >= 2 else 0
    return chunk[cut:].strip()


def _first_sentence(chunk: str) -> str:
    m = _SENTENCE_END.search(chunk)
    return chunk[: m.end()].strip() if m else ""
