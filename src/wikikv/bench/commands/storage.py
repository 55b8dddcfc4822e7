"""``wikikv bench storage``: the paper's Table II operator comparison (Q1 get, Q2 ls, Q3 descent,
Q4 prefix) against a file-system layout and SQLite; ``--scale`` adds 200k / 1M nodes."""

from __future__ import annotations

import json
from pathlib import Path

import click

DEFAULT_OUT = "bench-results/storage.json"


@click.command("storage")
@click.option("--scale", is_flag=True, help="Also run 200k / 1M nodes and a 100k-child directory.")
@click.option("--quick", is_flag=True, help="A smoke run: a small wiki and few operations.")
@click.option("--out", "out", default=DEFAULT_OUT, show_default=True, help="Where to write JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
@click.option("--nodes", type=int, default=None, help="Size of the generated wiki.")
@click.option("--ops", type=int, default=None, help="Timed operations per operator and engine.")
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the engines' data goes (default: a temporary directory, removed afterwards).",
)
@click.option(
    "--bulk-options",
    "bulk_sizes",
    default="",
    help="Also load wikis of these sizes (e.g. 200000,1000000) with each bulk-load option "
    "(clustered/hashed keys, key order, chunk size, one sync, writemap) side by side.",
)
def storage(
    scale: bool,
    quick: bool,
    out: str,
    as_json: bool,
    nodes: int | None,
    ops: int | None,
    workdir: Path | None,
    bulk_sizes: str,
) -> None:
    """Q1 get, Q2 ls, Q3 descent and Q4 prefix on WikiKV, a file-system layout and SQLite,
    with the bare LMDB lookup as the floor; --scale repeats them at 200k and 1M nodes;
    --bulk-options compares the bulk-load options.

    Example: wikikv bench storage --out bench-results/storage.json
    """
    import dataclasses

    from wikikv.bench import report
    from wikikv.bench import scale as scale_mod
    from wikikv.bench import storage as bench_storage

    cfg = bench_storage.QUICK if quick else bench_storage.Config()
    if nodes is not None:
        cfg = dataclasses.replace(cfg, nodes=nodes)
    if ops is not None:
        cfg = dataclasses.replace(cfg, ops=ops)

    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    log(f"storage benchmark: {cfg.nodes:,} nodes, {cfg.ops:,} ops per operator and engine")
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
    result = bench_storage.run(cfg, workdir / "medium" if workdir is not None else None)
    if scale:
        sizes = (20_000, 40_000) if quick else bench_storage.SCALE_SIZES
        children = 3_000 if quick else bench_storage.BIG_DIR_CHILDREN
        result["scale"] = scale_mod.run_scale(cfg, sizes, children, workdir, log)
    if bulk_sizes:
        from wikikv.bench.bulkload import run_options

        sizes_list = [int(x) for x in bulk_sizes.split(",") if x.strip()]
        result["bulk_options"] = run_options(sizes_list, log=log)
    path = report.write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        bench_storage.print_result(result)
        for size, rows in result.get("bulk_options", {}).items():
            for row in rows:
                click.echo(
                    f"bulk {int(size):>9,} {row['option']:<10} "
                    + (
                        row.get("error")
                        or f"{row['records_per_s']:>8,.0f} rec/s {row['records_per_cpu_s']:>8,.0f}"
                        f" rec/cpu-s {row['written_kib_per_record']:>6.1f} KiB written/rec"
                    )
                )
        click.echo(f"wrote {path}")
    failed = not result["cross_check"]["same_results"]
    if scale and not result["scale"]["big_dir"]["ok"]:
        failed = True
    if failed:
        raise click.ClickException("the engines did not return the same records (see the JSON)")
