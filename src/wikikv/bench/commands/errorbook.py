"""``wikikv bench errorbook``: error counts by type before and after repair, pages passed, lint
time, nav recall@5 before/after, and detection recall of seeded errors (issue 10)."""

from __future__ import annotations

import json

import click

from wikikv.bench import errorbook
from wikikv.bench.report import print_table, write_json

DEFAULT_OUT = "bench-results/errorbook.json"


@click.command("errorbook")
@click.option(
    "--wiki",
    "wikis",
    multiple=True,
    type=click.Choice(list(errorbook.WIKIS)),
    help="Which wikis (default: all three).",
)
@click.option(
    "--per-type",
    type=int,
    default=errorbook.SEEDS_PER_TYPE,
    show_default=True,
    help="Errors of each type seeded into a copy of each wiki.",
)
@click.option("--out", default=DEFAULT_OUT, show_default=True, help="Where to write JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
def errorbook_cmd(wikis: tuple[str, ...], per_type: int, out: str, as_json: bool) -> None:
    """Compile each wiki offline, lint it, repair it (lint --fix), seed errors into a copy and
    measure detection.

    Example: wikikv bench errorbook --wiki hotpotqa --per-type 100
    """
    if per_type < 1:
        raise click.BadParameter("must be at least 1", param_hint="--per-type")

    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    result = errorbook.run(list(wikis or errorbook.WIKIS), per_type, log)
    path = write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    names = [w["wiki"] for w in result["wikis"]]
    cols = ["error type"]
    for n in names:
        cols += [f"{n} before", "share", "after"]
    print_table("Errors by type before / after lint --fix", cols, errorbook.table_rows(result))
    print_table(
        "Pages passed, lint time, nav recall@5",
        [
            "wiki",
            "pages",
            "passed before",
            "after",
            "lint s",
            "fix s",
            "R@5 before",
            "after",
            "open reviews",
        ],
        errorbook.summary_rows(result),
    )
    dcols = ["error type"]
    for n in names:
        dcols += [f"{n} detected", "left after fix (for review)"]
    print_table(
        f"Detection of {per_type} seeded errors per type", dcols, errorbook.detection_rows(result)
    )
    for target, ok in result["targets"].items():
        click.echo(f"{'PASS' if ok else 'MISS'}  {target}")
    click.echo(f"JSON written to {path}")
