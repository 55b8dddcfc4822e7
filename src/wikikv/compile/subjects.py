"""Who each sentence is about: the grammatical subject, when it is a name the document
mentions, or "the same one as before" when the sentence opens with a pronoun or leaves its
subject out (Chinese ellipsis: "便…", "又…").

A key fact on an entity's page is a sentence whose subject is that entity; a sentence that only
mentions it ("the sister of John Smith", "祥林嫂的儿子") goes to its "mentioned in" section.
The rules are shallow on purpose (offline, no parser): the subject is the first name of the
sentence when only an opener (但是, 于是, "In 1990,") comes before it and it is not a possessor
(X的, X's); a pronoun or an ellipsis carries the nearest preceding subject (resolved in
:mod:`wikikv.compile.model`, after names are resolved to entities).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wikikv.llm.base import MentionOut
from wikikv.text.definitions import in_speech, names_a_time
from wikikv.text.digest import Sentence, is_heading, set_apart

NONE = -1
CARRY = -2
HEADING = -3  # a Markdown heading line: no subject, and never a fact or a mention of anyone
OTHER = -4  # the subject is someone unnamed the sentence relates to the last one ("Her father")
# A note of the annotated edition opens here (〔5〕, ⑺) on a head word no page is for
# ("〔5〕Ｌｏｍｂｒｏｓｏ龙勃罗梭（1836—1909），意大利精神病学者"): a new topic, so the 他 of the
# note's next sentence is that head, never the subject of the note before.
TOPIC = -5

_ZH_OPENERS = re.compile(
    r"^(?:但是|但|于是|这时|那时|后来|然而|而且|而|可是|因此|所以|只是|不料|忽然|原来|当时|其实|"
    r"此后|从此|况且|至于|就是|便是|只有|这回|那回|第二天|第二日|这一天|次日|现在|同时)$"
)
_ZH_PRONOUN = re.compile(
    r"^(?:(?:但是|但|于是|这时|后来|然而|可是|所以|因此|只是|原来|其实)[，,]?)?[他她](?![们])"
)
_ZH_ELLIPSIS = re.compile(
    r"^(?:便|就|又|也|却|才|只|还|已|都|再|正|忽|竟|终于|一面|连忙|赶紧|于是便|随即|接着|"
    r"说|道|问|答|笑|想|看|走|站|坐)"
)
_ZH_NOTE_START = re.compile(r"^[\s\u3000]*(?:〔[0-9０-９]{1,3}〕|[⑴-⒇])")
_EN_PRONOUN = re.compile(r"^(?:[A-Z][\w ,]{0,40}, )?(?:[Hh]e|[Ss]he|[Hh]is|[Hh]er)\b")
_LEAD = " \t\u3000“”\"‘’'「」『』（）()—-…*#>"
_EN_OPENER = re.compile(r"^(?:[\w'’-]+ ){0,7}[\w'’)-]+, $|^(?:However|Later|Then|Also|In \d{4}) ?$")
# A leading adverbial clause, up to the comma before the subject (a name inside it is not the
# subject): "After starting the season 0–6, ", "Following UCF's 59–10 defeat by Houston on
# homecoming, dropping the Knights to an 0–8 record, ".
_EN_CLAUSE = re.compile(
    r"^(?:After|Following|Before|During|Since|Until|When|While|Although|Though|As|With|"
    r"Along with|Together with|Alongside|Besides|Despite|In|On|At|By|From|For|Under|Upon|"
    r"Unlike|Like|Having|Born|Originally|Initially|Eventually|Subsequently|Previously|"
    r"Currently|Additionally|Today|Later|Meanwhile|Instead|Nevertheless|However)\b"
    r"[^.;:!?\"“”]{0,160}, $"
)
# "Her father died in 1925", "His elder brother was a painter": a relative is the subject.
_EN_KIN = re.compile(
    r"^(?:[A-Z][^.;:!?\"“”]{0,80}, )?(?:[Hh]is|[Hh]er|[Tt]heir) (?:(?:late|elder|older|"
    r"younger|eldest|youngest|first|second|third|only|twin|half|step|future|former)[\w-]* )?"
    r"(?:father|mother|parents?|brother|sister|siblings?|son|daughter|children|child|husband|"
    r"wife|widow|grandfather|grandmother|grandson|granddaughter|uncle|aunt|nephew|niece|"
    r"cousin|fianc[ée]e?|partner|stepfather|stepmother|half-brother|half-sister)s?\b"
)
_EN_CLAUSE_PRONOUN = re.compile(_EN_CLAUSE.pattern[:-1] + r"(?:[Hh]e|[Ss]he)\b")


def _bare_name(s: Sentence, mentions: Sequence[MentionOut], idxs: list[int]) -> bool:
    """A line that is one name and nothing else (the Lu Xun corpus's title line "孔乙己", a
    name in a list): it says nothing of the one it names, like a Markdown heading."""
    body = s.text.strip()
    return any(mentions[n].surface == body for n in idxs)


def sentence_roles(
    text: str, sentences: Sequence[Sentence], mentions: Sequence[MentionOut], lang: str
) -> list[int]:
    """Per sentence: the index (in ``mentions``) of its subject mention, :data:`CARRY` (a
    pronoun or an ellipsis: the previous subject goes on), :data:`OTHER` (an unnamed relative of
    the last subject: "Her father died"), :data:`HEADING` or :data:`NONE`."""
    first: dict[int, int] = {}
    by_sent: dict[int, list[int]] = {}
    for n, m in enumerate(mentions):
        j = first.get(m.sent)
        if j is None or m.start < mentions[j].start:
            first[m.sent] = n
        by_sent.setdefault(m.sent, []).append(n)
    roles: list[int] = []
    for idx, s in enumerate(sentences):
        if (
            is_heading(s.text)
            or _bare_name(s, mentions, by_sent.get(idx, []))
            or (lang == "zh" and set_apart(s.text))
        ):
            roles.append(HEADING)
            continue
        body = s.text.lstrip(_LEAD)
        note = _ZH_NOTE_START.match(body) if lang == "zh" else None
        if note:  # "〔2〕柏生即孙伏园…": the note's head word is its first sentence's subject
            body = body[note.end() :].lstrip(_LEAD)
        lead = len(s.text) - len(body)
        i = first.get(idx)
        if lang != "zh" and i is not None:
            i = _en_subject(text, s, lead, mentions, by_sent[idx])
        role: int = NONE
        if lang == "zh" and _asks(body):
            role = NONE  # a question asserts nothing about anyone: at most a mention
        elif i is not None and _is_subject(text, s, lead, mentions[i], lang):
            # Chinese: a name inside someone's quoted words is what that speaker says of it
            # (a critic's "鲁迅是二重性的反革命的人物", a name called out: "祥林嫂，你放着罢！"),
            # not the narrative's statement about it: a mention, not a key fact.
            if not (lang == "zh" and in_speech(text, mentions[i].start)):
                role = i
        elif lang == "zh":
            # Inside quoted speech 他/她 and a dropped subject belong to the speech, not to the
            # narrative's subject ("他是很听话的" in 祥林嫂's words is her son).
            if (_ZH_PRONOUN.match(body) or _ZH_ELLIPSIS.match(body)) and not in_speech(
                text, s.start + lead
            ):
                role = CARRY
        elif _EN_KIN.match(body):
            role = OTHER
        elif _EN_PRONOUN.match(body) or _EN_CLAUSE_PRONOUN.match(body):
            role = CARRY
        if role == NONE and lang == "zh" and _ZH_NOTE_START.match(s.text):
            role = TOPIC
        roles.append(role)
    return roles


def _en_subject(
    text: str, s: Sentence, lead: int, mentions: Sequence[MentionOut], ids: list[int]
) -> int | None:
    """The English subject candidate: the first name of the sentence, or, when the sentence
    opens with an adverbial clause ("Along with Rossini and Bellini, Donizetti was ...",
    "Following UCF's 59–10 defeat by Houston, O'Leary resigned"), the first name right after
    it."""
    order = sorted(ids, key=lambda n: mentions[n].start)
    if not order or _is_subject(text, s, lead, mentions[order[0]], "en"):
        return order[0] if order else None
    ends = {mentions[n].end for n in order}
    for n in order[1:]:
        m = mentions[n]
        if not s.start <= m.start < s.end or text[m.end : m.end + 2] in ("'s", "’s"):
            continue
        if m.start - 2 in ends:
            continue  # "in Tampere, Finland": a place named after another is no subject
        if _EN_CLAUSE.match(text[s.start + lead : m.start]):
            return n
    return order[0]


def _is_subject(text: str, s: Sentence, lead: int, m: MentionOut, lang: str) -> bool:
    if not s.start <= m.start < s.end:
        return False
    prefix = text[s.start + lead : m.start]
    after = text[m.end : m.end + 2]
    if lang == "zh":
        if after[:1] in ("的", "之"):
            return False  # 祥林嫂的儿子: the son is the subject
        if names_a_time(text[m.end : m.end + 4]):
            return False  # 辛亥革命后任…: a time, someone else is the subject
        if m.kind == "place" and _PLACE_AS_MODIFIER.match(text, m.end):
            return False  # 北京学生…, 北京各界人民…, 北京《京报》…: the place says whose
        prefix = prefix.strip(_LEAD)
        if not prefix:
            return True
        head = prefix.rstrip("，,：:")
        return bool(_ZH_OPENERS.match(head)) or (prefix[-1:] in "，," and len(prefix) <= 12)
    if after.startswith(("'s", "’s")):
        return False
    if not prefix:
        return True
    return bool(_EN_OPENER.match(prefix) or _EN_CLAUSE.match(prefix))


# What makes a place name that opens a sentence a modifier of its subject: the people, bodies
# or papers of the place ("北京各学校、各团体五万余人当日在天安门集会", "北京女子师范大学蔷薇社编辑").
_PLACE_AS_MODIFIER = re.compile(
    r"(?:各|学生|爱国|民众|人民|群众|市民|居民|青年|人士|大学|女子|师范|高等|政府|当局|警察|军警"
    r"|商会|学界|教育界|文艺界|方面|《)"
)
_ZH_QUESTION_END = re.compile(r"[？?][”’」』…\s]*$")


def _asks(body: str) -> bool:
    return bool(_ZH_QUESTION_END.search(body))
