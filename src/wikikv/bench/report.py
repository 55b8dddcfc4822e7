"""Shared benchmark reporting: latency percentiles in microseconds, a rich table, a JSON file.

Every benchmark times operations with :func:`time.perf_counter_ns` into a list of nanosecond
samples, summarizes them with :func:`summarize`, prints rows with :func:`print_table` and writes the
whole result with :func:`write_json`.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

PERCENTILES = (50, 90, 95, 99)


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    """The nearest-rank percentile of an ascending sequence (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(pct / 100.0 * len(sorted_values)))
    return float(sorted_values[min(rank, len(sorted_values)) - 1])


def summarize(samples_ns: Sequence[int]) -> dict[str, float]:
    """p50/p90/p95/p99/max/mean in microseconds, and the sample count."""
    values = sorted(samples_ns)
    out: dict[str, float] = {f"p{p}": round(percentile(values, p) / 1000.0, 3) for p in PERCENTILES}
    out["max"] = round(values[-1] / 1000.0, 3) if values else 0.0
    out["mean"] = round(sum(values) / len(values) / 1000.0, 3) if values else 0.0
    out["count"] = len(values)
    return out


def time_ops(ops: Sequence[Callable[[], object]], repeat: int, warmup: int) -> list[int]:
    """Run ``warmup`` then ``repeat`` operations, cycling through ``ops``; nanoseconds per op."""
    clock = time.perf_counter_ns
    n = len(ops)
    for i in range(warmup):
        ops[i % n]()
    samples = [0] * repeat
    for i in range(repeat):
        op = ops[i % n]
        t0 = clock()
        op()
        samples[i] = clock() - t0
    return samples


def machine_info() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg": [round(x, 2) for x in load],
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def print_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    console: Console | None = None,
) -> None:
    """Print rows under ``columns`` (first column left-aligned, the rest right-aligned)."""
    table = Table(title=title)
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*(_cell(v) for v in row))
    (console or Console()).print(table)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.1f}" if value >= 100 else f"{value:.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def write_json(result: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write ``result`` as indented JSON to ``path`` (parents created); return the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out
