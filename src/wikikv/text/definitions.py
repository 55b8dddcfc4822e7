"""Sentences that say who or what a name is (Chinese): the summary of an entity page that has
no document of its own. "那地方叫平桥村，是一个离海边不远……的小村庄" says what 平桥村 is;
"平桥村只有一只早出晚归的航船是大船" only says something about it.

What counts, strongest first:

* the name opens the sentence and a copula or a naming verb follows it: "闰土是…", "鲁迅，原名
  周树人", "孙伏园（1894—1966），浙江绍兴人" (a note of the annotated edition); then the same at the
  start of a later clause ("在四十余被害的青年之中，刘和珍君是我的学生");
* the sentence names it: "那地方叫平桥村，是…", "这少年便是闰土。" (a naming verb, then the name,
  then the end of a clause);
* a note's head word and its gloss: "⑺罗汉豆：即蚕豆。", or a lifespan right after the name.

A sentence that ends like what it defines (…的人, …村, …之一) gets one point more; a question
never defines, and a long sentence (a story's paragraph) loses a point.
"""

from __future__ import annotations

import re

_NOTE_MARK = re.compile(r"^[\s\u3000“”‘’\"']*(?:〔[0-9０-９]{1,3}〕|[⑴-⒇])?[\s\u3000]*")
_NOTE_ONLY = re.compile(r"^[\s\u3000]*(?:〔[0-9０-９]{1,3}〕|[⑴-⒇])[\s\u3000]*")
_COPULA = re.compile(
    r"^(?:君|先生|女士|氏)?(?:[（(][^）)\n]{0,40}[）)])?[，,]?\s*(?:是|乃|即|就是|便是|原是|本是|原名|本名|又名|笔名"
    r"|字|号)(?!不|否|在|从|要|会|能|说)"
)
# A naming verb right before the name; not after a negation ("我又并非就是阿Ｑ"), and a bare 叫
# not after a pronoun ("我叫阿毛，没有应": I called him).
_NAMING_BEFORE = re.compile(
    r"(?:(?<![我你他她们])叫|名叫|叫做|叫作|名为|称为|唤作|(?<![非不没未])(?:便是|就是|即是))$"
)
_CLAUSE_END = frozenset("，。；！、）)：,;!")
_CLAUSE_START = frozenset("，；：,;:")
# A note's head word, then a separator and the gloss ("嫦娥　古代神话中人物", "罗汉豆：即蚕豆"); not
# a longer head that starts with the name ("美国退还的赔款　指…").
_GLOSS = re.compile(r"^(?:[（(][^）)\n]{0,40}[）)])?(?:[\s\u3000]+|[：:，,])[\s\u3000]*\S")
_LIFESPAN = re.compile(r"^[（(][^）)\n]{0,12}\d{3,4}")
_NATIVE = re.compile(r"[省县州府市镇乡村]?人[，,。；）)]|人。$")
_KIND_END = re.compile(
    r"(?:的人|之一|的一个|村庄?|镇|庄|城|县|省|地方|学校|刊物|杂志|报纸|团体|组织|者|家|人物)[。；！]?$"
)
_LONG = 120


def without_note_mark(sentence: str) -> str:
    """``sentence`` without the note marker it opens with ("〔2〕柏生即孙伏园…" → "柏生即孙伏园…"),
    for a summary line (the key fact keeps the verbatim quote)."""
    head = _NOTE_ONLY.match(sentence)
    return sentence[head.end() :] if head else sentence


def defining_score(sentence: str, names: list[str]) -> int:
    """How well ``sentence`` says who or what one of ``names`` is (0: it does not); see the
    module docstring."""
    text = sentence.strip()
    if not text or text.rstrip("”’\"'").endswith(("？", "?")):
        return 0
    head = _NOTE_MARK.match(text)
    body = text[head.end() :] if head else text
    is_note = bool(head and head.group().strip(" \t\u3000“”‘’\"'"))
    best = 0
    for name in sorted((n for n in names if n), key=len, reverse=True):
        score = _score_name(body, name, is_note)
        best = max(best, score)
    if best and _KIND_END.search(body):
        best += 1
    if best and len(body) > _LONG:
        best -= 1
    return max(best, 0)


def _score_name(body: str, name: str, is_note: bool) -> int:
    score = 0
    if body.startswith(name):
        rest = body[len(name) :]
        if _COPULA.match(rest):
            score = 4
        elif _LIFESPAN.match(rest) or (is_note and _GLOSS.match(rest) and _NATIVE.search(rest)):
            score = 4
        elif is_note and _GLOSS.match(rest):
            score = 2
    at = body.find(name)
    while at >= 0 and score < 3:
        end = at + len(name)
        after = body[end : end + 1]
        if at > 0 and body[at - 1] in _CLAUSE_START and _COPULA.match(body[end:]):
            score = 3  # "在四十余被害的青年之中，刘和珍君是我的学生。"
        elif _NAMING_BEFORE.search(body[:at]) and (after == "" or after in _CLAUSE_END):
            score = max(score, 3 if body[end : end + 2] in ("，是", ",是") else 2)
        elif _LIFESPAN.match(body[end:]):
            score = max(score, 2)
        at = body.find(name, end)
    return score
