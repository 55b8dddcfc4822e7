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
# A name neither starts nor ends with a function word ("是赵太爷", "老栓也", "鲁镇的"), nor
# holds a particle ("关了门").
NOT_IN_NAME = frozenset("了着的地得")
BAD_FIRST = frozenset(
    "的了着是在和与给把被到从对向也都就便又还才我你他她它这那哪其但而且因所却只很不没一个"
)
BAD_LAST = frozenset(
    "的了着过是在和与也都就便又还才们说道想看来去上下里中呢吗吧啊呀么个一这那之曰以而人我你他她不到"
)
# Han characters, and capital letters (阿Ｑ, 小Ｄ, S城).
_GLUE = frozenset("连于为被让给使把将向对从他她伊我你们的了是也都就")
_HAN_RUN = re.compile(r"[\u3400-\u9fffA-ZＡ-Ｚ]+")
_DICT_COMMON_FREQ = 50
MIN_CENTRAL = 3


def kind_by_suffix(name: str, weak: bool = True) -> str | None:
    """The type a Chinese name's ending sets: 鲁镇 → place, 创造社 → org, 七斤嫂 → person.
    With ``weak``, also the one-character place endings that given names share (see
    :data:`_WEAK_PLACE_SUFFIX`), for a name of three characters or more."""
    if len(name) < 2 or "·" in name:
        return None  # 礼记·大学: a chapter of a book, 堂·吉诃德: a transliterated name
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


def used_as_place(word: str, text: str) -> bool:
    """Whether ``text`` uses ``word`` where a place goes somewhere ("在北京", "到日本", "北京人")."""
    start = text.find(word)
    while start >= 0:
        before = text[start - 1] if start else ""
        end = start + len(word)
        after = text[end : end + 2]
        if (
            before in _PLACE_BEFORE
            or after[:1] in ("人", "省", "城", "县", "府")
            or after
            in (
                "一带",
                "地方",
            )
        ):
            return True
        start = text.find(word, end)
    return False


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
            if _ACT_AFTER.match(after) or (
                w not in dictionary
                and tags.get(end, "x")[:1] == "v"
                and after[:1] not in _PREDICATE_AFTER
            ):
                acts[w] += 1
                if after[:1] in _SPEECH:
                    speaks[w] += 1
            start = text.find(w, end)
    out: dict[str, str] = {}
    for w, c in cands.items():
        person_suffix = w.endswith(_PERSON_SUFFIX) and len(w) > 2
        if w in KINSHIP or w[0] in BAD_FIRST or (w[-1] in BAD_LAST and not person_suffix):
            continue
        if any(ch in NOT_IN_NAME for ch in w):
            continue
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
        if known_common:
            # only a noun or a name the text makes an actor and a speaker again and again
            # (墨子说, 嫦娥道)
            if not (tag == "n" or proper) or not (strong and acts[w] >= 0.3 * c):
                continue
            if speaks[w] < 1 and acts[w] < 0.5 * c and (shape is None or kind_by_suffix(w) is None):
                continue
        elif shape is None and not strong:
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
        if not by_suffix and not strong and (acts[w] < 2 or acts[w] < 0.1 * c):
            continue  # 黄缎子, 宁式床: a surname-shaped word nobody acts as
        if by_suffix and acts[w] < 1 and bounded[w] < 0.3 * c:
            continue
        if tag is not None and used_as_common_word(w, text) and not strong:
            continue
        out[w] = shape or "person"
    # 阿Ｑ正, 阿Ｑ本: a much more frequent name with one character more is a fragment
    for w in list(out):
        if kind_by_suffix(w) is None and any(
            p in out and counts[p] >= 3 * counts[w] for p in (w[:-1], w[1:]) if len(p) >= 2
        ):
            del out[w]
    # Keep the longest of nested names that are mostly the same occurrences (七斤嫂 vs 七斤:
    # both stay when 七斤 also stands alone often).
    for w in sorted(out, key=len, reverse=True):
        if w not in out:
            continue
        for v in list(out):
            if v != w and v in w and counts[w] >= 0.7 * counts[v]:
                del out[v]
    return out
