"""``wikikv bench vault``: export / import throughput and export size (issue 12, "Measure it")."""

from __future__ import annotations

import json

import click

from wikikv.bench import vault
from wikikv.bench.compile import CORPORA
from wikikv.bench.report import print_table, write_json

DEFAULT_OUT = "bench-results/vault.json"


@click.command("vault")
@click.option(
    "--corpus",
    type=click.Choice(list(CORPORA)),
    default=vault.DEFAULT_CORPUS,
    show_default=True,
    help="Which shared corpus to compile, export and import.",
)
@click.option("--out", "out", default=DEFAULT_OUT, show_default=True, help="Where to write JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of a table.")
def vault_cmd(corpus: str, out: str, as_json: bool) -> None:
    """Export a compiled wiki as a vault and as JSON lines, import each into a new kb (checked
    identical), and report pages/s both ways and the size, beside the LMDB backup baseline.

    Example: wikikv bench vault --corpus 2wiki-corpus-6k
    """

    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    result = vault.run(corpus, log)
    path = write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False, indent=2))
        return
    columns = [
        "format",
        "export s",
        "export pages/s",
        "import s",
        "import pages/s",
        "size MB",
        "files",
        "identical",
    ]
    keys = [
        "format",
        "export_s",
        "export_pages_per_s",
        "import_s",
        "import_pages_per_s",
        "size_mb",
        "files",
        "round_trip_identical",
    ]
    print_table(
        f"Vault export / import: {corpus} ({result['pages']} pages, {result['records']} records)",
        columns,
        [[row[k] if row[k] is not None else "—" for k in keys] for row in result["rows"]],
    )
    click.echo(f"wrote {path}")
