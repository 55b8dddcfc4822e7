"""IASI with the model: the scaffold comes from the schema role, checked, with one retry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from wikikv.compile import state
from wikikv.compile.ingest import Document
from wikikv.compile.llm_provider import LLMCompileProvider
from wikikv.compile.pipeline import Compiler
from wikikv.errors import LLMOutputError
from wikikv.llm.base import Descriptor
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.llm.scaffold import KINDS, scaffold_problems
from wikikv.store.store import open_store
from wikikv.testing.llm_model import model_reply
from wikikv.testing.llm_server import RecordedRequest, Reply, ScriptedLLMServer, good_json, role_of
from wikikv.text import entities as ents

Factory = Callable[..., OpenAICompatProvider]


def dim(name: str, *kinds: str) -> dict[str, Any]:
    return {
        "name": name,
        "title": name.title(),
        "description": f"the {name}",
        "entity_types": list(kinds),
        "examples": [],
    }


GOOD = {
    "dimensions": [
        dim("characters", "person"),
        dim("settings", "place"),
        dim("ideas", "topic", "work", "org", "event"),
    ]
}
BAD = {"dimensions": [dim("sources", "person"), dim("People", "person", "place")]}
DESCRIPTOR = Descriptor("stories", "readers", "", "en", 3, 3)


def with_schema(*answers: dict[str, Any]) -> Callable[[RecordedRequest], Reply]:
    queue = list(answers)

    def handler(request: RecordedRequest) -> Reply:
        if role_of(request.schema) == "schema":
            return good_json(queue.pop(0))
        return model_reply(request)

    return handler


def schema_calls(server: ScriptedLLMServer) -> list[RecordedRequest]:
    return [r for r in server.completions if role_of(r.schema) == "schema"]


def test_the_kinds_match_the_pipeline() -> None:
    assert tuple(ents.KINDS) == KINDS


def test_problems_name_every_broken_bound() -> None:
    problems = scaffold_problems(BAD, fanout=8, max_depth=5)
    text = "\n".join(problems)
    assert "'sources' is reserved" in text
    assert "lowercase slug" in text
    assert "'person' is already in 'sources'" in text
    assert "'topic'" in text
    assert scaffold_problems(GOOD, fanout=8, max_depth=5) == []
    assert any("between 1 and 2" in p for p in scaffold_problems(GOOD, fanout=3, max_depth=5))
    assert any("depth bound 2" in p for p in scaffold_problems(GOOD, fanout=8, max_depth=2))


def test_a_build_uses_the_model_scaffold(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.handler = with_schema(GOOD)
    store = open_store("memory://")
    kb = store.create_kb("w")
    docs = [
        Document(
            "a",
            "Anna Karenina",
            "Anna Karenina is a woman who lives in Saint Petersburg. She was born in Moscow.",
            "en",
            "",
        ),
        Document(
            "b",
            "Saint Petersburg",
            "Saint Petersburg is a city in Russia. Anna Karenina lives there.",
            "en",
            "",
        ),
    ]
    Compiler(kb, LLMCompileProvider(make_provider())).add(docs)
    schema = state.load_schema(kb)
    assert schema is not None
    assert [d.name for d in schema.dimensions] == ["characters", "settings", "ideas"]
    assert schema.fallback == "ideas"
    (call,) = schema_calls(llm_server)
    assert "Anna Karenina is a woman" in call.text_of("user")  # the sample's texts, as data
    # the scaffold's dimensions that pages were filed under (the scripted model's Anna Karenina
    # is an idea; no dimension is written empty)
    assert kb.ls("/").sub_dirs == ["ideas", "settings", "sources"]


def test_a_broken_scaffold_is_sent_back_once_with_its_problems(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.handler = with_schema(BAD, GOOD)
    provider = LLMCompileProvider(make_provider())
    scaffold = provider.schema(DESCRIPTOR, {"person": 2}, fanout=8, max_depth=5)
    assert [d.name for d in scaffold.dimensions] == ["characters", "settings", "ideas"]
    first, second = schema_calls(llm_server)
    assert '<context name="errors">' not in first.text_of("user")
    feedback = second.text_of("user").split('<context name="errors">', 1)[1]
    assert "'sources' is reserved" in feedback.split("</context>", 1)[0]
    assert provider.usage_by_role()["schema"].calls == 2


def test_still_broken_raises_or_falls_back(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    llm_server.handler = with_schema(BAD, BAD)
    with pytest.raises(LLMOutputError, match="reserved"):
        LLMCompileProvider(make_provider()).schema(DESCRIPTOR, {"person": 2}, 8, 5)
    assert len(schema_calls(llm_server)) == 2
    llm_server.handler = with_schema(BAD, BAD)
    lenient = LLMCompileProvider(make_provider(), fallback_on_output_error=True)
    scaffold = lenient.schema(DESCRIPTOR, {"person": 2}, 8, 5)
    assert scaffold.fallback == "topics"  # the extractive scaffold
    assert "schema" in lenient.failures
