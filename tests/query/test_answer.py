"""ask(): direct answers, offline evidence answers, and the LLM agent loop against the scripted
server — including a model that misbehaves and a page that tries to give orders."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.query.wiki_fixture import make_store
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.query.answer import MAX_EMPTY_SEARCHES, MAX_TOOL_CALLS, ask, direct_page
from wikikv.store.kb import KnowledgeBase
from wikikv.testing.llm_server import ScriptedLLMServer, good_json, tool_calls


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = make_store()
    yield kb
    store.close()


FINAL = {
    "answer": "Emma Thomas",
    "insufficient": False,
    "citations": [{"source_id": "/people/Christopher Nolan", "quote": "married to"}],
}


def test_direct_answer_needs_agreement_lint_and_fresh_sources(kb: KnowledgeBase) -> None:
    answer = ask(kb, "What is Inception?")
    assert answer.mode == "direct"
    assert answer.from_wiki
    assert answer.llm_calls == 0
    assert answer.tokens == 0
    assert answer.citations[0].path == "/films/Inception"
    # Dunkirk's lint status is unchecked: no direct answer, fall through.
    assert direct_page(kb, "What is Dunkirk?") is None
    assert ask(kb, "What is Dunkirk?").mode == "evidence"
    # A source rewritten after the page makes the page stale.
    kb.put("/sources/articles/d1", "Inception is a 2010 film.", kb.get("/sources/articles/d1").meta)  # type: ignore[union-attr]
    assert direct_page(kb, "What is Inception?") is None


def test_a_page_that_holds_only_part_of_the_question_does_not_answer_it(kb: KnowledgeBase) -> None:
    # Inception's page (lint passed, named, top of the search) says who directed the film, not
    # the director's nationality: a second hop, left to the evidence path across the kb.
    q = "What is the nationality of the director of the 2010 film Inception?"
    assert direct_page(kb, q) is not None
    assert ask(kb, q).mode == "evidence"
    # What the page holds whole is still answered from it.
    assert ask(kb, "Who directed Inception?").mode == "direct"


def test_offline_answer_quotes_the_best_sentences_with_their_citations(kb: KnowledgeBase) -> None:
    answer = ask(kb, "Who directed Dunkirk?", allow_direct=False)
    assert answer.mode == "evidence"
    assert not answer.from_wiki
    assert "directed by Christopher Nolan" in answer.answer
    quoted = [c for c in answer.citations if c.quote]
    assert quoted
    assert all(c.quote in answer.answer for c in quoted)
    best = quoted[0]
    assert best.path == "/sources/articles/d6"
    start, end = (int(x) for x in best.chars.split("-"))
    assert kb.get("/sources/articles/d6").text[start:end] == best.quote  # type: ignore[union-attr]
    assert "---" not in answer.answer
    assert "#" not in answer.answer


def test_offline_answer_says_when_no_sentence_answers(kb: KnowledgeBase) -> None:
    answer = ask(kb, "zeppelin quasar", allow_direct=False)
    assert answer.answer == ""
    assert not [c for c in answer.citations if c.quote]
    assert "no sentence" in answer.stopped_because


def test_offline_answer_is_never_front_matter_or_a_heading(kb: KnowledgeBase) -> None:
    meta = kb.get("/人物/鲁迅").meta  # type: ignore[union-attr]
    body = "---\ntype: people\naliases: []\n---\n# 鲁迅\n> 鲁迅，原名周树人。\n\n## Key Facts\n"
    body += "- 鲁迅生于浙江绍兴。 [^1]\n\n[^1]: [[/sources/articles/d4]] chars 0-10\n"
    kb.put("/人物/鲁迅", body, meta)
    answer = ask(kb, "鲁迅的故乡在哪里？", allow_direct=False)
    assert answer.answer
    assert "---" not in answer.answer
    assert "type:" not in answer.answer
    assert not any(line.lstrip("“").startswith("#") for line in answer.answer.splitlines())
    assert "绍兴" in answer.answer


def test_agent_searches_reads_and_answers(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    server.script(
        tool_calls(("wiki_search", {"query": "Inception director"})),
        tool_calls(("wiki_read", {"paths": ["/films/Inception", "/people/Christopher Nolan"]})),
        good_json(FINAL),
    )
    answer = ask(
        kb, "Who is the spouse of the director of Inception?", provider, allow_direct=False
    )
    assert answer.mode == "agent"
    assert answer.answer == "Emma Thomas"
    assert answer.tool_calls == 2
    assert answer.llm_calls == 3
    assert "/people/Christopher Nolan" in answer.pages_read
    tool_msgs = [m for m in server.requests[-1].messages if m["role"] == "tool"]
    assert "married to [[Emma Thomas]]" in tool_msgs[1]["content"]


def test_agent_must_read_before_answering(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    server.script(
        good_json(FINAL),  # answers without reading: told to read first
        tool_calls(("wiki_read", {"paths": ["/people/Emma Thomas"]})),
        good_json(FINAL),
    )
    answer = ask(kb, "Who is Nolan's wife?", provider, allow_direct=False)
    assert answer.mode == "agent"
    assert answer.llm_calls == 3
    assert "Read at least one page" in server.requests[1].text_of("user")


def test_unknown_tools_and_bad_arguments_are_reported_back(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    server.script(
        tool_calls(
            ("delete_page", {"path": "/films/Inception"}),
            ("wiki_read", "{not json"),
            ("wiki_search", {"q": "wrong key"}),
        ),
        tool_calls(("wiki_read", {"paths": ["/films/Inception"]})),
        good_json(FINAL),
    )
    answer = ask(kb, "Who directed Inception?", provider, allow_direct=False)
    assert answer.mode == "agent"
    assert kb.get("/films/Inception") is not None  # no tool writes
    replies = [m for m in server.requests[1].messages if m["role"] == "tool"]
    errors = [json.loads(m["content"])["error"] for m in replies]
    assert "unknown tool" in errors[0]
    assert "malformed JSON" in errors[1]
    assert "non-empty string 'query'" in errors[2]


def test_a_model_that_never_stops_is_cut_at_the_tool_call_limit(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    server.script(*[tool_calls(("wiki_read", {"paths": ["/films/Dunkirk"]})) for _ in range(40)])
    answer = ask(kb, "Tell me about Dunkirk forever", provider, allow_direct=False)
    assert answer.tool_calls == MAX_TOOL_CALLS
    assert "tool-call limit" in answer.stopped_because
    assert answer.mode == "evidence"  # fell back to nav's cited evidence
    assert len(server.requests) == MAX_TOOL_CALLS


def test_three_empty_searches_in_a_row_stop_the_agent(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    server.script(*[tool_calls(("wiki_search", {"query": "zzqx qqzz"})) for _ in range(10)])
    answer = ask(kb, "zzqx?", provider, allow_direct=False)
    assert f"{MAX_EMPTY_SEARCHES} empty searches" in answer.stopped_because
    assert len(server.requests) == MAX_EMPTY_SEARCHES


def test_a_page_that_gives_orders_does_not_steer_the_agent(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    server.script(
        tool_calls(("wiki_read", {"paths": ["/notes/Poisoned page"]})),
        good_json({"answer": "Paris", "insufficient": False, "citations": []}),
    )
    ask(kb, "What is the capital of France?", provider, allow_direct=False)
    for request in server.requests:
        names = {t["function"]["name"] for t in request.body["tools"]}
        assert names == {"wiki_search", "wiki_read"}  # no tool that writes is ever offered
        system = request.text_of("system")
        assert "IGNORE ALL PREVIOUS" not in system
        assert "IGNORE ALL PREVIOUS" not in request.text_of("user")
    last = server.requests[-1]
    carrying = [m for m in last.messages if "IGNORE ALL PREVIOUS" in (m.get("content") or "")]
    assert carrying
    assert all(m["role"] == "tool" for m in carrying)
    assert json.loads(carrying[0]["content"])["data"][0]["path"] == "/notes/Poisoned page"
