"""Mention coverage (issue 8 item 3): the share of an entity's document mentions that reach its
page, counted from the hand-written entity list (a) and the texts — never from the detector.

A mention is a sentence of a stored source text that contains one of the entity's names (its
name or an alias, two characters or more: a single character such as 禹 occurs inside too many
other words to count as a mention by itself). It reaches the page when the page quotes that
sentence — a footnote of the page cites that source with a character range overlapping the
sentence, as a key fact or under "Mentioned in". An entity's page is every page whose name or
alias is one of the entity's names (as entity recall matches them); entities without a page are
entity recall's concern and are left out here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wikikv.bench.quality_sets import load_table
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import escape_segment
from wikikv.store.records import FileRecord

ARTICLES = "/sources/articles/"
MIN_NAME = 2
_CITED = re.compile(r"^\[\^\w+\]:\s*\[\[([^\]|#]+)[^\n]*?chars\s+(\d+)-(\d+)", re.M)
# Sentence ends of the stored texts (Chinese and Western), and paragraph breaks.
_SENTENCE_END = re.compile(r"[。！？!?；;]+[”’」』）)]*|\n\s*\n")

Span = tuple[int, int]


def sentence_spans(text: str) -> list[Span]:
    """Character ranges of the sentences of ``text`` (blank lines and 。！？； end one)."""
    spans: list[Span] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if text[start : m.end()].strip():
            spans.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def quoted_ranges(text: str) -> dict[str, list[Span]]:
    """Per source path, the character ranges a page's footnotes cite."""
    out: dict[str, list[Span]] = {}
    for m in _CITED.finditer(text):
        out.setdefault(m.group(1).strip(), []).append((int(m.group(2)), int(m.group(3))))
    return out


def _overlaps(span: Span, ranges: Iterable[Span]) -> bool:
    return any(a < span[1] and span[0] < b for a, b in ranges)


def _pages_of(kb: KnowledgeBase, names: list[str]) -> list[FileRecord]:
    pages: dict[str, FileRecord] = {}
    for name in names:
        for hit in kb.find_names(name, limit=8, exact=True):
            if hit.path.startswith("/sources") or hit.path in pages:
                continue
            rec = kb.get(hit.path)
            if isinstance(rec, FileRecord):
                pages[hit.path] = rec
    return list(pages.values())


def mention_coverage(
    kb: KnowledgeBase, entity_list: Path | None, doc_ids: list[str]
) -> dict[str, Any]:
    """Mention coverage of the wiki in ``kb`` for the entities of ``entity_list`` over the
    stored texts of ``doc_ids`` (``<collection>/<title>``)."""
    if entity_list is None:
        return {"skipped": "no entity list under evals/luxun"}
    paths = [ARTICLES + escape_segment(d) for d in doc_ids]
    texts = {
        p: rec.text
        for p, rec in zip(paths, kb.get_many(paths), strict=True)
        if isinstance(rec, FileRecord)
    }
    spans = {p: sentence_spans(t) for p, t in texts.items()}
    total = reached = entities = 0
    shares: list[float] = []
    for row in load_table(entity_list):
        names = [row.get("name", ""), *row.get("aliases", "").replace("|", ";").split(";")]
        names = [n.strip() for n in names if n.strip()]
        pages = _pages_of(kb, names)
        searched = [n for n in names if len(n) >= MIN_NAME]
        if not pages or not searched:
            continue
        cited: dict[str, list[Span]] = {}
        for page in pages:
            for src, ranges in quoted_ranges(page.text).items():
                cited.setdefault(src, []).extend(ranges)
        mine = hit = 0
        for path, text in texts.items():
            if not any(n in text for n in searched):
                continue
            for span in spans[path]:
                if any(n in text[span[0] : span[1]] for n in searched):
                    mine += 1
                    hit += _overlaps(span, cited.get(path, ()))
        if mine:
            entities += 1
            total += mine
            reached += hit
            shares.append(hit / mine)
    return {
        "file": entity_list.name,
        "documents": len(texts),
        "entities": entities,
        "mentions": total,
        "reached": reached,
        "coverage": round(reached / total, 4) if total else None,
        "mean_per_entity": round(sum(shares) / len(shares), 4) if shares else None,
    }
