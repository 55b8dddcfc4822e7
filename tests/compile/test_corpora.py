"""Full builds of the shared corpora with every invariant (opt-in: ``--runslow``; minutes each).

The same runs, with throughput and memory, are ``wikikv bench compile``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.bench.compile import CORPORA, bench_one


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CORPORA))
def test_full_corpus_build_keeps_every_invariant(name: str, data_dir: Path, tmp_path: Path) -> None:
    row = bench_one(name, data_dir / CORPORA[name], "lmdb", True, tmp_path)
    checked = row["check"]
    assert checked["fsck_clean"] is True
    assert checked["broken_links"] == 0
    assert checked["missing_reverse"] == 0
    assert checked["citation_validity"] == 1.0
    assert checked["unreachable"] == 0
    assert checked["fanout_violations"] == 0
    assert checked["depth_violations"] == 0
    assert row["remove_then_add_same"] is True
    assert row["documents"] > 300
