"""Sentences with exact offsets, and the extractive digest (ranked sentences).

Every :class:`Sentence` is a span ``[start, end)`` of the stored article text, so
``text[start:end] == sentence.text`` always holds — the citation check relies on it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

# English: a terminator followed by space and an upper-case letter, a digit or a quote.
_EN_BOUNDARY = re.compile(r"[.!?][\"')\]]?\s+(?=[A-Z0-9\"'(\[])")
_EN_ABBREV = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Gen|Col|Lt|Capt|Sgt|Rev|Hon|Mt|Ft|No|Nos|Vol|vs|v|etc|"
    r"Inc|Ltd|Co|Corp|Bros|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|U\.S|U\.K|"
    # titles before a name, and a court case's "v.": "United States v. Reese" is one name
    r"Gov|Sen|Rep|Pres|Adm|Maj|Cmdr|Messrs|al|approx|Ph\.D|"
    r"[A-Z])\.)$"
    # circa, born, died, flourished, reigned before a year: "Edwin (c. 586 – 633) was …", also
    # when the source's italics became quote marks around it: 'Filangieri(" c". 1195–1254/63)'
    r"|(?:^|[\s(\[;,\"'])(?:c|ca|b|d|fl|r)[\"']?\.$"
)
# Chinese: a terminator, plus any closing quotes/brackets right after it.
_ZH_BOUNDARY = re.compile(r"[。！？!?…]+[”’」』）)]*")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|\d{3,4}")
_HAN = re.compile(r"[\u3400-\u9fff]")
EN_STOP = frozenset(
    """a an the of in on at to for from by with and or but is was were are be been being as
    that this these those it its he she his her they their them which who whom whose what
    when where while has have had not no also than then there into over under after before
    one two three about between during such other more most only some any all can could
    would will may might shall should do does did so if""".split()
)


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str


def _spans_en(text: str, base: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    for m in _EN_BOUNDARY.finditer(text):
        head = text[pos : m.start() + 1]
        if _EN_ABBREV.search(head):
            continue
        if text[m.start()] in "?!" and text[m.end() : m.end() + 1] == "(":
            continue  # a title's mark and its gloss: 'What Ever Happened to Baby Toto? (Italian: …)'
        cut = m.end()
        out.append((base + pos, base + cut))
        pos = cut
    if pos < len(text):
        out.append((base + pos, base + len(text)))
    return out


def _bracketed_query(text: str, m: re.Match[str]) -> bool:
    """A question or exclamation mark that closes a bracket it stands in ends no sentence: the
    writer's doubt ("许多（？）书", "（文艺？）") or a year not known ("邢子才（４９６—？），名邵")."""
    mark = m.group()
    if mark.rstrip("）)") == mark or any(ch in mark for ch in "。…"):
        return False
    return text.rfind("（", 0, m.start()) > text.rfind("）", 0, m.start()) or text.rfind(
        "(", 0, m.start()
    ) > text.rfind(")", 0, m.start())


def _spans_zh(text: str, base: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    for m in _ZH_BOUNDARY.finditer(text):
        if _bracketed_query(text, m):
            continue
        out.append((base + pos, base + m.end()))
        pos = m.end()
    if pos < len(text):
        out.append((base + pos, base + len(text)))
    return out


def split_sentences(text: str, lang: str) -> list[Sentence]:
    """Split ``text`` into sentences; paragraphs (lines) never share a sentence. Surrounding
    whitespace is trimmed from every span so the quote starts and ends on visible text."""
    out: list[Sentence] = []
    offset = 0
    for para in text.split("\n"):
        if para.strip():
            spans = _spans_zh(para, offset) if lang == "zh" else _spans_en(para, offset)
            for s, e in spans:
                while s < e and text[s].isspace():
                    s += 1
                while e > s and text[e - 1].isspace():
                    e -= 1
                if e > s:
                    out.append(Sentence(s, e, text[s:e]))
        offset += len(para) + 1
    return out


def content_terms(sentence: str, lang: str) -> list[str]:
    """Terms used for ranking: lower-cased non-stopwords (en) or Han bigrams (zh)."""
    if lang == "zh":
        han = "".join(_HAN.findall(sentence))
        return [han[i : i + 2] for i in range(len(han) - 1)]
    return [w.lower() for w in _WORD.findall(sentence) if w.lower() not in EN_STOP]


_HEADING = re.compile(r"^\s*#{1,6}\s")


def is_heading(text: str) -> bool:
    """A Markdown heading line (``# Title``, ``## Later years``): a title, never a sentence of a
    summary, a digest or a key fact."""
    return _HEADING.match(text) is not None


# Marks of a sentence; a Chinese line without any is set apart from the prose.
_PUNCTUATED = re.compile(r"[。！？；，、：…!?;,:]")


def set_apart(text: str) -> bool:
    """A Chinese line with no punctuation of a sentence: the text's title ("鲁迅译著书目"), a
    heading, a date or a signature — never a sentence to quote, nor a fact of anyone it names
    (callers ask this of Chinese text only)."""
    return _PUNCTUATED.search(text) is None


def is_informative(sentence: Sentence, lang: str) -> bool:
    """A real sentence: enough words (en) or Han characters (zh), not a bare heading or note."""
    if is_heading(sentence.text):
        return False  # a Markdown heading is a title, never a sentence of a summary
    if lang == "zh":
        return len(_HAN.findall(sentence.text)) >= 8
    return len(_WORD.findall(sentence.text)) >= 5


def lead_sentence(text: str, lang: str) -> str:
    """The first real sentence of ``text`` (headings skipped), else its first non-heading line,
    for a summary when no digest sentence exists."""
    sents = split_sentences(text, lang)
    for s in sents:
        if is_informative(s, lang):
            return _one_line(s.text)
    for s in sents:
        if not is_heading(s.text):
            return _one_line(s.text)
    return ""


class Span(Protocol):
    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


def lead_of(text: str, spans: Sequence[Span], informative: Sequence[int]) -> str:
    """:func:`lead_sentence` of ``text`` from its split already made: its sentences' spans
    (those of :func:`split_sentences`) and which of them are informative, in order. A build
    has both from the analysis, and splitting every article again cost ~5 % of its first
    phase."""
    if informative:
        first = spans[informative[0]]
        return _one_line(text[first.start : first.end])
    for span in spans:
        line = text[span.start : span.end]
        if not is_heading(line):
            return _one_line(line)
    return ""


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.replace("[[", "[").replace("]]", "]").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def rank_sentences(sentences: list[Sentence], lang: str, title: str = "") -> list[int]:
    """Indices of the informative sentences, best first: centrality (shared terms with the
    document), title overlap, and an early-position prior; ties broken by position."""
    terms = [content_terms(s.text, lang) for s in sentences]
    df: Counter[str] = Counter()
    for t in terms:
        df.update(set(t))
    title_terms = set(content_terms(title, lang)) if title else set()
    scored: list[tuple[float, int]] = []
    n = len(sentences)
    for i, (s, t) in enumerate(zip(sentences, terms, strict=True)):
        if not is_informative(s, lang) or not t:
            continue
        central = sum(math.log1p(df[w]) for w in set(t)) / math.sqrt(len(t) + 4)
        overlap = len(title_terms & set(t)) / (len(title_terms) + 1)
        position = 1.0 / (1 + i) + (0.3 if i < max(3, n // 10) else 0.0)
        scored.append((central + 2.0 * overlap + 1.5 * position, i))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [i for _, i in scored]


def digest(sentences: list[Sentence], lang: str, title: str = "", k: int = 5) -> list[int]:
    """The top ``k`` ranked sentence indices, in document order."""
    return sorted(rank_sentences(sentences, lang, title)[:k])
