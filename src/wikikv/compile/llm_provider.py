"""The compile pipeline's provider (:class:`~wikikv.llm.base.CompileProvider`) backed by an LLM
(it lives with the compiler: it builds on the extractive analysis, and llm/ imports no compiler).

The roles ask the model through role calls (:mod:`wikikv.llm.prompts`; see docs/llm.md):

* ``descriptor`` and ``schema`` — IASI: the descriptor from the sample's texts, then the
  scaffold, checked against the fan-out and depth bounds and sent back once with its problems
  (:mod:`wikikv.llm.scaffold`);
* ``entities`` — the ``page`` role, with SelectPages' existing pages (:meth:`use_existing`) and
  the open Error Book constraints in the prompt: the model's names become mentions at every
  exact occurrence in the stored text (merged with the extractive mentions so the corpus
  gazetteer's links are never lost), and the rest of its answer is grounded
  (:mod:`wikikv.llm.grounding`) into ``EntitiesOut.page``;
* ``needs_deeper``, ``answer``, ``section_summary``, ``corpus_summary`` — the query-time and
  summary roles of :mod:`wikikv.llm.query_roles`.

``digest`` stays extractive (ranked sentences with exact offsets). Calls are accounted per role
(:meth:`usage_by_role`) and per document (:meth:`usage_by_document`).

A model answer that stays malformed after the provider's retries raises
:class:`~wikikv.errors.LLMOutputError` (the pipeline reports the document and writes nothing for
it), or, with ``fallback_on_output_error``, is replaced by the extractive analysis and recorded
in ``failures``. Providers hold HTTP clients and locks: run LLM builds on threads (the HTTP provider's
``map_concurrent`` or a thread pool), not in worker processes.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from wikikv.config import FANOUT_BOUND, MAX_DEPTH
from wikikv.errors import LLMOutputError, WikiKVError
from wikikv.llm import query_roles
from wikikv.llm.base import (
    Answer,
    Descriptor,
    DocInput,
    EntitiesOut,
    MentionOut,
    Scaffold,
    SentenceSpan,
)
from wikikv.llm.extractive import ExtractiveProvider
from wikikv.llm.grounding import ground_page
from wikikv.llm.page_prompt import (
    SAMPLE_CHARS,
    ExistingPage,
    kinds_block,
    page_request,
    scaffold_schema,
)
from wikikv.llm.prompts import ROLES, build_request
from wikikv.llm.scaffold import scaffold_problems, to_scaffold
from wikikv.llm.types import JSONObject, Provider, RoleRequest, Usage
from wikikv.text import entities as ents

if TYPE_CHECKING:
    from wikikv.llm.openai_compat import RoleResult


class LLMCompileProvider(ExtractiveProvider):
    """CompileProvider over any :class:`~wikikv.llm.types.Provider` (see the module docstring).

    It *is* an :class:`ExtractiveProvider` (the structural roles, the corpus gazetteer given by
    ``use_titles`` and Chinese POS tags are the extractive ones), so the pipeline drives it
    exactly like the offline provider. The pipeline analyses documents one by one; call
    :meth:`prefetch` on a chunk first to run its LLM calls concurrently.
    """

    def __init__(
        self, llm: Provider, max_doc_chars: int = 24_000, fallback_on_output_error: bool = False
    ) -> None:
        """``fallback_on_output_error``: when the model's answer for a document stays malformed
        or refused after the retries, use the extractive analysis for that document and record
        the failure in :attr:`failures` (the build goes on and reports it) instead of raising
        LLMOutputError. Transport failures (LLMError) and BudgetExceeded always raise."""
        super().__init__()
        self.fallback_on_output_error = fallback_on_output_error
        self.failures: dict[str, str] = {}
        self.llm = llm
        self.name = llm.name
        self.prompt_version = ROLES["page"].full_version
        self.max_doc_chars = max_doc_chars
        self._usage = Usage()
        self._lock = threading.Lock()
        self._ready: dict[tuple[str, str], JSONObject] = {}
        self._by_role: dict[str, Usage] = {}
        self._by_doc: dict[str, Usage] = {}
        self._existing: dict[str, list[ExistingPage]] = {}
        self._sample: list[DocInput] = []
        # The open Error Book rules, set by the pipeline before each sync (wikikv.quality).
        self.constraints: list[str] = []

    def _call(self, request: RoleRequest, doc_id: str = "") -> JSONObject:
        value, usage = self.llm.complete_json(request)
        self._add_usage(usage, request.role, doc_id)
        return value

    def _add_usage(self, usage: Usage, role: str = "", doc_id: str = "") -> None:
        with self._lock:
            self._usage = self._usage + usage
            if role:
                self._by_role[role] = self._by_role.get(role, Usage()) + usage
            if doc_id:
                self._by_doc[doc_id] = self._by_doc.get(doc_id, Usage()) + usage

    def usage(self) -> Usage:
        with self._lock:
            return self._usage

    def usage_by_role(self) -> dict[str, Usage]:
        """What the calls of each role cost so far."""
        with self._lock:
            return dict(self._by_role)

    def usage_by_document(self) -> dict[str, Usage]:
        """What the page calls of each document cost so far."""
        with self._lock:
            return dict(self._by_doc)

    def use_existing(self, selected: Mapping[str, Sequence[ExistingPage]]) -> None:
        """SelectPages' choices for the documents about to be compiled: document id → the
        existing pages (at most k) its passage touches; they go into its page prompt."""
        with self._lock:
            self._existing.update({doc_id: list(pages) for doc_id, pages in selected.items()})

    def _page_request(self, doc: DocInput) -> RoleRequest:
        with self._lock:
            existing = self._existing.get(doc.id, [])
        return page_request(
            doc.id, doc.title, doc.text, existing, self.constraints, self.max_doc_chars
        )

    def prefetch(self, docs: Sequence[DocInput]) -> dict[str, WikiKVError]:
        """Run the page calls of ``docs`` concurrently (the LLM provider's ``map_concurrent``
        when it has one), keeping the answers for the :meth:`entities` calls that follow.
        Returns the failures by document id (those documents fail again in ``entities``)."""
        requests = [self._page_request(d) for d in docs]
        mapper = getattr(self.llm, "map_concurrent", None)
        failures: dict[str, WikiKVError] = {}
        if mapper is None:
            for doc, request in zip(docs, requests, strict=True):
                try:
                    self._keep(doc, self._call(request, doc.id))
                except WikiKVError as exc:
                    failures[doc.id] = exc
            return failures
        results: list[RoleResult] = mapper(requests)
        for doc, result in zip(docs, results, strict=True):
            self._add_usage(result.usage, "page", doc.id)
            if result.value is not None:
                self._keep(doc, result.value)
            elif result.error is not None:
                failures[doc.id] = result.error
        return failures

    def _keep(self, doc: DocInput, value: JSONObject) -> None:
        with self._lock:
            self._ready[doc.id, doc.text] = value

    # --- roles -------------------------------------------------------------------------------

    def descriptor(
        self,
        sample: Sequence[DocInput],
        kinds: dict[str, int],
        top_entities: Sequence[str],
        documents: int,
    ) -> Descriptor:
        base = super().descriptor(sample, kinds, top_entities, documents)
        stats = {"documents": documents, "entity_kinds": kinds, "frequent_names": top_entities[:20]}
        request = build_request(
            "descriptor",
            [f"{d.title}\n{d.text[:SAMPLE_CHARS]}" for d in sample],
            [d.id for d in sample],
            context={"statistics": json.dumps(stats, ensure_ascii=False)},
        )
        value = self._call(request)
        self._sample = list(sample)
        return Descriptor(
            about=value["about"],
            audience=value["audience"],
            bias=value["bias"],
            language=base.language,
            documents=documents,
            sample_size=len(sample),
            kinds=dict(kinds),
            top_entities=base.top_entities,
            top_terms=base.top_terms,
            compiled_by=self.name,
            prompt_version=request.prompt_version,
        )

    def schema(
        self,
        descriptor: Descriptor,
        kinds: dict[str, int],
        fanout: int = FANOUT_BOUND,
        max_depth: int = MAX_DEPTH,
    ) -> Scaffold:
        """The scaffold from the ``schema`` role, checked against the bounds
        (:mod:`wikikv.llm.scaffold`); a broken answer is sent back once with what is wrong.
        Still broken: LLMOutputError, or the extractive scaffold with
        ``fallback_on_output_error`` (recorded in :attr:`failures`)."""
        about = {
            "about": descriptor.about,
            "audience": descriptor.audience,
            "bias": descriptor.bias,
            "language": descriptor.language,
            "entity_kinds_in_sample": kinds,
        }
        context = {
            "descriptor": json.dumps(about, ensure_ascii=False),
            "entity_types": kinds_block(),
        }
        sample = self._sample
        problems: list[str] = []
        for _attempt in range(2):
            if problems:
                context["errors"] = "Your previous answer was rejected:\n" + "\n".join(
                    f"- {p}" for p in problems
                )
            request = build_request(
                "schema",
                [f"{d.title}\n{d.text[:SAMPLE_CHARS]}" for d in sample],
                [d.id for d in sample],
                context=context,
                params={"max_dimensions": max(1, fanout - 1)},
            )
            value = self._call(dataclasses.replace(request, schema=scaffold_schema()))
            problems = scaffold_problems(value, fanout, max_depth)
            if not problems:
                return to_scaffold(value)
        message = "the schema role's scaffold breaks the bounds: " + "; ".join(problems)
        if not self.fallback_on_output_error:
            raise LLMOutputError(message)
        with self._lock:
            self.failures["schema"] = message
        return super().schema(descriptor, kinds, fanout, max_depth)

    def entities(
        self,
        doc: DocInput,
        sentences: Sequence[SentenceSpan],
        pos: Sequence[tuple[str, str]] | None = None,
    ) -> EntitiesOut:
        base = super().entities(doc, sentences, pos)
        with self._lock:
            value = self._ready.pop((doc.id, doc.text), None)
        if value is None:
            try:
                value = self._call(self._page_request(doc), doc.id)
            except LLMOutputError as exc:
                if not self.fallback_on_output_error:
                    raise
                with self._lock:
                    self.failures[doc.id] = str(exc)
                return base
        with self._lock:
            selected = [p.path for p in self._existing.pop(doc.id, [])]
        merged = merge_mentions(doc, sentences, base, value, self.title_keys)
        page = ground_page(doc.text, value, selected)
        return EntitiesOut(merged.about_kind, merged.mentions, page)

    def needs_deeper(self, query: str, page_text: str) -> bool:
        deeper, usage = query_roles.needs_deeper(self.llm, query, page_text)
        self._add_usage(usage, "needs_deeper")
        return deeper

    def answer(self, query: str, evidence: Sequence[tuple[str, str]]) -> Answer:
        """The answer role, citations checked against ``evidence`` (paths whose quote is not
        found there are dropped; see :mod:`wikikv.llm.query_roles`)."""
        checked, usage = query_roles.answer(self.llm, query, evidence)
        self._add_usage(usage, "answer")
        cited = list(dict.fromkeys(c.path for c in checked.citations))
        return Answer(text=checked.text, citations=cited if checked.text else [])

    def section_summary(self, section: str, pages: Sequence[tuple[str, str]]) -> str:
        """A section's summary from its pages' (path, summary) pairs (the ``section`` role)."""
        text, usage = query_roles.section_summary(self.llm, section, pages)
        self._add_usage(usage, "section")
        return text

    def corpus_summary(
        self, pages: Sequence[tuple[str, str]]
    ) -> tuple[list[tuple[str, list[str]]], int]:
        """The corpus summary's claims, each citing given pages, and how many were dropped."""
        claims, dropped, usage = query_roles.corpus_summary(self.llm, pages)
        self._add_usage(usage, "corpus")
        return claims, dropped

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("an LLM provider holds HTTP clients and locks: use threads, not processes")


def merge_mentions(
    doc: DocInput,
    sentences: Sequence[SentenceSpan],
    base: EntitiesOut,
    page: JSONObject,
    title_keys: dict[str, str],
) -> EntitiesOut:
    """The extractive mentions combined with every occurrence, in the stored text, of each name
    and alias the model listed. Offsets are exact by construction (``str.find`` on the text).

    Where the model's surface has exactly the span of an extractive mention, the model's kind
    wins, and so does its key (an alias joins its entity: 周树人 → 鲁迅) unless the extractive key
    is a corpus title, which the gazetteer resolved already. Partly overlapping spans keep the
    extractive mention.
    """
    mentions = list(base.mentions)
    exact = {(m.start, m.end): i for i, m in enumerate(mentions)}
    taken = list(exact)
    titles = set(title_keys.values())
    about_kind = base.about_kind
    title_key = ents.fold(doc.title)
    title_key = title_keys.get(title_key, title_key)
    for entity in page.get("entities", []):
        kind = entity["dimension"] if entity["dimension"] in ents.KINDS else "topic"
        key = ents.fold(entity["name"])
        key = title_keys.get(key, key)
        if entity["salience"] == "about" and key == title_key:
            about_kind = kind
        surfaces = sorted({entity["name"], *entity["aliases"]}, key=len, reverse=True)
        for surface in surfaces:
            for start in _occurrences(doc.text, surface):
                end = start + len(surface)
                if (start, end) in exact:
                    old = mentions[exact[start, end]]
                    new_key = old.key if old.key in titles else key
                    mentions[exact[start, end]] = MentionOut(
                        new_key, old.surface, kind, old.sent, start, end
                    )
                    continue
                if any(start < e and s < end for s, e in taken):
                    continue
                taken.append((start, end))
                exact[start, end] = len(mentions)
                mentions.append(
                    MentionOut(key, surface, kind, _sentence_at(sentences, start), start, end)
                )
    mentions.sort(key=lambda m: (m.start, m.end))
    return EntitiesOut(about_kind=about_kind, mentions=mentions)


def _is_word_char(ch: str) -> bool:
    # Latin-script words need boundaries ("Lu" is not in "Lucky"); CJK text has no spaces.
    return ch.isalnum() and not ents.has_han(ch)


def _occurrences(text: str, surface: str) -> list[int]:
    """Start offsets of ``surface`` in ``text`` at word boundaries."""
    if len(surface.strip()) < 2:
        return []
    found: list[int] = []
    at = text.find(surface)
    while at >= 0:
        end = at + len(surface)
        before = text[at - 1] if at > 0 else " "
        after = text[end] if end < len(text) else " "
        edge_ok = not (_is_word_char(surface[0]) and _is_word_char(before)) and not (
            _is_word_char(surface[-1]) and _is_word_char(after)
        )
        if edge_ok:
            found.append(at)
        at = text.find(surface, at + 1 if not edge_ok else end)
    return found


def _sentence_at(sentences: Sequence[SentenceSpan], pos: int) -> int:
    for i, span in enumerate(sentences):
        if pos < span.end:
            return i
    return max(0, len(sentences) - 1)
