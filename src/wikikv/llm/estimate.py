"""Token estimates, prices, the dry-run estimate of an LLM build, and hard budget caps.

Token counts here are estimates (no tokenizer is bundled): about four characters per token for
Latin-script text and one token per CJK character, which is close to what BPE tokenizers of the
GPT family do on English and on Chinese, erring high for Chinese. Providers use the server's own
``usage`` numbers whenever the server sends them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wikikv.errors import BudgetExceeded
from wikikv.llm.prompts import render_messages, role
from wikikv.llm.types import RoleRequest, Usage

CHARS_PER_TOKEN = 4.0
# Every chat message carries a few tokens of framing (role markers) on top of its text.
MESSAGE_OVERHEAD_TOKENS = 4


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= code <= 0x4DBF  # extension A
        or 0x3000 <= code <= 0x303F  # CJK punctuation
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0x3040 <= code <= 0x30FF  # kana
        or 0xAC00 <= code <= 0xD7AF  # hangul
        or 0x20000 <= code <= 0x2FA1F  # extensions B+
    )


def estimate_tokens(text: str) -> int:
    """Approximate token count of ``text`` (CJK: one per character; other text: chars / 4)."""
    if not text:
        return 0
    cjk = sum(1 for ch in text if _is_cjk(ch))
    return cjk + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN)


def estimate_messages_tokens(texts: Iterable[str]) -> int:
    return sum(estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS for text in texts)


def estimate_request_tokens(request: RoleRequest) -> int:
    """Estimated prompt tokens of a role call, as rendered."""
    return estimate_messages_tokens(m.content or "" for m in render_messages(request))


@dataclass(frozen=True)
class Prices:
    """Price per 1,000 tokens, in whatever currency the user thinks in (default: free)."""

    prompt_per_1k: float = 0.0
    completion_per_1k: float = 0.0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.prompt_per_1k + completion_tokens * self.completion_per_1k
        ) / 1000.0


class TokenBudget:
    """Hard caps on tokens and cost, shared by every call of a job (thread-safe).

    :meth:`check` runs before a call with that call's estimated prompt tokens and raises
    :class:`~wikikv.errors.BudgetExceeded` when the call would cross a cap, so a job stops before
    spending past it (a call in flight may still add its completion tokens: the overshoot is
    bounded by ``concurrency × max_output_tokens``). :meth:`charge` records what a call cost.
    """

    def __init__(
        self,
        max_tokens: int | None = None,
        max_cost: float | None = None,
        prices: Prices | None = None,
    ) -> None:
        if max_tokens is not None and max_tokens < 0:
            raise ValueError("max_tokens must be >= 0")
        if max_cost is not None and max_cost < 0:
            raise ValueError("max_cost must be >= 0")
        self.max_tokens = max_tokens
        self.max_cost = max_cost
        self.prices = prices or Prices()
        self._spent = Usage()
        self._lock = threading.Lock()

    @property
    def spent(self) -> Usage:
        with self._lock:
            return self._spent

    def check(self, prompt_tokens: int = 0) -> None:
        """Raise BudgetExceeded if a call of ``prompt_tokens`` would cross a cap."""
        with self._lock:
            spent = self._spent
        if self.max_tokens is not None and spent.total_tokens + prompt_tokens > self.max_tokens:
            raise BudgetExceeded(
                f"token cap reached: {spent.total_tokens} tokens spent, the next call needs "
                f"about {prompt_tokens} more, the cap is {self.max_tokens} (--max-tokens)"
            )
        extra = self.prices.cost(prompt_tokens, 0)
        if self.max_cost is not None and spent.cost + extra > self.max_cost:
            raise BudgetExceeded(
                f"cost cap reached: {spent.cost:.4f} spent, the next call costs about "
                f"{extra:.4f} more, the cap is {self.max_cost} (--max-cost)"
            )

    def charge(self, usage: Usage) -> None:
        with self._lock:
            self._spent = self._spent + usage


@dataclass(frozen=True)
class RoleEstimate:
    """What the calls of one role are predicted to cost."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "cost": self.cost,
        }


@dataclass(frozen=True)
class BuildEstimate:
    """What a dry run predicts for an LLM build (``by_role``: the same per role)."""

    documents: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float
    seconds: float
    by_role: dict[str, RoleEstimate] = field(default_factory=dict)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cost": self.cost,
            "seconds": self.seconds,
            "by_role": {r: e.to_dict() for r, e in self.by_role.items()},
        }


@dataclass(frozen=True)
class EstimateSettings:
    """Assumptions of the dry run (all explicit, all overridable).

    ``chunk_tokens``: a document longer than this is compiled in several page calls.
    A page call answers ``page_output_base + output_ratio`` × its document tokens (bounded
    below by ``min_output_tokens``, above by the role's ``max_output_tokens``): the key facts
    quote the document, the entities, links and summaries add a fixed share. These two were
    set from the scripted model of ``wikikv bench llm`` (420 + 2.2 × tokens on 2Wiki); a real
    model's answers are longer or shorter — compare a build report's per-role numbers.
    ``latency_s`` + completion tokens / ``output_tokens_per_s``: wall time of one call.
    ``sample_size``: documents in the cold-start sample (descriptor + schema calls).
    ``context_tokens``: dimensions and existing-page candidates added to every page call when
    the page prompts are not given exactly.
    ``entities_per_doc``: entity pages per document, for the section-summary calls (one per
    dimension, and one per routing sub-dimension of ``route_size`` pages once the largest
    dimension, ``largest_dimension_share`` of the pages, overflows ``fanout``). These and the
    section call sizes were measured on 2Wiki-6k (11,341 pages, 621 routing sub-dimensions of
    about 18 pages, grouped by the corpus's categories); another corpus groups differently.
    """

    chunk_tokens: int = 6000
    output_ratio: float = 2.2
    page_output_base: int = 420
    min_output_tokens: int = 150
    latency_s: float = 1.0
    output_tokens_per_s: float = 50.0
    sample_size: int = 64
    sample_tokens_per_doc: int = 400
    context_tokens: int = 300
    entities_per_doc: float = 1.85
    dimensions: int = 6
    route_size: int = 18
    fanout: int = 256
    largest_dimension_share: float = 0.4
    section_prompt_tokens: int = 800
    section_output_tokens: int = 150
    corpus_prompt_tokens: int = 1200


def document_tokens(texts: Iterable[str]) -> list[int]:
    """Estimated tokens of each document (feed the result to :func:`estimate_build`)."""
    return [estimate_tokens(text) for text in texts]


class _Tally:
    def __init__(self, prices: Prices, cfg: EstimateSettings) -> None:
        self.prices = prices
        self.cfg = cfg
        self.roles: dict[str, list[float]] = {}
        self.seconds = 0.0

    def add(self, role_name: str, prompt: int, completion: int, calls: int = 1) -> None:
        row = self.roles.setdefault(role_name, [0, 0, 0])
        row[0] += calls
        row[1] += prompt
        row[2] += completion
        self.seconds += calls * self.cfg.latency_s + completion / self.cfg.output_tokens_per_s

    def scale(self, role_name: str, share: float) -> None:
        row = self.roles.get(role_name)
        if row is not None:
            self.seconds -= (1 - share) * (
                row[0] * self.cfg.latency_s + row[2] / self.cfg.output_tokens_per_s
            )
            self.roles[role_name] = [
                round(row[0] * share),
                int(row[1] * share),
                int(row[2] * share),
            ]

    def result(self, documents: int, concurrency: int) -> BuildEstimate:
        by_role = {
            name: RoleEstimate(int(c), int(p), int(o), self.prices.cost(int(p), int(o)))
            for name, (c, p, o) in self.roles.items()
        }
        prompt = sum(e.prompt_tokens for e in by_role.values())
        completion = sum(e.completion_tokens for e in by_role.values())
        return BuildEstimate(
            documents=documents,
            calls=sum(e.calls for e in by_role.values()),
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=self.prices.cost(prompt, completion),
            seconds=self.seconds / concurrency,
            by_role=by_role,
        )


def estimate_build(
    doc_tokens: Sequence[int],
    prices: Prices | None = None,
    concurrency: int = 4,
    settings: EstimateSettings | None = None,
    cached: int = 0,
    page_prompts: Sequence[int] | None = None,
    sample_tokens: int | None = None,
) -> BuildEstimate:
    """Dry-run estimate of an LLM build of documents of ``doc_tokens`` tokens each: the two
    cold-start calls on a sample, one page call per chunk of each document, and the section
    and corpus summaries. ``page_prompts``: the exact prompt tokens of each document's page
    call (rendered by the caller), used instead of the generic prompt plus
    ``context_tokens``; ``sample_tokens``: the tokens of the cold-start sample as the
    descriptor and schema roles read it. ``cached`` page calls are already in the response
    cache and cost nothing."""
    prices = prices or Prices()
    cfg = settings or EstimateSettings()
    if concurrency < 1:
        raise ValueError("concurrency must be >= 1")
    if page_prompts is not None and len(page_prompts) != len(doc_tokens):
        raise ValueError("page_prompts and doc_tokens differ in length")
    tally = _Tally(prices, cfg)
    page = role("page")
    overhead = estimate_request_tokens(
        RoleRequest("page", page.system, [], page.instructions, page.schema)
    )
    for i, tokens in enumerate(doc_tokens):
        chunks = max(1, math.ceil(tokens / cfg.chunk_tokens))
        for c in range(chunks):
            size = min(cfg.chunk_tokens, tokens - c * cfg.chunk_tokens) if tokens else 0
            out = min(
                page.max_output_tokens,
                max(cfg.min_output_tokens, cfg.page_output_base + int(size * cfg.output_ratio)),
            )
            if page_prompts is not None and chunks == 1:
                prompt = page_prompts[i]
            else:
                prompt = overhead + cfg.context_tokens + size
            tally.add("page", prompt, out)
    calls = sum(max(1, math.ceil(t / cfg.chunk_tokens)) for t in doc_tokens)
    if calls and cached:
        tally.scale("page", max(0.0, 1.0 - min(cached, calls) / calls))
    if doc_tokens:
        sample = (
            sample_tokens
            if sample_tokens is not None
            else min(len(doc_tokens), cfg.sample_size) * cfg.sample_tokens_per_doc
        )
        for name in ("descriptor", "schema"):
            cold = role(name)
            tally.add(
                name,
                sample + estimate_tokens(cold.system + cold.instructions) + 400,
                cold.max_output_tokens // 2,
            )
        # one section per dimension, and a routing level once a dimension overflows the bound
        entities = len(doc_tokens) * cfg.entities_per_doc
        largest = entities * cfg.largest_dimension_share
        routed = math.ceil(entities / cfg.route_size) if largest > cfg.fanout else 0
        sections = cfg.dimensions + routed
        tally.add(
            "section",
            sections * cfg.section_prompt_tokens,
            sections * cfg.section_output_tokens,
            calls=sections,
        )
        tally.add("corpus", cfg.corpus_prompt_tokens, role("corpus").max_output_tokens // 2)
    return tally.result(len(doc_tokens), concurrency)
