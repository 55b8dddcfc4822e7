"""``wikikv bench web``: browser render times and vault export / import (issue 12, "Measure it")."""

from __future__ import annotations

import json

import click

from wikikv.bench import web
from wikikv.bench.compile import CORPORA
from wikikv.bench.report import print_table, write_json
from wikikv.bench.vault import DEFAULT_CORPUS

DEFAULT_OUT = "bench-results/web.json"


@click.command("web")
@click.option(
    "--corpus",
    type=click.Choice(list(CORPORA)),
    default=DEFAULT_CORPUS,
    show_default=True,
    help="Which shared corpus to compile and render.",
)
@click.option("--repeat", type=int, default=400, show_default=True, help="Renders per page kind.")
@click.option("--no-vault", is_flag=True, help="Skip the export / import measurements.")
@click.option("--out", "out", default=DEFAULT_OUT, show_default=True, help="Where to write JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
def web_cmd(corpus: str, repeat: int, no_vault: bool, out: str, as_json: bool) -> None:
    """Render an entity page and a 1,000-child directory page (server-side p50, target 20 ms,
    and over HTTP), then export / import the wiki as a vault and as JSON lines.

    Example: wikikv bench web --corpus 2wiki-corpus-6k
    """

    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    result = web.run(corpus, log, repeat, vault=not no_vault)
    path = write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False, indent=2))
        return
    keys = ["page", "cold_p50_ms", "cold_p90_ms", "warm_p50_ms", "warm_p90_ms", "http_p50_ms",
            "html_kb", "target_met_cold", "target_met_warm"]  # fmt: skip
    print_table(
        f"Browser render: {corpus} (target: server-side p50 <= {result['target_ms']} ms)",
        [
            "page",
            "cold p50 ms",
            "cold p90 ms",
            "warm p50 ms",
            "warm p90 ms",
            "HTTP p50 ms",
            "HTML KB",
            "met (cold)",
            "met (warm)",
        ],  # fmt: skip
        [[row[k] for k in keys] for row in result["render"]],
    )
    if result["vault"] is not None:
        vkeys = ["format", "export_pages_per_s", "import_pages_per_s", "size_mb", "files",
                 "round_trip_identical"]  # fmt: skip
        print_table(
            f"Export / import: {result['vault']['pages']} pages",
            ["format", "export pages/s", "import pages/s", "size MB", "files", "identical"],
            [
                [row[k] if row[k] is not None else "—" for k in vkeys]
                for row in result["vault"]["rows"]
            ],
        )
    click.echo(f"wrote {path}")
