"""Offline answers: the few sentences of the gathered evidence that best answer a question, each
with its citation.

Candidate sentences come from the pages nav returned: the key facts of entity pages and the
bullets of digests (each cites its source article and character range through a footnote), and
the prose of articles (cited as the article itself, with the sentence's character range). Front
matter, headings, footnote definitions and link lists are not sentences.

A sentence scores the weights of the question's terms it contains, a term weighing more the fewer
candidate sentences contain it (an inverse document frequency over the candidates, so the name
every sentence repeats counts little); earlier evidence breaks ties. The answer keeps the best few
that score at least half the best; when no sentence contains any question term there is no answer.

A definitional question ("闰土是谁？", "Who is Christopher Nolan?") asks what its subject *is*, so
it is answered by the sentence that says so — the subject followed by 是/便是/即/"is a", a
sentence that identifies someone as the subject (这少年便是闰土, 名叫…), an apposition (他的儿子
闰土), a gloss with dates (爱罗先珂（1889—1952）俄国诗人) — rather than by the sentences that only
repeat the name (:func:`definition_score`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wikikv.search import tokenize
from wikikv.search.tokenize import has_cjk, present_terms, query_terms
from wikikv.text.digest import set_apart

MAX_SENTENCES = 3
KEEP_RATIO = 0.5
MIN_CHARS = 4
# Words a question uses to ask, never found in its answer.
QUESTION_WORDS = frozenset(
    "who whom whose what which where when why how wrote 哪里 哪儿 哪个 哪些 哪篇 谁 是谁 怎样 "
    "怎么 什么 为什么 如何 几 多少 叫什么 叫什么名字 什么名字 名叫什么".split()
)

# What a sentence answering "where / who / when" tends to hold: a small bonus, never a match on
# its own (a sentence must share a term with the question first).
_CUES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (
        re.compile(r"哪里|哪儿|在哪|何处|什么地方|\bwhere\b", re.I),
        re.compile(r"出生|生于|位于|故乡|家乡|故居|\bborn\b|\blocated\b|\bin [A-Z]", re.I),
    ),
    (
        re.compile(r"谁|\bwho\b|\bwhom\b", re.I),
        re.compile(r"作者|所作|写|\bby [A-Z]|\bwr[io]te\b|\bauthor", re.I),
    ),
    (
        re.compile(r"什么时候|哪一年|哪年|何时|\bwhen\b|\bwhat year\b", re.I),
        re.compile(r"\d{3,4}\s*年|\b\d{4}\b"),
    ),
)
CUE_BONUS = 0.6  # of the heaviest question term's weight
# A sentence that itself asks ("那边的村子叫什么名字？") shares the question's words but
# answers nothing: it keeps this share of its score.
ASKING_PENALTY = 0.25
_ASKS = re.compile(r"[？?][”’」』\"')）)…\s]*$")

_FRONT_MATTER = re.compile(r"\A(?:\s*---\n.*?\n---[ \t]*(?:\n|\Z))+", re.S)
_FOOTNOTE_DEF = re.compile(
    r"^\[\^(\w+)\]:\s*\[\[([^\]|]+)(?:\|[^\]]*)?\]\]\s*(?:chars\s+(\d+)-(\d+))?"
)
_CITE = re.compile(r"\s*\[\^(\w+)\]")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_LINK_LINE = re.compile(r"^\s*(?:[-*+]\s+)?\[\[[^\]]+\]\]")
_WIKILINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]")
_PARAGRAPHS = re.compile(r"\n\s*\n")
_SPLIT = re.compile(r"(?<=[。！？!?；;])|(?<=[.!?])\s+(?=[A-Z\"“(])")


# "X是谁？" / "谁是X？" / "X是什么人？" / "Who is X?" / "What was X?": the subject X.
_DEFINE_ZH = (
    re.compile(
        r"^\s*(?P<x>[^？?，,。\s]{1,20}?)(?:到底|究竟)?(?:是|是个|是一个)(?:谁|什么人|何人|怎样的人|什么样的人)[？?。！!\s]*$"
    ),
    re.compile(r"^\s*(?:谁|什么人)是(?P<x>[^？?，,。\s]{1,20})[？?。\s]*$"),
    re.compile(r"^\s*(?P<x>[^？?，,。\s]{1,20}?)是(?:什么|何物)[？?。\s]*$"),
)
_DEFINE_EN = re.compile(
    r"^\s*(?:who|what)\s+(?:is|was|are|were)\s+(?P<x>[^?]{2,80}?)\s*\??\s*$", re.I
)
# What a definitional sentence looks like, given the subject's name (escaped into the pattern).
_ZH_IS = r"(?:便是|就是|即是|乃是|正是|原是|也是|是|乃|即|为)"
# Someone identified as the subject: 这少年便是闰土 / 大家都叫她祥林嫂 / 这是斜对门的杨二嫂.
_ZH_CALLED = (
    r"(?:便是|就是|正是|叫做|叫作|名叫|名为|称为|唤作|"
    r"(?:叫|称|唤)(?:她|他|伊|它|作|做)?|(?:这|那|他|她|伊)(?:便|就|正|也)?是[^，。；！？]{0,12})"
)
# A denial before it identifies no one (我又并非就是阿Ｑ: the narrator says he is *not* 阿Ｑ).
_NOT = r"(?<![非不没未])"
_ZH_KIN = (
    r"的(?:儿子|女儿|母亲|父亲|妻子|丈夫|哥哥|弟弟|姐姐|妹妹|兄弟|祖母|祖父|伯父|叔叔|"
    r"朋友|同学|同窗|学生|先生|老师|徒弟|主人|仆人|佣人|女佣|邻居|孩子|小儿子|大儿子)"
)
_GLOSS_DATES = r"[（(][^）)]{0,20}\d{2,4}\s*[—–-]+\s*\d{2,4}[^）)]{0,20}[）)]"
_SPEECH_END = ("：", ":", "说。", "道。", "问。")


def definitional_subject(question: str) -> str | None:
    """The subject a definitional question asks about ("闰土是谁？" → 闰土), else None."""
    for pattern in _DEFINE_ZH:
        m = pattern.match(question)
        if m:
            return m.group("x").strip('“”"《》')
    m = _DEFINE_EN.match(question)
    if m:
        x = m.group("x").strip()
        return x if x[:1].isupper() and len(x.split()) <= 8 else None
    return None


# Full-width Latin letters and digits (Ｑ, Ｓ, ０) → ASCII; the full-width punctuation the
# patterns below read (，：) stays.
_NARROW = {
    c: c - 0xFEE0
    for r in ((0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A))
    for c in range(r[0], r[1] + 1)
}


def narrow_letters(text: str) -> str:
    """``text`` with full-width Latin letters and digits as ASCII, so a question's 阿Q meets the
    texts' 阿Ｑ (and Ｓ城 meets S城)."""
    return text.translate(_NARROW)


def definition_score(text: str, names: Iterable[str]) -> int:
    """How plainly ``text`` says what one of ``names`` is: 3 — the name is the subject of 是/为/
    "is a" or glossed with its dates; 2 — someone is identified as the name (…便是X, 名叫X) or
    the name stands in apposition to a kinship or role (他的儿子X); 0 — otherwise (a line that
    only names it, a speech tag)."""
    plain = narrow_letters(text).strip().strip("“”\"'「」")
    if plain.endswith(_SPEECH_END) or len(plain) < 6:
        return 0
    best = 0
    for name in (narrow_letters(n) for n in names):
        if not name or name not in plain:
            continue
        n = re.escape(name)
        if has_cjk(name):
            if re.match(
                rf"^(?:[^，。；]{{0,6}}[，、])?{n}[，、]?{_ZH_IS}(?!否|不是)[^说道问]", plain
            ):
                return 3
            if re.search(rf"{n}\s*{_GLOSS_DATES}", plain):
                return 3
            if re.search(rf"{_NOT}{_ZH_CALLED}{n}(?:[。，；！]|$)", plain) or re.search(
                rf"{_ZH_KIN}{n}", plain
            ):
                best = 2
        else:
            lead = rf"^(?:The\s+)?{n}(?:\s*\([^)]*\))?,?\s+(?:is|was|are|were)\s+(?:an?|the|one)\b"
            if re.match(lead, plain, re.I):
                return 3
            if re.search(rf"{n}(?:\s*\([^)]*\))?,\s+(?:an?|the)\s+\w+", plain):
                best = max(best, 2)
    return best


def definitional(sentences: Sequence[Sentence], names: Iterable[str]) -> Sentence | None:
    """The sentence that best says what the subject (``names``) is: the highest
    :func:`definition_score`, then the earliest in its source (a text introduces a person before
    it goes on), then the first met. None when no sentence defines it."""
    names = [n for n in names if n]
    scored = [(definition_score(s.text, names), s) for s in sentences]
    scored = [(score, s) for score, s in scored if score > 0]
    if not scored:
        return None
    order = {id(s): i for i, (_, s) in enumerate(scored)}
    return min(
        scored,
        key=lambda x: (-x[0], x[1].chars[0] if x[1].chars else 1 << 30, order[id(x[1])]),
    )[1]


@dataclass(frozen=True)
class Sentence:
    """One candidate sentence: its text, the source it cites (an article path, or the page it
    was read on), the character range in that source when known, and where it was found."""

    text: str
    source: str
    chars: tuple[int, int] | None
    found_on: str
    rank: int  # position of the evidence it came from in nav's stream

    def citation(self) -> str:
        where = f" chars {self.chars[0]}-{self.chars[1]}" if self.chars else ""
        return f"{self.source}{where}"


def strip_front_matter(text: str) -> str:
    """The text without its leading front-matter block(s)."""
    return _FRONT_MATTER.sub("", text, count=1)


def split_sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(paragraph) if s and s.strip()]


def _joined(text: str) -> str:
    """A sentence wrapped over lines, on one line (Chinese lines join without a space), its
    wikilinks as plain words."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return _WIKILINK.sub(
        lambda m: m.group(2) or m.group(1), ("" if has_cjk(text) else " ").join(lines)
    )


def _is_sentence(text: str) -> bool:
    return len(text) >= MIN_CHARS and not text.startswith("#") and any(c.isalnum() for c in text)


def page_sentences(path: str, text: str, level: str, rank: int) -> list[Sentence]:
    """The candidate sentences of one evidence page."""
    body = strip_front_matter(text)
    notes: dict[str, tuple[str, tuple[int, int] | None]] = {}
    for line in body.splitlines():
        m = _FOOTNOTE_DEF.match(line.strip())
        if m:
            chars = (int(m.group(3)), int(m.group(4))) if m.group(3) else None
            notes[m.group(1)] = (m.group(2).strip(), chars)
    out: list[Sentence] = []
    if level == "article":
        pos = 0
        for para in _PARAGRAPHS.split(body):
            if has_cjk(para) and set_apart(para):
                continue  # the text's title (藤野先生), a date, a signature: no sentence
            for s in split_sentences(para):
                start = text.find(s, pos)
                chars = (start, start + len(s)) if start >= 0 else None
                pos = start + len(s) if start >= 0 else pos
                clean = _joined(s)
                if _is_sentence(clean):
                    out.append(Sentence(clean, path, chars, path, rank))
        return out
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "[^")) or _LINK_LINE.match(stripped):
            continue
        if len(stripped) > 2 and stripped[0] == stripped[-1] == "_":
            continue  # the compiler's own notice ("_No sentence of the sources has X as …_")
        refs = _CITE.findall(stripped)
        plain = _joined(_CITE.sub("", _BULLET.sub("", stripped.lstrip("> "))).strip())
        if not _is_sentence(plain):
            continue
        note = notes.get(refs[0]) if refs else None
        if note is not None:
            out.append(Sentence(plain, note[0], note[1], path, rank))
        elif level == "entity" and not refs and not _BULLET.match(stripped):
            out.extend(Sentence(s, path, None, path, rank) for s in split_sentences(plain))
    return out


_QUESTION_WORD_RUN = re.compile(
    "|".join(sorted((re.escape(w) for w in QUESTION_WORDS if has_cjk(w)), key=len, reverse=True))
)


def question_terms(question: str) -> set[str]:
    """The question's words without its question words: jieba's words for Chinese, not the
    character pairs the search adds for unknown words (a pair such as "和丈" of "要和丈夫" matches
    unrelated texts; on set (d) words answer more questions). Pairs only when the question has
    no word left. Chinese question words are cut out before tokenizing, so nothing that
    straddles one ("叫什" of "叫什么") is left to match every sentence that asks something."""
    cut = _QUESTION_WORD_RUN.sub(" ", question)
    words = {t for t, w in query_terms(cut) if w >= 1.0 and t not in QUESTION_WORDS}
    return words or {t for t in tokenize(cut) if t not in QUESTION_WORDS}


def character_runs(question: str) -> list[str]:
    """Runs of two or more of the question's single-character Chinese words standing side by
    side in it: a name jieba does not know is cut into its characters (咸亨酒店 → 咸/亨/酒店)."""
    cut = _QUESTION_WORD_RUN.sub(" ", question)
    out: list[str] = []
    run = ""
    for t in [t for t, w in query_terms(cut) if w >= 1.0] + [""]:
        if len(t) == 1 and has_cjk(t) and run and run + t in cut:
            run += t
            continue
        if len(run) >= 2:
            out.append(run)
        run = t if len(t) == 1 and has_cjk(t) else ""
    return out


def best_sentences(
    question: str, candidates: Iterable[Sentence], limit: int = MAX_SENTENCES
) -> list[Sentence]:
    """The ``limit`` best sentences for ``question`` (none when no sentence holds a question
    term), one per distinct text."""
    qterms = question_terms(question)
    if not qterms:
        return []
    unique: dict[str, Sentence] = {}
    for s in candidates:
        seen = unique.get(s.text)
        if seen is None or (seen.chars is None and s.chars is not None):
            unique[s.text] = s  # the same sentence with a precise citation wins
    pool = list(unique.values())
    present = [present_terms(qterms, s.text) for s in pool]
    df: dict[str, int] = {}
    for terms in present:
        for t in terms:
            df[t] = df.get(t, 0) + 1
    n = len(pool)
    weight = {t: math.log(1.0 + (n + 1) / (d + 0.5)) * (1.0 + 0.1 * len(t)) for t, d in df.items()}
    runs = [r for r in character_runs(question) if all(c in weight for c in r)]
    cues = [answer for asks, answer in _CUES if asks.search(question)]
    bonus = CUE_BONUS * max(weight.values(), default=0.0)
    scored = []
    for s, terms in zip(pool, present, strict=True):
        if not terms:
            continue
        held = sum(weight[t] for t in terms)
        for run in runs:
            if run in s.text:
                # The characters of one name count once, as its rarest character: one term
                # per character made any sentence naming 咸亨酒店 outscore the one answering
                # the rest of the question (孔乙己…欠…钱).
                held -= sum(weight[c] for c in run) - max(weight[c] for c in run)
        score = held / (1.0 + len(s.text) / 1000.0)
        if any(c.search(s.text) for c in cues):
            score += bonus
        if _ASKS.search(s.text):
            score *= ASKING_PENALTY
        scored.append((score, -s.rank, s))
    if not scored:
        return []
    scored.sort(key=lambda x: (-x[0], -x[1]))
    top = scored[0][0]
    chosen: list[Sentence] = []
    for score, _, s in scored:
        if len(chosen) >= limit or score < KEEP_RATIO * top:
            break
        if not any(_same_place(s, c) for c in chosen):  # one quote of a passage, not two
            chosen.append(s)
    return chosen


def _same_place(a: Sentence, b: Sentence) -> bool:
    """Whether two sentences quote overlapping ranges of the same source."""
    if a.source != b.source or a.chars is None or b.chars is None:
        return False
    return a.chars[0] < b.chars[1] and b.chars[0] < a.chars[1]


def answer_text(sentences: Sequence[Sentence]) -> str:
    """The sentences quoted, each with its citation number. A sentence cut out of someone's
    words has its own quotation marks balanced first, so no quote is left open, and a sentence
    holding double quotes is quoted with corner brackets, so no quote opens twice."""
    return "\n".join(f"{quoted(s.text)} [{i}]" for i, s in enumerate(sentences, 1))


def quoted(text: str) -> str:
    """One sentence in quotation marks, its own balanced (:func:`balanced`)."""
    inner = balanced(text)
    return f"「{inner}」" if "“" in inner or "”" in inner else f"“{inner}”"


_OPEN_CLOSE = (("“", "”"), ("‘", "’"), ("「", "」"), ("『", "』"))


def balanced(text: str) -> str:
    """``text`` with its quotation marks paired: a closing mark it starts with (the end of the
    previous sentence's quote) is dropped, a quote it opens and never closes is closed at its
    end, one it closes without opening is opened at its start (“孔乙己…说道，“不能写罢？” →
    …说道，“不能写罢？”)."""
    text = text.lstrip("”’」』 ")  # the close of the previous sentence's quote, split off with it
    for opening, closing in _OPEN_CLOSE:
        depth = unopened = 0
        for ch in text:
            if ch == opening:
                depth += 1
            elif ch == closing:
                if depth:
                    depth -= 1
                else:
                    unopened += 1
        text = opening * unopened + text + closing * depth
    return text
