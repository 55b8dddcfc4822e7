"""Content checks with an LLM (any provider with ``complete_json``): source-grounded
verification of a fact against the passage it cites, and pairwise contradiction checks of two
linked pages. Page and source text go to the model as data blocks only."""

from __future__ import annotations

import random
from typing import Any

from wikikv.errors import LLMError
from wikikv.llm.prompts import build_request
from wikikv.quality import validators as v

CONTEXT_CHARS = 400  # source text shown around the cited span
MAX_FACTS = 40


class LLMChecker:
    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.calls = 0
        self.failures = 0

    def _ask(
        self, role: str, docs: list[str], ids: list[str], context: dict[str, str]
    ) -> dict[str, Any] | None:
        request = build_request(role, docs, ids, context=context)
        try:
            value, _ = self.llm.complete_json(request)
        except LLMError:
            self.failures += 1
            return None
        finally:
            self.calls += 1
        return value if isinstance(value, dict) else None

    def supported(self, view: v.View, f: v.Finding) -> tuple[bool, str]:
        """Does the passage the fact cites state it? (No answer counts as not verified.)"""
        page = view.parsed.get(f.path)
        source = view.article(f.target) if f.target else None
        if page is None or source is None or f.n not in page.notes:
            return False, "no cited source to check against"
        note = page.notes[f.n]
        quote = next((x.quote for x in page.facts if x.n == f.n), "")
        lo = max(0, note.start - CONTEXT_CHARS)
        passage = source.text[lo : note.end + CONTEXT_CHARS]
        value = self._ask("verify_fact", [passage], [f.target], {"fact": quote})
        if value is None:
            return False, "the model gave no usable answer"
        return bool(value.get("supported")), str(value.get("reason", ""))

    def contradicts(self, view: v.View, f: v.Finding) -> tuple[bool, str]:
        """Do the two pages (one for an in-page finding) state incompatible values?"""
        paths = [f.path] + ([f.target] if f.target else [])
        docs = [_facts_text(view, p) for p in paths]
        value = self._ask("contradiction", docs, paths, {"candidate": f.detail})
        if value is None:
            return True, ""  # unverified: keep it for a person
        return bool(value.get("contradicts")), str(value.get("explanation", ""))


def _facts_text(view: v.View, path: str) -> str:
    rec = view.pages.get(path)
    page = view.parsed.get(path)
    if rec is None or page is None:
        return ""
    lines = [f"# {rec.meta.title or page.title}"]
    lines += [f"- {x.quote}" for x in page.facts[:MAX_FACTS]]
    return "\n".join(lines)


def linked_pairs(view: v.View, limit: int, seed: int = 0) -> list[tuple[str, str]]:
    """A sample of linked entity-page pairs (sampling-based consistency checks)."""
    pairs = sorted(
        {
            (min(p, t), max(p, t))
            for p, rec in view.pages.items()
            if rec.meta.kind == "entity"
            for t in rec.meta.links
            if t in view.pages and t != p
        }
    )
    rng = random.Random(seed)
    return pairs if len(pairs) <= limit else rng.sample(pairs, limit)


def pairwise(checker: LLMChecker, view: v.View, limit: int) -> list[v.Finding]:
    """Contradictions the model finds between sampled linked pages."""
    out: list[v.Finding] = []
    for a, b in linked_pairs(view, limit):
        finding = v.Finding(v.CONTRADICTION, a, "pairwise check of linked pages", b)
        agree, why = checker.contradicts(view, finding)
        if agree and why:
            out.append(v.Finding(v.CONTRADICTION, a, f"LLM: {why}"[:300], b))
    return out
