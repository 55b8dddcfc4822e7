"""``wikikv bench llm``: an LLM-mode build measured against the scripted loopback model.

No LLM endpoint is reachable here, so the model is :mod:`wikikv.testing.llm_model` served by
:class:`~wikikv.testing.llm_server.ScriptedLLMServer` over real HTTP (the production
OpenAI-compatible client, retries, concurrency, usage accounting and all). What it measures:

* calls, prompt and completion tokens and cost per role and per document (page calls), from
  the provider's own accounting of the server's ``usage`` blocks;
* the dry run (``wikikv build --dry-run``) against the real run: calls and tokens, in total and
  per role, with the relative difference;
* the share of the model's key facts kept after grounding (quotes found verbatim), the dropped
  ones by reason, and the links kept;
* the section summaries' synthesized shares against their bound;
* ``wikikv check`` on the result: every fact line cites its quote's exact character range.

Answer accuracy needs a real model: with a scripted one it would measure the script. The
result says so (``answer_accuracy``) instead of reporting a number.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikikv.bench.compile import CORPORA, shared_data
from wikikv.bench.report import machine_info, percentile
from wikikv.compile.check import check
from wikikv.compile.dryrun import dry_run
from wikikv.compile.llm_provider import LLMCompileProvider
from wikikv.compile.pipeline import Compiler
from wikikv.llm.estimate import Prices
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.llm.types import Usage
from wikikv.quality.hooks import gated
from wikikv.store.store import open_store
from wikikv.testing.llm_model import INVENT_EVERY, model_reply
from wikikv.testing.llm_server import ScriptedLLMServer

DEFAULT_CORPUS = "2wiki-corpus-6k"
# Assumed prices per 1,000 tokens (a small hosted model's order of magnitude); the cost column
# is tokens × these, whatever the currency.
PRICES = Prices(prompt_per_1k=0.00015, completion_per_1k=0.0006)
TOLERANCE = 0.10
NO_ACCURACY = (
    "not measured: no LLM endpoint is reachable from this machine, and the scripted model's "
    "answers would measure the script. Point WIKIKV_LLM_BASE_URL at a model and run "
    "`wikikv bench retrieval`/`bench quality` with --llm openai for answer accuracy."
)


def corpus_file(name: str, limit: int | None, workdir: Path) -> Path:
    """The corpus file, or its first ``limit`` documents copied into ``workdir``."""
    path = shared_data() / CORPORA[name]
    if limit is None:
        return path
    out = workdir / f"{name}-{limit}.jsonl"
    with path.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= limit:
                break
            dst.write(line)
    return out


def _diff(real: float, estimate: float) -> float | None:
    return round((estimate - real) / real, 4) if real else None


def _per_doc(usages: dict[str, Usage]) -> dict[str, Any]:
    tokens = sorted(u.total_tokens for u in usages.values())
    costs = sorted(u.cost for u in usages.values())
    n = len(tokens) or 1
    return {
        "documents": len(tokens),
        "calls_mean": round(sum(u.calls for u in usages.values()) / n, 3),
        "tokens_mean": round(sum(tokens) / n, 1),
        "tokens_p50": percentile(tokens, 50),
        "tokens_p95": percentile(tokens, 95),
        "tokens_max": tokens[-1] if tokens else 0,
        "cost_mean": sum(costs) / n,
    }


def run(
    corpus: str = DEFAULT_CORPUS,
    limit: int | None = None,
    concurrency: int = 8,
    log: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Dry run, then the real LLM-mode build against the scripted model (module docstring)."""
    with tempfile.TemporaryDirectory(prefix="wikikv-bench-llm-") as tmp:
        path = corpus_file(corpus, limit, Path(tmp))
        log(f"dry run of {path.name}")
        dry = dry_run(path, "openai", PRICES, concurrency)
        with ScriptedLLMServer() as server:
            server.default = model_reply
            http = OpenAICompatProvider(
                server.base_url,
                "scripted-model",
                timeout=60.0,
                concurrency=concurrency,
                prices=PRICES,
            )
            provider = LLMCompileProvider(http)
            store = open_store("memory://")
            kb = store.create_kb("bench-llm")
            log(f"LLM-mode build of {dry.estimate.documents} documents")
            t0 = time.perf_counter()
            try:
                report = Compiler(kb, provider, gated()).build(path)
            finally:
                http.close()
            elapsed = time.perf_counter() - t0
            log("checking the wiki (every fact line's citation)")
            verified = check(kb, run_fsck=False)
            store.close()
    real_roles = provider.usage_by_role()
    total = provider.usage()
    est = dry.estimate
    roles: dict[str, Any] = {}
    for name in sorted(set(real_roles) | set(est.by_role)):
        r = real_roles.get(name, Usage())
        e = est.by_role.get(name)
        roles[name] = {
            "real": r.to_dict() | {"total_tokens": r.total_tokens},
            "dry_run": e.to_dict() if e is not None else None,
            "tokens_diff": _diff(r.total_tokens, e.prompt_tokens + e.completion_tokens)
            if e is not None
            else None,
        }
    documents = report.documents or 1
    agreement = {
        "calls": _diff(total.calls, est.calls),
        "prompt_tokens": _diff(total.prompt_tokens, est.prompt_tokens),
        "completion_tokens": _diff(total.completion_tokens, est.completion_tokens),
        "total_tokens": _diff(total.total_tokens, est.total_tokens),
        "cost": _diff(total.cost, est.cost),
    }
    return {
        "bench": "llm",
        "corpus": corpus,
        "documents": report.documents,
        "model": "scripted (wikikv.testing.llm_model, loopback HTTP)",
        "invented_fact_every": INVENT_EVERY,
        "concurrency": concurrency,
        "prices_per_1k": {"prompt": PRICES.prompt_per_1k, "completion": PRICES.completion_per_1k},
        "elapsed_s": round(elapsed, 2),
        "real": total.to_dict() | {"total_tokens": total.total_tokens},
        "per_document": {
            "calls": round(total.calls / documents, 3),
            "tokens": round(total.total_tokens / documents, 1),
            "cost": total.cost / documents,
            "page_calls": _per_doc(provider.usage_by_document()),
        },
        "dry_run": est.to_dict(),
        "agreement": agreement,
        "within_tolerance": all(
            v is not None and abs(v) <= TOLERANCE
            for k, v in agreement.items()
            if k in ("calls", "total_tokens")
        ),
        "tolerance": TOLERANCE,
        "by_role": roles,
        "grounding": report.grounding,
        "summaries": report.summaries,
        "wiki": {"entities": report.entities, "facts": report.facts, "links": report.links},
        # every fact line — the model's grounded quotes included — cites the exact range
        "check": {
            "ok": verified.ok,
            "facts": verified.facts,
            "invalid_citations": verified.invalid_citations,
            "citation_validity": verified.citation_validity,
            "broken_links": verified.broken_links,
        },
        "answer_accuracy": NO_ACCURACY,
        "machine": machine_info(),
    }
