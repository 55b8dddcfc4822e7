"""``wikikv build --dry-run``: what a build would cost, without calling anything.

The corpus is read and filtered exactly as a build would (same ingest, same low-information
filter), then :func:`wikikv.llm.estimate.estimate_build` predicts the LLM calls, tokens, cost
and wall time from the kept documents' token counts. The offline provider makes no call, so
its estimate is zero calls and zero cost. Nothing is written and no store is opened: documents
an existing kb already holds unchanged would be skipped by the real build, so for a rebuild the
estimate is an upper bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikikv.compile.filter import filter_documents
from wikikv.compile.ingest import read_corpus
from wikikv.compile.schema import SAMPLE_SIZE, sample_documents
from wikikv.llm.base import DocInput
from wikikv.llm.estimate import (
    BuildEstimate,
    Prices,
    document_tokens,
    estimate_build,
    estimate_request_tokens,
    estimate_tokens,
)
from wikikv.llm.page_prompt import SAMPLE_CHARS, page_request


@dataclass
class DryRun:
    """The dry-run report: what was read, dropped, and what the build would spend."""

    corpus: str
    llm: str
    read: int
    issues: int
    dropped: dict[str, int]
    estimate: BuildEstimate
    concurrency: int
    prices: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "llm": self.llm,
            "read": self.read,
            "issues": self.issues,
            "dropped": dict(self.dropped),
            "concurrency": self.concurrency,
            "prices_per_1k": dict(self.prices),
            **self.estimate.to_dict(),
        }

    def rows(self) -> list[tuple[str, str]]:
        e = self.estimate
        dropped = sum(self.dropped.values())
        return [
            ("provider", self.llm),
            ("documents read", f"{self.read:,}"),
            ("skipped (broken files)", f"{self.issues:,}"),
            ("dropped by the filter", f"{dropped:,}"),
            ("documents to compile", f"{e.documents:,}"),
            ("LLM calls", f"{e.calls:,}"),
            ("prompt tokens", f"{e.prompt_tokens:,}"),
            ("completion tokens", f"{e.completion_tokens:,}"),
            ("total tokens", f"{e.total_tokens:,}"),
            ("cost", f"{e.cost:.4f}"),
            ("time (LLM, concurrency " + str(self.concurrency) + ")", _duration(e.seconds)),
        ] + [
            (
                f"  {name}",
                f"{r.calls:,} calls, {r.prompt_tokens + r.completion_tokens:,} tokens, "
                f"cost {r.cost:.4f}",
            )
            for name, r in e.by_role.items()
        ]


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def dry_run(
    corpus: str | Path,
    llm: str = "offline",
    prices: Prices | None = None,
    concurrency: int = 4,
) -> DryRun:
    """Estimate a build of ``corpus`` with provider ``llm`` ("offline" or an LLM provider)."""
    prices = prices or Prices()
    ingest = read_corpus(corpus)
    filtered = filter_documents(ingest.documents)
    kept = filtered.kept
    if llm == "offline":
        estimate = BuildEstimate(
            documents=len(kept),
            calls=0,
            prompt_tokens=0,
            completion_tokens=0,
            cost=0.0,
            seconds=0.0,
        )
    else:
        # the page prompts exactly as the provider renders them (on a first build: no existing
        # pages yet, no Error Book constraints)
        prompts = [estimate_request_tokens(page_request(d.id, d.title, d.text)) for d in kept]
        inputs = [DocInput(d.id, d.title, d.text, d.lang, d.group) for d in kept]
        sample = sample_documents(inputs, SAMPLE_SIZE)
        sample_tokens = sum(
            estimate_tokens(f"{d.title}\n{d.text[:SAMPLE_CHARS]}") + 12 for d in sample
        )
        estimate = estimate_build(
            document_tokens(d.text for d in kept),
            prices=prices,
            concurrency=concurrency,
            page_prompts=prompts,
            sample_tokens=sample_tokens,
        )
    return DryRun(
        corpus=str(corpus),
        llm=llm,
        read=ingest.read,
        issues=len(ingest.issues),
        dropped=filtered.counts(),
        estimate=estimate,
        concurrency=concurrency,
        prices={"prompt": prices.prompt_per_1k, "completion": prices.completion_per_1k},
    )
