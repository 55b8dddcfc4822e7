"""Issue 8, Chinese compile side (third round): classes of junk and wrong types a reader of the
Lu Xun wiki still met — phrases, role words, generic nouns, glossed terms, truncated
transliterations; journals named with a periodical word a few characters away; foreign places
jieba tags as persons — and the pages a reader reads first: a naming sentence as the summary, a
thin summary with the sentence that says whom it means, and the protagonist a story is named
after. Each on a small corpus written here."""

from __future__ import annotations

from pathlib import Path

from tests.compile.wiki_pages import KONG_STORY, build_zh_folder, entity_pages, pages_by_title
from wikikv.compile.check import check
from wikikv.store.store import Store
from wikikv.text import entities_zh_reader as reader
from wikikv.text.definitions import defining_score, describes, summary_sentences
from wikikv.text.entities_zh import _join_transliterations, _periodicals
from wikikv.text.jieba_tags import jieba_freq, jieba_words

# 仇 is a surname, so 仇猫 'hating cats' has a name's shape and recurs; but the text says "我是仇
# 猫的", "我仇猫": what someone is or does, never who acts. 阿金 acts and speaks.
CATS = """# 说猫

从去年起，仿佛听得有人说我是仇猫的。
阿金说：“你是仇猫的么？”
我说：“我不是仇猫的。”
阿金笑了，阿金便走了。
现在说起我仇猫的原因来，自己觉得是理由充足的。
阿金又来了，阿金说：“仇猫也不要紧。”
“仇猫”的话柄，也从此传扬开来。
阿金却只是笑，阿金不再说什么。
我的仇猫，是和这大大两样的。
鲁迅先生却自己承认是仇猫的。
然而仇猫是我的事，仇猫也有原因。
狗不是仇猫的么？
"""


def test_a_phrase_used_as_a_predicate_is_no_page(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "cats", {"说猫": CATS}))
    assert "阿金" in pages
    assert "仇猫" not in pages
    assert reader.used_as_predicate("仇猫", "说我是仇猫的。我仇猫的原因。仇猫的话柄。")
    # a name as a possessor (是江朝宗的，) or a subject is no predicate
    assert not reader.used_as_predicate("江朝宗", "一副是江朝宗的，一副是王芝祥的。江朝宗说。")


# 账房 is a common noun of the dictionary: the story addresses the accountant by his role
# (账房先生) even when he speaks. 老聃 is a name.
PASS = """# 出关

老聃到了关上，账房先生便迎了出来。
“这就是稿子？”账房先生提起一串木札来，翻着，说。
老聃说：“是的。”
账房放下了木札，说：“那倒不要紧。”
账房先生高兴了起来，账房说：“总有人看的。”
老聃便走了，老聃骑着青牛出关去了。
账房又说：“老聃是好人。”
"""


def test_a_role_word_is_no_page(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "pass", {"出关": PASS}))
    assert "老聃" in pages
    assert not any(name.startswith("账房") for name in pages)
    known, freq = jieba_words(), jieba_freq()
    assert reader.role_word("账房", "账房先生说。", known, freq)
    assert reader.role_word("书记", "一个书记，账房和厨房。", known, freq)
    assert not reader.role_word("嫦娥", "嫦娥说。", known, freq)  # a name the dictionary holds


# 都城 'the capital' names one capital in one text and another in the next (a note even says
# which); 教育局 is the education office of whichever county; 象牙塔 is a note's figure of
# speech. None is a page; 宁海 and 上海 (places the texts go to) are.
CAPITALS = {
    "非攻": """# 非攻

墨子走了三天，到了都城，商丘的街上很冷清。
他走近都城，又遇到募捐救国队。
后来他又到商丘去，在商丘住了一夜。
〔１〕　都城　指宋国的国都商丘（今属河南省）。
""",
    "采薇": """# 采薇

伯夷和叔齐到了都城，都城里的人都在看热闹。
叔齐到商丘去，在商丘住了三天，又到都城去了。
""",
    "小传": """# 小传

他回到宁海，在宁海办了中学，一面又任教育局局长，改革全县的教育。
后来他又离开宁海，到上海去，广州市教育局请他讲演，他也去了。
""",
    "序言": """# 序言

在现在，离开人生说艺术，固然有躲在象牙塔里忘记时代之嫌。
我到上海去，在上海写了这些文章。
〔５〕象牙塔原是法国批评家圣佩韦批评诗人维尼的用语，后来用以比喻脱离现实生活的文艺家的小天地。
""",
    "再序": """# 再序

大意是说，象牙塔里的文艺，将来决不会出现于中国。
我从上海到宁海去，又从宁海回到上海。
""",
}


def test_generic_nouns_and_glossed_terms_are_no_pages(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "capitals", CAPITALS))
    assert pages["宁海"][0].startswith("/地点/")
    assert "都城" not in pages
    assert "教育局" not in pages
    assert "象牙塔" not in pages
    assert reader.glossed_term("象牙塔", CAPITALS["序言"])
    assert not reader.glossed_term("嫦娥", "〔３〕　嫦娥　古代神话中的人物。")


def test_a_truncated_transliteration_is_joined_to_its_ending() -> None:
    words = [("输入", "v"), ("了", "ul"), ("蒲力汗", "nr"), ("诺夫", "nrt"), ("，", "x")]
    joined = _join_transliterations(words)
    assert ("蒲力汗诺夫", "nrt") in joined
    assert all(w != "蒲力汗" for w, _ in joined)
    # two Chinese names side by side stay two
    assert len(_join_transliterations([("鲁迅", "nr"), ("许广平", "nr")])) == 2


# A journal's periodical word stands a few characters away from its title ("《萌芽》文艺月刊",
# "第四期起改名《汉声》"); a novel of the same shape has none ("长篇小说《娜娜》").
JOURNALS = {
    "注释": """# 注释

〔３〕《萌芽》文艺月刊，鲁迅、冯雪峰编辑，一九三○年一月在上海创刊。
〔４〕《湖北学生界》留学生主办的刊物，第四期起改名《汉声》。
左拉，法国作家，著有长篇小说《娜娜》、《崩溃》等。
""",
    "序言": """# 序言

那时我能投稿的，就只剩了一个《萌芽》，后来也被禁止了。
久之印成了一本书，所以名曰《汉声》，那封面上就题着四句古语。
《娜娜》是左拉的小说，我读过《娜娜》。
""",
}


def test_a_journal_with_a_periodical_word_nearby_is_an_organization(
    store: Store, tmp_path: Path
) -> None:
    assert {"萌芽", "汉声"} <= _periodicals(JOURNALS["注释"])
    assert "娜娜" not in _periodicals(JOURNALS["注释"])
    assert "再答稚晖先生" not in _periodicals("在《甲寅》周刊发表的那篇《再答稚晖先生》。")
    assert not _periodicals("Ｉｎｐｒｅｋｏｌ（第五十四号）上有一篇《蒲力汗诺夫和无产阶级运动》。")
    assert not _periodicals("周刊二十期，旬刊十二期，及《艺苑朝华》五本。")  # a list's next item
    assert not _periodicals("小说《药》登在杂志上。")  # a story printed in a magazine
    pages = pages_by_title(build_zh_folder(store, tmp_path, "journals", JOURNALS))
    assert pages["萌芽"][0].startswith("/机构/")
    assert pages["汉声"][0].startswith("/机构/")
    assert pages["娜娜"][0].startswith("/作品/")


# 爱尔兰 and 高加索 are persons to jieba's dictionary (nr); the texts use them as places: its
# people, a mountain, a playwright of that nation, the modern name of an old place.
FOREIGN = {
    "杂记": """# 杂记

格列高里夫人，爱尔兰剧作家，写过许多戏。
对于从爱尔兰来的巡警，也都想印上这脸谱去了。
他被钉在高加索山的岩石上，让神鹰啄食他的肝脏。
""",
    "译记": """# 译记

〔６〕太和岭，今译高加索。
英国有人雇了爱尔兰老妈子在伦敦拉出女生。
爱尔兰人也有这样的事，高加索山里也有。
""",
}


def test_a_foreign_place_jieba_tags_as_a_person_is_a_place(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "foreign", FOREIGN))
    assert pages["爱尔兰"][0].startswith("/地点/")
    assert pages["高加索"][0].startswith("/地点/")
    assert reader.foreign_place("高加索", "太和岭，今译高加索。")
    assert not reader.foreign_place("格列高里夫", "格列高里夫人，剧作家。")


# A woman named only as the object of a naming verb, then a short defining sentence whose
# demonstrative means the boy of the sentence before it.
BLESSING = """# 祝福

有一年的冬初，四叔家里要换女工，做中人的卫老婆子带她进来了。
卫老婆子叫她祥林嫂，说是自己母家的邻舍，死了当家人，所以出来做工了。
祥林嫂除烧火之外，没有别的事，却闲着了。
“祥林嫂，你放着罢！”四婶慌忙的说。
祥林嫂只是看着，祥林嫂便走了。
大家仍然叫她祥林嫂。
祥林嫂说：“我真傻，真的。”
"""

HOMETOWN = """# 故乡

其间有一个十一二岁的少年，项带银圈，手捏一柄钢叉，向一匹猹尽力的刺去。

这少年便是闰土。我认识他时，也不过十多岁。

闰土说：“你来了？”闰土便笑了。
闰土又对我说：“我们日里到海边捡贝壳去。”
闰土早晨便到了，闰土站住了。
闰土说：“这是水生。”闰土又说：“老爷！”
闰土便回去了，闰土也没有再来。
"""


def test_a_naming_sentence_and_its_neighbour_make_the_summary(store: Store, tmp_path: Path) -> None:
    pages = pages_by_title(
        build_zh_folder(store, tmp_path, "stories", {"祝福": BLESSING, "故乡": HOMETOWN})
    )
    assert pages["祥林嫂"][1].meta.summary == (
        "卫老婆子叫她祥林嫂，说是自己母家的邻舍，死了当家人，所以出来做工了。"
    )
    runtu = pages["闰土"][1].meta.summary
    assert runtu.startswith("其间有一个十一二岁的少年")
    assert runtu.endswith("这少年便是闰土。")
    assert defining_score("大家都叫她祥林嫂；没问她姓什么。", ["祥林嫂"]) > 0
    assert defining_score("我叫她，她没有应。", ["她"]) == 0
    assert defining_score("认识的人告诉我说：他叫范爱农，是徐伯荪的学生。", ["范爱农"]) > 0
    assert defining_score("老栓，就是运气了你！", ["老栓"]) == 0  # said to him
    text = "他来了。闰土是我的朋友。他是能装弶捉小鸟雀的。他回去了。"
    start = text.index("闰土")
    said = summary_sentences(text, start, text.index("。", start) + 1, ["闰土"])
    assert said == "闰土是我的朋友。他是能装弶捉小鸟雀的。"


# A story named after its protagonist: the work and the man.
KONG = "# 孔乙己\n\n" + KONG_STORY

PREFACE = """# 自序

我在《孔乙己》里写过一个读书人，《孔乙己》是很短的小说。
"""


def test_a_story_named_after_its_protagonist_gets_a_person_page_beside_the_work(
    store: Store, tmp_path: Path
) -> None:
    kb = build_zh_folder(store, tmp_path, "kong", {"孔乙己": KONG, "自序": PREFACE})
    found = [(path, rec) for path, rec in entity_pages(kb).items() if rec.meta.title == "孔乙己"]
    by_dim = {path.split("/")[1]: (path, rec) for path, rec in found}
    assert set(by_dim) == {"人物", "作品"}
    person_path, person = by_dim["人物"]
    work_path, work = by_dim["作品"]
    assert person.meta.summary.startswith("孔乙己是站着喝酒而穿长衫的唯一的人")
    assert work_path in person.meta.links
    assert person_path in work.meta.links
    # the essay's 《孔乙己》 is the work, not the man
    assert any("自序" in s for s in work.meta.sources)
    assert not any("自序" in s for s in person.meta.sources)
    # two linked pages of one title under two dimensions are no duplicate to `wikikv check`
    assert check(kb).duplicate_titles == 0


# Nothing defines 阿贵: the story brings him in with a sentence about him, after lines of speech
# and a question that name him.
CARTER = """# 赶车

“阿贵，你来了！”掌柜说。
阿贵呢？
阿贵没有家，住在石桥村的土谷祠里，每天赶车到镇上去。
阿贵说：“今天的路不好走。”
阿贵便走了，阿贵又回来了。
阿贵说：“车坏了。”阿贵说：“明天再来。”
阿贵坐着看河，阿贵便睡着了。
"""


def test_a_character_nothing_defines_is_summarised_by_the_sentence_that_brings_him_in(
    store: Store, tmp_path: Path
) -> None:
    pages = pages_by_title(build_zh_folder(store, tmp_path, "carter", {"赶车": CARTER}))
    assert pages["阿贵"][1].meta.summary == "阿贵没有家，住在石桥村的土谷祠里，每天赶车到镇上去。"
    assert not describes("“阿贵，你来了！”掌柜说。", ["阿贵"])
    assert not describes("阿贵说：", ["阿贵"])


# An essay whose text opens with its title as a plain line (no Markdown mark): the line names the
# essay, and a work page's summary is a sentence of it instead.
BELL_TOWER = """在钟楼上（夜记之二）

也还是我在厦门的时候，柏生从广州来，告诉我说，爱而君也在那里了。大概是来寻求新的生命的罢，曾经写了一封长信给Ｋ委员，说明自己的过去和将来的志望。

“你知道有一个叫爱而的么？他写了一封长信给我，我没有看完。”有一天，Ｋ委员对柏生说。

又有一天，柏生又告诉了爱而，爱而跳起来道：“怎么？……怎么说我是反革命的呢？！”
"""


def test_a_work_page_is_not_summarised_by_its_title_line(store: Store, tmp_path: Path) -> None:
    kb = build_zh_folder(store, tmp_path, "bell", {"在钟楼上（夜记之二）": BELL_TOWER})
    (work,) = [r for r in entity_pages(kb).values() if r.meta.title == "在钟楼上（夜记之二）"]
    assert work.meta.summary != "在钟楼上（夜记之二）"
    assert work.meta.summary.endswith("。")
    assert not describes("柳妈不耐烦的看着她的脸，说。", ["柳妈"])  # the line around a speech
