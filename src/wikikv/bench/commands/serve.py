"""``wikikv bench serve``: the HTTP API and the MCP server under load, beside the in-process API."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import click

OPS = ("get", "search", "nav")


@click.command("serve", short_help="HTTP API and MCP latency / throughput vs in-process.")
@click.option(
    "--store",
    "store_url",
    default=None,
    metavar="URL",
    help="Use this store's kb (default: compile the HotpotQA corpus into a temporary store).",
)
@click.option("--kb", "kb_name", default="hotpotqa", show_default=True)
@click.option("--seconds", type=float, default=10.0, show_default=True, help="Per load point.")
@click.option(
    "--workers",
    "workers_csv",
    default="1,2,4",
    show_default=True,
    help="Server worker counts to measure.",
)
@click.option(
    "--concurrency",
    type=int,
    default=8,
    show_default=True,
    help="Connections of the closed-loop load.",
)
@click.option(
    "--mcp-calls",
    type=int,
    default=200,
    show_default=True,
    help="Timed MCP tool calls per tool (0: skip MCP).",
)
@click.option("--out", default="bench-results/serve.json", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
def serve_bench(
    store_url: str | None,
    kb_name: str,
    seconds: float,
    workers_csv: str,
    concurrency: int,
    mcp_calls: int,
    out: str,
    as_json: bool,
) -> None:
    """Loopback load on `wikikv serve` with 1, 2 and 4 workers: get, search and nav (budget
    of 8 reads) throughput and p50/p99, an unloaded connection's latency, the same calls
    in-process, and MCP tool-call latency over stdio. Targets: HTTP get p50 <= 1 ms, nav over
    HTTP within 2 ms of in-process, no errors.

    Example: wikikv bench serve --seconds 10 --out bench-results/serve.json
    """
    workers = [int(w) for w in workers_csv.split(",") if w.strip()]
    with tempfile.TemporaryDirectory(prefix="wikikv-bench-serve-") as tmp:
        url = store_url or _compiled(Path(tmp), kb_name)
        result = _run(url, kb_name, seconds, workers, concurrency, mcp_calls)
    result["store"] = "given" if store_url else "HotpotQA corpus compiled offline (LMDB)"
    from wikikv.bench.report import write_json

    path = write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    _print(result)
    click.echo(f"Wrote {path}")


def _compiled(root: Path, kb_name: str) -> str:
    """Compile the HotpotQA corpus in a child process: the compile's millions of objects would
    otherwise stay in this process and slow its in-process measurements (GC)."""
    import subprocess
    import sys

    from wikikv.bench.compile import CORPORA, shared_data

    source = shared_data() / CORPORA["hotpotqa"]
    click.echo(f"Compiling {source} into a temporary store ...", err=True)
    code = (
        "import sys\n"
        "from wikikv.compile.pipeline import Compiler\n"
        "from wikikv.quality.hooks import gated\n"
        "from wikikv.store.store import open_store\n"
        "with open_store(sys.argv[1]) as store:\n"
        "    Compiler(store.create_kb(sys.argv[2]), options=gated()).build(sys.argv[3])\n"
    )
    subprocess.run([sys.executable, "-c", code, str(root), kb_name, str(source)], check=True)
    return str(root)


def _run(
    url: str, kb_name: str, seconds: float, workers: list[int], concurrency: int, mcp_calls: int
) -> dict[str, Any]:
    from wikikv.bench.compile import shared_data
    from wikikv.bench.report import machine_info
    from wikikv.bench.serve import http_point, inprocess_point, make_workload, mcp_points, served
    from wikikv.store.store import open_store

    points = []
    with open_store(url) as store:
        kb = store.kb(kb_name)
        work = make_workload(kb, shared_data() / "multihop" / "hotpotqa" / "questions.jsonl")
        for op in OPS:
            for call in work.calls(kb, op)[:20]:
                call()  # warm the dictionaries and caches like a running server
            points.append(inprocess_point(op, work.calls(kb, op), seconds))
    for n in workers:
        with served(url, n) as port:
            for op in OPS:
                targets = work.targets(op)
                http_point(op, port, targets[:50], min(2.0, seconds), n, concurrency)  # warm-up
                if n == workers[0]:
                    points.append(http_point(op, port, targets, seconds, n, 1, "http-unloaded"))
                points.append(http_point(op, port, targets, seconds, n, concurrency))
            click.echo(f"  measured {n} worker(s)", err=True)
    if mcp_calls:
        points.extend(mcp_points(url, kb_name, work, mcp_calls))
    data = [p.to_dict() for p in points]
    return {"bench": "serve", "machine": machine_info(), "points": data, "targets": _targets(data)}


def _p50(points: list[dict[str, Any]], target: str, op: str, workers: int = 1) -> float | None:
    for p in points:
        if p["target"] == target and p["op"] == op and p["workers"] == workers:
            value: float = p["latency_us"]["p50"]
            return value
    return None


def _targets(points: list[dict[str, Any]]) -> dict[str, Any]:
    get_http = _p50(points, "http-unloaded", "get")
    nav_http = _p50(points, "http-unloaded", "nav")
    nav_local = _p50(points, "in-process", "nav")
    gap = None if nav_http is None or nav_local is None else round((nav_http - nav_local) / 1000, 3)
    errors = sum(p["errors"] for p in points)
    return {
        "http_get_p50_ms": None if get_http is None else round(get_http / 1000, 3),
        "http_get_p50_le_1ms": get_http is not None and get_http <= 1000,
        "nav_http_minus_inprocess_p50_ms": gap,
        "nav_within_2ms": gap is not None and gap <= 2.0,
        "errors": errors,
        "no_errors": errors == 0,
    }


def _print(result: dict[str, Any]) -> None:
    from rich.console import Console

    from wikikv.bench.report import print_table

    rows = [
        (
            p["target"],
            p["op"],
            p["workers"],
            p["concurrency"],
            p["requests"],
            p["throughput_per_s"],
            p["latency_us"]["p50"],
            p["latency_us"]["p99"],
            p["errors"],
        )
        for p in result["points"]
    ]
    print_table(
        "wikikv bench serve (latency in us; client and server share the machine)",
        ["target", "op", "workers", "conns", "requests", "req/s", "p50 us", "p99 us", "errors"],
        rows,
        Console(width=130),
    )
    t = result["targets"]
    click.echo(
        f"HTTP get p50 {t['http_get_p50_ms']} ms (target <= 1 ms: {t['http_get_p50_le_1ms']}); "
        f"nav HTTP - in-process p50 {t['nav_http_minus_inprocess_p50_ms']} ms (target <= 2 ms: "
        f"{t['nav_within_2ms']}); errors {t['errors']}"
    )
