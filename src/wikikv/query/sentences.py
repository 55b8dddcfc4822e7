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
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wikikv.search import tokenize
from wikikv.search.tokenize import has_cjk, present_terms

MAX_SENTENCES = 3
KEEP_RATIO = 0.5
MIN_CHARS = 4
# Words a question uses to ask, never found in its answer.
QUESTION_WORDS = frozenset(
    "who whom whose what which where when why how wrote 哪里 哪儿 哪个 哪些 哪篇 谁 是谁 怎样 "
    "怎么 什么 为什么 如何 几 多少".split()
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


def question_terms(question: str) -> set[str]:
    return {t for t in tokenize(question) if t not in QUESTION_WORDS}


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
    cues = [answer for asks, answer in _CUES if asks.search(question)]
    bonus = CUE_BONUS * max(weight.values(), default=0.0)
    scored = []
    for s, terms in zip(pool, present, strict=True):
        if not terms:
            continue
        score = sum(weight[t] for t in terms) / (1.0 + len(s.text) / 1000.0)
        if any(c.search(s.text) for c in cues):
            score += bonus
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
    """The sentences quoted, each with its citation number."""
    return "\n".join(f"“{s.text}” [{i}]" for i, s in enumerate(sentences, 1))
