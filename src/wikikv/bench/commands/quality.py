"""``wikikv bench quality`` (issue 8: entity recall, fact coverage, nav vs BM25 and offline ask on
the Lu Xun question set, the English multi-hop sets) and ``wikikv bench startup`` (issue 14:
cold CLI query to first result). Imported only when one of them runs (see ``lazy.py``)."""

from __future__ import annotations

import json

import click

from wikikv.bench.report import print_table, write_json
from wikikv.bench.retrieval import DATASETS, DEFAULT_READS

DEFAULT_QUALITY_OUT = "bench-results/quality.json"
DEFAULT_STARTUP_OUT = "bench-results/startup.json"


def _log(as_json: bool) -> object:
    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    return log


def _targets(targets: dict[str, bool | None]) -> None:
    for name, ok in targets.items():
        click.echo(f"{'----' if ok is None else 'PASS' if ok else 'MISS'}  {name}")


@click.command("quality")
@click.option(
    "--reads", type=int, default=DEFAULT_READS, show_default=True, help="nav/ask read budget."
)
@click.option(
    "--store", "store_url", default=None, help="Reuse a compiled Lu Xun kb at this store URL."
)
@click.option(
    "--kb", "kb_name", default="luxun", show_default=True, help="Its kb name (with --store)."
)
@click.option("--no-english", is_flag=True, help="Skip the English multi-hop sets.")
@click.option("--limit-questions", type=int, default=None, help="English sets: first N questions.")
@click.option("--out", "out", default=DEFAULT_QUALITY_OUT, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
def quality_cmd(
    reads: int,
    store_url: str | None,
    kb_name: str,
    no_english: bool,
    limit_questions: int | None,
    out: str,
    as_json: bool,
) -> None:
    """Wiki quality on the Lu Xun corpus against the hand-made sets in evals/luxun: entity
    recall (a), precision and wrong-type rate as labelled (b), mention (fact) coverage, recall@2/@5 of nav
    vs BM25 over the raw files per question bucket (c), offline ask vs BM25 sentences; and nav
    vs BM25 plus ask on the English multi-hop sets.

    Example: wikikv bench quality --no-english
    """
    from wikikv.bench import quality

    if reads < 1:
        raise click.BadParameter("must be at least 1", param_hint="--reads")
    result = quality.run(
        reads=reads,
        store_url=store_url,
        kb_name=kb_name,
        english=() if no_english else DATASETS,
        english_limit=limit_questions,
        log=_log(as_json),  # type: ignore[arg-type]
    )
    path = write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    ent, lab = result["entities"], result["labelled_sample"]
    cov = result["mention_coverage"]
    print_table(
        "Entities and facts (Lu Xun wiki)",
        ["measure", "value", "from"],
        [
            ["entity recall (a)", ent.get("recall"), ent.get("file", ent.get("skipped"))],
            ["precision (b)", lab.get("precision"), lab.get("file", lab.get("skipped"))],
            ["wrong-type rate (b)", lab.get("wrong_type_rate"), lab.get("file", "")],
            ["mention (fact) coverage", cov.get("coverage"), cov.get("file", cov.get("skipped"))],
            ["  mean per entity", cov.get("mean_per_entity"), ""],
            ["informative sentences quoted", result["check_fact_coverage"], "wikikv check"],
        ],
    )
    print_table(
        f"Source recall: nav ({reads} reads) vs BM25 over the raw files",
        ["set", "questions", "nav R@2", "BM25 R@2", "nav R@5", "BM25 R@5"],
        quality.table_rows(result),
    )
    print_table(
        "Offline ask: gold answer in the answer's sentences vs as many top BM25 sentences",
        ["set", "questions", "answered", "ask", "BM25 sentences"],
        quality.ask_rows(result),
    )
    _targets(result["targets"])
    click.echo(f"JSON written to {path}")


@click.command("startup")
@click.option("--runs", type=int, default=20, show_default=True, help="Cold processes per row.")
@click.option("--luxun-store", default=None, help="Reuse a store URL holding kb 'luxun'.")
@click.option("--out", "out", default=DEFAULT_STARTUP_OUT, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
def startup_cmd(runs: int, luxun_store: str | None, out: str, as_json: bool) -> None:
    """Cold CLI query, process start to first printed result (p50 over --runs new processes),
    for search / nav / ask on the demo and Lu Xun kbs; beside them the start-up parts and the
    dictionary options (jieba, rjieba, the mapped dictionary cache).

    Example: wikikv bench startup --runs 20
    """
    from wikikv.bench import startup

    if runs < 1:
        raise click.BadParameter("must be at least 1", param_hint="--runs")
    result = startup.run(runs=runs, luxun_store=luxun_store, log=_log(as_json))  # type: ignore[arg-type]
    path = write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    print_table(
        f"Start-up parts (p50 over {runs} new processes, ms)",
        ["part", "p50 ms"],
        [[k, v.get("p50_ms", v.get("skipped"))] for k, v in result["parts"].items()],
    )
    print_table(
        f"Cold CLI query to first result (p50 over {runs} processes, ms)",
        ["kb", "command", "query", "p50", "min", "max", "CPU p50"],
        [
            [
                r["kb"],
                r["command"],
                r["query"],
                r["p50_ms"],
                r["min_ms"],
                r["max_ms"],
                r["cpu_p50_ms"],
            ]
            for r in result["commands"]
        ],
    )
    _targets(result["targets"])
    click.echo(f"JSON written to {path}")
