"""The query-time roles over any :class:`~wikikv.llm.types.Provider`: NeedsDeeper, the cited
answer, and the direct-answer tie-break. Each returns what the model said, checked, with what
the call cost, so the caller can charge its budget.

The answer's citations are checked against what was read: a citation is kept only when its
``source_id`` is one of the evidence paths and its quote occurs verbatim in that evidence (its
character range is then known); the rest are dropped and counted. An answer left without a
checked citation is not an answer.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from wikikv.llm.prompts import TIE_BREAK_SCHEMA, build_request, unescape_data
from wikikv.llm.types import Provider, Usage

NEITHER = "neither"


@dataclass(frozen=True)
class CheckedCitation:
    path: str
    quote: str
    start: int
    end: int


@dataclass
class CheckedAnswer:
    """The model's answer with its checked citations; ``text`` is empty when the model said the
    evidence is insufficient or no citation survived the check."""

    text: str
    citations: list[CheckedCitation] = field(default_factory=list)
    dropped: int = 0
    insufficient: bool = False


def needs_deeper(llm: Provider, query: str, page_text: str) -> tuple[bool, Usage]:
    """True when the page does not cover ``query`` and nav should go one level deeper."""
    request = build_request("needs_deeper", [page_text], ["page"], context={"query": query})
    value, usage = llm.complete_json(request)
    return bool(value["needs_deeper"]), usage


def answer(
    llm: Provider, query: str, evidence: Sequence[tuple[str, str]]
) -> tuple[CheckedAnswer, Usage]:
    """A cited answer from (path, text) evidence, citations checked (module docstring)."""
    paths = [path for path, _ in evidence]
    texts = dict(evidence)
    request = build_request("answer", [t for _, t in evidence], paths, context={"query": query})
    value, usage = llm.complete_json(request)
    if value["insufficient"]:
        return CheckedAnswer("", insufficient=True), usage
    kept: list[CheckedCitation] = []
    dropped = 0
    for citation in value["citations"]:
        path = citation["source_id"]
        quote = unescape_data(citation["quote"])
        at = texts[path].find(quote) if path in texts and quote.strip() else -1
        if at < 0 or any(c.path == path and c.start == at for c in kept):
            dropped += 1
            continue
        kept.append(CheckedCitation(path, quote, at, at + len(quote)))
    text = value["answer"].strip() if kept else ""
    return CheckedAnswer(text, kept, dropped), usage


def tie_break(
    llm: Provider, question: str, pages: Sequence[tuple[str, str]]
) -> tuple[str | None, Usage]:
    """Which of ``pages`` ((path, text), usually two) answers ``question`` by itself: its path,
    or None for neither."""
    paths = [path for path, _ in pages]
    schema = copy.deepcopy(TIE_BREAK_SCHEMA)
    schema["properties"]["choice"] = {"type": "string", "enum": [*paths, NEITHER]}
    request = build_request("tie_break", [t for _, t in pages], paths, context={"query": question})
    value, usage = llm.complete_json(dataclasses.replace(request, schema=schema))
    choice = value["choice"]
    return (choice if choice in paths else None), usage


def section_summary(
    llm: Provider, section: str, pages: Sequence[tuple[str, str]]
) -> tuple[str, Usage]:
    """The ``section`` role: a section summary from its pages' (path, summary) pairs."""
    request = build_request(
        "section", [t for _, t in pages], [p for p, _ in pages], context={"section": section}
    )
    value, usage = llm.complete_json(request)
    return " ".join(str(value["summary"]).split()), usage


def corpus_summary(
    llm: Provider, pages: Sequence[tuple[str, str]]
) -> tuple[list[tuple[str, list[str]]], int, Usage]:
    """The ``corpus`` role: claims, each with the pages it cites. A claim citing a page that was
    not given, or none, is dropped (the count is returned)."""
    paths = [p for p, _ in pages]
    request = build_request("corpus", [t for _, t in pages], paths)
    value, usage = llm.complete_json(request)
    claims: list[tuple[str, list[str]]] = []
    dropped = 0
    for claim in value["claims"]:
        cited = list(dict.fromkeys(claim["sources"]))
        text = " ".join(str(claim["text"]).split())
        if not text or not cited or any(c not in paths for c in cited):
            dropped += 1
            continue
        claims.append((text, cited))
    return claims, dropped, usage
