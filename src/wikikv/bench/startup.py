"""``wikikv bench startup``: a cold CLI query, process start to first result (issue 14 item 1).

Each measurement starts a new Python process (``python -m wikikv <command> ...``) and times, from
the parent, the span from launching it to the first line it prints — p50 over ``runs`` processes.
Commands: ``search``, ``nav`` (default 50 ms budget) and ``ask`` (offline), on the bundled demo kb
and on the Lu Xun kb, each with a Chinese question (the case that needs a dictionary). The
operating system's file cache is warm after the first run: "cold" means a new interpreter with
nothing loaded, as a user running the command twice would see.

Each row also gives the p50 CPU time of those processes (user + system, the whole process): on
a machine shared with other work the wall time includes waiting for a core, the CPU time does not.

Beside them, the parts and the options weighed for the Chinese dictionary, each timed in its own
new process: the bare interpreter, importing the CLI, loading jieba (its own marshalled cache),
importing ``rjieba`` (a Rust jieba, when installed), and opening WikiKV's mapped dictionary cache
(:mod:`wikikv.search.dictcache`) and segmenting one query with it.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import wikikv
from wikikv.bench.compile import shared_data
from wikikv.bench.report import machine_info
from wikikv.compile.pipeline import Compiler
from wikikv.errors import BenchProcessError
from wikikv.llm.extractive import ExtractiveProvider
from wikikv.quality.hooks import gated
from wikikv.sample import CORPUS_DIR
from wikikv.store.store import open_store

Log = Callable[[str], None]
RUNS = 20
TARGET_MS = 150.0
QUERIES = {"demo": "鲁迅的故乡在哪里？", "luxun": "闰土是谁？"}
COMMANDS = ("search", "nav", "ask")
SEGMENT_QUERY = "鲁迅的故乡在哪里"

# Each prints the milliseconds its own work took (after the interpreter started).
PARTS: dict[str, str] = {
    "interpreter (python -c pass)": "",
    "import the CLI": "import wikikv.interfaces.cli",
    "import wikikv.search (no dictionary)": "import wikikv.search.dictcache",
    "jieba: initialize (marshalled cache)": (
        "import jieba, logging; jieba.setLogLevel(logging.WARNING); jieba.initialize(); "
        f"jieba.lcut({SEGMENT_QUERY!r}, HMM=False)"
    ),
    "rjieba: import + cut": f"import rjieba; rjieba.cut({SEGMENT_QUERY!r}, False)",
    "mapped dictionary: import wikikv.search, open, cut": (
        "from wikikv.search.dictcache import lazy_dictionary; "
        f"lazy_dictionary().cut_for_search({SEGMENT_QUERY!r})"
    ),
}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(wikikv.__file__).resolve().parents[1])
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("WIKIKV_STORE", None)
    return env


def first_line_ms(argv: Sequence[str], env: dict[str, str]) -> float:
    """Milliseconds from launching ``argv`` to its first non-empty line on stdout."""
    return timed_run(argv, env)[0]


def _children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000.0


def timed_run(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """(milliseconds from launching ``argv`` to its first non-empty line on stdout, CPU
    milliseconds the whole process used). On a loaded machine the wall time waits for a core;
    the CPU time says what the command itself costs."""
    cpu0 = _children_cpu_ms()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True
    )
    assert proc.stdout is not None
    elapsed = None
    for line in proc.stdout:
        if line.strip():
            elapsed = (time.perf_counter() - t0) * 1000.0
            break
    proc.stdout.read()
    code = proc.wait()
    if code != 0 or elapsed is None:
        raise BenchProcessError(f"{' '.join(argv[:4])}… exited {code} without printing a result")
    return elapsed, _children_cpu_ms() - cpu0


def part_ms(code: str, env: dict[str, str]) -> float | None:
    """Milliseconds of ``code`` in a new process, timed inside it (None: it failed there)."""
    script = (
        f"import time; t0 = time.perf_counter()\n{code or 'pass'}\n"
        "print((time.perf_counter() - t0) * 1000.0)"
    )
    if not code:  # the bare interpreter: time the whole process from outside
        t0 = time.perf_counter()
        bare = subprocess.run([sys.executable, "-c", "pass"], env=env, check=False)
        return (time.perf_counter() - t0) * 1000.0 if bare.returncode == 0 else None
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return None
    return float(done.stdout.strip().splitlines()[-1])


def _p50(values: Sequence[float]) -> float:
    return round(statistics.median(values), 1)


def build_kbs(workdir: Path, luxun_store: str | None, log: Log) -> dict[str, str]:
    """Store URLs holding the demo kb and the Lu Xun kb (built offline unless given)."""
    url = str(workdir / "store")
    with open_store(url) as store:
        log("startup: compiling the demo corpus")
        Compiler(store.create_kb("demo"), ExtractiveProvider(), gated()).build(CORPUS_DIR)
        if luxun_store is None:
            folder = shared_data() / "luxun"
            log(f"startup: compiling the Lu Xun corpus from {folder}")
            Compiler(store.create_kb("luxun"), ExtractiveProvider(), gated()).build(folder)
    return {"demo": url, "luxun": luxun_store or url}


def run(
    runs: int = RUNS, luxun_store: str | None = None, log: Log = lambda _m: None
) -> dict[str, Any]:
    env = _env()
    out: dict[str, Any] = {"benchmark": "startup", "machine": machine_info(), "runs": runs}
    parts: dict[str, Any] = {}
    for name, code in PARTS.items():
        timed = [part_ms(code, env) for _ in range(runs)]
        ok = [s for s in timed if s is not None]
        parts[name] = {"p50_ms": _p50(ok)} if ok else {"skipped": "not installed / failed"}
        log(f"  {name}: {parts[name]}")
    out["parts"] = parts
    with tempfile.TemporaryDirectory(prefix="wikikv-startup-") as tmp:
        urls = build_kbs(Path(tmp), luxun_store, log)
        rows: list[dict[str, Any]] = []
        for kb, query in QUERIES.items():
            for command in COMMANDS:
                argv = [sys.executable, "-m", "wikikv", command, "--store", urls[kb], "--kb", kb]
                first_line_ms(argv + [query], env)  # warm the OS file cache once
                timings = [timed_run(argv + [query], env) for _ in range(runs)]
                samples = [wall for wall, _ in timings]
                row = {
                    "kb": kb,
                    "command": command,
                    "query": query,
                    "p50_ms": _p50(samples),
                    "min_ms": round(min(samples), 1),
                    "max_ms": round(max(samples), 1),
                    "cpu_p50_ms": _p50([cpu for _, cpu in timings]),
                }
                log(f"  {kb} {command}: p50 {row['p50_ms']} ms")
                rows.append(row)
    out["commands"] = rows
    out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    targets: dict[str, bool] = {
        f"luxun {r['command']}: cold p50 <= {TARGET_MS:g} ms": r["p50_ms"] <= TARGET_MS
        for r in rows
        if r["kb"] == "luxun"
    }
    out["targets"] = targets
    return out
