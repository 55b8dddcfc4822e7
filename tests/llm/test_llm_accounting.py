"""Token and cost accounting per role: the build report and the dry run, against the scripted
server (whose usage blocks count the prompt as rendered)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.llm.test_llm_pages import scripted, write_corpus
from wikikv.compile.dryrun import dry_run
from wikikv.compile.llm_provider import LLMCompileProvider
from wikikv.compile.pipeline import Compiler
from wikikv.interfaces.cli import main
from wikikv.llm.estimate import Prices
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.store.store import open_store
from wikikv.testing.llm_server import ScriptedLLMServer

Factory = Callable[..., OpenAICompatProvider]
PRICES = Prices(prompt_per_1k=1.0, completion_per_1k=2.0)


def test_usage_by_role_and_document_adds_up(
    llm_server: ScriptedLLMServer, make_provider: Factory, tmp_path: Path
) -> None:
    llm_server.handler = scripted
    provider = LLMCompileProvider(make_provider(prices=PRICES))
    Compiler(open_store("memory://").create_kb("w"), provider).build(write_corpus(tmp_path))
    roles = provider.usage_by_role()
    assert set(roles) >= {"descriptor", "schema", "page", "section", "corpus"}
    assert (
        sum(u.calls for u in roles.values())
        == provider.usage().calls
        == len(llm_server.completions)
    )
    total = sum(u.total_tokens for u in roles.values())
    assert total == provider.usage().total_tokens
    docs = provider.usage_by_document()
    assert len(docs) == 2
    assert sum(u.calls for u in docs.values()) == roles["page"].calls
    page = roles["page"]
    assert page.cost == pytest.approx(page.prompt_tokens / 1000 + 2 * page.completion_tokens / 1000)


def test_dry_run_page_prompts_are_the_real_ones(
    llm_server: ScriptedLLMServer, make_provider: Factory, tmp_path: Path
) -> None:
    """The dry run renders each page prompt as the provider sends it: its page prompt tokens
    equal what the server counted on the real build."""
    corpus = write_corpus(tmp_path)
    estimate = dry_run(corpus, "openai", PRICES).estimate
    llm_server.handler = scripted
    provider = LLMCompileProvider(make_provider(prices=PRICES))
    Compiler(open_store("memory://").create_kb("w"), provider).build(corpus)
    real = provider.usage_by_role()["page"]
    assert estimate.by_role["page"].calls == real.calls == 2
    assert estimate.by_role["page"].prompt_tokens == real.prompt_tokens
    assert estimate.calls == sum(r.calls for r in estimate.by_role.values())


def test_cli_build_and_dry_run_report_per_role(
    llm_server: ScriptedLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.handler = scripted
    monkeypatch.setenv("WIKIKV_LLM_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("WIKIKV_LLM_MODEL", "scripted")
    corpus = str(write_corpus(tmp_path))
    store = str(tmp_path / "store")
    runner = CliRunner()
    dry = runner.invoke(
        main,
        ["build", corpus, "--store", store, "--kb", "w", "--llm", "openai", "--dry-run", "--json"],
    )
    assert dry.exit_code == 0, dry.output
    planned = json.loads(dry.output)
    assert planned["by_role"]["page"]["calls"] == 2
    assert llm_server.completions == []  # a dry run calls nothing
    built = runner.invoke(
        main, ["build", corpus, "--store", store, "--kb", "w", "--llm", "openai", "--json"]
    )
    assert built.exit_code == 0, built.output
    report = json.loads(built.output)
    assert report["llm"]["by_role"]["page"]["calls"] == 2
    assert report["grounding"]["facts"]["kept"] == 3
    human = runner.invoke(
        main, ["build", corpus, "--store", store, "--kb", "w2", "--llm", "openai"]
    )
    assert human.exit_code == 0, human.output
    assert "    page: 2 calls" in human.output
    assert "grounding: 3 of 5 model facts kept" in human.output
