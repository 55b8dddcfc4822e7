"""What a question narrows its offline answer to, beyond its terms (:mod:`wikikv.query.answer`).

* **A named work** ("《离婚》里要和丈夫离婚的女子叫什么？", or a collection: "《故事新编》的哪几篇"):
  the answer is in its texts, so their sentences are the candidates whenever they have any
  (:func:`named_works`, :func:`in_works`), and its name no longer scores them.
  A question asking for a name ("叫什么", "是谁") is answered by a sentence naming one of the
  text's characters, the most named first (:func:`names_asked`, :func:`with_names`).
* **A relation of a named subject** ("祥林嫂的儿子叫什么名字？"): the answer is the relative, so
  the subject's own defining sentence is no answer, nor a sentence where the subject *is* the
  relative of someone else ("他的儿子闰土"); a sentence naming the subject as the other side of
  the relation names the one asked for ("庄木三和他的女儿——爱姑" for 爱姑的父亲: :func:`owners`),
  and so does one holding the subject and the relation word (:func:`relation_asked`,
  :func:`about_relation`).
* **A listing over a named page** ("哪些小说写到了鲁镇？"): the answer is the texts that page's
  subject appears in, each quoted once with a sentence naming it (:func:`one_per_source`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from wikikv.query.sentences import Sentence, definition_score
from wikikv.store.paths import unescape_segment

SOURCES = "/sources/"
_WORK = re.compile(r"《([^《》]{1,40})》")
# Asking for a name: 叫什么 / 叫什么名字 / 是谁 / 名叫 / 谁.
_ASKS_NAME = re.compile(r"叫什么|什么名字|名叫|是谁|谁")
# Kinship and social relations a question asks about, with the words a text uses for them.
RELATIONS: dict[str, tuple[str, ...]] = {
    "儿子": ("儿子", "孩子", "小儿子", "大儿子"),
    "女儿": ("女儿", "闺女", "女孩"),
    "孩子": ("孩子", "儿子", "女儿"),
    "父亲": ("父亲", "爹", "爸爸"),
    "母亲": ("母亲", "娘", "妈妈"),
    "妻子": ("妻子", "老婆", "女人", "太太"),
    "丈夫": ("丈夫", "男人", "老公", "当家人"),
    "哥哥": ("哥哥", "大哥"),
    "弟弟": ("弟弟", "兄弟"),
    "姐姐": ("姐姐",),
    "妹妹": ("妹妹",),
    "祖母": ("祖母", "奶奶"),
    "祖父": ("祖父", "爷爷"),
    "侄儿": ("侄儿", "侄子"),
    "朋友": ("朋友", "友人"),
    "老师": ("老师", "先生"),
    "学生": ("学生",),
}
# The relation seen from the other side: "庄木三和他的女儿——爱姑" answers "爱姑的父亲是谁".
INVERSE: dict[str, tuple[str, ...]] = {
    "儿子": ("父亲", "母亲", "爹", "娘"),
    "女儿": ("父亲", "母亲", "爹", "娘"),
    "孩子": ("父亲", "母亲", "爹", "娘"),
    "父亲": ("儿子", "女儿", "孩子"),
    "母亲": ("儿子", "女儿", "孩子"),
    "妻子": ("丈夫", "男人"),
    "丈夫": ("妻子", "老婆", "女人"),
    "哥哥": ("弟弟", "妹妹"),
    "姐姐": ("弟弟", "妹妹"),
    "弟弟": ("哥哥", "姐姐"),
    "妹妹": ("哥哥", "姐姐"),
    "祖母": ("孙子", "孙女"),
    "祖父": ("孙子", "孙女"),
    "侄儿": ("叔叔", "伯父", "姑母"),
    "老师": ("学生",),
    "学生": ("老师", "先生"),
}
_RELATION = re.compile(r"([\u3400-\u9fff·]{1,12})的(" + "|".join(RELATIONS) + ")")
# A sentence saying what the subject is or is called (definition_score 2: "大家都叫她祥林嫂")
# answers "who is X", not "who is X's son".
NAMES_IT = 2
# What may stand between a relation word and the subject in apposition ("他的女儿——爱姑").
_APPOSITION = r"[—\-－，,、\s]{0,2}"
# How many texts a listing quotes, one sentence each.
LIST_SOURCES = 5


def named_works(question: str) -> list[str]:
    """The titles the question names in 《》."""
    return [t.strip() for t in _WORK.findall(question) if t.strip()]


def without_works(question: str) -> str:
    """The question without the titles it names in 《》 (and the 里 / 中 placing it there)."""
    return _IN_WORK.sub(" ", question)


_IN_WORK = re.compile(r"《[^《》]{1,40}》(?:里面|里|中|内|的)?")


def in_works(candidates: Sequence[Sentence], works: Iterable[str]) -> list[Sentence]:
    """The candidate sentences read from one of ``works``: a text of that title, or a text of
    the collection of that name (a document id is ``<collection>/<title>``)."""
    wanted = set(works)
    return [
        s for s in candidates if s.source.startswith(SOURCES) and wanted & set(doc_parts(s.source))
    ]


def doc_parts(source: str) -> list[str]:
    """The parts of a source document's id (``<collection>``, ``<title>``)."""
    return unescape_segment(source.rstrip("/").rsplit("/", 1)[-1]).split("/")


def names_asked(question: str) -> bool:
    """Whether the question asks for a name ("…叫什么？", "…是谁？")."""
    return bool(_ASKS_NAME.search(question))


def with_names(candidates: Sequence[Sentence], names: Iterable[str]) -> list[Sentence]:
    """The candidates holding one of ``names`` — those holding the names most of the candidates
    hold (a text's main characters) first; ties keep the candidates' order."""
    names = [n for n in names if len(n) >= 2]
    freq = {n: sum(n in s.text for s in candidates) for n in names}
    named = [
        (max((freq[n] for n in names if n in s.text), default=0), i, s)
        for i, s in enumerate(candidates)
    ]
    named = [x for x in named if x[0] > 0]
    named.sort(key=lambda x: (-x[0], x[1]))
    return [s for _, _, s in named]


@dataclass(frozen=True)
class Relation:
    """ "X的R" in a question: the subject's possible names (longest first: the run before 的 may
    carry a preceding word, "里爱姑") and the relation word."""

    subjects: tuple[str, ...]
    relation: str

    @property
    def words(self) -> tuple[str, ...]:
        return RELATIONS[self.relation]


def relation_asked(question: str) -> Relation | None:
    """The relation a question asks for ("祥林嫂的儿子叫什么名字？" → 祥林嫂, 儿子), else None."""
    m = _RELATION.search(question)
    if m is None:
        return None
    run = m.group(1)
    subjects = tuple(run[i:] for i in range(len(run) - 1))  # every suffix of two or more
    return Relation(subjects, m.group(2)) if subjects else None


def subject_in(rel: Relation, candidates: Sequence[Sentence]) -> str | None:
    """The longest of the relation's subject names that some candidate holds."""
    for name in rel.subjects:
        if any(name in s.text for s in candidates):
            return name
    return None


def about_relation(rel: Relation, subject: str, candidates: Sequence[Sentence]) -> list[Sentence]:
    """Candidates that may name the subject's relative: they hold the subject and a relation
    word, and neither say what the subject is or is called nor make it the relative of someone
    else."""
    out: list[Sentence] = []
    for s in candidates:
        text = s.text
        if subject not in text or _subject_is_relative(rel, subject, text):
            continue
        if definition_score(text, [subject]) >= NAMES_IT:
            continue  # what the subject is, not who its relative is
        if any(w in text for w in rel.words):
            out.append(s)
    return out


def owners(rel: Relation, subject: str, candidates: Sequence[Sentence]) -> list[Sentence]:
    """Candidates where the subject is named as the other side of the relation, right after its
    word ("庄木三和他的女儿——爱姑" for "爱姑的父亲"): the one it belongs to is named there."""
    back = INVERSE.get(rel.relation, ())
    return [s for s in candidates if _follows(back, subject, s.text)]


def not_about_subject(
    rel: Relation, subject: str, candidates: Sequence[Sentence]
) -> list[Sentence]:
    """When no sentence holds the subject and a relation word: the candidates holding the subject
    less its defining sentences, those where it is the relative and those that only address it
    ("祥林嫂，你放着罢！") — those naming someone's own beside it ("你们的阿毛") first."""
    rest = [
        s
        for s in candidates
        if subject in s.text
        and not _subject_is_relative(rel, subject, s.text)
        and definition_score(s.text, [subject]) < NAMES_IT
    ]
    owned = [s for s in rest if _POSSESSIVE.search(s.text)]
    return owned or [s for s in rest if not _addressed(subject, s.text)]


_POSSESSIVE = re.compile(r"(?:我|你|他|她|伊)们?的[\u3400-\u9fff]{2}")


def _addressed(subject: str, text: str) -> bool:
    """Whether the sentence is words spoken to the subject: its name set off by a comma or an
    exclamation at the start or the end of the quoted words."""
    n = re.escape(subject)
    return bool(re.search(rf"[“‘]{n}[，,！!]|[，,]{n}[！!。？?]?(?:[”’]|$)", text))


def _subject_is_relative(rel: Relation, subject: str, text: str) -> bool:
    return _follows(rel.words, subject, text)


def _follows(words: Sequence[str], subject: str, text: str) -> bool:
    """Whether ``subject`` stands in apposition right after one of ``words``, nothing but a dash
    or a comma between ("他的儿子闰土", "他的女儿——爱姑"; not "他的父亲叫他闰土")."""
    alternatives = "|".join(re.escape(w) for w in words)
    return bool(alternatives) and bool(
        re.search(rf"(?:{alternatives}){_APPOSITION}{re.escape(subject)}", text)
    )


def one_per_source(
    order: Sequence[str],
    candidates: Sequence[Sentence],
    names: Sequence[str],
    best: Callable[[list[Sentence]], list[Sentence]],
) -> list[Sentence]:
    """For a listing: in ``order`` (source paths), the first :data:`LIST_SOURCES` sources with a
    candidate sentence naming one of ``names``, each with its best such sentence (``best``:
    ``(sentences) -> list[Sentence]``, the question's own ranking)."""
    by_source: dict[str, list[Sentence]] = {}
    for s in candidates:
        if any(n in s.text for n in names):
            by_source.setdefault(s.source, []).append(s)
    out: list[Sentence] = []
    for src in order:
        group = by_source.get(src)
        if not group:
            continue
        chosen = best(group)
        out.append(chosen[0] if chosen else group[0])
        if len(out) >= LIST_SOURCES:
            break
    return out
