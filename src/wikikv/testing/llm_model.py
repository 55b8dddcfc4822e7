"""A scripted *model* for the loopback server: role-aware answers shaped like a real model's.

:func:`model_reply` answers each role the way a capable model would, deterministically, from the
request's own data blocks — and, like a real model, it is not always right: every
``INVENT_EVERY``-th key fact carries a quote that is not in the document (a paraphrase with a
made-up detail), so grounding has something to drop, and the corpus summary carries one claim
citing a page it was not given. Section summaries join the pages' summaries with a few words of
its own (a small synthesized share). The benchmark (``wikikv bench llm``) and
the LLM-mode tests run on it; it says nothing about how accurate a real model's answers are.
"""

from __future__ import annotations

import re

from wikikv.testing.llm_server import (
    JSON,
    RecordedRequest,
    Reply,
    auto_reply,
    counted_json,
    role_of,
)

INVENT_EVERY = 4
MAX_FACTS = 8
MAX_ENTITIES = 8
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")
_NAME = re.compile(r"\b[A-Z][\w'-]+(?:\s+(?:of\s+|de\s+|von\s+)?[A-Z][\w'-]+)+")
_CONTEXT = re.compile(r'<context name="([^"]*)">\n(.*?)\n</context>', re.DOTALL)
_PERSON = re.compile(r"\b(born|died|actor|actress|writer|singer|politician|he|she|his|her)\b")
_WORK = re.compile(r"\b(film|album|novel|song|book|series|movie|play)\b", re.IGNORECASE)
_PLACE = re.compile(r"\b(city|village|town|country|river|county|district|region)\b")


def contexts(request: RecordedRequest) -> dict[str, str]:
    """The request's ``<context>`` blocks by name."""
    return dict(_CONTEXT.findall(request.text_of("user")))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if len(s.strip()) > 3]


def _kind(text: str, allowed: list[str]) -> str:
    for kind, pattern in (("work", _WORK), ("place", _PLACE), ("person", _PERSON)):
        if kind in allowed and pattern.search(text):
            return kind
    return "topic" if "topic" in allowed else allowed[0]


def page_answer(title: str, text: str, allowed: list[str]) -> JSON:
    """The page role's answer for one document (see the module docstring)."""
    sents = sentences(text)
    lead = sents[0] if sents else text[:200]
    names = [title] if title else []
    for match in _NAME.finditer(text):
        name = match.group(0)
        if name not in names and len(names) < MAX_ENTITIES:
            names.append(name)
    entities: list[JSON] = []
    for i, name in enumerate(names):
        where = next((s for s in sents if name in s), lead)
        if i == 0:
            kind = _kind(lead, allowed)
        elif "person" in allowed and len(name.split()) in (2, 3):
            kind = "person"
        else:
            kind = _kind(where, allowed)
        entities.append(
            {
                "name": name,
                "dimension": kind,
                "aliases": [],
                "salience": "about" if i == 0 else "mentions",
                "summary": "" if i == 0 else where[:300],
                "tags": [kind],
                "existing_path": "",
            }
        )
    facts: list[JSON] = []
    for i, sent in enumerate(sents[:MAX_FACTS]):
        who = next((n for n in names[1:] if sent.startswith(n)), names[0] if names else "")
        if not who:
            break
        quote = sent
        if (i + 1) % INVENT_EVERY == 0:  # a detail the document does not state
            quote = sent.rstrip(".!?") + ", according to later accounts."
        facts.append({"entity": who, "fact": sent[:400], "quote": quote[:600]})
    links = [
        {"source": names[0], "target": n, "reason": f"named in the article on {names[0]}"[:200]}
        for n in names[1:6]
    ]
    return {"summary": lead[:300], "entities": entities, "key_facts": facts, "links": links}


def model_reply(request: RecordedRequest) -> Reply:
    """A role-aware answer (see the module docstring); roles it does not shape get
    :func:`~wikikv.testing.llm_server.auto_reply`."""
    schema = request.schema or {}
    role = role_of(schema)
    docs = request.documents
    if role == "page" and docs:
        ctx = contexts(request)
        dim = schema["properties"]["entities"]["items"]["properties"]["dimension"]
        allowed = list(dim.get("enum") or ["topic"])
        return counted_json(request, page_answer(ctx.get("title", ""), docs[0][1], allowed))
    if role == "section" and docs:
        used = docs[:3]
        summary = "This section covers " + "; ".join(t for _, t in used)
        return counted_json(request, {"summary": summary[:600], "sources": [i for i, _ in used]})
    if role == "corpus" and docs:
        claims: list[JSON] = [
            {"text": t.split(": ", 1)[-1][:300], "sources": [i]} for i, t in docs[:6]
        ]
        # like a real model, one claim cites a page it was not given: the check drops it
        claims.append({"text": "The corpus also covers other subjects.", "sources": ["/invented"]})
        return counted_json(request, {"claims": claims})
    return auto_reply(request)
