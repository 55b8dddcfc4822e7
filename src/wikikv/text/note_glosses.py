"""Sentences of an editors' note that gloss the note's head word, not a name they mention.

A note of the annotated edition explains one term: "〔４〕　灵学派　一九一七年十年，俞复、陆费逵等
人在上海设盛德坛扶乩，组织灵学会，…" is about the 灵学派; 俞复 is named in it, and the sentence does
not say who he was. The note's later sentences go on with the head as their dropped subject:
"〔8〕自由大同盟中国自由运动大同盟的简称。中国共产党支持和领导下的一个革命群众团体，…" — the second
sentence says what the league was ('a mass organisation under the Communist Party's lead'); the
party only qualifies the noun phrase. Neither can be the summary of the name it mentions.
"""

from __future__ import annotations

import re

_NOTE_HEAD = re.compile(r"[\s\u3000]*(?:〔[0-9０-９]{1,3}〕|[⑴-⒇①-⑳]|（[⒈-⒛]）)[\s\u3000]*")
# The head word of a note and the gap before its gloss: "灵学派　", "湖南灾民的布告　".
_HEAD_WORD = re.compile(r"([^\s\u3000，。；：:,;]{1,16})[ \t\u3000]+")
# How far into the gloss the name may start and still be what the gloss is about: "伏羲，…",
# "即陈源（…）", "指章士钊，…".
_GLOSS_OPENS = 3
# A first clause that is a noun phrase: the name, what it did, 的, then the head noun with no
# predicate of its own ("中国共产党支持和领导下的一个革命群众团体，", "鲁迅主编的文艺刊物。").
# The verbs are those of leading, founding or editing (with 下 'under'): after another verb the
# 的 phrase is its object ("前半部主要写包拯审案的故事": the first half tells the story).
_NOUN_PHRASE = re.compile(
    r"(?:(?:主编|编辑|创办|主办|领导|组织|发起|支持|出版|发行|创立|建立|成立|控制|操纵|资助)"
    r"(?:和|与|及|、)?){1,3}(?:之下|下)?的(?:一个|一种|一位|一批|一部|一份|一家)?"
    r"[^，。；！？,;!?的]{1,8}(?:[，。；,;]|$)"
)


_WRAPPED_LINES = 12  # how far back a hard-wrapped paragraph is followed


def paragraph_start(text: str, pos: int) -> int:
    """Where the paragraph holding ``pos`` starts: its line, or, in a hard-wrapped text whose
    paragraphs open indented ("　　〔１１〕　《灵学杂志》　应为…上海灵学\n会编，…"), the indented
    line above it."""
    start = text.rfind("\n", 0, pos) + 1
    for _ in range(_WRAPPED_LINES):
        if start == 0 or text[start : start + 1] in ("", "\n", " ", "\t", "\u3000"):
            return start
        if _NOTE_HEAD.match(text, start):
            return start  # a note that opens its line unindented
        above = text.rfind("\n", 0, start - 1) + 1
        if above == start - 1:
            return start  # an empty line above: a paragraph of its own
        start = above
    return text.rfind("\n", 0, pos) + 1


def in_note(text: str, pos: int) -> bool:
    """Whether ``pos`` lies inside an editors' note: its paragraph opens with a note mark."""
    return _NOTE_HEAD.match(text, paragraph_start(text, pos)) is not None


def glosses_another(text: str, start: int, names: list[str]) -> bool:
    """Whether the sentence at ``text[start:]``, inside an editors' note, glosses the note's
    head word rather than one of ``names`` (see the module docstring)."""
    mark = _NOTE_HEAD.match(text, paragraph_start(text, start))
    if mark is None:
        return False  # not a note
    body_start = mark.end()
    names = sorted((n for n in names if n), key=len, reverse=True)
    if start <= body_start:
        head = _HEAD_WORD.match(text, body_start)
        if head is None or any(n in head.group(1) for n in names):
            return False  # no head word, or a longer term on the name (another rule's case)
        gloss = text[head.end() : head.end() + _GLOSS_OPENS + max(map(len, names), default=0)]
        return not any(n in gloss[: _GLOSS_OPENS + len(n)] for n in names)
    sentence = text[start:].lstrip(" \t\u3000")
    for name in names:
        if sentence.startswith(name):
            return _NOUN_PHRASE.match(sentence, len(name)) is not None
    return False


# How much of a note may stand before a sentence that is quoted with its note's opening: the
# head and its first gloss ("《苦闷的象征》文艺论文集，日本文艺评论家厨川白村作。"), not a long note.
NOTE_LEAD_CHARS = 80
_SENDS_ELSEWHERE = re.compile(r"参看|参见|参阅")


def note_lead(text: str, start: int, names: list[str]) -> int | None:
    """Where to start quoting the sentence at ``text[start:]`` so that it carries what it is
    about: the words of its note (past the mark) when the sentence stands later in an editors'
    note whose opening names none of ``names`` — "〔16〕《苦闷的象征》文艺论文集，…作。鲁迅曾译成
    中文，…" is about the book, and "鲁迅曾译成中文" alone says nothing. None: quote the sentence
    as it is (not in a note, the note's first sentence, an opening that names the entity, one
    longer than :data:`NOTE_LEAD_CHARS`, or one over a line break)."""
    para = paragraph_start(text, start)
    mark = _NOTE_HEAD.match(text, para)
    if mark is None or mark.end() >= start:
        return None
    lead = text[mark.end() : start]
    if len(lead) > NOTE_LEAD_CHARS or "\n" in lead:
        return None
    if any(n and n in lead for n in names):
        return None
    if _SENDS_ELSEWHERE.search(lead):
        return None  # "“拳匪”　…的蔑称。参看本卷第295页注。": a gloss of another term
    return mark.end()


def note_mark_length(sentence: str) -> int:
    """How many characters of ``sentence`` are the note mark it opens with and the gap after it
    ("〔2〕", "〔２〕　", "⑺", "（⒊）"; 0: none)."""
    mark = _NOTE_HEAD.match(sentence)
    return mark.end() if mark else 0
