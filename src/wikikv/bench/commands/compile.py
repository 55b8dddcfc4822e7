"""``wikikv bench compile``: offline compile throughput, memory and the incremental add on the
shared corpora (see :mod:`wikikv.bench.compile`)."""

from __future__ import annotations

import json
from typing import Any

import click

from wikikv.interfaces.common import json_option


@click.command("compile", short_help="Offline compile throughput on the shared corpora.")
@click.option(
    "--corpus",
    "corpora",
    multiple=True,
    help="Corpus name (hotpotqa, musique, 2wikimultihopqa, 2wiki-corpus-6k, luxun); default: all.",
)
@click.option(
    "--store",
    "store_kind",
    default="lmdb",
    type=click.Choice(["lmdb", "memory"]),
    show_default=True,
)
@click.option("--out", default="bench-results/compile.json", show_default=True)
@click.option("--no-index", is_flag=True, help="Build without the search index.")
@click.option(
    "--large",
    "large",
    default="",
    help="Also build the generated large corpus at these sizes, in copies of the 2Wiki 6k corpus "
    "(e.g. 9,18,36 for ~25/50/100 MB); 'only' before the list skips the shared corpora.",
)
@click.option(
    "--keep",
    default="",
    help="With --large: keep each built store in this directory (store-<copies>, after its adds).",
)
@click.option(
    "--adds-on",
    "adds_on",
    default="",
    help="Instead of building: time five more adds against a copy of a store --keep kept "
    "(DIR/store-<copies>), made at <it>-adds.",
)
@click.option(
    "--sample",
    default=0,
    show_default=True,
    help="With --adds-on: then this many more plain adds and as many naming the corpus's "
    "most-named entity, summarised per class (median, p90, slowest, how many within 0.5 s).",
)
@json_option
def compile_bench(
    corpora: tuple[str, ...],
    store_kind: str,
    out: str,
    no_index: bool,
    large: str,
    keep: str,
    adds_on: str,
    sample: int,
    as_json: bool,
) -> None:
    """Build each corpus from scratch and report documents/s, peak memory, store size, the
    cost of one incremental add, and the check invariants. With --large, also build renamed
    copies of the 2Wiki 6k corpus at growing sizes (peak RSS, MB/s, time per size, one add).

    Example: wikikv bench compile --corpus luxun
    Example: wikikv bench compile --large only:3,6,12
    Example: wikikv bench compile --large only:36 --keep /tmp/k; then --adds-on /tmp/k/store-36
    Example: wikikv bench compile --adds-on /tmp/k/store-36 --sample 30
    """
    from pathlib import Path

    from wikikv.bench.compile import run_bench, shared_data, write_result

    if adds_on:
        from wikikv.bench.compile_large import run_adds

        kept = Path(adds_on)
        adds = run_adds(kept, kept.with_name(kept.name + "-adds"), sample)
        click.echo(json.dumps(adds, indent=2))
        write_result({"adds_on": adds_on, **adds}, out)
        return

    log = None if as_json else lambda m: click.echo(m, err=True)
    only_large = large.startswith("only:")
    copies = [int(c) for c in large.removeprefix("only:").split(",") if c.strip()]
    if only_large:
        result: dict[str, Any] = {"store": store_kind, "index": not no_index, "runs": []}
    else:
        result = run_bench(list(corpora) or None, store_kind, index=not no_index, log=log)
    if copies:
        from wikikv.bench.bigcorpus import SOURCE
        from wikikv.bench.compile_large import run_large

        result["large"] = run_large(
            shared_data() / SOURCE,
            copies,
            index=not no_index,
            log=log,
            keep=Path(keep) if keep else None,
        )
    path = write_result(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        for row in result["runs"]:
            click.echo(
                f"{row['corpus']:<16} {row['documents']:>6} docs  {row['docs_per_s']:>7.1f}"
                f" docs/s  {row['elapsed_s']:>6.1f} s  peak {row['peak_rss_mb']:.0f} MB  "
                f"store {row['store_mb']:.1f} MB  add {row['incremental_add_s']:.3f} s  "
                f"ok={row['check']['ok']}"
            )
        for row in result.get("large", {}).get("sizes", []):
            if "error" in row:
                click.echo(f"large x{row['copies']:<3} failed: {row['error']}")
                continue
            click.echo(
                f"large x{row['copies']:<3} {row['text_mb']:>6.1f} MB {row['documents']:>7} docs"
                f"  {row['elapsed_s']:>7.1f} s  {row['mb_per_s']:.3f} MB/s  "
                f"{row['s_per_mb']:.1f} s/MB  cpu {row.get('cpu_s', 0.0):.1f} s "
                f"({row.get('cpu_s_per_mb', 0.0):.2f} cpu-s/MB)  peak {row['peak_rss_mb']:.0f} MB "
                f"(anon {row['peak_anon_mb']:.0f})  add {row['incremental_add_s']:.3f} s"
                f" (cpu {row.get('incremental_add_cpu_s', 0.0):.3f} s),"
                f" slowest {row.get('incremental_add_max_s', 0.0):.3f} s"
            )
            parts = row.get("cpu_by_part", {})
            if parts:
                click.echo("          cpu s: " + ", ".join(f"{k} {v}" for k, v in parts.items()))
        f = result.get("large", {}).get("fit")
        if f:
            click.echo(
                f"fit: cpu {f['cpu_s']['per_mb']} s/MB (spread {f['cpu_per_mb_spread']}), "
                f"peak RSS {f['peak_rss_mb']['per_mb']} MB/MB; at {f['target_mb']:.0f} MB: "
                f"cpu {f['cpu_s']['at_target']:.0f} s ({f['mb_per_cpu_s_at_target']} MB per "
                f"cpu-s), peak RSS {f['peak_rss_mb']['at_target']:.0f} MB "
                f"(anon {f['peak_anon_mb']['at_target']:.0f} MB)"
            )
        click.echo(f"wrote {path}")
