"""LMDB in operation: map growth (also when another process grew it), reclaiming reader slots of
killed processes, hot compacted backups, the format check, and the durable / bulk sync modes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import lmdb
import msgspec
import pytest

from wikikv.errors import FormatError
from wikikv.store.backends.base import Put
from wikikv.store.backends.lmdb import LMDBBackend
from wikikv.store.fsck import fsck
from wikikv.store.keys import FORMAT_KEY
from wikikv.store.paths import parent
from wikikv.store.records import FileRecord
from wikikv.store.store import FORMAT_VERSION, FormatInfo, open_store
from wikikv.testing.workloads import KB, PartialReadsRun, setup_partial_reads

SMALL_MAP = 65536


def lmdb_backend(store_backend: object) -> LMDBBackend:
    assert isinstance(store_backend, LMDBBackend)
    return store_backend


def run_child(code: str, *, wait_for: str | None = None) -> subprocess.Popen[str]:
    """Start ``code`` in a fresh interpreter; with ``wait_for``, return once it prints that."""
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        text=True,
    )
    if wait_for is not None:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert wait_for in line, f"child said {line!r}, exit {proc.poll()}"
    return proc


def kill(proc: subprocess.Popen[str]) -> None:
    proc.kill()  # SIGKILL: no cleanup, its reader slots stay behind
    proc.wait(timeout=60)
    if proc.stdout is not None:
        proc.stdout.close()


# ------------------------------------------------------------------ map growth
def test_map_grows_when_full(tmp_path: Path) -> None:
    url = f"lmdb://{tmp_path / 'db'}?map_size={SMALL_MAP}"
    with open_store(url) as store:
        backend = lmdb_backend(store.backend)
        assert backend.map_size() == SMALL_MAP
        kb = store.create_kb("w")
        texts = {f"/big/p{i:03d}": f"{i} " + "x" * 50_000 for i in range(80)}  # ~4 MB
        for path, text in texts.items():
            kb.put(path, text)
        assert backend.map_size() > 4_000_000
    with open_store(url) as store:  # and it is all there after reopening
        kb = store.kb("w")
        got = kb.get_many(list(texts))
        assert [r.text if isinstance(r, FileRecord) else None for r in got] == list(texts.values())


def test_map_grown_by_another_process(tmp_path: Path) -> None:
    url = f"lmdb://{tmp_path / 'db'}?map_size={SMALL_MAP}"
    with open_store(url) as store:
        backend = lmdb_backend(store.backend)
        kb = store.create_kb("w")
        kb.put("/mine/first", "before the other process")
        child = run_child(
            f"""
            from wikikv.store.store import open_store
            with open_store({url!r}) as store:
                kb = store.kb("w")
                for i in range(60):
                    kb.put(f"/theirs/p{{i}}", str(i) + "y" * 50_000)
                print("grown", store.backend.map_size(), flush=True)
            """
        )
        out, _ = child.communicate(timeout=300)
        assert child.returncode == 0
        grown = int(out.split()[1])
        assert grown > 3_000_000
        assert backend.map_size() == SMALL_MAP  # this process has not looked yet
        # reads adopt the other process's map size, then writes carry on
        rec = kb.get("/theirs/p59")
        assert isinstance(rec, FileRecord)
        assert rec.text.startswith("59y")
        assert len(kb.ls("/theirs").files) == 60
        for i in range(20):
            kb.put(f"/mine/p{i}", "z" * 50_000)
        assert backend.map_size() >= grown
        assert kb.get("/mine/first") is not None


# ---------------------------------------------------------------- reader slots
HOLD_READER = """
    import sys, time, lmdb
    env = lmdb.open({path!r}, max_readers={max_readers}, max_dbs=0)
    txns = []
    try:
        while len(txns) < {count}:
            txns.append(env.begin())
    except lmdb.ReadersFullError:
        pass
    print("holding", len(txns), flush=True)
    time.sleep(600)
"""


def test_killed_readers_slots_are_reclaimed(tmp_path: Path) -> None:
    path = tmp_path / "db"
    with open_store(str(path)) as store:
        backend = lmdb_backend(store.backend)
        store.create_kb("w").put("/a", "a")
        child = run_child(
            HOLD_READER.format(path=str(path), max_readers=512, count=3), wait_for="holding 3"
        )
        pid = child.pid
        kill(child)
        assert f"{pid}" in backend.env.readers()  # the dead process still holds its slots
        assert backend.reader_check() == 3
        assert f"{pid}" not in backend.env.readers()
        assert backend.reader_check() == 0


def test_readers_beyond_max_readers(tmp_path: Path) -> None:
    """Processes that filled the reader table and died do not block later readers."""
    path = tmp_path / "db"
    max_readers = 6
    url = f"lmdb://{path}?max_readers={max_readers}"
    with open_store(url) as store:
        kb = store.create_kb("w")
        kb.put("/a", "a")
        for _ in range(3):  # 3 x max_readers dead slots in all, beyond the table's size
            child = run_child(
                HOLD_READER.format(path=str(path), max_readers=max_readers, count=max_readers),
                wait_for="holding",
            )
            kill(child)
            # this process reads on (a second, concurrent read needs a fresh slot) ...
            first = store.backend.get(kb.keys.node("/a"))
            assert first is not None
            assert [r is not None for r in kb.get_many(["/a", "/"])] == [True, True]
            # ... and a new process opens and reads
            reader = run_child(
                f"""
                from wikikv.store.store import open_store
                with open_store({url!r}) as store:
                    print("read", store.kb("w").get("/a").text, flush=True)
                """
            )
            out, _ = reader.communicate(timeout=300)
            assert reader.returncode == 0
            assert out.strip() == "read a"


def test_full_reader_table_is_reclaimed_in_operation(tmp_path: Path) -> None:
    """A reader table filled by a killed process is cleared when a read finds it full."""
    path = tmp_path / "db"
    max_readers = 4
    with open_store(f"lmdb://{path}?max_readers={max_readers}") as store:
        kb = store.create_kb("w")
        kb.put("/a", "a")
        child = run_child(
            HOLD_READER.format(path=str(path), max_readers=max_readers, count=max_readers),
            wait_for="holding",
        )
        kill(child)
        env = lmdb_backend(store.backend).env
        held: list[object] = []

        def fill() -> None:
            while len(held) < max_readers + 1:
                held.append(env.begin())

        with pytest.raises(lmdb.ReadersFullError):  # the table is full of dead slots
            fill()
        for txn in held:
            txn.abort()  # type: ignore[attr-defined]
        # the backend notices, reclaims and carries on
        assert kb.get("/a") is not None
        assert lmdb_backend(store.backend).reader_check() == 0


# ---------------------------------------------------------------------- backup
def test_backup_while_reading_and_writing(tmp_path: Path) -> None:
    url = f"lmdb://{tmp_path / 'db'}?sync=false"
    dest = tmp_path / "backup"
    with open_store(url) as store:
        setup_partial_reads(store)
        run = PartialReadsRun(url, seconds=3.0, readers=1).start()
        kb = store.kb(KB)
        deadline = time.monotonic() + 60
        writes_seen = 0
        while time.monotonic() < deadline and all(p.exitcode is None for p in run.procs):
            # back up once the writer is busy
            writes_seen = len(kb.audit(limit=400))
            if writes_seen >= 300:
                break
            time.sleep(0.05)
        assert writes_seen >= 300
        store.backup(dest)
        result = run.collect()
        assert result.ok, result
        assert result.writes > 0

    src_size = (tmp_path / "db" / "data.mdb").stat().st_size
    assert (dest / "data.mdb").stat().st_size <= src_size  # compacted
    with open_store(str(dest)) as copy:
        ckb = copy.kb(KB)
        report = fsck(ckb)
        # One consistent snapshot: only the writer's one in-flight operation may show, as
        # orphans — records it wrote before linking, or, mid recursive delete, the pages left
        # under the directory it already removed. Either way they share one parent, and
        # several only when that parent is gone (a delete); never a dangling listing.
        assert report.dangling == []
        assert report.undecodable == []
        assert report.stray_pages == []
        assert report.path_index_stale == report.path_index_missing == []
        assert report.name_index_stale == report.name_index_missing == []
        parents = {parent(p) for p in report.orphans}
        assert len(parents) <= 1, report.orphans
        if len(report.orphans) > 1:
            assert ckb.get(parents.pop(), follow_redirects=False) is None, report.orphans
        fsck(ckb, repair=True)
        assert fsck(ckb).clean
        assert len(list(ckb.walk("/"))) > 5


def test_backup_of_a_quiet_store_is_clean(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "db")) as store:
        kb = store.create_kb("w")
        for i in range(50):
            kb.put(f"/d{i % 5}/p{i}", f"page {i}")
        for i in range(0, 50, 3):
            kb.delete(f"/d{i % 5}/p{i}")
        stop = threading.Event()

        def read() -> None:
            while not stop.is_set():
                kb.read_children("/d1")

        reader = threading.Thread(target=read)
        reader.start()
        try:
            store.backup(tmp_path / "copy")
        finally:
            stop.set()
            reader.join()
        with pytest.raises(Exception, match="not empty"):
            store.backup(tmp_path / "copy")
    with open_store(str(tmp_path / "copy")) as copy:
        ckb = copy.kb("w")
        assert fsck(ckb).clean
        assert sorted(ckb.walk("/")) == sorted(kb_paths(tmp_path / "db"))


def kb_paths(path: Path) -> list[str]:
    with open_store(str(path)) as store:
        return list(store.kb("w").walk("/"))


# ---------------------------------------------------------------------- format
def test_newer_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db"
    with open_store(str(path)) as store:
        store.create_kb("w")
        newer = FormatInfo(FORMAT_VERSION + 1, 0.0)
        store.backend.put_if(FORMAT_KEY, msgspec.msgpack.encode(newer))
    with pytest.raises(FormatError, match="newer"):
        open_store(str(path))


def test_foreign_lmdb_env_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "foreign"
    env = lmdb.open(str(path))
    with env.begin(write=True) as txn:
        txn.put(b"some", b"other application's data")
    env.close()
    with pytest.raises(FormatError, match="not a WikiKV store"):
        open_store(str(path))


def test_empty_dir_becomes_a_store(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "fresh")) as store:
        assert store.kbs() == []
        item = store.backend.get(FORMAT_KEY)
        assert item is not None
        assert msgspec.msgpack.decode(item.value, type=FormatInfo).format == FORMAT_VERSION


# ------------------------------------------------------------------ durability
@pytest.mark.parametrize(("query", "durable"), [("", True), ("?sync=false", False)])
def test_sync_modes_round_trip(tmp_path: Path, query: str, durable: bool) -> None:
    url = f"lmdb://{tmp_path / 'db'}{query}"
    with open_store(url) as store:
        flags = lmdb_backend(store.backend).env.flags()
        assert flags["sync"] is durable
        assert flags["metasync"] is durable
        kb = store.create_kb("w")
        with store.backend.bulk():
            for i in range(60):
                kb.put(f"/bulk/p{i}", f"page {i}")
        store.backend.sync()
    reader = run_child(
        f"""
        from wikikv.store.store import open_store
        with open_store({str(tmp_path / "db")!r}) as store:
            kb = store.kb("w")
            print(len(kb.ls("/bulk").files), kb.get("/bulk/p59").text, flush=True)
        """
    )
    out, _ = reader.communicate(timeout=300)
    assert reader.returncode == 0
    assert out.strip() == "60 page 59"


class _CreatedMeanwhile(LMDBBackend):
    """An LMDB backend on which another process creates the store (its format record, then a
    kb's records) right after this one first finds no format record: the race two build workers
    opening one fresh store run."""

    def __init__(self, path: str, other: Path) -> None:
        super().__init__(path)
        self._other = other
        self._raced = False

    def get(self, key: bytes):  # type: ignore[no-untyped-def]
        item = super().get(key)
        if key == FORMAT_KEY and item is None and not self._raced:
            self._raced = True
            # A separate process: LMDB forbids opening one environment twice in a process.
            code = (
                f"from wikikv.store.store import open_store\n"
                f"with open_store({str(self._other)!r}) as s: s.create_kb('first')"
            )
            subprocess.run([sys.executable, "-c", code], check=True)
        return item


def test_a_store_created_by_another_process_meanwhile_is_opened(tmp_path: Path) -> None:
    from wikikv.store.store import Store

    path = tmp_path / "db"
    backend = _CreatedMeanwhile(str(path), path)
    store = Store(backend)
    try:
        assert backend._raced
        assert store.kbs() == ["first"]
    finally:
        store.close()


def test_nested_bulk_contexts_sync_once_at_the_outermost(tmp_path: Path) -> None:
    """A build's index flushes run inside its page writer's bulk context: the inner contexts
    leave the sync to the outer one (one wait for the disk per job), and a context of another
    backend in the same thread still syncs its own."""
    synced: list[str] = []

    class Counting(LMDBBackend):
        def __init__(self, name: str) -> None:
            super().__init__(tmp_path / name, sync=False)
            self.label = name

        def sync(self) -> None:
            synced.append(self.label)
            super().sync()

    a, b = Counting("a"), Counting("b")
    with a.bulk():
        with a.bulk():
            a.batch([Put(b"k1", b"v")])
        assert synced == []
        with b.bulk():
            b.batch([Put(b"k2", b"v")])
        assert synced == ["b"]
    assert synced == ["b", "a"]
    with a.bulk():
        pass
    assert synced == ["b", "a", "a"]
    a.close()
    b.close()
