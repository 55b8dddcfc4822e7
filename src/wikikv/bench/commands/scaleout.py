"""``wikikv bench scaleout``: WikiKV on LMDB, Redis, Redis Cluster and PostgreSQL against
PostgreSQL + ltree, the file system and SQLite, with the cache tiers on and off; concurrent
readers, the staleness bound and parallel builds (issue 5, "Measure it")."""

from __future__ import annotations

import json
from pathlib import Path

import click

from wikikv.bench.engines_server import SERVER_BACKENDS

DEFAULT_OUT = "bench-results/scaleout.json"
MODES = ("engines", "concurrent", "staleness", "build")
FULL_SIZE = 1_000_000


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x.replace("_", "")) for x in text.split(",") if x.strip())
    except ValueError as exc:
        raise click.BadParameter(f"expected comma-separated integers, got {text!r}") from exc


def _names(text: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    names = tuple(x.strip() for x in text.split(",") if x.strip() and x.strip() != "none")
    bad = [n for n in names if n not in allowed]
    if bad:
        raise click.BadParameter(f"unknown {', '.join(bad)}; choose from {', '.join(allowed)}")
    return names


@click.command("scaleout")
@click.option("--quick", is_flag=True, help="A smoke run: tiny sizes, short runs.")
@click.option(
    "--modes", default=",".join(MODES), show_default=True, help="Which parts to run (comma list)."
)
@click.option(
    "--servers",
    default=",".join(SERVER_BACKENDS),
    show_default=True,
    help="Server backends WikiKV runs on beside LMDB ('none' for LMDB only).",
)
@click.option("--nodes", type=int, default=None, help="Size of the engines-comparison wiki.")
@click.option("--ops", type=int, default=None, help="Timed operations per operator and engine.")
@click.option(
    "--sizes", default="2000,200000", show_default=True, help="Wiki sizes of the concurrent mode."
)
@click.option("--full", is_flag=True, help=f"Also run the concurrent mode at {FULL_SIZE:,} nodes.")
@click.option("--readers", default="1,2,4", show_default=True, help="Reader process counts.")
@click.option("--seconds", type=float, default=3.0, show_default=True, help="Per reader run.")
@click.option("--writes", type=int, default=100, show_default=True, help="Staleness probes.")
@click.option(
    "--build-nodes",
    type=int,
    default=20_000,
    show_default=True,
    help="Nodes per kb on LMDB (up to ~2,500 or above 10,000; servers use 2,000).",
)
@click.option("--build-workers", default="1,2,4", show_default=True, help="Parallel kb builds.")
@click.option(
    "--redis-url", envvar="WIKIKV_TEST_REDIS", help="Redis server (default: $WIKIKV_TEST_REDIS)."
)
@click.option(
    "--cluster-url",
    envvar="WIKIKV_TEST_CLUSTER",
    help="Redis Cluster (default: $WIKIKV_TEST_CLUSTER).",
)
@click.option(
    "--postgres-url",
    envvar="WIKIKV_TEST_POSTGRES",
    help="PostgreSQL (default: $WIKIKV_TEST_POSTGRES).",
)
@click.option("--out", "out", default=DEFAULT_OUT, show_default=True, help="Where to write JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the embedded stores go (default: a temporary directory, removed afterwards).",
)
def scaleout(
    quick: bool,
    modes: str,
    servers: str,
    nodes: int | None,
    ops: int | None,
    sizes: str,
    full: bool,
    readers: str,
    seconds: float,
    writes: int,
    build_nodes: int,
    build_workers: str,
    redis_url: str | None,
    cluster_url: str | None,
    postgres_url: str | None,
    out: str,
    as_json: bool,
    workdir: Path | None,
) -> None:
    """Q1-Q4 through WikiKV on LMDB, Redis, Redis Cluster and PostgreSQL against PostgreSQL +
    ltree, the file system and SQLite, cache tiers on and off; concurrent readers (throughput,
    p99, hit rates, private memory as the wiki grows); staleness Δ; parallel kb builds.

    Example: wikikv bench scaleout --modes engines,staleness
    """
    import dataclasses

    from wikikv.bench import report, storage
    from wikikv.bench import scaleout as bench
    from wikikv.bench.servers import ServerURLs

    chosen = _names(modes, MODES)
    cfg = storage.QUICK if quick else storage.Config()
    if nodes is not None:
        cfg = dataclasses.replace(cfg, nodes=nodes)
    if ops is not None:
        cfg = dataclasses.replace(cfg, ops=ops)
    size_list = (400, 2_000) if quick else _ints(sizes)
    if full:
        size_list = (*size_list, FULL_SIZE)
    plan = bench.Plan(
        engines=cfg if "engines" in chosen else None,
        servers=_names(servers, SERVER_BACKENDS),
        concurrent_sizes=size_list if "concurrent" in chosen else (),
        readers=(1, 2) if quick else _ints(readers),
        seconds=0.5 if quick else seconds,
        staleness_writes=(20 if quick else writes) if "staleness" in chosen else 0,
        build_nodes=400 if quick else build_nodes,
        build_server_nodes=400 if quick else 2_000,
        build_workers=((1, 2) if quick else _ints(build_workers)) if "build" in chosen else (),
        build_backends=("lmdb",) if quick else ("lmdb", "cluster"),
        urls=ServerURLs(redis_url, cluster_url, postgres_url),
    )

    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
    result = bench.run(plan, workdir, log)
    path = report.write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        bench.print_result(result)
        click.echo(f"wrote {path}")
    if not result["same_results"]:
        raise click.ClickException("the engines did not return the same records (see the JSON)")
    if result["errors"]:
        raise click.ClickException(f"modes failed: {', '.join(result['errors'])} (see the JSON)")
