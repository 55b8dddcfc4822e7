"""The forked workers' helpers (wikikv.forked)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import wikikv
from wikikv.forked import process_cpu

# Run in a fresh interpreter: a test worker's heap, after other tests, holds free memory that
# the allocations below would reuse without growing.
_SCENARIO = """
import json, sys
from wikikv.forked import release_free_memory

def anon_mb():
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) // 1024

before = anon_mb()
blocks = [bytearray(4000) for _ in range(50_000)]  # ~200 MB of mid-sized C-heap blocks
kept = blocks[::50]  # one in fifty stays: a heap full of holes, as after an index run
del blocks
held = anon_mb()
if sys.argv[1] == "release":
    release_free_memory()
print(json.dumps({"before": before, "held": held, "after": anon_mb(), "kept": len(kept)}))
"""


def _run(mode: str) -> dict[str, int]:
    # the package under test, wherever this process imported it from
    src = str(Path(wikikv.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", _SCENARIO, mode], check=True, capture_output=True, text=True, env=env
    )
    result: dict[str, int] = json.loads(out.stdout)
    return result


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and /proc")
def test_release_free_memory_returns_a_fragmented_heap() -> None:
    kept = _run("keep")
    assert kept["held"] - kept["before"] > 150  # the scenario does fragment the heap ...
    assert kept["after"] - kept["before"] > 150  # ... and glibc keeps it on its own
    released = _run("release")
    assert released["held"] - released["before"] > 150
    assert released["after"] - released["before"] < 60


def test_process_cpu_reads_a_live_process_and_not_a_gone_one() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        first = process_cpu(busy.pid)
        deadline = time.monotonic() + 30
        while process_cpu(busy.pid) < first + 0.2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process_cpu(busy.pid) >= first + 0.2  # it counts the child's CPU as it runs
    finally:
        busy.kill()
        busy.wait()
    assert process_cpu(busy.pid) == 0.0  # gone (and reaped): nothing to read
