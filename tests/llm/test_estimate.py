"""Dry-run estimates and hard budget caps."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from wikikv.errors import BudgetExceeded
from wikikv.llm.estimate import (
    EstimateSettings,
    Prices,
    TokenBudget,
    document_tokens,
    estimate_build,
    estimate_request_tokens,
    estimate_tokens,
)
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.llm.prompts import build_request
from wikikv.llm.types import RoleRequest, Usage
from wikikv.testing.llm_server import ScriptedLLMServer, good_json

Factory = Callable[..., OpenAICompatProvider]
ANSWER = {"needs_deeper": False, "reason": "", "missing": []}


def req(i: int) -> RoleRequest:
    return build_request("needs_deeper", [f"document number {i}"], [f"d{i}"])


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 25) == 25
    assert estimate_tokens("鲁迅是中国作家。") == 8
    assert estimate_tokens("鲁迅 wrote") == 2 + 2


def test_estimate_build_counts_calls_tokens_cost_and_time() -> None:
    cfg = EstimateSettings(chunk_tokens=1000, latency_s=1.0, output_tokens_per_s=100.0)
    prices = Prices(prompt_per_1k=1.0, completion_per_1k=2.0)
    est = estimate_build([500, 500, 2500], prices=prices, concurrency=1, settings=cfg)
    assert est.documents == 3
    roles = est.by_role
    assert roles["page"].calls == 2 + 3  # two short docs, one doc in three chunks
    assert roles["descriptor"].calls == roles["schema"].calls == 1  # the cold start
    assert roles["section"].calls == 6  # one per dimension (no dimension overflows)
    assert roles["corpus"].calls == 1
    assert est.calls == sum(r.calls for r in roles.values())
    assert est.prompt_tokens == sum(r.prompt_tokens for r in roles.values())
    assert est.prompt_tokens > 3500
    assert est.completion_tokens > 0
    assert est.cost == pytest.approx(est.prompt_tokens / 1000 + 2 * est.completion_tokens / 1000)
    faster = estimate_build([500, 500, 2500], prices=prices, concurrency=4, settings=cfg)
    assert faster.seconds == pytest.approx(est.seconds / 4)
    assert faster.calls == est.calls
    assert est.to_dict()["total_tokens"] == est.total_tokens


def test_estimate_build_scales_and_counts_cached_calls() -> None:
    small = estimate_build([300] * 10)
    large = estimate_build([300] * 100)
    assert large.by_role["page"].calls == 100
    per_doc = (large.prompt_tokens - small.prompt_tokens) / 90
    assert per_doc > 300  # the document itself plus the prompt around it
    cached = estimate_build([300] * 100, cached=60)
    assert cached.by_role["page"].calls == 40
    assert cached.calls == large.calls - 60
    assert cached.prompt_tokens < large.prompt_tokens
    assert estimate_build([]).calls == 0
    big = estimate_build([300] * 1000)  # 1,500 pages: the largest dimension is routed
    assert big.by_role["section"].calls == 6 + 103  # 1,850 pages in routing groups of 18
    exact = estimate_build([300] * 3, page_prompts=[1000, 1100, 1200])
    assert exact.by_role["page"].prompt_tokens == 3300


def test_document_tokens() -> None:
    assert document_tokens(["abcd", "鲁迅"]) == [1, 2]


def test_budget_caps() -> None:
    budget = TokenBudget(max_tokens=100)
    budget.check(60)
    budget.charge(Usage(50, 10, 1))
    with pytest.raises(BudgetExceeded, match="token cap"):
        budget.check(41)
    budget.check(40)
    money = TokenBudget(max_cost=1.0, prices=Prices(prompt_per_1k=1.0))
    money.charge(Usage(0, 0, 1, 0, 0.9))
    with pytest.raises(BudgetExceeded, match="cost cap"):
        money.check(200)
    with pytest.raises(ValueError, match="max_tokens"):
        TokenBudget(max_tokens=-1)


def test_provider_stops_at_token_cap_without_calling(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    usage = {"prompt_tokens": 900, "completion_tokens": 100}
    llm_server.handler = lambda r: good_json(ANSWER, usage=usage)
    # room for two calls, and for a third's answer but not its whole prompt
    budget = TokenBudget(max_tokens=2000 + estimate_request_tokens(req(3)) - 1)
    provider = make_provider(budget=budget)
    provider.complete_json(req(1))
    provider.complete_json(req(2))
    assert budget.spent.total_tokens == 2000
    with pytest.raises(BudgetExceeded):
        provider.complete_json(req(3))
    assert len(llm_server.completions) == 2, "a capped call must not reach the server"


def test_cost_cap_stops_a_batch_cleanly(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    usage = {"prompt_tokens": 1000, "completion_tokens": 0}
    llm_server.handler = lambda r: good_json(ANSWER, usage=usage)
    prices = Prices(prompt_per_1k=1.0)
    budget = TokenBudget(max_cost=3.0, prices=prices)
    provider = make_provider(budget=budget, prices=prices, concurrency=1)
    results = provider.map_concurrent([req(i) for i in range(6)])
    assert [r.ok for r in results] == [True, True, True, False, False, False]
    assert all(isinstance(r.error, BudgetExceeded) for r in results[3:])
    assert len(llm_server.completions) == 3
    assert budget.spent.cost == pytest.approx(3.0)


def test_cache_hits_cost_nothing(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    from wikikv.llm.callcache import CallCache

    cache = CallCache()
    budget = TokenBudget(max_tokens=10_000)
    provider = make_provider(budget=budget, cache=cache)
    provider.complete_json(req(1))
    spent = budget.spent.total_tokens
    provider.complete_json(req(1))
    assert budget.spent.total_tokens == spent
    assert budget.spent.cache_hits == 1
