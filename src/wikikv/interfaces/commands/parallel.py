"""``wikikv build-many``: build many kbs in parallel, one kb per worker process."""

from __future__ import annotations

import click

from wikikv.compile.parallel import BuildOutcome, build_many, jobs_from_folder
from wikikv.interfaces.common import emit, fail, json_option, store_option


def register(main: click.Group) -> None:
    main.add_command(build_many_cmd)


@click.command("build-many")
@store_option
@json_option
@click.option(
    "--kb",
    "kb_prefix",
    default="",
    metavar="PREFIX",
    help="Prefix for the kb names (each kb is named after its corpus).",
)
@click.option(
    "--workers",
    "-j",
    type=int,
    default=2,
    show_default=True,
    help="Worker processes; each builds one kb at a time.",
)
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
def build_many_cmd(
    store_url: str, as_json: bool, kb_prefix: str, workers: int, folder: str
) -> None:
    """Build one kb per entry of FOLDER (each sub-folder or JSONL/JSON corpus file is a kb),
    with a pool of worker processes and no coordination between kbs.

    Example: wikikv build-many ./tenants --workers 4
    """
    jobs = jobs_from_folder(folder, kb_prefix)
    if not jobs:
        fail(f"{folder} holds no corpus")

    def done(o: BuildOutcome) -> None:
        if not as_json:
            status = (
                f"{o.report.get('documents', 0)} documents, {o.report.get('pages', 0)} pages"
                if o.ok
                else f"FAILED: {o.error}"
            )
            click.echo(f"{o.kb:<24} {o.seconds:7.1f} s  {status}")

    from wikikv.quality.hooks import gated

    outcomes = build_many(store_url, jobs, workers, done, gated())
    emit([o.__dict__ for o in outcomes], as_json, "")
    if not all(o.ok for o in outcomes):
        fail(f"{sum(not o.ok for o in outcomes)} of {len(outcomes)} builds failed")
