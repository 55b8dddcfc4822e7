"""``wikikv stats replay`` / ``stats show``, ``schema cost`` and ``evolve`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from wikikv.interfaces.cli import main
from wikikv.testing.evolve_workload import generated_corpus, generated_queries


def run(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(main, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out: dict[str, object] = json.loads(result.output)
    return out


def test_replay_cost_and_evolve(tmp_path: Path) -> None:
    docs = generated_corpus(4, 60)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "\n".join(json.dumps({"id": d.id, "title": d.title, "text": d.text}) for d in docs)
    )
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        "\n".join(json.dumps({"question": q}) for q in generated_queries(docs, 4, 30))
    )
    store = ["--store", str(tmp_path / "s"), "--kb", "gen"]
    CliRunner().invoke(main, ["build", str(corpus), *store], catch_exceptions=False)
    replayed = run("stats", "replay", str(queries), *store)
    assert replayed["replayed"] == 30
    assert replayed["queries"] == 30
    shown = run("stats", "show", *store)
    assert shown["queries"] == 30
    assert shown["top_pages"]
    cost = run("schema", "cost", *store)
    dims = cost["dimensions"]
    assert isinstance(dims, dict)
    assert dims
    tot = cost["total"]
    assert isinstance(tot, dict)
    assert abs(tot["J"] - sum(d["J"] for d in dims.values())) < 1e-2
    dry = run("evolve", "--dry-run", *store)
    assert dry["dry_run"] is True
    assert dry["moved"] == 0
    for p in dry["proposals"]:  # type: ignore[union-attr]
        assert {"op", "dim", "delta_j", "reachable"} <= set(p)
    again = run("schema", "cost", *store)
    assert again["total"] == tot  # the dry run changed nothing
    done = run("evolve", "--max-ops", "2", *store)
    assert len(done["committed"]) <= 2  # type: ignore[arg-type]
    assert done["j_after"] <= done["j_before"]  # type: ignore[operator]


def test_a_bad_workload_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text("{oops\n")
    CliRunner().invoke(main, ["init", "--store", str(tmp_path / "s"), "--kb", "k"])
    result = CliRunner().invoke(
        main, ["stats", "replay", str(bad), "--store", str(tmp_path / "s"), "--kb", "k"]
    )
    assert result.exit_code != 0
    assert "not JSON" in result.output


def test_build_no_evolution_makes_a_wiki_without_semantic_routing(tmp_path: Path) -> None:
    from wikikv.compile import state
    from wikikv.store.store import open_store

    docs = generated_corpus(5, 12)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "\n".join(json.dumps({"id": d.id, "title": d.title, "text": d.text}) for d in docs)
    )
    for kb, flags in (("plain", ["--no-evolution"]), ("default", [])):
        store = ["--store", str(tmp_path / "s"), "--kb", kb]
        result = CliRunner().invoke(main, ["build", str(corpus), *store, *flags, "--json"])
        assert result.exit_code == 0, result.output
    with open_store(str(tmp_path / "s")) as s:
        plain, default = state.load_schema(s.kb("plain")), state.load_schema(s.kb("default"))
        assert plain is not None
        assert default is not None
        assert not plain.semantic_routing
        assert default.semantic_routing
