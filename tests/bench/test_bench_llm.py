"""``wikikv bench llm`` on a slice of 2Wiki against the scripted model: it accounts every call
per role and per document, compares the dry run with the real run, and reports grounding."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from wikikv.interfaces.cli import main


def test_bench_llm_reports_roles_agreement_and_grounding(tmp_path: Path) -> None:
    out = tmp_path / "llm.json"
    res = CliRunner().invoke(
        main, ["bench", "llm", "--limit", "40", "--concurrency", "4", "--out", str(out), "--json"]
    )
    assert res.exit_code == 0, res.output
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["documents"] == 40
    roles = result["by_role"]
    assert roles["page"]["real"]["calls"] == 40  # one page call per short document
    assert roles["descriptor"]["real"]["calls"] == roles["schema"]["real"]["calls"] == 1
    assert roles["section"]["real"]["calls"] >= 1
    total = sum(r["real"]["calls"] for r in roles.values())
    assert total == result["real"]["calls"]
    assert result["per_document"]["page_calls"]["documents"] == 40
    est = result["dry_run"]
    assert est["by_role"]["page"]["calls"] == 40
    agreement = result["agreement"]["total_tokens"]
    assert agreement == round(
        (est["total_tokens"] - result["real"]["total_tokens"]) / result["real"]["total_tokens"], 4
    )
    facts = result["grounding"]["facts"]
    assert 0 < facts["kept"] < facts["proposed"]  # the scripted model invents some quotes
    assert facts["dropped"]["facts: quote not in the source"] > 0
    assert result["grounding"]["facts_kept_share"] == round(facts["kept"] / facts["proposed"], 4)
    assert result["summaries"]["max_synthesized_share"] <= result["summaries"]["synthesis_bound"]
    assert "not measured" in result["answer_accuracy"]
    assert result["check"]["invalid_citations"] == 0
    assert result["check"]["facts"] >= facts["kept"]
