"""ask(question): answers with citations — direct from a compiled page, by the LLM agent loop, or
(offline) as the few sentences of nav's evidence that best answer it, each quoted with its
citation (:mod:`wikikv.query.narrow`, :mod:`wikikv.query.sentences`).

Direct answers (L1 whitepaper): when alias/name matching and search agree on one page, that page
passed lint, and it is newer than every source it cites, its summary and facts are the answer —
``from_wiki: true``, no LLM tokens. Otherwise the question falls through.

The agent loop (LLM-Wiki paper §3.2): the model calls wiki_search / wiki_read — the only tools it
has; none writes — at most ``MAX_TOOL_CALLS`` times, stops after ``MAX_EMPTY_SEARCHES``
consecutive empty searches, and must read at least one page before it may answer. Tool results
go back as JSON data in tool messages; page text is data, never instructions, and nothing in it
can add a tool or lift a limit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from wikikv.errors import LLMOutputError
from wikikv.llm.prompts import (
    AGENT_TOOLS,
    ANSWER_SCHEMA,
    DATA_POLICY,
    context_block,
    role,
)
from wikikv.llm.types import ChatMessage, ChatProvider, ToolCall
from wikikv.query.budget import Budget
from wikikv.query.focus import relation_asked
from wikikv.query.narrow import focused_sentences
from wikikv.query.nav import ModelNeedsDeeper, NavResult, classify, nav
from wikikv.query.ops import wiki_read, wiki_search
from wikikv.query.sentences import (
    Sentence,
    answer_text,
    best_sentences,
    definitional,
    definitional_subject,
    page_sentences,
    question_terms,
)
from wikikv.search import search, tokenize
from wikikv.search.tokenize import present_terms
from wikikv.store.access_stats import query_scope
from wikikv.store.kb import KnowledgeBase
from wikikv.store.keys import fold_name
from wikikv.store.records import FileRecord

MAX_TOOL_CALLS = 15
MAX_EMPTY_SEARCHES = 3
MAX_TURNS = 24  # model turns, including ones that made no valid call
TOOL_RESULT_CHARS = 6000


@dataclass
class Citation:
    path: str
    quote: str = ""
    chars: str = ""  # "a-b": the quote's character range in ``path``, when known


@dataclass
class Answer:
    question: str
    answer: str
    mode: str  # "direct", "agent", "llm" (the answer role over nav evidence) or "evidence"
    from_wiki: bool = False
    citations: list[Citation] = field(default_factory=list)
    evidence: list[NavResult] = field(default_factory=list)
    tool_calls: int = 0
    pages_read: list[str] = field(default_factory=list)
    llm_calls: int = 0
    tokens: int = 0
    elapsed_ms: float = 0.0
    stopped_because: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "mode": self.mode,
            "from_wiki": self.from_wiki,
            "citations": [
                {"path": c.path, "quote": c.quote, "chars": c.chars} for c in self.citations
            ],
            "evidence": [r.to_dict() for r in self.evidence],
            "tool_calls": self.tool_calls,
            "pages_read": self.pages_read,
            "llm_calls": self.llm_calls,
            "tokens": self.tokens,
            "elapsed_ms": round(self.elapsed_ms, 3),
            "stopped_because": self.stopped_because,
        }


# ------------------------------------------------------------------ direct
@dataclass
class Vote:
    """The direct-answer vote (L1 whitepaper): ``named`` is the one page whose name or alias
    the question contains, ``top`` the search's first page; ``page`` the winner, if any, and
    what the LLM tie-break cost (it is called only when the two disagree)."""

    page: FileRecord | None = None
    named: str = ""
    top: str = ""
    llm_calls: int = 0
    tokens: int = 0
    reason: str = ""
    other_names: set[str] = field(default_factory=set)  # names of every page the question names


TieBreak = Callable[[str, list[FileRecord]], tuple[str | None, int]]


def vote(kb: KnowledgeBase, question: str, tie_break: TieBreak | None = None) -> Vote:
    """Name/alias match and search agreement; when they name different pages, ``tie_break``
    (the LLM; one call) chooses between the two, or neither. Without it a disagreement has no
    winner. The winner must still be fit to answer from (lint passed, newer than its sources)."""
    # A direct answer is a page: directory listings are no candidates (``dir_limit=0``; a
    # listing is scored against the listings alone, so its score does not rank it among pages),
    # nor are source texts.
    hits = search(kb, question, limit=5, dir_limit=0)
    hits = [h for h in hits if not h.path.startswith("/sources")]
    if not hits:
        return Vote(reason="no page found")
    folded_q = fold_name(question)
    named: list[FileRecord] = []
    records: dict[str, FileRecord] = {}
    for hit in hits:
        rec = kb.get(hit.path)
        if not isinstance(rec, FileRecord):
            continue
        records[hit.path] = rec
        names = [rec.meta.title, *rec.meta.aliases]
        if any(n and len(fold_name(n)) >= 2 and fold_name(n) in folded_q for n in names):
            named.append(rec)
    top = records.get(hits[0].path)
    out = Vote(top=hits[0].path, named=named[0].path if len(named) == 1 else "")
    out.other_names = {n for rec in named for n in (rec.meta.title, *rec.meta.aliases) if n}
    if len(named) != 1 or top is None:
        out.reason = "no single page is named" if len(named) != 1 else "the top hit is gone"
        return out
    if named[0].path == top.path:
        out.page, out.reason = top, "name and search agree"
    elif tie_break is None:
        out.reason = "name and search disagree; no LLM to break the tie"
        return out
    else:
        choice, tokens = tie_break(question, [named[0], top])
        out.llm_calls, out.tokens = 1, tokens
        if choice is None:
            out.reason = "name and search disagree; the LLM chose neither"
            return out
        out.page = named[0] if choice == named[0].path else top
        out.reason = f"name and search disagree; the LLM chose {choice}"
    if not _fit(kb, out.page):
        out.page, out.reason = None, out.reason + "; the page is not fit to answer from"
    return out


def _fit(kb: KnowledgeBase, page: FileRecord) -> bool:
    """Lint passed and newer than every source it cites."""
    if page.meta.lint_status != "passed":
        return False
    compiled = page.meta.compiled_at or page.meta.updated_at  # lint writes keep compiled_at
    for src in page.meta.sources:
        source = kb.get(src)
        if source is None or (isinstance(source, FileRecord) and source.meta.updated_at > compiled):
            return False
    return True


def direct_page(kb: KnowledgeBase, question: str) -> FileRecord | None:
    """The one page the question maps to, when name matching and search agree and the page is
    fit to answer from (lint passed, newer than its sources); else None."""
    return vote(kb, question).page


def llm_tie_break(provider: object) -> TieBreak | None:
    """The LLM's tie-break over a provider with JSON completions (None without one)."""
    if getattr(provider, "complete_json", None) is None:
        return None

    def choose(question: str, pages: list[FileRecord]) -> tuple[str | None, int]:
        from wikikv.llm.query_roles import tie_break

        docs = [
            (p.path, f"{p.meta.title or p.name}\n{p.meta.summary}\n\n{p.text[:4000]}")
            for p in pages
        ]
        try:
            choice, usage = tie_break(provider, question, docs)  # type: ignore[arg-type]
        except LLMOutputError:
            return None, 0  # no decision: fall through to the full answer path
        return choice, usage.total_tokens

    return choose


def _direct(
    kb: KnowledgeBase,
    page: FileRecord,
    question: str,
    started: float,
    named: Iterable[str] = (),
) -> Answer | None:
    """The page's answer: its sentences holding what the question asks besides the page's name;
    its summary when the question asks only about the subject ("Who is X?"); None (fall
    through to the evidence) when the question asks more and no sentence of the page holds it."""
    if relation_asked(question) is not None:
        return None  # "X的儿子…": the answer is X's relative, not what X's page says of X
    on_page = page_sentences(page.path, page.text, "entity", 0)
    defined = _definition(page, question, on_page)
    if defined is not None:
        return Answer(
            question=question,
            answer=answer_text([defined]),
            mode="direct",
            from_wiki=True,
            citations=[Citation(page.path), *_citations(kb, [defined])],
            pages_read=[page.path],
            elapsed_ms=(time.perf_counter() - started) * 1000,
            stopped_because="direct answer: the sentence that says what the subject is",
        )
    best = best_sentences(question, on_page)
    names = {t for n in (page.meta.title, *page.meta.aliases, *named) for t in tokenize(n)}
    asked = question_terms(question) - names
    if asked:
        best = [s for s in best if present_terms(asked, s.text)]
        covered = set().union(*(present_terms(asked, s.text) for s in best)) if best else set()
        if len(covered) < len(asked):
            # The page holds only part of what the question asks besides the names in it
            # ("Where was the director of X born?" on X's page): the rest is elsewhere, which
            # the evidence path looks for across the kb.
            return None
    if best:
        text, cites = answer_text(best), _citations(kb, best)
    else:  # the page answers by being about the subject: its summary, never a heading
        text = next((s.text for s in page_sentences(page.path, page.meta.summary, "entity", 0)), "")
        cites = [Citation(s) for s in page.meta.sources]
    return Answer(
        question=question,
        answer=text,
        mode="direct",
        from_wiki=True,
        citations=[Citation(page.path), *cites],
        pages_read=[page.path],
        elapsed_ms=(time.perf_counter() - started) * 1000,
        stopped_because="direct answer",
    )


def _definition(page: FileRecord, question: str, on_page: list[Sentence]) -> Sentence | None:
    """For "X是谁？" / "Who is X?" about this page's subject: the sentence that says what X is —
    the page's summary when it is one (the compiler makes the defining sentence the summary),
    else the best defining sentence among the page's own; None for other questions."""
    subject = definitional_subject(question)
    names = [n for n in (page.meta.title, *page.meta.aliases) if n]
    if subject is None or fold_name(subject) not in {fold_name(n) for n in names}:
        return None
    summary = page_sentences(page.path, page.meta.summary, "entity", 0)
    return definitional(summary, names) or definitional(on_page, names)


# ----------------------------------------------------------------- offline
def _citations(kb: KnowledgeBase, sentences: list[Sentence]) -> list[Citation]:
    """Each sentence with its source and range — when the reader may read that source (one
    batched read; a kb view with path ACLs finds nothing outside them); else with the page the
    sentence was read on, which nav already showed."""
    cited = sorted({s.source for s in sentences if s.source != s.found_on})
    readable = {p for p, rec in zip(cited, kb.get_many(cited), strict=True) if rec is not None}
    out = []
    for s in sentences:
        if s.source == s.found_on or s.source in readable:
            out.append(Citation(s.source, s.text, f"{s.chars[0]}-{s.chars[1]}" if s.chars else ""))
        else:
            out.append(Citation(s.found_on, s.text))
    return out


def evidence_answer(
    kb: KnowledgeBase,
    question: str,
    budget: Budget,
    started: float,
    results: list[NavResult] | None = None,
) -> Answer:
    """Offline: the few sentences of nav's evidence (``results``, else a nav run) that best
    answer the question, each quoted with its citation — or no answer, said so, when no
    sentence holds a question term."""
    if results is None:
        results = list(nav(kb, question, budget))
    candidates = [
        s
        for i, r in enumerate(results)
        if r.granularity >= 2
        for s in page_sentences(r.path, r.text, r.level, i)
    ]
    best = focused_sentences(kb, question, results, candidates, budget)
    spent = "budget spent" if not budget.allows() else "evidence gathered"
    return Answer(
        question=question,
        answer=answer_text(best),
        mode="evidence",
        citations=_citations(kb, best),
        evidence=results,
        pages_read=[r.path for r in results],
        elapsed_ms=(time.perf_counter() - started) * 1000,
        stopped_because=(
            f"{spent}; {len(best)} sentence(s) from {len(candidates)} candidates"
            if best
            else f"{spent}; no sentence of the evidence answers the question"
        ),
    )


# ------------------------------------------------------------------- model
EVIDENCE_PAGES = 8
EVIDENCE_CHARS = 4000


def model_answer(kb: KnowledgeBase, question: str, llm: Any, budget: Budget) -> Answer:
    """nav with the model's NeedsDeeper (charged to ``budget``), then the provider's answer over
    the gathered evidence, citations checked against what was read (a quote must occur in the
    page it cites). No checked citation, no budget left, or insufficient evidence: nav's
    cited evidence instead, said so."""
    from wikikv.llm.query_roles import answer as answer_role

    started = time.perf_counter()
    judge = ModelNeedsDeeper(llm)
    results = list(nav(kb, question, budget, needs_deeper=judge))
    evidence = [(r.path, r.text[:EVIDENCE_CHARS]) for r in results if r.granularity >= 2]
    evidence = evidence[:EVIDENCE_PAGES]
    calls, tokens = judge.calls, judge.usage.total_tokens
    why = "no evidence read"
    if evidence and budget.allows(reads=0, llm_calls=1):
        budget.charge(llm_calls=1)
        checked = None
        try:
            checked, usage = answer_role(llm, question, evidence)
        except LLMOutputError as exc:
            why = f"LLM failed: {exc}"
        else:
            calls, tokens = calls + 1, tokens + usage.total_tokens
            why = (
                "the model found the evidence insufficient"
                if checked.insufficient
                else f"no citation of the model's answer checked out ({checked.dropped} dropped)"
            )
        if checked is not None and checked.text:
            return Answer(
                question=question,
                answer=checked.text,
                mode="llm",
                citations=[
                    Citation(c.path, c.quote, f"{c.start}-{c.end}") for c in checked.citations
                ],
                evidence=results,
                pages_read=[r.path for r in results],
                llm_calls=calls,
                tokens=tokens,
                elapsed_ms=(time.perf_counter() - started) * 1000,
                stopped_because=(
                    f"answered from {len(evidence)} evidence pages; {len(checked.citations)} "
                    f"citations checked, {checked.dropped} dropped; NeedsDeeper asked "
                    f"{judge.calls} times"
                ),
            )
    elif evidence:
        why = "no LLM budget left for the answer"
    fallback = evidence_answer(kb, question, budget, started, results)
    fallback.llm_calls, fallback.tokens = calls, tokens
    fallback.stopped_because = f"{why}; answered with nav evidence"
    return fallback


# ------------------------------------------------------------------- agent
class _Agent:
    def __init__(self, kb: KnowledgeBase, provider: ChatProvider, question: str) -> None:
        self.kb = kb
        self.provider = provider
        self.question = question
        self.calls = 0
        self.empty = 0
        self.read: list[str] = []
        self.llm_calls = 0
        self.tokens = 0
        prompt = role("agent")
        schema = json.dumps(ANSWER_SCHEMA, sort_keys=True)
        self.messages = [
            ChatMessage(
                "system",
                f"{prompt.system}\n\n{DATA_POLICY}\n\nYour final answer is a "
                f"JSON object valid against this schema:\n{schema}",
            ),
            ChatMessage("user", f"{prompt.instructions}\n\n{context_block('query', question)}"),
        ]

    def run(self) -> tuple[dict[str, Any] | None, str]:
        for _ in range(MAX_TURNS):
            if self.calls >= MAX_TOOL_CALLS:
                return None, f"tool-call limit ({MAX_TOOL_CALLS})"
            if self.empty >= MAX_EMPTY_SEARCHES:
                return None, f"{MAX_EMPTY_SEARCHES} empty searches in a row"
            reply, usage = self.provider.chat(self.messages, AGENT_TOOLS)
            self.llm_calls += 1
            self.tokens += usage.total_tokens
            self.messages.append(reply)
            if reply.tool_calls:
                for call in reply.tool_calls:
                    if self.calls >= MAX_TOOL_CALLS:
                        self._tool_reply(call, {"error": "tool-call limit reached; answer now"})
                        continue
                    self.calls += 1
                    self._tool_reply(call, self._run_tool(call))
                continue
            final = self._final(reply.content or "")
            if final is not None:
                return final, "answered"
        return None, f"turn limit ({MAX_TURNS})"

    def _final(self, content: str) -> dict[str, Any] | None:
        if not self.read:
            self.messages.append(
                ChatMessage("user", "Read at least one page with wiki_read before answering.")
            )
            return None
        from wikikv.llm.schema import validate  # jsonschema: only the agent needs it

        try:
            data = json.loads(content)
            problems = validate(data, ANSWER_SCHEMA)
        except ValueError as exc:
            problems = [str(exc)]
        if problems:
            self.messages.append(
                ChatMessage(
                    "user",
                    f"That answer is not valid JSON for the schema ({'; '.join(problems)[:300]}). "
                    "Reply with the JSON object only.",
                )
            )
            return None
        return data  # type: ignore[no-any-return]

    def _tool_reply(self, call: ToolCall, result: dict[str, Any]) -> None:
        text = json.dumps(result, ensure_ascii=False)
        if len(text) > TOOL_RESULT_CHARS:
            text = text[:TOOL_RESULT_CHARS] + '…"}'
        self.messages.append(ChatMessage("tool", text, tool_call_id=call.id, name=call.name))

    def _run_tool(self, call: ToolCall) -> dict[str, Any]:
        try:
            args = call.parsed_arguments()
        except LLMOutputError as exc:
            return {"error": str(exc)}
        if call.name == "wiki_search":
            query = args.get("query")
            if not isinstance(query, str) or not query.strip():
                return {"error": "wiki_search needs a non-empty string 'query'"}
            hits = wiki_search(self.kb, query[:500], limit=8)
            self.empty = 0 if hits else self.empty + 1
            return {"data": hits}
        if call.name == "wiki_read":
            paths = args.get("paths")
            if (
                not isinstance(paths, list)
                or not paths
                or not all(isinstance(p, str) for p in paths)
            ):
                return {"error": "wiki_read needs 'paths', a non-empty list of strings"}
            try:
                pages = wiki_read(self.kb, paths[:20])
            except Exception as exc:  # noqa: BLE001 - bad paths are the model's error, reported back
                return {"error": f"wiki_read failed: {exc}"}
            self.read.extend(p for p in paths[:20] if p not in self.read)
            return {"data": pages}
        return {"error": f"unknown tool {call.name!r}; the tools are wiki_search and wiki_read"}


def ask(
    kb: KnowledgeBase,
    question: str,
    provider: ChatProvider | None = None,
    budget: Budget | None = None,
    *,
    allow_direct: bool = True,
    strategy: str = "agent",
) -> Answer:
    """Answer ``question``: directly from a page when safe (the LLM breaks a tie between name
    and search), else — with a provider — by the agent loop (``strategy="agent"``) or by the
    provider's answer over nav's evidence (``"answer"``: NeedsDeeper from the model, citations
    checked), or as nav's cited evidence (offline)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown ask strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    with query_scope(kb):  # access statistics of one query (a no-op unless recording)
        return _ask(kb, question, provider, budget, allow_direct=allow_direct, strategy=strategy)


STRATEGIES = ("agent", "answer")


def _ask(
    kb: KnowledgeBase,
    question: str,
    provider: ChatProvider | None,
    budget: Budget | None,
    *,
    allow_direct: bool,
    strategy: str,
) -> Answer:
    started = time.perf_counter()
    vote_tokens = vote_calls = 0
    # An enumeration ("哪些文章…", "Which films…") asks for a set, which one page does not hold.
    if allow_direct and classify(question) != "enumeration":
        v = vote(kb, question, llm_tie_break(provider) if provider is not None else None)
        vote_tokens, vote_calls = v.tokens, v.llm_calls
        direct = (
            _direct(kb, v.page, question, started, v.other_names) if v.page is not None else None
        )
        if direct is not None:
            direct.tokens, direct.llm_calls = v.tokens, v.llm_calls
            direct.stopped_because = f"direct answer: {v.reason}"
            return direct
    if provider is None:
        return evidence_answer(kb, question, budget or Budget(ms=200.0, max_reads=24), started)
    if strategy == "answer":
        out = model_answer(kb, question, provider, budget or Budget(ms=5000.0, max_reads=24))
        out.llm_calls += vote_calls
        out.tokens += vote_tokens
        out.elapsed_ms = (time.perf_counter() - started) * 1000
        return out
    agent = _Agent(kb, provider, question)
    try:
        final, why = agent.run()
    except LLMOutputError as exc:
        # A malformed answer falls back to nav's evidence; an unreachable provider (a transport
        # LLMError) propagates: the command fails rather than passing evidence off as an answer.
        final, why = None, f"LLM failed: {exc}"
    agent.tokens += vote_tokens
    if final is None:
        fallback = evidence_answer(kb, question, budget or Budget(ms=200.0, max_reads=24), started)
        fallback.tool_calls, fallback.llm_calls, fallback.tokens = (
            agent.calls,
            agent.llm_calls,
            agent.tokens,
        )
        fallback.stopped_because = f"agent stopped: {why}; answered with nav evidence"
        return fallback
    cites = [Citation(c["source_id"], c["quote"]) for c in final.get("citations", [])]
    return Answer(
        question=question,
        answer=final.get("answer", ""),
        mode="agent",
        citations=cites,
        tool_calls=agent.calls,
        pages_read=agent.read,
        llm_calls=agent.llm_calls,
        tokens=agent.tokens,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        stopped_because="insufficient evidence" if final.get("insufficient") else why,
    )
