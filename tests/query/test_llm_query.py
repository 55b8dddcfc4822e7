"""nav, ask and the direct-answer vote with the model, against the scripted server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from tests.query.wiki_fixture import make_store
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.query.answer import Answer, ask, vote
from wikikv.query.budget import Budget
from wikikv.query.nav import ModelNeedsDeeper, nav
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.testing.llm_server import RecordedRequest, Reply, ScriptedLLMServer, good_json, role_of

DISAGREE = "Who co-founded Syncopy with Nolan?"  # names Nolan; the search ranks Emma Thomas first


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = make_store()
    emma = kb.get("/people/Emma Thomas")
    assert isinstance(emma, FileRecord)
    kb.put(emma.path, emma.text, msgspec.structs.replace(emma.meta, lint_status="passed"))
    yield kb
    store.close()


def roles(server: ScriptedLLMServer) -> list[str]:
    return [role_of(r.schema) for r in server.completions]


def test_agreement_needs_no_llm_call(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    answer = ask(kb, "What is Inception?", provider)
    assert answer.mode == "direct"
    assert answer.llm_calls == 0
    assert server.completions == []


def test_a_disagreement_calls_the_llm_once_and_follows_it(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    assert vote(kb, DISAGREE).page is None  # without a model a disagreement has no winner
    server.script(good_json({"choice": "/people/Emma Thomas", "reason": "she co-founded it"}))
    answer = ask(kb, DISAGREE, provider)
    assert roles(server) == ["tie_break"]
    assert answer.mode == "direct"
    assert answer.llm_calls == 1
    assert answer.citations[0].path == "/people/Emma Thomas"
    (sent,) = server.completions
    assert {i for i, _ in sent.documents} == {"/people/Emma Thomas", "/people/Christopher Nolan"}
    server.reset()
    server.script(good_json({"choice": "/people/Christopher Nolan", "reason": "named"}))
    followed = vote(kb, DISAGREE, _tie(provider))
    assert "the LLM chose /people/Christopher Nolan" in followed.reason
    assert followed.page is None  # followed, and Nolan's page has not passed lint
    server.reset()
    server.script(good_json({"choice": "neither", "reason": "neither answers"}))
    chosen = vote(kb, DISAGREE, _tie(provider))
    assert chosen.page is None
    assert chosen.llm_calls == 1
    assert len(server.completions) == 1


def _tie(provider: OpenAICompatProvider):  # type: ignore[no-untyped-def]
    from wikikv.query.answer import llm_tie_break

    return llm_tie_break(provider)


def needs_deeper_script(answers: list[bool]) -> callable:  # type: ignore[valid-type]
    def handler(request: RecordedRequest) -> Reply:
        if role_of(request.schema) == "needs_deeper":
            deeper = answers.pop(0) if answers else True
            return good_json({"needs_deeper": deeper, "reason": "", "missing": []})
        return good_json({"answer": "", "insufficient": True, "citations": []})

    return handler


def test_nav_calls_needs_deeper_within_its_budget(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    server.handler = needs_deeper_script([True] * 10)
    budget = Budget(max_reads=40, max_llm_calls=2)
    judge = ModelNeedsDeeper(provider)
    results = list(
        nav(kb, "Who is the wife of the director of Inception?", budget, needs_deeper=judge)
    )
    assert judge.calls == 2
    assert budget.llm_calls == 2
    assert len(server.completions) == 2
    assert any(r.reason.startswith("linked from") for r in results)  # it said: go deeper


def test_nav_stops_when_the_model_says_the_page_covers_it(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    server.handler = needs_deeper_script([False])
    judge = ModelNeedsDeeper(provider)
    budget = Budget(max_reads=40, max_llm_calls=5)
    results = list(nav(kb, "Who directed Dunkirk and Inception?", budget, needs_deeper=judge))
    entities = [r for r in results if r.level == "entity"]
    assert judge.calls == 1
    assert len(entities) == 1
    assert not any(r.reason.startswith("linked from") for r in results)
    server.handler = needs_deeper_script([True] * 10)
    deeper = list(
        nav(
            kb,
            "Who directed Dunkirk and Inception?",
            Budget(max_reads=40),
            needs_deeper=ModelNeedsDeeper(provider),
        )
    )
    assert len([r for r in deeper if r.level == "entity"]) > 1


def _ask_the_model(kb: KnowledgeBase, provider: OpenAICompatProvider) -> Answer:
    """Ask who Nolan's wife is with the model's answer strategy (no direct answer)."""
    return ask(
        kb,
        "Who is Nolan's wife?",
        provider,
        Budget(max_reads=24),
        allow_direct=False,
        strategy="answer",
    )


def test_ask_uses_the_model_answer_with_checked_citations(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    def handler(request: RecordedRequest) -> Reply:
        role = role_of(request.schema)
        if role == "needs_deeper":
            return good_json({"needs_deeper": False, "reason": "", "missing": []})
        cites = [
            {"source_id": "/people/Christopher Nolan", "quote": "married to [[Emma Thomas]]"},
            {"source_id": "/people/Christopher Nolan", "quote": "married to Jane Doe"},
            {"source_id": "/people/Nobody", "quote": "Emma Thomas"},
        ]
        return good_json({"answer": "Emma Thomas", "insufficient": False, "citations": cites})

    server.handler = handler
    answer = _ask_the_model(kb, provider)
    assert answer.mode == "llm"
    assert answer.answer == "Emma Thomas"
    assert [(c.path, c.quote) for c in answer.citations] == [
        ("/people/Christopher Nolan", "married to [[Emma Thomas]]")
    ]
    page = kb.get("/people/Christopher Nolan")
    start, end = map(int, answer.citations[0].chars.split("-"))
    assert page.text[start:end] == "married to [[Emma Thomas]]"  # type: ignore[union-attr]
    assert "1 citations checked, 2 dropped" in answer.stopped_because
    assert roles(server)[-1] == "answer"


def test_an_answer_without_a_checked_citation_is_not_given(
    kb: KnowledgeBase, server: ScriptedLLMServer, provider: OpenAICompatProvider
) -> None:
    def handler(request: RecordedRequest) -> Reply:
        if role_of(request.schema) == "needs_deeper":
            return good_json({"needs_deeper": False, "reason": "", "missing": []})
        cites = [{"source_id": "/people/Christopher Nolan", "quote": "married to Jane Doe"}]
        return good_json({"answer": "Jane Doe", "insufficient": False, "citations": cites})

    server.handler = handler
    answer = _ask_the_model(kb, provider)
    assert answer.mode == "evidence"
    assert "Jane Doe" not in answer.answer
    assert "no citation of the model's answer checked out (1 dropped)" in answer.stopped_because


def test_nav_cli_with_the_model_keeps_to_its_llm_budget(
    server: ScriptedLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from wikikv.interfaces.cli import main

    store, _ = make_store(str(tmp_path / "store"))
    store.close()
    server.handler = needs_deeper_script([True] * 10)
    monkeypatch.setenv("WIKIKV_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("WIKIKV_LLM_MODEL", "scripted")
    args = ["nav", "--store", str(tmp_path / "store"), "--kb", "films", "--llm", "openai"]
    args += ["--max-llm-calls", "1", "--max-reads", "30", "--budget", "60000"]
    result = CliRunner().invoke(main, [*args, "Who is the wife of the director of Inception?"])
    assert result.exit_code == 0, result.output
    assert "1 NeedsDeeper calls" in result.stderr
    assert roles(server) == ["needs_deeper"]
