"""``wikikv bench evolve``: schema evolution without / with it on real wikis (see
:mod:`wikikv.bench.evolve`)."""

from __future__ import annotations

import json

import click


@click.command("evolve")
@click.option(
    "--sets",
    default="luxun,2wiki-6k,hotpotqa",
    show_default=True,
    help="Comma-separated: luxun, 2wiki-6k, hotpotqa.",
)
@click.option("--passes", type=int, default=4, show_default=True, help="At most this many passes.")
@click.option("--limit", type=int, default=None, help="Questions per set (default: all).")
@click.option("--out", default="bench-results/evolve.json", show_default=True)
@click.option(
    "--workdir",
    type=click.Path(file_okay=False),
    default=None,
    help="Build the wikis here and keep them (default: a temporary directory).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
def bench_evolve(
    sets: str, passes: int, limit: int | None, out: str, workdir: str | None, as_json: bool
) -> None:
    """Schema evolution on real wikis, three per set: built without evolution (name ranges),
    that wiki evolved, and the default build. J and its terms, fan-out, semantic-label share,
    nav reads to the first gold source and recall@5 per question set, time per pass.

    Example: wikikv bench evolve --sets hotpotqa
    """
    from pathlib import Path

    from wikikv.bench import evolve as bench
    from wikikv.bench.report import print_table, write_json

    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    names = [s.strip() for s in sets.split(",") if s.strip()]
    unknown = [n for n in names if n not in bench.SETS]
    if unknown:
        raise click.BadParameter(f"unknown set(s) {', '.join(unknown)}", param_hint="--sets")
    kept = Path(workdir) if workdir else None
    result = bench.run(names, Path.cwd(), passes, workdir=kept, log=log, limit=limit)
    path = write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    from rich.console import Console

    print_table(
        "schema evolution: before (built without) / after (evolved) / default build",
        bench.HEADERS,
        bench.rows(result),
        Console(width=160),
    )
    for r in result["results"]:
        times = ", ".join(
            f"{p['seconds']} s ({len(p['operators'])} ops, {p['moved']} moved)" for p in r["passes"]
        )
        click.echo(f"{r['set']}: passes {times}")
    for where, qs in result["changed"].items():
        moved = ", ".join(f"{q} {v}" for q, v in qs.items())
        click.echo(f"{where}: recall@5 [before, after, default] changed on {moved}")
    click.echo(f"targets: {result['targets']}")
    click.echo(f"wrote {path}")
