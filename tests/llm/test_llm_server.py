"""The scripted server itself: default answers, routing, records."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from wikikv.errors import LLMError
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.llm.prompts import ROLES, build_request
from wikikv.llm.schema import validate
from wikikv.testing.llm_server import RecordedRequest, Reply, ScriptedLLMServer, good_json

Factory = Callable[..., OpenAICompatProvider]
DOC = "Lu Xun was a Chinese writer. He wrote The True Story of Ah Q in 1921."


@pytest.mark.parametrize("role", sorted(ROLES))
def test_default_answers_are_schema_valid_for_every_role(
    role: str, llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    req = build_request(role, [DOC], ["luxun"], context={"query": "Who wrote Ah Q?"})
    value, usage = make_provider(output_retries=0).complete_json(req)
    assert validate(value, ROLES[role].schema) == []
    assert usage.calls == 1


def test_default_page_answer_quotes_the_document(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    value, _ = make_provider().complete_json(build_request("page", [DOC], ["luxun"]))
    quotes = [fact["quote"] for fact in value["key_facts"]]
    assert quotes
    assert all(q in DOC for q in quotes)
    assert value["entities"][0]["name"] == "Lu Xun"
    assert value["key_facts"][0]["entity"] == "Lu Xun"


def test_default_answer_in_json_object_mode_reads_schema_from_prompt(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    provider = make_provider(response_format="json_object")
    value, _ = provider.complete_json(build_request("descriptor", [DOC]))
    assert validate(value, ROLES["descriptor"].schema) == []
    assert llm_server.completions[0].body["response_format"] == {"type": "json_object"}


def test_records_and_reset(llm_server: ScriptedLLMServer) -> None:
    with httpx.Client() as client:
        models = client.get(llm_server.base_url + "/models")
        missing = client.post(llm_server.base_url + "/nowhere", json={})
        not_json = client.post(llm_server.base_url + "/chat/completions", content=b"{nope")
    assert models.json()["data"][0]["id"] == "scripted"
    assert missing.status_code == 404
    assert not_json.status_code == 400
    assert [r.method for r in llm_server.requests] == ["GET", "POST", "POST"]
    assert llm_server.max_in_flight == 1
    llm_server.script(good_json({}))
    assert llm_server.pending == 1
    llm_server.reset()
    assert (llm_server.requests, llm_server.pending, llm_server.max_in_flight) == ([], 0, 0)


def test_queue_then_handler_then_default(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    seen: list[str] = []

    def handler(r: RecordedRequest) -> Reply:
        seen.append(r.documents[0][1])
        return good_json({"needs_deeper": True, "reason": "handler", "missing": []})

    provider = make_provider()
    llm_server.script(good_json({"needs_deeper": False, "reason": "queued", "missing": []}))
    llm_server.handler = handler
    first, _ = provider.complete_json(build_request("needs_deeper", ["one"]))
    second, _ = provider.complete_json(build_request("needs_deeper", ["two"]))
    assert (first["reason"], second["reason"]) == ("queued", "handler")
    assert seen == ["two"]


def test_broken_handler_answers_500(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    def handler(r: RecordedRequest) -> Reply:
        raise RuntimeError("boom")

    llm_server.handler = handler
    with pytest.raises(LLMError, match="handler failed"):
        make_provider(max_retries=0).complete_json(build_request("answer", ["x"]))


def test_unknown_scenario(llm_server: ScriptedLLMServer) -> None:
    with pytest.raises(KeyError, match="unknown scenario"):
        llm_server.url_for("nope")
