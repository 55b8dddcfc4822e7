"""Bulk-load options side by side (``wikikv bench storage --scale --bulk-options``).

Each option loads the same generated wiki (:class:`~wikikv.bench.wikigen.WikiPlan`) into a fresh
LMDB store (``sync=false``) in its own process, and reports records/s of wall time, records per
CPU-second (steadier than wall time on a shared machine), and the bytes the load wrote per record
(``/proc/self/io``: what a leaf-per-record pattern costs the disk). The options:

==============  =====================================================================
``chosen``      what WikiKV does: node keys clustered by parent (format 2), batches in key
                order, BulkWriter chunks of 2,000, one sync per 20,000-node load call
``hashed``      the same with format 1's node keys (the path's hash alone) — *before*
``unsorted``    batches in arrival order instead of key order
``chunk20k``    BulkWriter chunks (one transaction each) of 20,000 records
``one-sync``    one BulkWriter (so one sync) for the whole load
``writemap``    LMDB ``writemap`` + ``map_async`` (dirty pages written in place)
==============  =====================================================================
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

OPTIONS = ("chosen", "hashed", "unsorted", "chunk20k", "one-sync", "writemap")
LOAD_CALL = 20_000  # nodes per engine load call, as in the storage benchmark


def _written_bytes() -> int:
    try:
        with open("/proc/self/io", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("write_bytes:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


@contextmanager
def _option(name: str) -> Iterator[int]:
    """Apply option ``name`` in this (child) process; yields the BulkWriter chunk size."""
    import lmdb

    from wikikv.store import bulk, keys

    with ExitStack() as stack:
        if name == "hashed":
            real_hash = keys._node_hash
            keys._node_hash = keys.legacy_node_hash  # type: ignore[assignment]
            stack.callback(setattr, keys, "_node_hash", real_hash)
        elif name == "unsorted":
            real_sort, real_get = bulk._by_key, bulk._get_sorted
            bulk._by_key = lambda ops: ops
            bulk._get_sorted = lambda kb, ks: kb.backend.get_many(ks)  # type: ignore[assignment]
            stack.callback(setattr, bulk, "_by_key", real_sort)
            stack.callback(setattr, bulk, "_get_sorted", real_get)
        elif name == "writemap":
            real_open: Any = lmdb.open

            def open_writemap(*args: Any, **kw: Any) -> Any:
                kw.update(writemap=True, map_async=True)
                return real_open(*args, **kw)

            setattr(lmdb, "open", open_writemap)  # noqa: B010 - the module attribute, for the child
            stack.callback(setattr, lmdb, "open", real_open)
        yield 20_000 if name == "chunk20k" else bulk.DEFAULT_CHUNK


def load_once(nodes: int, name: str, root: Path, seed: int = 7) -> dict[str, Any]:
    """Load a ``nodes``-node wiki with option ``name`` into a store at ``root``; measured here
    (run it in a fresh process)."""
    from wikikv.bench.storage import chunks
    from wikikv.bench.wikigen import WikiPlan
    from wikikv.store.bulk import BulkWriter
    from wikikv.store.store import open_store

    plan = WikiPlan(nodes, seed)
    with _option(name) as chunk:
        store = open_store(f"lmdb://{root}?sync=false")
        kb = store.create_kb("bench")
        wall = cpu = 0.0
        count = 0
        written = _written_bytes()
        whole = BulkWriter(kb, job="bench", chunk=chunk) if name == "one-sync" else None
        if whole is not None:
            whole.__enter__()
        for part in chunks(plan.nodes(), LOAD_CALL):
            t, c = time.perf_counter(), _cpu()
            with ExitStack() as stack:
                bw = whole or stack.enter_context(BulkWriter(kb, job="bench", chunk=chunk))
                for node in part:
                    if node.is_dir:
                        bw.mkdir(node.path, node.text)
                    else:
                        bw.put_file(node.path, node.text, node.meta)
            wall += time.perf_counter() - t
            cpu += _cpu() - c
            count += len(part)
        t, c = time.perf_counter(), _cpu()
        if whole is not None:
            whole.__exit__(None, None, None)
        store.backend.sync()
        wall += time.perf_counter() - t
        cpu += _cpu() - c
        written = _written_bytes() - written
        missing = sum(r is None for r in kb.get_many([p for p in list(plan.paths())[-1000:]]))
        store.close()
    return {
        "option": name,
        "records": count,
        "seconds": round(wall, 1),
        "records_per_s": round(count / wall, 0) if wall else 0.0,
        "cpu_seconds": round(cpu, 1),
        "records_per_cpu_s": round(count / cpu, 0) if cpu else 0.0,
        "written_kib_per_record": round(written / count / 1024, 1) if count else 0.0,
        "missing_of_last_1000": missing,
    }


def _child(nodes: int, name: str, root: str, queue: Any) -> None:
    try:
        queue.put(load_once(nodes, name, Path(root)))
    except Exception as exc:  # noqa: BLE001 - reported as a failed row
        queue.put({"option": name, "error": f"{type(exc).__name__}: {exc}"})


def run_options(
    sizes: list[int],
    options: list[str] | None = None,
    log: Callable[[str], None] = lambda _msg: None,
) -> dict[str, list[dict[str, Any]]]:
    """Every option at every size, one fresh process each, one at a time."""
    ctx = mp.get_context("fork")
    out: dict[str, list[dict[str, Any]]] = {}
    for size in sizes:
        rows: list[dict[str, Any]] = []
        for name in options or list(OPTIONS):
            root = Path(tempfile.mkdtemp(prefix="wikikv-bulk-"))
            try:
                queue = ctx.Queue()
                proc = ctx.Process(target=_child, args=(size, name, str(root), queue))
                proc.start()
                row = queue.get()
                proc.join()
            finally:
                shutil.rmtree(root, ignore_errors=True)
            rows.append(row)
            log(
                f"bulk {size:,} {name}: "
                + (
                    row.get("error")
                    or f"{row['records_per_s']:,.0f} rec/s, {row['records_per_cpu_s']:,.0f} "
                    f"rec/cpu-s, {row['written_kib_per_record']} KiB written/rec"
                )
            )
        out[str(size)] = rows
    return out
