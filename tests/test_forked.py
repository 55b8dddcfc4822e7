"""The forked workers' helpers (wikikv.forked)."""

from __future__ import annotations

import sys

import pytest

from wikikv.forked import release_free_memory


def _anon_mb() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no RssAnon in /proc/self/status")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and /proc")
def test_release_free_memory_returns_a_fragmented_heap() -> None:
    # Mid-sized blocks come from the C heap; one in fifty kept alive leaves it full of holes
    # that glibc keeps (a worker's posting blocks after a run), until they are released.
    before = _anon_mb()
    blocks = [bytearray(4000) for _ in range(50_000)]  # ~200 MB
    kept = blocks[::50]
    del blocks
    held = _anon_mb()
    assert held - before > 150
    release_free_memory()
    assert _anon_mb() - before < 60
    assert len(kept) == 1000
