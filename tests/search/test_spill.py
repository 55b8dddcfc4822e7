"""Run files (wikikv.search.spill): what is written is read back in order, a damaged file is
told apart from the one its record states, and an LMDB store keeps them beside itself."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from wikikv.errors import BackendError, CorruptRecord
from wikikv.search import spill
from wikikv.store.store import open_store

BLOCKS = [
    (f"term{i:03d}".encode() + b"\x00\x01", bytes([i % 251]) * (28 * (i % 7 + 1)))
    for i in range(300)
]


def test_a_run_reads_back_as_written_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spill, "READ_CHUNK", 50)  # records cut by every chunk boundary
    size, digest = spill.write_run(tmp_path, b"\x00" * 8, iter(BLOCKS))
    assert list(spill.read_run(tmp_path, b"\x00" * 8)) == BLOCKS
    assert spill.intact(tmp_path, b"\x00" * 8, size, digest)
    assert [p.name for p in tmp_path.iterdir()] == ["0000000000000000.run"]  # no temporary left


def test_a_merge_reads_many_runs_in_smaller_chunks(tmp_path: Path) -> None:
    """What a merge holds of its runs at once is bounded, not a chunk per run."""
    assert spill.merge_chunk(1) == spill.READ_CHUNK
    assert spill.merge_chunk(280) * 280 <= spill.MERGE_READ_BYTES
    assert spill.merge_chunk(10**6) == spill.MIN_CHUNK
    spill.write_run(tmp_path, b"\x01" * 8, iter(BLOCKS))
    assert list(spill.read_run(tmp_path, b"\x01" * 8, chunk=40)) == BLOCKS


def test_a_damaged_or_missing_run_is_not_intact(tmp_path: Path) -> None:
    seq = b"\x01" * 8
    size, digest = spill.write_run(tmp_path, seq, iter(BLOCKS))
    path = spill.run_path(tmp_path, seq)
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # same size, other bytes
    assert not spill.intact(tmp_path, seq, size, digest)
    path.write_bytes(data[:-3])
    assert not spill.intact(tmp_path, seq, size, digest)
    with pytest.raises(CorruptRecord):
        list(spill.read_run(tmp_path, seq))
    path.unlink()
    assert not spill.intact(tmp_path, seq, size, digest)


def test_run_files_live_beside_an_lmdb_store_and_apart_per_store_elsewhere(
    tmp_path: Path,
) -> None:
    with open_store(str(tmp_path / "store")) as store:
        here = spill.run_dir(store.backend, "kb")
        assert here.is_relative_to(tmp_path / "store")
        assert here != spill.run_dir(store.backend, "other")
    with open_store("memory://") as a, open_store("memory://") as b:
        assert spill.run_dir(a.backend, "kb") == spill.run_dir(a.backend, "kb")
        assert spill.run_dir(a.backend, "kb") != spill.run_dir(b.backend, "kb")


def test_a_run_that_cannot_be_written_fails_as_a_backend_error(tmp_path: Path) -> None:
    with pytest.raises(BackendError):
        spill.write_run(tmp_path / "gone", b"\x02" * 8, iter(BLOCKS))


def test_a_temporary_run_directory_goes_with_its_store_in_its_own_process_only(
    tmp_path: Path,
) -> None:
    made = tmp_path / "runs"
    made.mkdir()
    spill._remove(made, os.getpid() + 1)  # a forked child's copy of the store
    assert made.exists()
    spill._remove(made, os.getpid())
    assert not made.exists()
    store = open_store("memory://")
    temp = spill.run_dir(store.backend, "kb")
    store.close()
    del store
    gc.collect()
    assert not temp.exists()
