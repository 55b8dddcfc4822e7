"""The OpenAI-compatible provider against the scripted loopback server, scenario by scenario."""

from __future__ import annotations

import threading
from collections.abc import Callable

import httpx
import pytest

from wikikv.errors import ConfigError, LLMError, LLMOutputError
from wikikv.llm.estimate import Prices
from wikikv.llm.openai_compat import (
    OpenAICompatProvider,
    chat_url,
    map_errors,
    parse_retry_after,
)
from wikikv.llm.prompts import AGENT_TOOLS, build_request
from wikikv.llm.types import ChatMessage, ChatProvider, Provider, RoleRequest
from wikikv.testing.llm_server import (
    RecordedRequest,
    Reply,
    ScriptedLLMServer,
    SleepRecorder,
    bad_request,
    good_json,
    malformed,
    no_usage,
    rate_limited,
    refusal,
    schema_invalid,
    server_error,
    slow,
    tool_calls,
    truncated,
)

Factory = Callable[..., OpenAICompatProvider]
ANSWER = {"needs_deeper": False, "reason": "covered", "missing": []}


def request(text: str = "Lu Xun wrote The True Story of Ah Q.", doc_id: str = "d1") -> RoleRequest:
    return build_request("needs_deeper", [text], [doc_id], context={"query": "Who wrote Ah Q?"})


def test_good_json(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    llm_server.script(good_json(ANSWER, usage={"prompt_tokens": 321, "completion_tokens": 12}))
    provider = make_provider()
    value, usage = provider.complete_json(request())
    assert value == ANSWER
    assert (usage.prompt_tokens, usage.completion_tokens, usage.calls) == (321, 12, 1)
    (sent,) = llm_server.completions
    assert sent.body["model"] == "test-model"
    fmt = sent.body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["required"] == ["needs_deeper", "reason", "missing"]
    assert sent.documents == [("d1", "Lu Xun wrote The True Story of Ah Q.")]
    assert provider.usage == usage


def test_malformed_then_good(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    llm_server.script(malformed(), good_json(ANSWER))
    value, usage = make_provider().complete_json(request())
    assert value == ANSWER
    assert usage.calls == 2
    first, second = llm_server.completions
    assert "rejected" not in first.text_of("user")
    assert "previous answer was rejected" in second.text_of("user")
    assert "not valid JSON" in second.text_of("user")


def test_schema_invalid_exhausts_output_retries(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.script(*[schema_invalid() for _ in range(5)])
    provider = make_provider(output_retries=2)
    with pytest.raises(LLMOutputError, match="does not match the schema"):
        provider.complete_json(request())
    assert len(llm_server.completions) == 3
    assert provider.usage.calls == 3


def test_refusal_is_retried_then_reported(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.script(refusal(), good_json(ANSWER))
    assert make_provider().complete_json(request())[0] == ANSWER
    llm_server.reset()
    llm_server.script(*[refusal("no way") for _ in range(3)])
    with pytest.raises(LLMOutputError, match="refused: no way"):
        make_provider(output_retries=2).complete_json(request())
    assert len(llm_server.completions) == 3


def test_truncated_answer_is_retried(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    llm_server.script(truncated(), good_json(ANSWER))
    assert make_provider().complete_json(request())[0] == ANSWER
    assert len(llm_server.completions) == 2


def test_code_fenced_json_is_accepted(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    body = '```json\n{"needs_deeper": true, "reason": "x", "missing": ["dates"]}\n```'
    llm_server.script(Reply(body={"choices": [{"message": {"content": body}}]}))
    value, _ = make_provider().complete_json(request())
    assert value == {"needs_deeper": True, "reason": "x", "missing": ["dates"]}


def test_5xx_is_retried_with_backoff(
    llm_server: ScriptedLLMServer, make_provider: Factory, sleeps: SleepRecorder
) -> None:
    llm_server.script(server_error(500), server_error(503), good_json(ANSWER))
    value, usage = make_provider(backoff_base=0.5).complete_json(request())
    assert value == ANSWER
    assert len(llm_server.completions) == 3
    assert usage.calls == 1  # only answers are billed
    assert len(sleeps.calls) == 2
    # exponential with jitter in [ceiling/2, ceiling]: 0.5 then 1.0
    assert 0.25 <= sleeps.calls[0] <= 0.5
    assert 0.5 <= sleeps.calls[1] <= 1.0


def test_5xx_retries_exhausted_raise_llm_error(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.script(*[server_error(500) for _ in range(10)])
    with pytest.raises(LLMError, match="gave up after 3 attempts") as info:
        make_provider(max_retries=2).complete_json(request())
    assert not isinstance(info.value, LLMOutputError)
    assert len(llm_server.completions) == 3


def test_429_honours_retry_after(
    llm_server: ScriptedLLMServer, make_provider: Factory, sleeps: SleepRecorder
) -> None:
    llm_server.script(rate_limited(3), rate_limited(7), good_json(ANSWER))
    assert make_provider().complete_json(request())[0] == ANSWER
    assert len(llm_server.completions) == 3
    assert sleeps.calls == [3.0, 7.0]


def test_429_retry_after_is_capped(
    llm_server: ScriptedLLMServer, make_provider: Factory, sleeps: SleepRecorder
) -> None:
    llm_server.script(rate_limited(100000), good_json(ANSWER))
    make_provider(max_retry_after=60.0).complete_json(request())
    assert sleeps.calls == [60.0]


def test_429_without_retry_after_uses_backoff(
    llm_server: ScriptedLLMServer, make_provider: Factory, sleeps: SleepRecorder
) -> None:
    llm_server.script(rate_limited(None), good_json(ANSWER))
    make_provider(backoff_base=2.0).complete_json(request())
    assert len(sleeps.calls) == 1
    assert 1.0 <= sleeps.calls[0] <= 2.0


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("12") == 12.0
    assert parse_retry_after("1.5") == 1.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    when = "Wed, 21 Oct 2015 07:28:00 GMT"
    assert parse_retry_after(when, now=1445412480.0 - 30) == pytest.approx(30.0)
    assert parse_retry_after(when, now=1445412480.0 + 30) == 0.0


def test_timeout_is_retried(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    llm_server.script(slow(good_json(ANSWER), 3.0), good_json(ANSWER))
    value, _ = make_provider(timeout=0.3).complete_json(request())
    assert value == ANSWER
    assert len(llm_server.completions) == 2


def test_timeouts_exhausted_raise_llm_error(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    provider = make_provider(base_url=llm_server.url_for("slow"), timeout=0.2, max_retries=1)
    with pytest.raises(LLMError, match="timed out"):
        provider.complete_json(request())
    assert len(llm_server.completions) == 2


def test_client_error_is_not_retried(
    llm_server: ScriptedLLMServer, make_provider: Factory, sleeps: SleepRecorder
) -> None:
    llm_server.script(Reply(401, {"error": {"message": "bad key"}}))
    with pytest.raises(LLMError, match="HTTP 401"):
        make_provider().complete_json(request())
    assert len(llm_server.completions) == 1
    assert sleeps.calls == []


def test_json_schema_rejected_falls_back_to_json_object(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.script(
        bad_request("response_format json_schema is not supported"), good_json(ANSWER)
    )
    provider = make_provider(max_retries=0)  # the fallback is not a retry
    assert provider.complete_json(request())[0] == ANSWER
    first, second = llm_server.completions
    assert first.body["response_format"]["type"] == "json_schema"
    assert second.body["response_format"] == {"type": "json_object"}
    assert provider.response_format_mode == "json_object"
    # the schema still reaches the model through the system prompt
    assert second.schema is not None
    assert second.schema["required"] == ["needs_deeper", "reason", "missing"]


def test_missing_usage_is_estimated(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    llm_server.script(no_usage(ANSWER))
    _, usage = make_provider().complete_json(request())
    assert usage.prompt_tokens > 50  # system prompt + schema + document
    assert usage.completion_tokens > 0


def test_cost_from_prices(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    llm_server.script(good_json(ANSWER, usage={"prompt_tokens": 2000, "completion_tokens": 500}))
    prices = Prices(prompt_per_1k=0.5, completion_per_1k=2.0)
    _, usage = make_provider(prices=prices).complete_json(request())
    assert usage.cost == pytest.approx(1.0 + 1.0)


def test_api_key_from_environment(
    llm_server: ScriptedLLMServer, make_provider: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-test-123")
    make_provider(api_key_env="MY_LLM_KEY").complete_json(request())
    monkeypatch.delenv("MY_LLM_KEY")
    make_provider(api_key_env="MY_LLM_KEY").complete_json(request("other"))
    with_key, without = llm_server.completions
    assert with_key.headers.get("Authorization") == "Bearer sk-test-123"
    assert "Authorization" not in without.headers


def test_connection_refused_maps_to_llm_error(make_provider: Factory) -> None:
    dead = ScriptedLLMServer().start()
    url = dead.base_url
    dead.stop()
    with pytest.raises(LLMError, match="gave up"):
        make_provider(base_url=url, max_retries=1).complete_json(request())


def test_map_errors_wraps_httpx() -> None:
    with pytest.raises(LLMError) as info, map_errors("probe"):
        raise httpx.ConnectError("refused")
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    with pytest.raises(LLMError, match="timed out"), map_errors("probe"):
        raise httpx.ReadTimeout("slow")


def test_chat_url() -> None:
    assert chat_url("http://h:1/v1") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("https://api.example.com") == "https://api.example.com/v1/chat/completions"
    assert chat_url("http://h/api/v4beta") == "http://h/api/v4beta/chat/completions"


def test_concurrency_limit_is_respected(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.handler = lambda r: slow(good_json(ANSWER), 0.15)
    provider = make_provider(concurrency=3)
    results = provider.map_concurrent([request(f"document {i}") for i in range(9)])
    assert all(r.ok for r in results)
    assert len(llm_server.completions) == 9
    assert 2 <= llm_server.max_in_flight <= 3


def test_concurrency_limit_holds_across_caller_threads(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.handler = lambda r: slow(good_json(ANSWER), 0.1)
    provider = make_provider(concurrency=2)
    threads = [
        threading.Thread(target=provider.complete_json, args=(request(f"doc {i}"),))
        for i in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(llm_server.completions) == 6
    assert llm_server.max_in_flight <= 2


def test_map_concurrent_isolates_failures(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    def handler(r: RecordedRequest) -> Reply:
        return schema_invalid() if "BAD" in r.documents[0][1] else good_json(ANSWER)

    llm_server.handler = handler
    texts = ["good one", "BAD one", "good two"]
    results = make_provider(output_retries=1).map_concurrent([request(t) for t in texts])
    assert [r.ok for r in results] == [True, False, True]
    assert [r.request.documents[0] for r in results] == texts
    assert isinstance(results[1].error, LLMOutputError)
    assert results[0].value == ANSWER


def test_chat_returns_tool_calls(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    llm_server.script(
        tool_calls(
            ("wiki_search", {"query": "Lu Xun"}),
            ("delete_everything", {}),
            ("wiki_read", '{"paths": ["/people"'),
        )
    )
    messages = [ChatMessage("system", "agent"), ChatMessage("user", "Who wrote Ah Q?")]
    reply, usage = make_provider().chat(messages, AGENT_TOOLS)
    assert usage.calls == 1
    assert reply.role == "assistant"
    names = [c.name for c in reply.tool_calls]
    assert names == ["wiki_search", "delete_everything", "wiki_read"]
    assert reply.tool_calls[0].parsed_arguments() == {"query": "Lu Xun"}
    with pytest.raises(LLMOutputError, match="malformed JSON arguments"):
        reply.tool_calls[2].parsed_arguments()
    (sent,) = llm_server.completions
    assert [t["function"]["name"] for t in sent.body["tools"]] == ["wiki_search", "wiki_read"]
    assert "response_format" not in sent.body


def test_chat_tool_results_round_trip(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.script(tool_calls(("wiki_search", {"query": "x"})), good_json(ANSWER))
    provider = make_provider()
    history = [ChatMessage("user", "q")]
    reply, _ = provider.chat(history, AGENT_TOOLS)
    call = reply.tool_calls[0]
    history += [reply, ChatMessage("tool", "[]", tool_call_id=call.id)]
    final, _ = provider.chat(history, AGENT_TOOLS)
    assert final.tool_calls == ()
    assert final.content is not None
    sent = llm_server.completions[1].messages
    assert sent[1]["tool_calls"][0]["id"] == call.id
    assert sent[2] == {"role": "tool", "content": "[]", "tool_call_id": call.id}


def test_never_stopping_scenario_always_calls_tools(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    provider = make_provider(base_url=llm_server.url_for("never_stopping"))
    history = [ChatMessage("user", "q")]
    for _ in range(4):
        reply, _ = provider.chat(history, AGENT_TOOLS)
        assert reply.tool_calls, "the scenario must keep asking for tools"
        history += [reply, ChatMessage("tool", "nothing", tool_call_id=reply.tool_calls[0].id)]
    assert len(llm_server.completions) == 4


def test_scenario_routes(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    with pytest.raises(LLMError):
        make_provider(base_url=llm_server.url_for("status_500"), max_retries=1).complete_json(
            request()
        )
    with pytest.raises(LLMOutputError):
        make_provider(base_url=llm_server.url_for("refusal")).complete_json(request())
    assert len(llm_server.completions) == 2 + 3


def test_configuration_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="concurrency"):
        OpenAICompatProvider("http://127.0.0.1:9/v1", "m", concurrency=0)
    with pytest.raises(ConfigError, match="response_format"):
        OpenAICompatProvider("http://127.0.0.1:9/v1", "m", response_format="yaml")
    monkeypatch.delenv("WIKIKV_LLM_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="WIKIKV_LLM_BASE_URL"):
        OpenAICompatProvider.from_env()
    monkeypatch.setenv("WIKIKV_LLM_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("WIKIKV_LLM_MODEL", "m1")
    with OpenAICompatProvider.from_env() as provider:
        assert provider.url == "http://127.0.0.1:9/v1/chat/completions"
        assert provider.name == "openai:m1"


def test_provider_satisfies_the_protocols(make_provider: Factory) -> None:
    provider = make_provider()
    assert isinstance(provider, Provider)
    assert isinstance(provider, ChatProvider)
