"""Grounding of a page-role answer: what the model wrote is kept only where the source holds it.

* a **key fact** is kept when its entity is one the model listed (by name or alias) and its
  quote, once unescaped (:func:`~wikikv.llm.prompts.unescape_data`), occurs verbatim in the
  stored text: its offsets are those of the first exact match (``str.find``), never the model's
  numbers; a quote across a line break is refused (a page shows each fact on one line).
  Anything else is dropped and counted by reason;
* a **link** is kept when both ends are entities the model listed and differ (whether both
  have pages is decided when the wiki is derived); its reason is kept, on one line;
* the document **summary**, the entities' **summaries** and **tags** are kept as one-line text
  (no wikilink brackets: a page shows them as plain text).

A fact the model states but cannot quote is never stored: pages show the verbatim quote with its
character range, so :mod:`wikikv.compile.check` can verify every fact line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from wikikv.llm.base import EntityNote, GroundedFact, ModelLink, PageNotes
from wikikv.llm.prompts import unescape_data

MIN_QUOTE_CHARS = 4
MAX_TAGS = 8
SUMMARY_CHARS = 300
REASON_CHARS = 200
TAG_CHARS = 60


def one_line(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, without wikilink brackets."""
    flat = " ".join(str(text).replace("[[", "[").replace("]]", "]").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _names(value: Mapping[str, Any]) -> dict[str, str]:
    """Folded name or alias → the listed entity's name."""
    out: dict[str, str] = {}
    for entity in value.get("entities", []):
        name = str(entity.get("name", "")).strip()
        if not name:
            continue
        for surface in [name, *entity.get("aliases", [])]:
            out.setdefault(" ".join(str(surface).casefold().split()), name)
    return out


def ground_page(
    text: str, value: Mapping[str, Any], selected: list[str] | None = None
) -> PageNotes:
    """The grounded part of page answer ``value`` for a document whose stored text is ``text``
    (see the module docstring)."""
    names = _names(value)
    proposed: Counter[str] = Counter()
    dropped: Counter[str] = Counter()

    facts: list[GroundedFact] = []
    seen: set[tuple[str, int, int]] = set()
    for fact in value.get("key_facts", []):
        proposed["facts"] += 1
        entity = names.get(" ".join(str(fact.get("entity", "")).casefold().split()))
        quote = unescape_data(str(fact.get("quote", "")))
        if entity is None:
            dropped["facts: entity not listed"] += 1
            continue
        if len(quote.strip()) < MIN_QUOTE_CHARS:
            dropped["facts: quote too short"] += 1
            continue
        if "\n" in quote or "\r" in quote:  # a fact line is one line; a quote across lines is not
            dropped["facts: quote spans lines"] += 1
            continue
        start = text.find(quote)
        if start < 0:
            dropped["facts: quote not in the source"] += 1
            continue
        key = (entity, start, start + len(quote))
        if key in seen:
            dropped["facts: duplicate"] += 1
            continue
        seen.add(key)
        facts.append(GroundedFact(entity, start, start + len(quote)))

    links: list[ModelLink] = []
    pairs: set[tuple[str, str]] = set()
    for link in value.get("links", []):
        proposed["links"] += 1
        source = names.get(" ".join(str(link.get("source", "")).casefold().split()))
        target = names.get(" ".join(str(link.get("target", "")).casefold().split()))
        if source is None or target is None:
            dropped["links: end not listed"] += 1
            continue
        if source == target or (source, target) in pairs:
            dropped["links: self or duplicate"] += 1
            continue
        pairs.add((source, target))
        links.append(ModelLink(source, target, one_line(link.get("reason", ""), REASON_CHARS)))

    notes: list[EntityNote] = []
    for entity in value.get("entities", []):
        name = str(entity.get("name", "")).strip()
        if not name:
            continue
        tags = list(
            dict.fromkeys(
                t for t in (one_line(tag, TAG_CHARS) for tag in entity.get("tags", [])) if t
            )
        )[:MAX_TAGS]
        notes.append(EntityNote(name, one_line(entity.get("summary", ""), SUMMARY_CHARS), tags))
    return PageNotes(
        summary=one_line(value.get("summary", ""), SUMMARY_CHARS),
        facts=facts,
        links=links,
        entities=notes,
        proposed=dict(proposed),
        dropped=dict(dropped),
        selected=list(selected or []),
    )
