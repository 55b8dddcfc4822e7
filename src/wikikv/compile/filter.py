"""Drop low-information documents before sampling, with a report of what was dropped and why.

Reasons: ``empty`` (no real sentence at all), ``boilerplate`` (tables of contents, link lists,
notices: many lines, almost none punctuated), ``duplicate`` (a verbatim re-publication: same title
and same text, up to whitespace, as an earlier document). Length alone never drops a document that has a title and one real
sentence: the QA corpora are curated, and dropping one of their gold passages is a bug.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from wikikv.compile.ingest import Document
from wikikv.text.digest import is_informative, split_sentences

_PUNCT = re.compile(r"[。！？，；：,.!?;:]")
_BOILERPLATE = re.compile(
    r"^(all rights reserved|copyright ©|subscribe to|click here|cookie policy|"
    r"happy (new year|holidays)|season'?s greetings)",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass
class Dropped:
    id: str
    title: str
    reason: str
    detail: str = ""


@dataclass
class FilterReport:
    kept: list[Document] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.dropped:
            out[d.reason] = out.get(d.reason, 0) + 1
        return out


def _text_key(text: str) -> str:
    # Verbatim re-publications only: the QA corpora hold near-identical passages (a quote mark
    # or a space apart) under distinct ids, and either may be a gold passage.
    return hashlib.blake2b(" ".join(text.split()).encode(), digest_size=12).hexdigest()


def _is_sentence(text: str) -> bool:
    words = len(re.findall(r"[^\W\d_]{2,}", text)) if text.isascii() else 0
    han = len(re.findall(r"[\u3400-\u9fff]", text))
    return words >= 2 or han >= 4


def judge(doc: Document) -> tuple[str, str] | None:
    """(reason, detail) when ``doc`` is low-information, else None."""
    sentences = split_sentences(doc.text, doc.lang)
    real = [s for s in sentences if is_informative(s, doc.lang)]
    if not real:
        lines = [ln for ln in doc.text.split("\n") if ln.strip()]
        punctuated = sum(1 for ln in lines if _PUNCT.search(ln))
        if len(lines) >= 12 and punctuated / len(lines) < 0.15:
            return ("boilerplate", f"{len(lines)} lines, {punctuated} with punctuation: a list")
        if doc.title.strip() and any(_is_sentence(s.text) for s in sentences):
            return None  # a titled stub with one short sentence: curated corpora keep these
        return ("empty", "no informative sentence")
    if len(real) <= 2 and _BOILERPLATE.search(doc.text):
        return ("boilerplate", "notice or greeting")
    return None


def filter_documents(docs: list[Document]) -> FilterReport:
    """Keep the informative documents; later exact re-publications (same normalized text) of an
    earlier document are dropped as duplicates."""
    report = FilterReport()
    seen: dict[str, str] = {}
    for doc in docs:
        verdict = judge(doc)
        if verdict is not None:
            report.dropped.append(Dropped(doc.id, doc.title, verdict[0], verdict[1]))
            continue
        key = _text_key(doc.title + "\n" + doc.text)
        if key in seen:
            report.dropped.append(
                Dropped(doc.id, doc.title, "duplicate", f"same text as {seen[key]}")
            )
            continue
        seen[key] = doc.id
        report.kept.append(doc)
    return report
