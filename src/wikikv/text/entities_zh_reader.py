"""Chinese names a reader finds by reading one document: the people (and the villages, taverns
and temples) a story is about, even when no dictionary knows them and no other document names
them — 祥林嫂, 老栓, 七斤嫂, 连殳, 未庄.

jieba's tagger misses most of them (老栓 is an unknown word, 七斤 a measure word), so this
reads the text itself: a string of 2-4 Han characters repeated in the document is a *central
name* when it has the shape of a name (a kinship or honorific form such as 嫂/老爷/先生/老太, a
阿/小/老 prefix, a surname, a place suffix) and is used the way names are — as the one who
speaks and acts ("七斤说", "老栓便…"), with varied neighbours on both sides (a fragment of a
longer word always has the same neighbour). Words jieba's dictionary knows as common words
(时候, 孩子, 女人) are not names unless that evidence is strong.

Also here: the type a Chinese name's suffix sets (镇/庄/村 → place, 社/大学/书局 → org, 嫂/老爷
→ person), and the test for dictionary words jieba tags as names but the text uses as common
words ("很麻木", "陶醉了").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache

# Suffixes that set a Chinese name's type, longest first within each kind.
_PLACE_SUFFIX = (
    "胡同",
    "酒店",
    "酒楼",
    "茶馆",
    "公寓",
    "会馆",
    "镇",
    "庄",
    "村",
    "屯",
    "城",
    "祠",
    "庵",
    "寺",
    "庙",
    "塔",
    "关",
    "坳",
    "省",
    "县",
    "府",
)
# One-character endings that are often the last character of a given name (冯雪峰, 高仁山,
# 韦素园): they set the type only for a name of three characters or more that does not start
# with a surname, or when nothing else says it is a person.
_WEAK_PLACE_SUFFIX = (
    "山",
    "岭",
    "峰",
    "湖",
    "江",
    "河",
    "港",
    "湾",
    "岛",
    "州",
    "桥",
    "街",
    "巷",
    "门",
    "园",
    "宫",
    "殿",
    "楼",
    "亭",
)
_WORK_SUFFIX = ("春秋", "演义", "全集", "文集", "选集", "丛书", "丛刊", "全书", "词典", "字典")
_ORG_SUFFIX = (
    "大学",
    "学院",
    "学校",
    "学堂",
    "中学",
    "小学",
    "书局",
    "书店",
    "书屋",
    "印书馆",
    "公学",
    "军校",
    "图书馆",
    "出版社",
    "报馆",
    "杂志社",
    "日报",
    "晚报",
    "周报",
    "画报",
    "月报",
    "学报",
    "导报",
    "半月刊",
    "月刊",
    "周刊",
    "旬刊",
    "季刊",
    "副刊",
    "杂志",
    "公司",
    "银行",
    "政府",
    "委员会",
    "联盟",
    "同盟",
    "社",
    "会",
    "党",
    "部",
    "院",
    "局",
    "军",
    "团",
)
_PERSON_SUFFIX = (
    "洋鬼子",
    "老婆子",
    "婆子",
    "秀才",
    "举人",
    "太公",
    "大神",
    "嫂子",
    "老爷",
    "太爷",
    "少爷",
    "先生",
    "老太",
    "太太",
    "奶奶",
    "大妈",
    "大叔",
    "大人",
    "公公",
    "婆婆",
    "夫子",
    "女士",
    "小姐",
    "姑娘",
    "嫂",
    "婶",
    "妈",
    "爷",
    "伯",
    "叔",
    "姐",
    "姑",
    "哥",
    "公",
    "翁",
    "君",
    "氏",
    "儿",
)
# A one-character surname and one of these is "Mr Liu", "Madam Yang": a form of address that
# names different people in different texts, never a page of its own (刘先生, 章氏, 杨女士).
SURNAME_HONORIFIC = ("先生", "女士", "小姐", "君", "氏")
# Common words that end like an organization (会) but name none.
_NOT_ORG_ENDINGS = (
    "社会",
    "机会",
    "体会",
    "误会",
    "理会",
    "领会",
    "约会",
    "都会",
    "运动会",
    "当局",
    "代表团",
    "集团",
)  # 代表团 'a delegation', 小集团 'a clique': groups of people, not bodies
_EVENT_SUFFIX = ("运动", "革命", "战争", "起义", "事变", "事件", "会议", "惨案", "条约")
_NAME_PREFIX = ("阿", "小", "老")
# Kinship and role words: a form of address, not a name ("祖母", "四叔" alone are names only
# with a personal element, which the suffix forms above require).
KINSHIP = frozenset(
    """父亲 母亲 祖母 祖父 哥哥 姐姐 弟弟 妹妹 儿子 女儿 妻子 丈夫 太太 先生 老爷 少爷 老太
    奶奶 婆婆 公公 大妈 大叔 大伯 大人 孩子 女人 男人 老头 老头子 老婆 老婆子 老太太 小姐 姑娘
    嫂子 伯父 伯母 叔父 叔叔 婶婶 舅舅 姑妈 姨妈 侄子 外甥 孙子 主人 客人 老板 伙计 掌柜 东家
    太爷 老爷子 小孩 小孩子 小子 老子 娘子 夫人 女士 大哥 二哥 三哥 大姐 二姐 小弟 阿哥 阿姐
    老兄 老弟 老人 老人家 小东西 小家伙 先生们 太太们 母子 父子 兄弟 姊妹 夫妇 大家 皇帝 学者
    曾孙 孙女 曾祖 祖宗 祖先 史官 书记 侏儒
    大员 大王 使女 官员 诸侯 百姓 读者 作者 青年 少年 学生 先生们 朋友 敌人 主子 奴才 奴隶""".split()
)
# After a name: what its bearer says or does.
_ACT_AFTER = re.compile(
    r"^(?:说|道|曰|问|答|笑|哭|叫|喊|嚷|想|看|听|走|跑|坐|站|立|睡|吃|喝|拿|接|抬|摇|点|伸|"
    r"便|却|也|又|就|才|已|忽|早|正|还|都|并|倒|终于|一面|连忙|赶紧|慢慢|这才|似乎|仿佛|"
    r"很|不|没|是|在|和|对|向|把|将|虽|自|究竟|到底|大约|：“)"
)
# Before a name: a boundary — punctuation, the start, or a particle that introduces a noun.
_BOUNDARY_BEFORE = frozenset(
    "，。！？；：、“”‘’「」（）()〔〕［］—…\n \u3000的了和与同跟对向把被给叫是见问看请替让使说道找"
)
_SPEECH = frozenset("说道曰问答笑想叫嚷喊")
_PREDICATE_BEFORE = frozenset("很太最更极颇甚真好都也就便已还才又再不没未别莫")
_PREDICATE_AFTER = frozenset("了着过地得")
_PLACE_BEFORE = frozenset("在到往从至去回于住离赴进出")
_AT = _PLACE_BEFORE - frozenset("去从")  # 去/从 come before verbs too (去拜寿，从抚摩)
# What follows a place after 在/到/从: a direction, a time, a stay ("到北京去", "在上海时").
_PLACE_FOLLOW = frozenset("去来时后前住以一做任读留念就边畔岸游见了到")
# A name neither starts nor ends with a function word ("是赵太爷", "老栓也", "鲁镇的"), nor
# holds a particle ("关了门").
NOT_IN_NAME = frozenset("了着的地得")
BAD_FIRST = frozenset(
    "的了着是在和与给把被到从对向也都就便又还才我你他她它这那哪其但而且因所却只很不没一个某时"
)
BAD_LAST = frozenset(
    "的了着过是在和与也都就便又还才们说道想看来去上下里中呢吗吧啊呀么个一这那之曰以而人我你他她不到"
    "所答问"
)
# Agent and abstract endings: 国学家, 文学者, 民众主义, 国民性 are kinds of people or ideas, not
# names (a name with a person's ending — 七斤嫂 — is not concerned).
COMMON_ENDINGS = (
    "者",
    "家",
    "们",
    "性",
    "派",
    "界",
    "式",
    "化",
    "论",
    "学",
    "体",
    "主义",
    "王朝",
    "礼教",
)  # 体: a form of writing (章回体, 纪传体)
# Han characters, and capital letters (阿Ｑ, 小Ｄ, S城).
_GLUE = frozenset("连于为被让给使把将向对从他她伊我你们的了是也都就")
_HAN_RUN = re.compile(r"[\u3400-\u9fffA-ZＡ-Ｚ]+")
_DICT_COMMON_FREQ = 50
_DICT_VERY_COMMON = 5000
# The last character of a common noun for a piece of writing (原文, 来信, 报告书), which 'says'
# what it reads ("原文说：…") as a person says what they think.
_WRITING = frozenset("文书信报稿函")
MIN_CENTRAL = 3


@lru_cache(maxsize=1 << 16)  # asked ~1,000 times per document, mostly of the same words
def kind_by_suffix(name: str, weak: bool = True) -> str | None:
    """The type a Chinese name's ending sets: 鲁镇 → place, 创造社 → org, 七斤嫂 → person.
    With ``weak``, also the one-character place endings that given names share (see
    :data:`_WEAK_PLACE_SUFFIX`), for a name of three characters or more."""
    if len(name) < 2 or "·" in name or name.isascii():
        # 礼记·大学: a chapter of a book, 堂·吉诃德: a transliterated name; every ending below
        # is Chinese (an English build's derive asks this of every name)
        return None
    if name.endswith(_NOT_ORG_ENDINGS):
        return None  # 改造社会: society, not a society; 教育当局: the authorities
    for suffixes, kind in (
        (_WORK_SUFFIX, "work"),
        (_EVENT_SUFFIX, "event"),
        (_ORG_SUFFIX, "org"),
        (_PLACE_SUFFIX, "place"),
        (_PERSON_SUFFIX, "person"),
    ):
        for suf in suffixes:
            if name.endswith(suf) and len(name) > len(suf):
                return kind
    if weak and len(name) >= 3 and name.endswith(_WEAK_PLACE_SUFFIX):
        return "place"
    if len(name) >= 3 and name.endswith("报"):
        return "org"  # 益世报, 申报馆's 申报 is two characters and stays a guess
    return None


# Place endings of two characters or more (酒店, 会馆, 胡同): a name followed by one (咸亨|酒店) is
# that place's short name. (A body's endings are not here: 段祺瑞政府 is his government, and
# 段祺瑞 the man.)
_LONG_SUFFIXES = tuple(s for s in _PLACE_SUFFIX if len(s) >= 2)


def suffixed_form(word: str, text: str) -> str | None:
    """The place ``word`` is the short name of in ``text``: the word and a place's ending of
    two characters or more (:data:`_LONG_SUFFIXES`) somewhere in the text — "一家是咸亨酒店" makes
    the 咸亨 of "咸亨也关上门了" the tavern. The longest such form, or None."""
    best: str | None = None
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        for suf in _LONG_SUFFIXES:
            if text.startswith(suf, end) and (best is None or len(word) + len(suf) > len(best)):
                best = word + suf
        start = text.find(word, end)
    return best


def weak_place(name: str) -> bool:
    """Whether only a one-character place ending (山, 门, 园 …) makes ``name`` a place."""
    return kind_by_suffix(name, weak=False) is None and kind_by_suffix(name) == "place"


def name_shape(word: str, surnames: frozenset[str]) -> str | None:
    """The type a word's shape suggests, or None when it does not look like a name."""
    by_suffix = kind_by_suffix(word)
    if by_suffix == "place" and weak_place(word) and word[0] in surnames:
        return "person"  # 冯雪峰, 高仁山
    if by_suffix is not None and by_suffix not in ("event", "work"):
        return by_suffix
    if word.startswith(_NAME_PREFIX) and 2 <= len(word) <= 3:
        return "person"
    if word[0] in surnames and 2 <= len(word) <= 3:
        return "person"
    return None


def used_as_common_word(word: str, text: str) -> bool:
    """Whether ``text`` uses ``word`` as an adjective or a verb: in a fifth of its occurrences
    or more, right after a degree adverb or a negation ("很麻木", "不陶醉") or right before an
    aspect particle ("巴结着"). A name meets those neighbours only now and then."""
    total = hits = 0
    start = text.find(word)
    while start >= 0:
        before = text[start - 1] if start else ""
        end = start + len(word)
        after = text[end] if end < len(text) else ""
        total += 1
        if before in _PREDICATE_BEFORE or after in _PREDICATE_AFTER:
            hits += 1
        start = text.find(word, end)
    return hits > 0 and hits >= 0.2 * total


# Opening marks: "待到满口“中庸”时" — a quote opening after a word is what it says, not the end of
# a place's clause.
_OPENING = frozenset("“‘「『《〔")


# 于 that ends a conjunction or an adverb is no preposition: "由于大洋，" is 'because of the
# silver dollars', not 'at' a place (生于, 位于 do introduce one, and are not here); nor is the 于
# of a comparison: "更远过于章炳麟，" is 'far worse than 章炳麟'.
_CONJUNCTION_YU = frozenset(
    "由于 关于 对于 至于 终于 鉴于 基于 过于 甚于 胜于 大于 小于 多于 少于 高于 低于 优于 劣于 "
    "等于 异于".split()
)


# After a place: around it, a direction from it (not 'the south of' a person).
_AROUND_A_PLACE = frozenset(
    "一带 地方 附近 近郊 郊外 之东 之南 之西 之北 以东 以南 以西 以北".split()
)
# A preposition of place and a country right before a word: "于俄国莫斯科", "在英国伦敦".
_IN_A_COUNTRY = re.compile(r"[在于到往至][\u4e00-\u9fff]{1,2}国$")


def used_as_place(word: str, text: str) -> bool:
    """Whether ``text`` uses ``word`` where a place goes somewhere ("在北京", "到日本", "北京人")."""
    start = text.find(word)
    while start >= 0:
        before = text[start - 1] if start else ""
        end = start + len(word)
        after = text[end : end + 2]
        if (
            # 到北京去, 在北京，: a verb after 去/从 goes on ("去巴结奉承", "从抚摩转成", "去拜寿，")
            (
                before in _PLACE_BEFORE
                and text[start - 2 : start] not in _CONJUNCTION_YU
                and (
                    after[:1] in _PLACE_FOLLOW
                    or (before in _AT and not _is_han(after[:1]) and after[:1] not in _OPENING)
                )
            )
            or after[:1] in ("人", "省", "城", "县", "府")
            or after in _AROUND_A_PLACE  # 在莫斯科之南, 北京附近
            or (  # 起源于俄国莫斯科。: a city after its country
                _IN_A_COUNTRY.search(text, max(0, start - 5), start) is not None
                and not _is_han(after[:1])
                and after[:1] not in _OPENING
            )
        ):
            return True
        start = text.find(word, end)
    return False


# What a person's name meets in prose and a common word does not: a lifespan, a courtesy name or
# a gloss in a note ("（1881—1936）", "（字子敬）", "，字豫才", "罗素（Ｂ．Ｒｕｓｓｅｌｌ）"), an
# honorific ("先生", "君" but not 君子), authorship ("所著", "著《…》"), a list of people
# ("叶圣陶等编"), classical quoting ("孟子曰"), a native place ("高长虹，山西盂县人，"), or what
# the person was ("诗人拜伦").
_PERSON_MARK = re.compile(
    r"^(?:[（(](?:约|公元前|前|字|号|原名|本名)?\s*[\d？?〇一二三四五六七八九A-Za-zＡ-Ｚａ-ｚ]"
    r"|[（(](?:字|号|原名|本名|笔名)|[，,](?:字|号|原名|又名|笔名|本名|别号)(?![为称召令])"
    r"|先生|君(?![子主王臣])|氏|女士|教授|博士|所著|所作|所译|所编|[著译编作]《|等人|等编"
    r"|等[创发主合]|曰|云[：:，,]"
    r"|[，,](?:[^，,。；\n]{0,6}[省县州府镇乡村]|浙江|江苏|安徽|湖南|湖北|广东|广西|福建|江西|四川"
    r"|河南|河北|山东|山西|陕西|甘肃|云南|贵州|直隶|北京|上海|天津|日本|俄国|英国|法国|德国|美国)"
    r"[^，,。；\n]{0,4}人[，,。；）)]"
    r")"
)
# Speech ("说", "道") is a verb's neighbour too ("他冷笑道"): it counts when the text makes the
# word speak twice, with no pronoun or adverb before it.
_SPEECH_MARK = re.compile(r"^[大高低冷又便就也忙连却才怒笑着声]{0,2}(?:说|道|问|答|嚷|喊)")
_SUBJECT_BEFORE = frozenset("他她我你们很太最更极颇甚真好都也就便已还才又再不没未别莫正却来的")
_PERSON_BEFORE_MARK = re.compile(
    r"(?:诗人|作家|教授|博士|学者|皇帝|主簿|译者|编者|作者|哲学家|文学家|小说家|画家|翻译家|批评家|思想家|"
    r"史家|戏曲家|剧作家|儿子|女儿|孙子|孙女|孙女儿|侄儿|妻子|丈夫|哥哥|弟弟|姐姐|妹妹)$"
)
# A note line of the annotated edition: its marker, then the word it explains ("〔３〕　嫦娥　古代
# 神话中人物"); ingest drops the inline markers and keeps the notes.
_NOTE_HEAD = r"(?m)^(?:〔[0-9０-９]{1,3}〕|[⑴-⒇]|（[⒈-⒛]）)[ \t\u3000]*"  # （⒊）: 阿Ｑ正传's notes
_NOTE_END = r"(?=[ \t\u3000（(，,、：:]|$)"
_PLACE_MARK = re.compile(r"^(?:[（(]今|[（(][A-Za-zＡ-Ｚａ-ｚ]|人[，。、）)])")


_PRONOUN_SUBJECT = frozenset("我你他她它")
_NOMINALIZED_END = frozenset("。！？…么吗呢")


def used_as_predicate(word: str, text: str) -> bool:
    """Whether ``text`` uses ``word`` as what someone does or is, not as who does it, in a third
    of its occurrences or more: right after a subject pronoun ("我仇猫的原因": 'I hate cats'),
    or as the predicate of a 是…的 sentence ("说我是仇猫的。", "狗不是仇猫的么？"). A name is
    the one who acts, and is seldom a predicate (仇猫 'hating cats' is a phrase, not a person)."""
    total = hits = 0
    start = text.find(word)
    while start >= 0:
        total += 1
        end = start + len(word)
        before = text[start - 1] if start else ""
        if before in _PRONOUN_SUBJECT or (
            before == "是"
            and text[end : end + 1] == "的"
            and text[end + 1 : end + 2] in _NOMINALIZED_END
        ):
            hits += 1
        start = text.find(word, end)
    return hits > 0 and hits * 3 >= total


# A numeral or a demonstrative and a classifier before a noun ("一个书记", "四个小鸭"), or an
# honorific after it ("账房先生", "书记先生"): the noun names a kind of person or thing, which a
# story addresses by its role.
_COUNTED = re.compile(r"[一二两三四五六七八九十几这那每某][个位名只条]$")
_ROLE_ADDRESS = ("先生", "老爷", "大人", "师傅", "们")
_ROLE_FREQ = 50


def role_word(word: str, text: str, dictionary: dict[str, str], freq: dict[str, int]) -> bool:
    """Whether ``word`` is a role or a kind, not a name: a two-character common noun of the
    dictionary (tag ``n``, in general use) that ``text`` counts ("一个书记") or addresses with an
    honorific ("账房先生": 'Mr Accountant'). Names the dictionary files as nouns are named bare
    (墨子, 嫦娥), and rare ones (弱水先生, a pen name) are not concerned."""
    if len(word) != 2 or dictionary.get(word) != "n" or freq.get(word, 0) < _ROLE_FREQ:
        return False
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if _COUNTED.search(text, max(0, start - 2), start) or text.startswith(_ROLE_ADDRESS, end):
            return True
        start = text.find(word, end)
    return False


# A note that explains a word as an expression, not as a name: what it refers to (指, 泛指, 借指),
# or a figure of speech (比喻, 用语) — "〔１３〕　都城　指宋国的国都商丘", "〔5〕象牙塔原是…
# 批评…的用语，后来用以比喻脱离现实生活的文艺家的小天地".
_TERM_GLOSS = re.compile(
    r"^(?:[\s\u3000：:，,]*)(?:这里|此处|此)?(?:泛指|借指|喻指|比喻)"
    r"|^[^。；\n]{0,60}(?:用语|用以比喻|比喻)"
)


def glossed_term(word: str, text: str) -> bool:
    """Whether a note of ``text`` explains ``word`` as a term or a figure of speech (see
    :data:`_TERM_GLOSS`): its sentences then name different things (one capital, then another)
    or nothing at all, and it is no page."""
    m = _note_on(word, text, _GLOSS_TAIL)
    if m is not None and _TERM_GLOSS.search(m.group(1)) is not None:
        return True
    # the note may say it further on: "……所以这里用“独头茧”比喻自甘孤独的人"
    return f"用“{word}”比喻" in text or f"用‘{word}’比喻" in text


# A note's first sentence that says its head word is a kind of thing: "一种…" (a person is no
# kind), or "…的床" for 宁式床 — the word's own last character as the head of the gloss.
_KIND_NOTE_TAIL = re.compile(r"(?m)" + _NOTE_END + r"[\s\u3000：:，,]*([^。\n]{0,80})")


# Years in brackets that the same clause calls a reign's: "正始（240-249），魏废帝齐王曹芳的年号".
_REIGN_NOTE = r"[（(][^（()）\n]{0,20}?[0-9０-９]{2,4}[^（()）\n]{0,20}[）)][^。\n]{0,30}年号"


def noted_as_reign(word: str, text: str) -> bool:
    """Whether a note of ``text`` gives ``word`` years and calls it a reign (年号): a date
    ("正始初", "正始名士"), though the years look like a lifespan."""
    return re.search(re.escape(word) + _REIGN_NOTE, text) is not None


def noted_as_kind(word: str, text: str) -> bool:
    """Whether a note of ``text`` explains ``word`` as a kind of thing: its first sentence says
    it is 一种… ("宁式床：浙江宁波一带制作的一种比较讲究的床") or ends with the word's last character
    after 的 (…的床). True of no person; callers ask it of words typed as persons only (悟善社,
    "一种封建迷信的道门组织", is a body)."""
    m = _note_on(word, text, _KIND_NOTE_TAIL)
    if m is None:
        return False
    gloss = m.group(1)
    return "一种" in gloss or gloss.endswith("的" + word[-1])


_GLOSS_TAIL = re.compile(r"((?:[\s\u3000：:，,]|原|指|泛|借|喻|比|语|这|此)[^\n]{0,80})")
_NOTE_HEAD_RX = re.compile(_NOTE_HEAD)


@lru_cache(maxsize=8)
def _note_heads(text: str) -> tuple[int, ...]:
    """Where the head word of each note of ``text`` starts (after its marker and spaces)."""
    return tuple(m.end() for m in _NOTE_HEAD_RX.finditer(text))


def _note_on(word: str, text: str, tail: re.Pattern[str]) -> re.Match[str] | None:
    """The first note whose head word is ``word`` followed by what ``tail`` matches: what
    ``re.search(_NOTE_HEAD + re.escape(word) + tail)`` finds, without compiling a pattern per
    word (``re``'s cache holds 512; a document asks about thousands of words)."""
    for at in _note_heads(text):
        if text.startswith(word, at):
            m = tail.match(text, at + len(word))
            if m is not None:
                return m
    return None


# After a foreign name used as a place: its people, mountains, islands or nation ("爱尔兰人",
# "高加索山", "爱尔兰民族"), or a person it is the nationality of ("爱尔兰剧作家", "爱尔兰老妈子").
_FOREIGN_PLACE_AFTER = re.compile(
    r"^(?:人(?![道生格物间类心家情们])|山|岛|半岛|海峡|民族|族人|籍|境内|一带|"
    r"(?:剧作家|作家|诗人|小说家|画家|哲学家|文学家|革命家|政治家|学者|老妈子|巡警|女人|男人))"
)


_MODERN_NAME = re.compile(r"([\u4e00-\u9fff]{2,6})[，,]?(?:今译|今称|即今)$")


def foreign_place(word: str, text: str) -> bool:
    """Whether ``text`` uses a name of three characters or more (one jieba tags as a person:
    高加索, 爱尔兰) as a place: its people, a mountain or a nation after it, a person of that
    nationality after it, or "从爱尔兰来". A person's name is seldom followed by 人 or 山."""
    if len(word) < 3 or word[-1] == "夫" or word[0] in BAD_FIRST | {"时"}:
        return False  # 格列高里夫 + 人: 'Lady Gregory'; 时鲁国: a word glued to 时
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if _FOREIGN_PLACE_AFTER.match(text[end : end + 4]):
            return True
        if text[start - 1 : start] == "从" and text[end : end + 1] in ("来", "去", "到"):
            return True
        old = _MODERN_NAME.search(text, max(0, start - 12), start)
        if old and kind_by_suffix(old.group(1)) == "place":
            return True  # "太和岭，今译高加索": the modern name of a place
        start = text.find(word, end)
    return False


# What only a person has: a lifespan in the bracket after the name, whatever gloss comes first
# ("莎士比亚（Ｗ．Ｓｈａｋｅｓｐｅａｒｅ，１５６４—１６１６）", "罗曼罗兰　（…，１８６６—１９４４）"), or a
# work written by them ("明代施耐庵著。"). A Latin gloss alone is a place's too (伦敦（London）).
_LIFE_SPAN = re.compile(
    r"[ \t\u3000]*[（(][^（()）\n]{0,50}?[0-9０-９？?]{3,4}[ \u3000]*[—–－-]{1,2}[ \u3000]*[0-9０-９？?]{2,4}"
    r"|[著作撰编][。，,；）)]"
)


def life_sign(word: str, text: str) -> bool:
    """Whether ``text`` gives ``word`` a lifespan or makes it the author of a work: a person,
    even where the dictionary tags it as a place (莎士比亚, 罗曼罗兰 are jieba's ns)."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if _LIFE_SPAN.match(text, end, end + 60):
            return True
        start = text.find(word, end)
    return False


# What an author writes, after a name and 的: no place writes essays or keeps a diary (a
# country's 小说 or 诗 are its literature, so they are not here).
_AUTHORED_AFTER = re.compile(r"的(?:文章|论文|剧本|译文|日记|著作|演说|讲演)")
# An honorific or an academic title after a name, past the reference to a note that may stand
# between ("江绍原〔20〕先生", "江绍原〔２４〕教授"): nobody calls a place 'Mr'.
_HONOURED_AFTER = re.compile(r"(?:〔[0-9０-９]{1,3}〕)?(?:先生|女士|教授|博士|君(?![子主王臣]))")


def titled(word: str, text: str) -> bool:
    """Whether ``text`` puts a person's title or kin right before ``word`` ("法国作家法朗士",
    "大文学家法朗士"; not a compound noun after it: 诗人崇拜者), gives it writings ("法朗士的
    文章") or an honorific after it ("江绍原〔20〕先生"): a person, whatever place tag the
    dictionary gives the name."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if _PERSON_BEFORE_MARK.search(text, max(0, start - 4), start) and text[
            end : end + 1
        ] not in ("者", "家"):
            return True
        if _AUTHORED_AFTER.match(text, end) or _HONOURED_AFTER.match(text, end):
            return True
        start = text.find(word, end)
    return False


_LIST_MARK = frozenset("，、")


def listed_with_nouns(word: str, text: str, dictionary: dict[str, str]) -> bool:
    """Whether ``text`` lists ``word`` between two nouns of the dictionary, one of them a common
    noun and neither a person's name ("前面是深渊，荆棘，狭谷": 'abyss, thorns, gorge'): a thing
    among things. A list of people has names in it (吴稚晖、周作人、鲁迅), or goes on with a verb
    (章太炎、邹容，杀害…)."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if text[start - 1 : start] in _LIST_MARK and text[end : end + 1] in _LIST_MARK:
            before, after = text[max(0, start - 3) : start - 1], text[end + 1 : end + 3]
            tags = (dictionary.get(before, ""), dictionary.get(after, ""))
            nouns = all(t.startswith("n") and not t.startswith("nr") for t in tags)
            if nouns and "n" in tags:
                return True
        start = text.find(word, end)
    return False


def always_quoted(word: str, text: str) -> bool:
    """Whether every occurrence of ``word`` in ``text`` stands alone in quotation or title marks
    ("这一场“龙虎斗”", "一碗‘龙虎斗’", "《龙虎斗》里的"): a term or a title the text talks about — a
    dish, a slogan, a play — not someone it names. A name quoted as a name ("首次采用了“鲁迅”这一
    笔名", 署名“…”) is not concerned."""
    start = text.find(word)
    if start < 0:
        return False
    while start >= 0:
        end = start + len(word)
        opened, closed = text[start - 1 : start], text[end : end + 1]
        if not (
            (opened in _QUOTE_OPEN and closed in _QUOTE_CLOSE) or (opened, closed) == ("《", "》")
        ):
            return False
        if "名" in text[max(0, start - 4) : start] or "名" in text[end : end + 6]:
            return False  # “鲁迅”这一笔名: the name itself, quoted
        start = text.find(word, end)
    return True


def person_evidence(word: str, text: str) -> bool:
    """Whether ``text`` uses ``word`` as a person's name (see :data:`_PERSON_MARK`): the evidence
    a word the dictionary knows, or a two-character word, needs before it becomes a person's
    page."""
    speech = 0
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        after = text[end : end + 5]
        before = text[start - 1] if start else ""
        if _PERSON_MARK.match(after) and not _addressed(text, start, after):
            return True
        if _PERSON_BEFORE_MARK.search(text[max(0, start - 3) : start]) and after[:1] not in "者家":
            return True  # (诗人崇拜者 'a worshipper of poets' is a compound noun, not 诗人拜伦)
        if _SPEECH_MARK.match(after) and before not in _SUBJECT_BEFORE:
            speech += 1
            if speech >= 2:
                return True
        start = text.find(word, end)
    return False


# A verb of addressing earlier in the clause makes the word before 曰 the one spoken to, not the
# speaker: "帝舜谓禹曰", "召诸县父老豪杰曰" ('he summoned the elders and the notables of the
# counties and said'), "问于子贡曰".
_ADDRESSING = re.compile(r"[谓告召问][^，,。；;：:“”‘’！？!?、\n]{0,10}$")


def _addressed(text: str, start: int, after: str) -> bool:
    """Whether the 曰 after the word at ``start`` is said *to* it (see :data:`_ADDRESSING`)."""
    return after.startswith("曰") and bool(_ADDRESSING.search(text, max(0, start - 11), start))


# A body named after the word, its one-character ending closing the name: "“索薪会”的头领们"
# (the society for demanding pay) — jieba tags that 会 'can', but nobody acts.
_NAMED_BODY = re.compile(r"[会社党][”’」』）)的，,。]")


# A kinship word after a name ("七斤的女儿", "单四嫂子的宝儿" is not needed: the suffix says it).
_KIN_AFTER = re.compile(
    r"^的?(?:父亲|母亲|儿子|女儿|妻子|丈夫|哥哥|弟弟|姐姐|妹妹|老婆|祖母|祖父|孙子|孙女|侄儿|"
    r"爹|娘|妈|爸)"
)
# What a person writes or says ("冯乃超的剧本", "胡适之的话"): a horsewhip has no essay.
_WORK_AFTER = re.compile(r"^的(?:文章|论文|剧本|小说|诗|译文|译本|信|话|日记|著作|作品|演说|讲演)")
_QUOTE_OPEN = frozenset("“‘「『")
_QUOTE_CLOSE = frozenset("”’」』")
_ADDRESS_END = frozenset("，！？,!?")


def name_signs(word: str, text: str) -> bool:
    """Whether ``text`` shows any sign of ``word`` being a person's name: what
    :func:`person_evidence` finds (a lifespan, an honorific, authorship, a title or kinship
    word before it, speech twice), or speech once, a kinship word after it ("七斤的女儿"),
    being addressed ("“阿Q，你…", "“老栓！"), a note that explains it as a person. A word jieba's
    dictionary knows that meets none of these is a common noun, whatever it does in a story:
    a horsewhip is raised and beans are cooked (马鞭, 罗汉豆), but neither speaks, nor is
    spoken to, nor has a father."""
    if person_evidence(word, text):
        return True
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        after = text[end : end + 5]
        before = text[start - 1] if start else ""
        if _SPEECH_MARK.match(after) and before not in _SUBJECT_BEFORE:
            return True
        if _KIN_AFTER.match(after) or _WORK_AFTER.match(text[end : end + 4]):
            return True
        if before in _QUOTE_OPEN and after[:1] in _ADDRESS_END:
            return True
        start = text.find(word, end)
    return noted(word, text)


# The first clause of a note that explains a person ("古代神话中人物", "孔丘的弟子", "姓卜名商").
_PERSON_NOTE = re.compile(
    r"人物|的人|人名|始祖|英雄|酋长|妃|弟子|儿子|女儿|妻子|父亲|母亲|[国省县州府]人|姓|建立者|皇帝|"
    r"国王|诗人|作家|学者|思想家|政治家|军阀|[（(][^）)]*\d{3,4}|^即[\u4e00-\u9fff]{2,4}$"
)


def noted(word: str, text: str) -> bool:
    """Whether a note of ``text`` explains ``word`` as a person: the note's head word is
    ``word`` (see :data:`_NOTE_HEAD`) and its first clause says who it was (:data:`_PERSON_NOTE`:
    "嫦娥　古代神话中人物"; not "钩拒　…兵器" or "内传　小说体传记的一种")."""
    m = _note_on(word, text, _PERSON_NOTE_TAIL)
    return m is not None and _PERSON_NOTE.search(m.group(1).strip(" \t\u3000")) is not None


_PERSON_NOTE_TAIL = re.compile(r"(?m)" + _NOTE_END + r"([^。；\n]{0,60})")
# What a note says of one person and not of a kind of people: where or when they were from, a
# lifespan ("春秋时楚国人"; not "…供君王娱乐消遣的人", the note on 侏儒 'court dwarfs').
_INDIVIDUAL_NOTE = re.compile(r"[国省县州府]人|[（(][^）)]*\d{3,4}")


def noted_individual(word: str, text: str) -> bool:
    """Whether a note of ``text`` on ``word`` says whence or when one person was (老子 in 出关:
    "〔２〕　老子　春秋时楚国人，我国古代思想家"): a word in general use (老子 'father') that the
    text makes a name."""
    m = _note_on(word, text, _PERSON_NOTE_TAIL)
    return m is not None and _INDIVIDUAL_NOTE.search(m.group(1)) is not None


def place_evidence(word: str, text: str) -> bool:
    """Whether ``text`` uses ``word`` where a place goes (:func:`used_as_place`) or glosses it as
    one ("长洲（今吴县）", "伦敦（London）")."""
    if used_as_place(word, text):
        return True
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if _PLACE_MARK.match(text[end : end + 4]):
            return True
        start = text.find(word, end)
    return False


_NAME_DOT = frozenset("·・•‧")


def fragment_of_longer(word: str, text: str) -> bool:
    """Whether ``word`` is mostly a piece of one longer name in ``text``: it touches the dot of a
    transliterated full name (亨利 of 亨利·福特), or one Han character sits next to it in most of
    its occurrences (惠略夫 of 绥惠略夫, 雅各 of 雅各武莱夫)."""
    lefts: Counter[str] = Counter()
    rights: Counter[str] = Counter()
    n = 0
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        if before in _NAME_DOT or after in _NAME_DOT:
            return True
        n += 1
        if _PERSON_BEFORE_MARK.search(text, max(0, start - 4), start):
            before = ""  # 作家|法朗士, 文学家|法朗士: a title and a name, not a longer name
        lefts[before] += 1
        rights[after] += 1
        start = text.find(word, end)
    if n < 2:
        # one occurrence: a two-character institution glued to the character before it is the
        # end of a longer name (光社 of 晨光社)
        ch = next(iter(lefts))
        return (
            len(word) == 2
            and kind_by_suffix(word, weak=False) == "org"
            and _is_han(ch)
            and ch not in _BOUNDARY_BEFORE | _PLACE_BEFORE | _PREDICATE_BEFORE
        )
    for side, counts in ((0, lefts), (1, rights)):
        ch, k = counts.most_common(1)[0]
        if k >= 0.7 * n and _is_han(ch) and ch not in _BOUNDARY_BEFORE:
            if side == 1 and (
                _ACT_AFTER.match(ch) or ch in _PREDICATE_AFTER or ch in "之氏君人省县城府市路"
            ):
                continue  # 湖北省, 鲁迅氏: the name and what it is, not a longer name
            if side == 0 and ch in _PLACE_BEFORE | _PREDICATE_BEFORE:
                continue
            return True
    return False


def in_book_title(word: str, text: str, whole: bool = False) -> bool:
    """Whether ``word`` is mostly a piece of book titles (陶庵梦 of 《陶庵梦忆》): at least half of
    its occurrences (with ``whole``, all of them) fall inside a 《…》 that is longer than the
    word."""
    inside = total = 0
    start = text.find(word)
    while start >= 0:
        total += 1
        open_at = text.rfind("《", 0, start)
        if open_at >= 0 and text.rfind("》", open_at, start) < 0:
            close_at = text.find("》", start)
            if close_at >= 0 and close_at - open_at - 1 > len(word):
                inside += 1
        start = text.find(word, start + len(word))
    return total > 0 and (inside == total if whole else inside * 2 >= total)


def _is_han(ch: str) -> bool:
    return bool(ch) and "\u3400" <= ch <= "\u9fff"


def common_head(word: str, dictionary: dict[str, str], freq: dict[str, int]) -> bool:
    """A three-character word whose first two characters are a word in general use (罗汉+豆,
    经济+权, 毛瑟+枪): a compound noun, where a name's surname and first given character are
    seldom a word (汪精卫, 陈老五)."""
    return (
        len(word) == 3
        and freq.get(word[:2], 0) >= _DICT_COMMON_FREQ
        and (
            dictionary.get(word[:2]) != "nrfg"  # 朱家 'the Zhu family': 朱家骅 is a name
        )
    )


def compound_word(
    word: str, known: dict[str, str], freq: dict[str, int], surnames: frozenset[str]
) -> bool:
    """A three-character word the dictionary can read as a word plus a character (古体+诗,
    冷冰+冰, 宣传+品) or a character plus a common word (王+无道), or three surnames: a compound
    noun or a phrase rather than a surname and a given name (叶圣陶, 罗家伦)."""
    if len(word) != 3:
        return False
    head, tail = word[:2], word[1:]
    if all(ch in surnames for ch in word):
        return True  # 赵钱孙: the surname primer, not a name
    return (
        freq.get(head, 0) >= _DICT_COMMON_FREQ and not known.get(head, "").startswith("nr")
    ) or (freq.get(tail, 0) >= _DICT_COMMON_FREQ and not known.get(tail, "").startswith("nr"))


_ONE_CHAR_MIN = 10
_ONE_CHAR_RARE = 1000  # a character that is a word this rarely in general use (羿, 禹, 舜)


def _one_character_names(text: str, freq: dict[str, int]) -> dict[str, str]:
    """One-character names of legend (羿, 禹, 舜): a character rare as a word in general use that
    a story repeats at least :data:`_ONE_CHAR_MIN` times, mostly after a boundary, and makes
    speak again and again (禹说, 羿道) — or act, when a note explains it (羿〔２〕)."""
    counts = Counter(ch for ch in text if _is_han(ch))
    out: dict[str, str] = {}
    for ch, c in counts.items():
        if c < _ONE_CHAR_MIN or freq.get(ch, 0) >= _ONE_CHAR_RARE or ch in BAD_FIRST:
            continue
        speaks = acts = bounded = 0
        start = text.find(ch)
        while start >= 0:
            before = text[start - 1] if start else "\n"
            if before in _BOUNDARY_BEFORE:
                bounded += 1
            if _ACT_AFTER.match(text[start + 1 : start + 5]):
                acts += 1
                speaks += text[start + 1 : start + 2] in _SPEECH
            start = text.find(ch, start + 1)
        if bounded >= 0.5 * c and (speaks >= 3 or (acts >= 5 and noted(ch, text))):
            out[ch] = "person"
    return out


def central_names(
    text: str,
    dictionary: dict[str, str],
    freq: dict[str, int],
    surnames: frozenset[str],
    tags_at: dict[int, str] | None = None,
) -> dict[str, str]:
    """The names central to ``text`` (name → type): see the module docstring. ``tags_at``
    (offset → jieba tag of the word starting there) lets any verb or adverb after a name count
    as its action (女娲炼石, 陈老五赶)."""
    tags = tags_at or {}
    counts: Counter[str] = Counter()
    for run in _HAN_RUN.finditer(text):
        s = run.group()
        for n in (2, 3, 4):
            for i in range(len(s) - n + 1):
                counts[s[i : i + n]] += 1
    cands = {w: c for w, c in counts.items() if c >= MIN_CENTRAL}
    if not cands:
        return {}
    acts: Counter[str] = Counter()
    speaks: Counter[str] = Counter()
    lefts: dict[str, Counter[str]] = defaultdict(Counter)
    rights: dict[str, Counter[str]] = defaultdict(Counter)
    bounded: Counter[str] = Counter()
    for w in cands:
        start = text.find(w)
        while start >= 0:
            end = start + len(w)
            before = text[start - 1] if start else "\n"
            after = text[end : end + 4]
            lefts[w][before] += 1
            rights[w][after[:1]] += 1
            if before in _BOUNDARY_BEFORE:
                bounded[w] += 1
            if (
                _ACT_AFTER.match(after)
                or (
                    w not in dictionary
                    and tags.get(end, "x")[:1] == "v"
                    and after[:1] not in _PREDICATE_AFTER
                )
            ) and not _NAMED_BODY.match(after):
                acts[w] += 1
                if after[:1] in _SPEECH:
                    speaks[w] += 1
            start = text.find(w, end)
    out: dict[str, str] = {}
    for w, c in cands.items():
        person_suffix = w.endswith(_PERSON_SUFFIX) and len(w) > 2
        if len(w) >= 3 and w.endswith(COMMON_ENDINGS) and not person_suffix:
            if not noted(w, text):  # 宴之敖者, whom a note explains as a person, is a name
                continue
        if w[0] in surnames and any(
            w.endswith(h) and len(w) == len(h) + 1 for h in SURNAME_HONORIFIC
        ):
            continue  # 刘先生, 章氏 (but 子君, 沛君 are given names)
        if len(w) == 2 and w[0] in surnames and w[1] == "家":
            continue  # 何家 'the He household' (the doctor's house in 明天), 赵家: no person
        if w in KINSHIP and not noted_individual(w, text):
            continue  # (老子 'father' is the philosopher where a note says whence he was: 出关)
        if w[0] in BAD_FIRST or (w[-1] in BAD_LAST and not person_suffix):
            continue
        if any(ch in NOT_IN_NAME for ch in w) or w.endswith("元年"):
            continue  # 永平元年's 平元年: a year, not a name
        if not person_suffix and (used_as_predicate(w, text) or glossed_term(w, text)):
            continue  # 仇猫 'hating cats' (我是仇猫的), 象牙塔 (a note: 用以比喻…): no names
        if noted_as_reign(w, text):
            continue  # 正始（240-249）…的年号: a reign, whose years are no lifespan
        if name_shape(w, surnames) == "person" and noted_as_kind(w, text):
            continue  # 宁式床: a note says it is a kind of bed, and a person is no kind
        if role_word(w, text, dictionary, freq) or any(
            w.endswith(h) and role_word(w[: -len(h)], text, dictionary, freq) for h in _ROLE_ADDRESS
        ):
            continue  # 账房(先生) 'the accountant', 书记 (一个书记): a role, not a name
        if text.count(f"《{w}》") * 2 >= c or in_book_title(w, text):
            continue  # 《何典》: a book, which its title marks say (the book route's)
        shape = name_shape(w, surnames)
        tag = dictionary.get(w)
        proper = tag is not None and tag.startswith(("nr", "ns", "nt", "nz"))
        # A word in general use (时候, 我们; 哥哥 and 麻木 carry name tags in jieba's
        # dictionary); rare dictionary words count as unknown ones.
        known_common = tag is not None and freq.get(w, 0) >= _DICT_COMMON_FREQ
        # occurrences inside one longer word (七斤 in 七斤嫂) are not the name acting
        right, right_n = rights[w].most_common(1)[0]
        alone = c - right_n if right and not _ACT_AFTER.match(right) and right_n < c else c
        strong = c >= 8 and acts[w] >= 0.25 * alone and bounded[w] >= 0.5 * c
        # What the text says of the word: used as a person's name (墨子曰, 陈莲河先生), or
        # explained by a note as a person ("嫦娥　古代神话中人物") — the evidence a
        # common-looking word needs.
        marked = person_evidence(w, text)
        explained = not marked and bounded[w] >= 0.5 * c and noted(w, text)
        marked = marked or explained
        if known_common:
            # only a noun or a name the text makes an actor and a speaker again and again
            # (墨子说, 嫦娥道), or names and keeps on the stage (女娲〔２〕 … 女娲炼石)
            if not (tag == "n" or proper):
                continue
            if tag == "n" and freq.get(w, 0) >= _DICT_VERY_COMMON:
                continue  # 书记, 声音: words everyone uses, whatever a story makes them do
            if tag == "n" and w[-1] in _WRITING:
                continue  # 原文说 'the original says': a writing speaks what it reads
            if (
                tag is not None
                and tag.startswith("nr")
                and len(w) >= 3
                and shape
                and noted(w, text)
            ):
                out[w] = shape  # 姜太公: a name the dictionary knows, explained
                continue  # by a note of this text
            acting = strong and acts[w] >= 0.3 * c
            if acting and speaks[w] < 1 and acts[w] < 0.5 * c and kind_by_suffix(w) is None:
                acting = False
            if not acting and not (marked and c >= 8 and bounded[w] >= 0.6 * c):
                continue
            if not proper and kind_by_suffix(w) is None and not marked:
                continue  # 时候, 眼睛: acting words of the dictionary the text never names
        elif (
            shape is None
            and not strong
            and not (explained or (marked and c >= 5 and bounded[w] >= 0.5 * c))
        ):
            continue
        if (shape is None or kind_by_suffix(w) is None) and (
            (w[0] in _GLUE and freq.get(w[1:], 0) >= _DICT_COMMON_FREQ)
            or (w[-1] in _GLUE and freq.get(w[:-1], 0) >= _DICT_COMMON_FREQ)
        ):
            continue  # 连自己, 于是他: a common word glued to a function character
        # A name has varied neighbours; a fragment of a longer word (林嫂 in 祥林嫂, 祥林) has
        # one dominant neighbour on one side.
        left, left_n = lefts[w].most_common(1)[0]
        if left_n > 0.7 * c and left not in _BOUNDARY_BEFORE:
            continue
        if right_n > 0.7 * c and not _ACT_AFTER.match(right) and right not in _BOUNDARY_BEFORE:
            continue
        by_suffix = kind_by_suffix(w, weak=False) is not None or shape == "place"
        if not by_suffix and not strong and not marked and (acts[w] < 2 or acts[w] < 0.1 * c):
            continue  # 黄缎子, 宁式床: a surname-shaped word nobody acts as
        placed = shape == "place" and place_evidence(w, text)  # 到静修庵, 从百草园
        if by_suffix and acts[w] < 1 and bounded[w] < 0.3 * c and not placed:
            continue
        if tag is not None and used_as_common_word(w, text) and not strong and not placed:
            continue
        kind = shape or "person"
        if kind == "person" and kind_by_suffix(w) is None:
            # 罗汉豆, 经济权: a common word and one character more is a noun (陈老五 and
            # 汪精卫 are names: 陈老 and 汪精 are no words); so is a two-character word the
            # dictionary holds (马鞭), with 小 or 老 too, which make common words as well as
            # names (小鸭 'duckling', 老旦 the old woman's role of an opera; 阿 makes names
            # only: 阿Q) — unless the text shows a sign of a name
            dictionary_noun = (
                tag is not None
                and not tag.startswith(("nrt", "ns", "nt"))
                and len(w) != 3
                and not w.startswith("阿")
            )
            head = not w.startswith(_NAME_PREFIX) and common_head(w, dictionary, freq)
            if (dictionary_noun or head) and not name_signs(w, text):
                continue  # 马鞭, 罗汉豆: a noun that acts in a story but shows no sign of a name
        out[w] = kind
    for ch in _one_character_names(text, freq):
        out[ch] = "person"
        counts[ch] = text.count(ch)  # so that 禹太太 (a tenth of them) does not swallow 禹
    # 阿Ｑ正, 阿Ｑ本: a much more frequent name with one character more is a fragment
    for w in list(out):
        if kind_by_suffix(w) is None and any(
            p in out and counts[p] >= 3 * counts[w]
            for p in (w[:-1], w[1:], w[:-2], w[2:])
            if len(p) >= 2
        ):
            del out[w]  # and 阿Ｑ没有: two characters more
    # Keep the longest of nested names that are mostly the same occurrences (七斤嫂 vs 七斤:
    # both stay when 七斤 also stands alone often).
    for w in sorted(out, key=len, reverse=True):
        if w not in out:
            continue
        for v in list(out):
            if v != w and v in w and counts[w] >= 0.7 * counts[v]:
                del out[v]
    return out
