"""``wikikv build --dry-run`` and ``wikikv bench compile``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from wikikv.bench import compile as bench
from wikikv.compile.dryrun import dry_run
from wikikv.interfaces.cli import main
from wikikv.llm.estimate import Prices
from wikikv.sample import CORPUS_DIR

DOCS = len(list(CORPUS_DIR.rglob("*.md")))


def _write_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus.jsonl"
    rows = [
        {"id": f"d{i}", "title": f"Title {i}", "text": f"Title {i} is a town in Ruritania. " * 40}
        for i in range(5)
    ]
    rows.append({"id": "empty", "title": "Empty", "text": ""})
    corpus.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return corpus


def test_offline_dry_run_makes_no_calls_and_writes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "store"
    result = CliRunner().invoke(
        main, ["build", str(CORPUS_DIR), "--dry-run", "--json", "--store", str(store)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["llm"] == "offline"
    assert report["documents"] == report["read"] == DOCS
    assert report["calls"] == report["total_tokens"] == 0
    assert report["cost"] == 0
    assert not store.exists()


def test_llm_dry_run_estimates_calls_tokens_cost_and_time(tmp_path: Path) -> None:
    corpus = _write_corpus(tmp_path)
    est = dry_run(corpus, "openai", Prices(1.0, 2.0), concurrency=2)
    assert est.issues + sum(est.dropped.values()) == 1  # the empty one is not compiled
    e = est.estimate
    assert e.documents == 5
    # one page call per document, descriptor and schema, a summary per dimension, the corpus's
    assert e.by_role["page"].calls == 5
    assert e.calls == 5 + 2 + 6 + 1
    assert e.prompt_tokens > 5 * 400
    assert e.completion_tokens > 0
    assert e.cost == pytest.approx((e.prompt_tokens * 1.0 + e.completion_tokens * 2.0) / 1000)
    assert e.seconds > 0
    serial = dry_run(corpus, "openai", Prices(1.0, 2.0), concurrency=1).estimate
    assert serial.seconds == pytest.approx(2 * e.seconds)


def test_dry_run_table_for_people(tmp_path: Path) -> None:
    corpus = _write_corpus(tmp_path)
    result = CliRunner().invoke(
        main,
        ["build", str(corpus), "--dry-run", "--llm", "openai", "--price-in", "0.5"],
        env={"WIKIKV_LLM_BASE_URL": "", "WIKIKV_LLM_MODEL": ""},
    )
    assert result.exit_code == 0, result.output
    for fragment in ("LLM calls", "prompt tokens", "cost", "documents to compile", "7"):
        assert fragment in result.stdout
    assert "Nothing was called or written" in result.stdout


def test_bench_compile_hands_its_options_to_the_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(names: list[str] | None, store_kind: str, **kw: Any) -> dict[str, Any]:
        seen.update(names=names, store_kind=store_kind, **kw)
        return {"runs": []}

    monkeypatch.setattr(bench, "run_bench", fake_run)
    out = tmp_path / "compile.json"
    result = CliRunner().invoke(
        main,
        ["bench", "compile", "--corpus", "luxun", "--store", "memory", "--out", str(out), "--json"],
    )
    assert result.exit_code == 0, result.output
    assert seen["names"] == ["luxun"]
    assert seen["store_kind"] == "memory"
    assert json.loads(out.read_text()) == {"runs": []}
    assert "compile-bench" not in main.commands


def _add_after_build(tmp_path: Path, small_en: Path, stale: bool) -> str:
    from wikikv.compile import persisted
    from wikikv.compile.pipeline import Compiler
    from wikikv.store.store import open_store

    lines = [line for line in small_en.read_text(encoding="utf-8").splitlines() if line]
    rest, one = tmp_path / "rest.jsonl", tmp_path / "one.jsonl"
    rest.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    one.write_text(lines[-1] + "\n", encoding="utf-8")
    store = open_store(str(tmp_path / "store"))
    kb = store.create_kb("kb")
    Compiler(kb).build(rest)
    if stale:  # as after an upgrade of the detector code
        meta = persisted.load_meta(kb)
        assert meta is not None
        meta.version = "written by other code"
        kb.commit([persisted.Put(kb.keys.system(persisted.META), persisted._enc.encode(meta))])
    store.close()
    result = CliRunner().invoke(
        main, ["add", str(one), "--store", str(tmp_path / "store"), "--kb", "kb"]
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_add_says_why_it_derived_the_whole_model(tmp_path: Path, small_en: Path) -> None:
    out = _add_after_build(tmp_path, small_en, stale=True)
    assert (
        "entity model derived again from every document: "
        "the stored model was written by other code" in out
    )


def test_an_add_on_a_current_model_says_nothing_of_it(tmp_path: Path, small_en: Path) -> None:
    assert "derived again" not in _add_after_build(tmp_path, small_en, stale=False)


def test_a_first_build_is_no_fallback(tmp_path: Path, small_en: Path) -> None:
    result = CliRunner().invoke(
        main, ["build", str(small_en), "--store", str(tmp_path / "store"), "--kb", "kb"]
    )
    assert result.exit_code == 0, result.output
    assert "derived again" not in result.output
