"""What a bulk load killed with SIGKILL leaves (the crash semantics in docs/storage.md): every chunk
whose flush returned is there in full and listed; nothing listed is missing (at most the chunk in
flight left unlisted records, which fsck reports as orphans); the lease of the dead loader is taken
over at once, and running the same load again completes it to a clean kb."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wikikv.store.bulk import BulkWriter
from wikikv.store.fsck import fsck
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store

DIRS, PER_DIR, CHUNK = 30, 100, 250  # 3,000 pages, 12 chunks

LOADER = textwrap.dedent(
    """
    import sys
    from wikikv.store.bulk import BulkWriter
    from wikikv.store.store import open_store

    url, dirs, per_dir, chunk = sys.argv[1], *map(int, sys.argv[2:5])
    store = open_store(url)
    kb = store.create_kb("load", exist_ok=True)
    with BulkWriter(kb, job="load", chunk=chunk) as bw:
        n = 0
        for d in range(dirs):
            for p in range(per_dir):
                bw.put_file(f"/d{d:02d}/p{p:03d}", f"page {d}/{p} " + "x" * 900)
                n += 1
                if n % chunk == 0:
                    bw.flush()
                    print(n, flush=True)
    """
)


def _paths() -> list[str]:
    return [f"/d{d:02d}/p{p:03d}" for d in range(DIRS) for p in range(PER_DIR)]


def _load_in_process(url: str) -> None:
    store = open_store(url)
    kb = store.create_kb("load", exist_ok=True)
    with BulkWriter(kb, job="load", chunk=CHUNK) as bw:
        for path in _paths():
            d, p = path[2:4], path[6:]
            bw.put_file(path, f"page {int(d)}/{int(p)} " + "x" * 900)
    store.close()


@pytest.mark.parametrize("sync", ["false", "true"])
def test_a_killed_bulk_load_keeps_its_flushed_chunks_and_reruns_clean(
    tmp_path: Path, sync: str
) -> None:
    url = f"lmdb://{tmp_path / 'store'}?sync={sync}"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[2] / "src"), *sys.path]
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", LOADER, url, str(DIRS), str(PER_DIR), str(CHUNK)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    flushed = 0
    for line in proc.stdout:
        flushed = int(line)
        if flushed >= 4 * CHUNK:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert flushed >= 4 * CHUNK

    store = open_store(url)
    kb = store.kb("load")
    report = fsck(kb)
    # Nothing listed is missing, no index drift; only the chunk in flight may be unlisted.
    assert report.dangling == []
    assert report.undecodable == []
    assert report.path_index_stale == []
    assert report.name_index_stale == []
    # (the whole chunk in flight when the kill lands after its records and before its listing)
    assert len(report.orphans) <= CHUNK
    paths = _paths()
    for path in paths[:flushed]:  # every chunk whose flush returned: written and listed
        rec = kb.get(path)
        assert isinstance(rec, FileRecord), path
    listed = {f"{d}/{name}" for d in kb.ls("/").sub_dirs for name in kb.ls(f"/{d}").files}
    assert {p[1:] for p in paths[:flushed]} <= listed
    store.close()

    _load_in_process(url)  # the same load again: the dead loader's lease is taken over
    store = open_store(url)
    kb = store.kb("load")
    after = fsck(kb)
    assert after.clean, after.to_dict()
    assert all(isinstance(r, FileRecord) for r in kb.get_many(paths))
    store.close()
