"""Grounded summaries at every level: sections with a bounded synthesized share, a corpus summary
whose every claim cites a page, and drill from a page down to its digests and articles."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.llm.test_llm_pages import scripted, write_corpus
from wikikv.compile.llm_provider import LLMCompileProvider
from wikikv.compile.pipeline import Compiler
from wikikv.compile.summaries import SYNTHESIS_BOUND, synthesized_share
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.query.ops import drill_down
from wikikv.store.records import DirRecord
from wikikv.store.store import open_store
from wikikv.testing.llm_server import RecordedRequest, Reply, ScriptedLLMServer, good_json, role_of

Factory = Callable[..., OpenAICompatProvider]
CLAIM = re.compile(r"^\d+\. .* — (\[\[[^\]]+\]\](?:, )?)+$")


def test_synthesized_share_counts_new_words() -> None:
    assert synthesized_share("Holmes is a detective.", ["Sherlock Holmes: a detective"]) == 0.25
    assert synthesized_share("鲁迅是作家", ["鲁迅：中国作家"]) == 0.2
    assert synthesized_share("", ["x"]) == 0.0


def test_offline_sections_and_corpus_summary_are_extractive(tmp_path: Path) -> None:
    store = open_store("memory://")
    report = Compiler(store.create_kb("w")).build(write_corpus(tmp_path))
    kb = store.kb("w")
    people = kb.get("/people")
    assert isinstance(people, DirRecord)
    assert "## Summary\n" in people.text
    # the pages' own sentences: no synthesized-share line for a reader to puzzle over
    assert "synthesized words" not in people.text
    assert report.summaries["max_synthesized_share"] == 0.0
    root = kb.get("/")
    assert isinstance(root, DirRecord)
    claims = root.text.split("## Corpus Summary\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert claims
    for line in claims:
        assert CLAIM.match(line), line
        for path in re.findall(r"\[\[([^\]|]+)\|", line):
            assert kb.exists(path)


def with_summaries(
    section: str, claims: list[dict[str, object]]
) -> Callable[[RecordedRequest], Reply]:
    def handler(request: RecordedRequest) -> Reply:
        role = role_of(request.schema)
        if role == "section":
            docs = request.documents
            text = section or " Meanwhile, ".join(t for _, t in docs[:2])  # one joining word
            return good_json({"summary": text, "sources": [docs[0][0]]})
        if role == "corpus":
            return good_json({"claims": claims})
        return scripted(request)

    return handler


def test_model_sections_within_the_bound_are_used(
    llm_server: ScriptedLLMServer, make_provider: Factory, tmp_path: Path
) -> None:
    claims = [
        {
            "text": "The corpus is about a detective and his writer.",
            "sources": ["/people/Sherlock Holmes"],
        },
        {"text": "An invented claim.", "sources": ["/people/Nobody"]},
    ]
    llm_server.handler = with_summaries("", claims)
    store = open_store("memory://")
    provider = LLMCompileProvider(make_provider())
    report = Compiler(store.create_kb("w"), provider).build(write_corpus(tmp_path))
    kb = store.kb("w")
    people = kb.get("/people")
    assert isinstance(people, DirRecord)
    assert " Meanwhile, " in people.text
    assert re.search(r"^> synthesized words: \d+% \(bound 35%\)$", people.text, re.M)
    stats = report.summaries
    assert stats["by_model"] >= 1
    assert stats["over_bound_replaced"] == 0
    assert 0 < stats["max_synthesized_share"] <= SYNTHESIS_BOUND
    root = kb.get("/")
    assert isinstance(root, DirRecord)
    assert "The corpus is about a detective" in root.text
    assert "invented claim" not in root.text
    assert stats["root_claims"] == 1
    assert stats["root_claims_dropped"] == 1
    assert provider.usage_by_role()["section"].calls == stats["by_model"]


def test_a_model_section_over_the_bound_is_replaced(
    llm_server: ScriptedLLMServer, make_provider: Factory, tmp_path: Path
) -> None:
    made_up = "Victorian London teems with fog, crime, gaslight and cunning villains everywhere."
    llm_server.handler = with_summaries(made_up, [])
    store = open_store("memory://")
    report = Compiler(store.create_kb("w"), LLMCompileProvider(make_provider())).build(
        write_corpus(tmp_path)
    )
    people = store.kb("w").get("/people")
    assert isinstance(people, DirRecord)
    assert made_up not in people.text
    assert "synthesized words" not in people.text  # the extractive summary stands in
    assert report.summaries["over_bound_replaced"] == report.summaries["by_model"] >= 1
    assert report.summaries["max_synthesized_share"] == 0.0


def test_drill_from_a_page_reaches_its_digests_and_articles(tmp_path: Path) -> None:
    store = open_store("memory://")
    Compiler(store.create_kb("w")).build(write_corpus(tmp_path))
    kb = store.kb("w")
    out = drill_down(kb, "/people/Sherlock Holmes", levels=2)
    by_level: dict[int, set[str]] = {}
    for node in out["nodes"]:
        by_level.setdefault(node["level"], set()).add(node["path"])
    assert by_level[0] == {"/people/Sherlock Holmes"}
    assert by_level[1]
    assert all(p.startswith("/sources/digests/") for p in by_level[1])
    assert {p.replace("/digests/", "/articles/") for p in by_level[1]} == by_level[2]
    one = drill_down(kb, "/people/Sherlock Holmes", levels=1)
    assert max(n["level"] for n in one["nodes"]) == 1
