"""The retrieval benchmark: recall on hand-made rankings, nav's stream turned into a passage
ranking, and a smoke run on a 10-question slice of 2WikiMultiHopQA (never asserting time)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from wikikv.bench import dense, retrieval
from wikikv.bench.compile import shared_data
from wikikv.bench.luxun import run_luxun
from wikikv.compile.model import article_path, digest_path
from wikikv.interfaces.commands.bench import register
from wikikv.query.nav import NavResult


def _res(level: str, path: str, sources: list[str] | None = None) -> NavResult:
    return NavResult(level, path, path, "", 0.0, 0.0, "", list(sources or []))


def test_recall_at_counts_gold_in_the_top_k() -> None:
    ranked = ["a", "b", "c", "d", "e", "f"]
    gold = ["b", "f", "x"]
    assert retrieval.recall_at(ranked, gold, 2) == pytest.approx(1 / 3)
    assert retrieval.recall_at(ranked, gold, 5) == pytest.approx(1 / 3)
    assert retrieval.recall_at(ranked, gold, 6) == pytest.approx(2 / 3)
    assert retrieval.recall_at([], gold, 5) == 0.0
    assert retrieval.recall_at(["a", "a", "b"], ["a", "b"], 2) == pytest.approx(0.5)
    assert retrieval.recall_at(ranked, [], 2) == 1.0


def test_evaluate_averages_over_questions() -> None:
    qs = [
        retrieval.Question("q1", "one", ("p1", "p2")),
        retrieval.Question("q2", "two", ("p3", "p4")),
    ]
    fixed = {"one": ["p1", "p9", "p2"], "two": ["p9", "p8", "p7", "p6", "p4"]}
    res = retrieval.evaluate(qs, lambda q, k: fixed[q][:k])
    # q1: @2 = 1/2, @5 = 2/2; q2: @2 = 0, @5 = 1/2
    assert res["recall@2"] == pytest.approx(0.25)
    assert res["recall@5"] == pytest.approx(0.75)
    assert res["rankings"]["q2"] == fixed["two"]


def test_nav_ranking_follows_first_reach_and_citation_order() -> None:
    odd = "doc/with space"
    stream = [
        _res("index", "/"),
        _res("dimension", "/people"),
        _res("entity", "/people/Ann", [article_path("p2"), article_path("p1")]),
        _res("entity", "/people/Bob", [article_path("p1"), article_path(odd)]),
        _res("digest", digest_path("p2"), [article_path("p2")]),
        _res("digest", digest_path("p5")),
        _res("article", article_path("p3")),
    ]
    assert retrieval.nav_ranking(stream) == ["p2", "p1", odd, "p5", "p3"]
    assert retrieval.source_id("/people/Ann") is None
    assert retrieval.source_id("p7") == "p7"


def test_bm25_ranks_the_matching_passage_first() -> None:
    passages = [
        retrieval.Passage("a", "Apples", "Apples grow on trees in orchards."),
        retrieval.Passage("b", "Rivers", "The Danube flows through Vienna and Budapest."),
        retrieval.Passage("c", "Cats", "Cats are small domestic animals."),
    ]
    ranker = retrieval.BM25Ranker(passages)
    assert ranker.rank("Which river flows through Vienna?", 2)[0] == "b"
    assert retrieval.bm25_tokens("Free Guy, 2021!") == ["free", "guy", "2021"]


def _cli() -> click.Group:
    group = click.Group("wikikv")
    register(group)
    return group


def test_cli_smoke_on_a_2wiki_slice_writes_metrics_in_range(tmp_path: Path) -> None:
    out = tmp_path / "retrieval.json"
    args = ["bench", "retrieval", "--dataset", "2wikimultihopqa", "--limit-questions", "10"]
    args += ["--no-nav", "--no-dense", "--out", str(out)]
    result = CliRunner().invoke(_cli(), args)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    (ds,) = data["datasets"]
    assert ds["questions"] == 10
    assert set(ds["methods"]) == {"bm25"}
    for k in ("recall@2", "recall@5"):
        assert 0.0 <= ds["methods"]["bm25"][k] <= 1.0
    assert ds["methods"]["bm25"]["recall@2"] <= ds["methods"]["bm25"]["recall@5"]
    # The stored rankings reproduce the reported recall.
    qs = retrieval.load_questions(
        retrieval.dataset_dir("2wikimultihopqa") / "questions.jsonl", limit=10
    )
    ranks = ds["methods"]["bm25"]["rankings"]
    r5 = retrieval.mean([retrieval.recall_at(ranks[q.id], q.supporting, 5) for q in qs])
    assert ds["methods"]["bm25"]["recall@5"] == pytest.approx(r5, abs=1e-4)


def test_nav_runs_on_a_small_slice_and_skips_missing_dense(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dense, "PACKAGE", "wikikv_no_such_package")
    logged: list[str] = []
    res = retrieval.run_dataset(
        "2wikimultihopqa", limit_questions=3, reads=8, dense=True, log=logged.append
    )
    nav = res["methods"]["nav"]
    assert nav["reads"] == 8
    assert 0.0 <= nav["recall@2"] <= nav["recall@5"] <= 1.0
    assert all(isinstance(r, list) for r in nav["rankings"].values())
    assert "skipped" in res["methods"]["dense"]
    assert any("dense: skipped" in line for line in logged)
    assert res["latency"]["wiki_search_ms"]["count"] == 3
    assert set(retrieval.targets([res])) >= {"wiki_search p50 <= 2 ms", "nav p50 <= 10 ms"}


def test_luxun_mode_reports_first_results(tmp_path: Path) -> None:
    src = shared_data() / "luxun" / "呐喊"
    corpus = tmp_path / "luxun"
    corpus.mkdir()
    for name in ("孔乙己.md", "故乡.md"):
        (corpus / name).write_text((src / name).read_text(encoding="utf-8"), encoding="utf-8")
    res = run_luxun(reads=12, queries=("孔乙己", "闰土"), corpus=corpus)
    assert [q["query"] for q in res["queries"]] == ["孔乙己", "闰土"]
    for q in res["queries"]:
        assert q["levels"][0] == "index"
        assert q["results"] == len(q["levels"])
    assert res["queries"][0]["first_entity"] is not None or res["queries"][0]["first_source"]
