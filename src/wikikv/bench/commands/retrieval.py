"""``wikikv bench retrieval``: nav against BM25 and dense retrieval on the multi-hop sets, plus
search / nav latency, and ``--luxun``: what nav returns first for ten Chinese queries on the
Lu Xun wiki (issue 4, "Measure it")."""

from __future__ import annotations

import json

import click

from wikikv.bench import retrieval
from wikikv.bench.report import print_table, write_json

DEFAULT_OUT = "bench-results/retrieval.json"
DEFAULT_LUXUN_OUT = "bench-results/luxun.json"


def _log(as_json: bool) -> retrieval.Log:
    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    return log


@click.command("retrieval")
@click.option(
    "--dataset",
    type=click.Choice([*retrieval.DATASETS, "all"]),
    default="all",
    show_default=True,
    help="Which multi-hop set (from <shared data>/multihop).",
)
@click.option(
    "--reads",
    type=int,
    default=retrieval.DEFAULT_READS,
    show_default=True,
    help="nav's read budget per question (count form: machine-independent).",
)
@click.option("--limit-questions", type=int, default=None, help="Only the first N questions.")
@click.option("--no-dense", is_flag=True, help="Skip the dense (all-MiniLM-L6-v2) baseline.")
@click.option("--no-nav", is_flag=True, help="Baselines only: skip building the wiki and nav.")
@click.option("--luxun", is_flag=True, help="Instead: ten Chinese queries on the Lu Xun wiki.")
@click.option("--out", "out", default=None, help=f"Where to write JSON [{DEFAULT_OUT}].")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
def retrieval_cmd(
    dataset: str,
    reads: int,
    limit_questions: int | None,
    no_dense: bool,
    no_nav: bool,
    luxun: bool,
    out: str | None,
    as_json: bool,
) -> None:
    """Passage recall@2/@5 of nav (a fixed read budget), BM25 and dense retrieval on the
    multi-hop sets; wiki_search and nav (50 ms budget) latency on the 2WikiMultiHopQA wiki.

    Example: wikikv bench retrieval --dataset musique --reads 24
    """
    if reads < 1:
        raise click.BadParameter("must be at least 1", param_hint="--reads")
    log = _log(as_json)
    if luxun:
        from wikikv.bench.luxun import run_luxun

        lx = run_luxun(reads=reads, log=log)
        path = write_json(lx, out or DEFAULT_LUXUN_OUT)
        if as_json:
            click.echo(json.dumps(lx, indent=2, ensure_ascii=False))
            return
        print_table(
            f"nav on the Lu Xun wiki ({reads} reads)",
            ["query", "first entity", "first source", "ms"],
            [[q["query"], q["first_entity"], q["first_source"], q["ms"]] for q in lx["queries"]],
        )
        click.echo(f"JSON written to {path}")
        return
    names = retrieval.DATASETS if dataset == "all" else (dataset,)
    result = retrieval.run(
        names,
        reads=reads,
        limit_questions=limit_questions,
        dense=not no_dense,
        nav_on=not no_nav,
        log=log,
    )
    path = write_json(result, out or DEFAULT_OUT)
    if as_json:
        click.echo(json.dumps(retrieval.strip_rankings(result), indent=2, ensure_ascii=False))
        return
    print_table(
        f"Passage recall (nav: {reads} reads)",
        ["dataset", "method", "R@2", "R@5", "questions"],
        retrieval.table_rows(result),
    )
    lat = retrieval.latency_rows(result)
    if lat:
        print_table("Latency (ms)", ["operation", "p50", "p95", "p99", "n"], lat)
    for target, ok in result["targets"].items():
        click.echo(f"{'PASS' if ok else 'MISS'}  {target}")
    click.echo(f"JSON written to {path}")
