"""Multi-process workloads that prove the store's consistency claims on any shared backend.

Each takes a store URL (LMDB directory now; Redis or PostgreSQL later), so every backend that
``shared_across_processes`` runs the same checks:

* :func:`partial_reads` — Theorem 2 (no partial reads): one writer creates, updates, moves and
  deletes pages and sub-directories while readers list directories and read every advertised
  child. A miss alone proves nothing (the child may have been unlinked after the listing was
  read), so a reader that misses a child re-reads it and then the listing: the miss is a
  *violation* only when the directory record is unchanged (same version and timestamp) across
  the whole bracket, i.e. the directory advertised the child at every moment the child was
  missing. Undecodable records are counted too.
* :func:`crash_rounds` — kill -9 a writer at random moments. The writer logs each operation
  before it starts (``B``, with the before and after state of every path it touches) and after
  it returns (``D``), fsyncing the log each time. After each kill every path must hold the state
  its last completed operation left — or, for the one operation in flight, its before or after
  state — listings must agree, and fsck must find no dangling listing (orphans only from the
  in-flight operation). Repair then tidies up, and the observed state is logged (``S``).
* :func:`lost_updates` — processes increment one counter page through ``kb.update``; the final
  value must be exactly the number of increments.

Processes are started with the ``spawn`` context: an LMDB environment must not cross ``fork``.

By hand: ``python -m wikikv.testing.workloads partial-reads --store URL --seconds 60``
(also ``crashes --store URL --kills 100`` and ``lost-updates --store URL``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wikikv.errors import AlreadyExists, CorruptRecord, NotFound, WikiKVError
from wikikv.store.backends.base import Delete
from wikikv.store.bulk import BulkWriter
from wikikv.store.fsck import fsck
from wikikv.store.kb import KnowledgeBase
from wikikv.store.listing import Listing
from wikikv.store.paths import join
from wikikv.store.records import FileMeta, FileRecord, RedirectRecord
from wikikv.store.store import Store, open_store

KB = "stress"
_SPAWN = mp.get_context("spawn")
State = list[Any] | None  # ["file", text] | ["redirect", target] | ["dir"] | None (absent)


# ================================================================ partial reads
@dataclass
class PartialReadsResult:
    writes: int = 0
    listings: int = 0
    children_read: int = 0
    misses_explained: int = 0
    violations: int = 0
    undecodable: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.violations == 0 and self.undecodable == 0 and not self.errors


def partial_reads(
    url: str,
    seconds: float = 3.0,
    readers: int = 3,
    dirs: int = 4,
    seed: int = 0,
    unsafe: bool | str = False,
) -> PartialReadsResult:
    """Run one writer and ``readers`` readers on ``url`` for ``seconds``; sum their counts.

    ``unsafe`` breaks parent-after-child on purpose, to show that the readers' check catches
    partial reads: ``True`` or ``"delete"`` deletes some records *before* unlinking them,
    ``"create"`` lists new pages in their parent *before* writing them."""
    with open_store(url) as store:
        setup_partial_reads(store, dirs)
    return PartialReadsRun(url, seconds, readers, dirs, seed, unsafe).start().collect()


def setup_partial_reads(store: Store, dirs: int = 4) -> None:
    """A fresh ``stress`` kb with ``dirs`` directories of a few pages each."""
    if store.has_kb(KB):
        store.drop_kb(KB)
    kb = store.create_kb(KB)
    for d in range(dirs):
        kb.mkdir(f"/d{d}")
        for i in range(4):
            kb.put(f"/d{d}/n{i}", f"seed page {i}")


class PartialReadsRun:
    """The writer and reader processes of one partial-reads run on a prepared kb (see
    :func:`setup_partial_reads`); ``start`` returns at once, ``collect`` waits for the counts."""

    def __init__(
        self,
        url: str,
        seconds: float = 3.0,
        readers: int = 3,
        dirs: int = 4,
        seed: int = 0,
        unsafe: bool | str = False,
    ) -> None:
        self.seconds = seconds
        # Held on self: the children unpickle these after __init__ returns.
        barrier: Any = _SPAWN.Barrier(readers + 1)
        self.barrier = barrier
        self.queue: Any = _SPAWN.Queue()
        self.procs = [
            _SPAWN.Process(
                target=_pr_writer, args=(url, dirs, seconds, seed, unsafe, barrier, self.queue)
            ),
            *[
                _SPAWN.Process(
                    target=_pr_reader, args=(url, dirs, seconds, seed + r + 1, barrier, self.queue)
                )
                for r in range(readers)
            ],
        ]

    def start(self) -> PartialReadsRun:
        for p in self.procs:
            p.start()
        return self

    def collect(self) -> PartialReadsResult:
        total = PartialReadsResult()
        for _ in self.procs:
            try:
                part = self.queue.get(timeout=self.seconds + 120)
            except Exception as exc:  # noqa: BLE001 - a worker that died reports nothing
                total.errors.append(f"a worker did not report: {exc!r}")
                break
            for key, value in part.items():
                if key == "errors":
                    total.errors.extend(value)
                else:
                    setattr(total, key, getattr(total, key) + value)
        for p in self.procs:
            p.join(timeout=30)
            if p.exitcode != 0:
                total.errors.append(f"{p.name} exited with {p.exitcode}")
                p.kill()
        return total


def _pr_writer(
    url: str, dirs: int, seconds: float, seed: int, unsafe: bool | str, barrier: Any, queue: Any
) -> None:
    rng = random.Random(seed)
    out: dict[str, Any] = {"writes": 0, "errors": []}
    with open_store(url) as store:
        kb = store.kb(KB)
        barrier.wait(timeout=120)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                _pr_write_once(kb, rng, dirs, unsafe)
                out["writes"] += 1
            except (AlreadyExists, NotFound):
                pass  # a move onto a page the random choice did not foresee; harmless
            except WikiKVError as exc:
                out["errors"].append(f"writer: {exc!r}")
                break
    queue.put(out)


def _pr_write_once(kb: KnowledgeBase, rng: random.Random, dirs: int, unsafe: bool | str) -> None:
    d = f"/d{rng.randrange(dirs)}"
    roll = rng.random()
    if roll < 0.15:  # a sub-directory: create it with pages, or delete it whole
        sub = f"{d}/s{rng.randrange(3)}"
        if kb.exists(sub):
            kb.delete(sub, recursive=True)
        else:
            kb.mkdir(sub)
            for i in range(rng.randrange(1, 4)):
                kb.put(f"{sub}/m{i}", f"sub page {i}")
        return
    path = f"{d}/n{rng.randrange(12)}"
    rec = kb.get(path, follow_redirects=False)
    if rec is None:
        if unsafe == "create":  # listed in its parent before its record exists
            kb.link(path, is_dir=False)
            time.sleep(0.002)
        kb.put(path, f"{path} created {rng.random()}")
    elif isinstance(rec, RedirectRecord):
        if rng.random() < 0.5:
            kb.delete(path)
        else:
            kb.put(path, f"{path} over a redirect {rng.random()}")
    elif roll < 0.55:
        kb.put(path, f"{path} updated {rng.random()}")
    elif roll < 0.8:
        if unsafe in (True, "delete"):  # the record goes while the listing still advertises it
            kb.backend.batch([Delete(kb.keys.node(path))])
            time.sleep(0.002)
        kb.delete(path)
    else:
        dst = f"/d{rng.randrange(dirs)}/n{rng.randrange(12)}"
        target = kb.get(dst, follow_redirects=False)
        if dst != path and (target is None or isinstance(target, RedirectRecord)):
            kb.move(path, dst)


def _pr_reader(url: str, dirs: int, seconds: float, seed: int, barrier: Any, queue: Any) -> None:
    rng = random.Random(seed)
    counts: dict[str, Any] = {
        "listings": 0,
        "children_read": 0,
        "misses_explained": 0,
        "violations": 0,
        "undecodable": 0,
        "errors": [],
    }
    with open_store(url) as store:
        kb = store.kb(KB)
        barrier.wait(timeout=120)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            start = rng.choice(["/", *[f"/d{i}" for i in range(dirs)]])
            try:
                _pr_read_from(kb, start, rng, counts)
            except CorruptRecord:
                counts["undecodable"] += 1
            except WikiKVError as exc:
                counts["errors"].append(f"reader: {exc!r}")
                break
    queue.put(counts)


def _stamp(listing: Listing) -> tuple[int, float]:
    return listing.record.meta.version, listing.record.meta.updated_at


def _pr_read_from(kb: KnowledgeBase, path: str, rng: random.Random, counts: dict[str, Any]) -> None:
    """List ``path``, read every advertised child, and descend into one advertised sub-directory,
    checking each miss against an unchanged listing."""
    listing = kb.ls(path)
    while True:
        counts["listings"] += 1
        children = listing.child_paths()
        records = kb.get_many(children)
        counts["children_read"] += len(children)
        for child, rec in zip(children, records, strict=True):
            if rec is None and kb.get(child) is None:
                _judge_miss(kb, listing, counts)
        if not listing.sub_dirs:
            return
        sub = join(listing.path, rng.choice(listing.sub_dirs))
        try:
            nxt = kb.ls(sub)
        except NotFound:
            _judge_miss(kb, listing, counts)
            return
        listing = nxt


def _judge_miss(kb: KnowledgeBase, listing: Listing, counts: dict[str, Any]) -> None:
    try:
        again = kb.ls(listing.path)
    except NotFound:
        counts["misses_explained"] += 1  # the directory itself went away meanwhile
        return
    if _stamp(again) == _stamp(listing):
        counts["violations"] += 1
    else:
        counts["misses_explained"] += 1


# ================================================================ lost updates
READY_TIMEOUT = 600.0  # seconds for every worker to start (spawn + imports + connect)
ROUND_TIMEOUT = 60.0  # seconds one forced-contention round may wait for the other workers


def lost_updates(
    url: str,
    procs: int = 2,
    increments: int = 500,
    mutant: bool = False,
    *,
    stagger: float = 0.0,
    round_timeout: float = ROUND_TIMEOUT,
) -> tuple[int, int]:
    """``procs`` processes each add 1 to ``/counter`` ``increments`` times through kb.update;
    return (final value, retried attempts).

    Contention is forced, not hoped for: each increment's first attempt reads the counter and
    then waits at a barrier for every other worker's first read, so all of them write from the
    same version and all but one must retry (retried >= increments * (procs - 1)). ``mutant``
    runs a copy of ``kb.update`` without the version check instead (the mutation check): its
    writes from a stale read land, so the count comes out short.

    Every worker waits until all have started before its first increment: starting a process
    (spawn, imports, a server connection) can take far longer on a loaded machine than a round,
    and a round's barrier must not time out because a peer is still starting. ``stagger``
    starts the workers that many seconds apart (the test of that)."""
    with open_store(url) as store:
        kb = store.create_kb(KB, exist_ok=True)
        kb.put("/counter", "0")
    queue: Any = _SPAWN.Queue()
    barrier: Any = _SPAWN.Barrier(procs)
    ready: Any = _SPAWN.Barrier(procs)
    workers = [
        _SPAWN.Process(
            target=_lu_worker,
            args=(url, increments, queue, barrier, ready, mutant, round_timeout),
        )
        for _ in range(procs)
    ]
    for i, w in enumerate(workers):
        if i and stagger:
            time.sleep(stagger)
        w.start()
    retried = 0
    for _ in workers:
        got = queue.get(timeout=READY_TIMEOUT + 600)
        if isinstance(got, str):
            raise RuntimeError(f"a lost-update worker failed: {got}")
        retried += int(got)
    for w in workers:
        w.join(timeout=30)
    with open_store(url) as store:
        rec = store.kb(KB).get("/counter")
        assert isinstance(rec, FileRecord)
        return int(rec.text), retried


def _unchecked_update(
    kb: KnowledgeBase, path: str, change: Callable[[FileRecord | None], tuple[str, Any]]
) -> None:
    """``kb.update`` with its version check removed (the mutation the test must catch)."""
    cur = kb.get(path)
    text, meta = change(cur if isinstance(cur, FileRecord) else None)
    kb.put(path, text, meta)  # no expect=: a stale read overwrites a newer value


def _lu_worker(
    url: str,
    increments: int,
    queue: Any,
    barrier: Any,
    ready: Any,
    mutant: bool,
    round_timeout: float,
) -> None:
    try:
        queue.put(_lu_increments(url, increments, barrier, ready, mutant, round_timeout))
    except BaseException as exc:  # reported to the parent, which then fails at once
        queue.put(f"{type(exc).__name__}: {exc}")
        raise


def _lu_increments(
    url: str, increments: int, barrier: Any, ready: Any, mutant: bool, round_timeout: float
) -> int:
    calls = 0
    first = True

    def inc(cur: FileRecord | None) -> tuple[str, FileMeta | None]:
        nonlocal calls, first
        calls += 1
        value = int(cur.text) if cur is not None else 0
        if first:  # every worker has read this version before any of them writes
            first = False
            barrier.wait(timeout=round_timeout)
        return str(value + 1), cur.meta if cur is not None else None

    with open_store(url) as store:
        kb = store.kb(KB)
        ready.wait(timeout=READY_TIMEOUT)
        for _ in range(increments):
            first = True
            if mutant:
                _unchecked_update(kb, "/counter", inc)
            else:
                kb.update("/counter", inc)  # the default bounded retries
    return calls - increments


# ====================================================================== crashes
CRASH_DIRS = 3
CRASH_NAMES = 10


def _observe(kb: KnowledgeBase, path: str) -> State:
    rec = kb.get(path, follow_redirects=False)
    if rec is None:
        return None
    if isinstance(rec, FileRecord):
        return ["file", rec.text]
    if isinstance(rec, RedirectRecord):
        return ["redirect", rec.target]
    return ["dir"]


def _log(fh: Any, kind: str, body: dict[str, Any]) -> None:
    fh.write(kind + " " + json.dumps(body, ensure_ascii=False) + "\n")
    fh.flush()
    os.fsync(fh.fileno())


def crash_writer(url: str, log_path: str, seed: int) -> None:
    """Write forever (until killed), logging each operation before and after it."""
    rng = random.Random(seed)
    paths = [f"/c{d}/p{n}" for d in range(CRASH_DIRS) for n in range(CRASH_NAMES)]
    with open_store(url) as store, open(log_path, "a", encoding="utf-8") as fh:
        kb = store.kb(KB)
        _log(fh, "R", {"pid": os.getpid()})
        seq = 0
        while True:
            seq += 1
            path = rng.choice(paths)
            before = _observe(kb, path)
            text = f"{path} #{seed}.{seq}"
            change: dict[str, list[State]]
            if before is None or before[0] == "redirect" or rng.random() < 0.5:
                change = {path: [before, ["file", text]]}
                _log(fh, "B", {"op": "put", "paths": change})
                kb.put(path, text)
            elif rng.random() < 0.5:
                change = {path: [before, None]}
                _log(fh, "B", {"op": "delete", "paths": change})
                kb.delete(path)
            else:
                dst = rng.choice(paths)
                dst_before = _observe(kb, dst)
                if dst == path or (dst_before is not None and dst_before[0] != "redirect"):
                    continue
                change = {path: [before, ["redirect", dst]], dst: [dst_before, ["file", before[1]]]}
                _log(fh, "B", {"op": "move", "paths": change})
                kb.move(path, dst)
            _log(fh, "D", {"paths": {p: after for p, (_, after) in change.items()}})


@dataclass
class CrashResult:
    kills: int = 0
    completed_writes: int = 0
    inflight_at_kill: int = 0
    repairs: int = 0
    problems: list[str] = field(default_factory=list)


def _read_log(log_path: Path) -> tuple[dict[str, State], dict[str, list[State]]]:
    """The state each path's last completed (or settled) operation left, and the operation in
    flight when the writer died (path -> [before, after])."""
    expected: dict[str, State] = {}
    inflight: dict[str, list[State]] = {}
    for line in log_path.read_text(encoding="utf-8").splitlines():
        kind, _, raw = line.partition(" ")
        try:
            body = json.loads(raw)
        except ValueError:
            continue  # a line torn by the kill: its operation counts as in flight
        if kind == "B":
            inflight = body["paths"]
        elif kind in ("D", "S"):
            expected.update(body["paths"])
            inflight = {}
    return expected, inflight


def crash_check(kb: KnowledgeBase, log_path: Path) -> tuple[list[str], int]:
    """Check the kb after a kill against the log, repair, and settle the in-flight operation.
    Returns the problems found and the number of repairs fsck made."""
    problems: list[str] = []
    # A writer killed inside LMDB's commit may have written its meta page without publishing
    # the new transaction id to readers; the next write transaction (robust-mutex recovery)
    # publishes it. Without this empty write, the check could see the state just before the
    # in-flight operation's last batch and the next writer would then reveal it.
    kb.backend.batch([])
    expected, inflight = _read_log(log_path)
    listed: set[str] = set()
    for d in range(CRASH_DIRS):
        listed.update(kb.ls_all(f"/c{d}").child_paths())
    for path in sorted(set(expected) | set(inflight)):
        actual = _observe(kb, path)
        allowed = [expected.get(path)]
        if path in inflight:
            allowed += inflight[path]
        if actual not in allowed:
            problems.append(f"{path}: found {actual!r}, expected one of {allowed!r}")
        if path not in inflight:
            is_file = actual is not None and actual[0] == "file"
            if is_file != (path in listed):
                problems.append(f"{path}: {actual!r} but listed={path in listed}")
    report = fsck(kb)
    if report.dangling or report.undecodable or report.stray_pages:
        problems.append(f"fsck after kill: {report.to_dict()}")
    if report.path_index_stale or report.path_index_missing:
        problems.append(f"path index drift after kill: {report.to_dict()}")
    if report.name_index_stale or report.name_index_missing:
        problems.append(f"name index drift after kill: {report.to_dict()}")
    stray_orphans = [p for p in report.orphans if p not in inflight]
    if stray_orphans:
        problems.append(f"orphans not explained by the in-flight write: {stray_orphans}")
    repairs = 0
    if not report.clean:
        fixed = fsck(kb, repair=True)
        repairs = len(fixed.repairs)
        problems.extend(fixed.unrepaired)
    with open(log_path, "a", encoding="utf-8") as fh:
        _log(fh, "S", {"paths": {p: _observe(kb, p) for p in inflight}})
    return problems, repairs


def _session_name(url: str, tag: str) -> tuple[str, str | None]:
    """``url`` with its server sessions named ``tag`` (PostgreSQL's ``application_name``), and
    the name; other backends need no name (see :func:`kill_writer`)."""
    if url.split("://", 1)[0].lower() in ("postgres", "postgresql"):
        return f"{url}{'&' if '?' in url else '?'}application_name={tag}", tag
    return url, None


def kill_writer(
    url: str, log_path: Path, seed: int, tag: str, wait: Callable[[int], None], store: Store
) -> None:
    """Start a crash writer, ``wait(lines_before)``, SIGKILL it, and return once nothing the
    dead writer sent can still change the store.

    A dead client's last request may outlive it on a server: a COMMIT it sent just before the
    kill is still being made durable (a WAL flush that takes a while on a loaded machine) when the
    checker starts reading. The checker would then settle the in-flight operation to the state
    before it, and the commit would land afterwards — a "lost" state the next round reports. So
    on PostgreSQL the writer's sessions carry a name and this waits until the server has closed
    them. (Redis has the same window in principle — a request read after the checker's — but
    executes a request as soon as it reads it; no round here has shown it.)"""
    lines_before = count_lines(log_path)
    writer_url, session = _session_name(url, tag)
    proc = subprocess.Popen(
        [sys.executable, "-m", "wikikv.testing.workloads", "crash-writer",
         "--store", writer_url, "--log", str(log_path), "--seed", str(seed)],
    )  # fmt: skip
    try:
        _wait_started(log_path, lines_before, proc)
        wait(lines_before)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    named = getattr(store.backend, "sessions_named", None)
    if session is not None and named is not None:
        deadline = time.monotonic() + 120
        while named(session) > 0:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the killed writer's session {session} never ended")
            time.sleep(0.02)


def crash_rounds(url: str, log_path: Path, kills: int = 20, seed: int = 0) -> CrashResult:
    """Start a writer process, SIGKILL it at a random moment, check; ``kills`` times."""
    rng = random.Random(seed)
    result = CrashResult()
    store = open_store(url)
    try:
        kb = store.create_kb(KB, exist_ok=True)
        for d in range(CRASH_DIRS):
            kb.mkdir(f"/c{d}")
        for round_no in range(kills):
            lines_before = count_lines(log_path)
            kill_writer(
                url,
                log_path,
                seed * 1000 + round_no,
                f"wikikv_crash_{os.getpid()}_{round_no}",
                lambda _lines: time.sleep(rng.uniform(0.0, 0.25)),
                store,
            )
            result.kills += 1
            text = log_path.read_text(encoding="utf-8").splitlines()[lines_before:]
            result.completed_writes += sum(1 for line in text if line.startswith("D "))
            _, inflight = _read_log(log_path)
            result.inflight_at_kill += bool(inflight)
            problems, repairs = crash_check(kb, log_path)
            result.repairs += repairs
            result.problems += [f"kill {round_no}: {p}" for p in problems]
    finally:
        store.close()
    return result


# ============================================================ bulk-build crashes
BULK_CHUNK = 40
BULK_DIRS = 5


def bulk_crash_writer(url: str, log_path: str, seed: int) -> None:
    """Load pages through a BulkWriter (as ``wikikv build`` does) until killed, logging each
    chunk's pages after its flush returned. Starts by taking the kb's lease, which the previous
    killed writer left behind: the takeover of a dead holder's lease."""
    with open_store(url) as store, open(log_path, "a", encoding="utf-8") as fh:
        kb = store.kb(KB)
        _log(fh, "R", {"pid": os.getpid()})
        with BulkWriter(kb, job="bulk-crash", chunk=10 * BULK_CHUNK) as bw:
            seq = 0
            while True:
                seq += 1
                pages = {
                    f"/b{(seq + i) % BULK_DIRS}/s{seed}-{seq}-{i}": f"page {seed}.{seq}.{i}"
                    for i in range(BULK_CHUNK)
                }
                for path, text in pages.items():
                    bw.put_file(path, text)
                bw.flush()
                _log(fh, "F", {"pages": pages})


def bulk_crash_check(kb: KnowledgeBase, log_path: Path) -> list[str]:
    """Every page of every flush that returned is stored, with its text, and listed; the only
    damage allowed is the chunk in flight (records written, parents not yet: orphans)."""
    kb.backend.batch([])  # publish a commit the kill interrupted (see crash_check)
    flushed: dict[str, str] = {}
    for line in log_path.read_text(encoding="utf-8").splitlines():
        kind, _, raw = line.partition(" ")
        if kind == "F":
            try:
                flushed.update(json.loads(raw)["pages"])
            except ValueError:
                continue  # torn by the kill: that flush's log line, not its data, was cut
    problems: list[str] = []
    listed: set[str] = set()
    for d in range(BULK_DIRS):
        if kb.exists(f"/b{d}"):
            listed.update(kb.ls_all(f"/b{d}").child_paths())
    paths = sorted(flushed)
    for path, rec in zip(paths, kb.get_many(paths), strict=True):
        if not isinstance(rec, FileRecord) or rec.text != flushed[path]:
            problems.append(f"{path}: flushed, found {rec!r}")
        elif path not in listed:
            problems.append(f"{path}: flushed but not listed")
    report = fsck(kb)
    if report.dangling or report.undecodable or report.stray_pages:
        problems.append(f"fsck after kill: {report.to_dict()}")
    stray = [p for p in report.orphans if p in flushed]
    if stray:
        problems.append(f"flushed pages left orphaned: {stray}")
    if not report.clean:
        problems.extend(fsck(kb, repair=True).unrepaired)
    return problems


def bulk_crash_rounds(url: str, log_path: Path, kills: int = 5, seed: int = 0) -> CrashResult:
    """Start a bulk-loading process, SIGKILL it at a random moment, check; ``kills`` times."""
    rng = random.Random(seed)
    result = CrashResult()
    with open_store(url) as store:
        kb = store.create_kb(KB, exist_ok=True)
        for round_no in range(kills):
            lines_before = count_lines(log_path)
            proc = subprocess.Popen(
                [sys.executable, "-m", "wikikv.testing.workloads", "bulk-crash-writer",
                 "--store", url, "--log", str(log_path), "--seed", str(seed * 1000 + round_no)],
            )  # fmt: skip
            try:
                _wait_started(log_path, lines_before + 1, proc)  # "R", then a first flush
                time.sleep(rng.uniform(0.0, 0.3))
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=60)
            result.kills += 1
            text = log_path.read_text(encoding="utf-8").splitlines()[lines_before:]
            result.completed_writes += sum(1 for line in text if line.startswith("F "))
            problems = bulk_crash_check(kb, log_path)
            result.problems += [f"kill {round_no}: {p}" for p in problems]
    return result


def count_lines(log_path: Path) -> int:
    if not log_path.exists():
        return 0
    return len(log_path.read_text(encoding="utf-8").splitlines())


def _wait_started(log_path: Path, lines_before: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if count_lines(log_path) > lines_before:
            return
        if proc.poll() is not None:
            raise RuntimeError(f"crash writer exited early with {proc.returncode}")
        time.sleep(0.01)
    raise RuntimeError("crash writer did not start")


# ========================================================================== CLI
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wikikv.testing.workloads", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    pr = sub.add_parser("partial-reads", help="Theorem 2: one writer, several readers")
    pr.add_argument("--store", required=True)
    pr.add_argument("--seconds", type=float, default=60.0)
    pr.add_argument("--readers", type=int, default=3)
    lu = sub.add_parser("lost-updates", help="concurrent increments through kb.update")
    lu.add_argument("--store", required=True)
    lu.add_argument("--procs", type=int, default=2)
    lu.add_argument("--increments", type=int, default=500)
    cr = sub.add_parser("crashes", help="kill -9 a writer repeatedly and check after each kill")
    cr.add_argument("--store", required=True)
    cr.add_argument("--kills", type=int, default=100)
    cr.add_argument("--log", default=None, help="write log (default: <store dir>.crashlog)")
    cr.add_argument("--seed", type=int, default=0)
    bc = sub.add_parser("bulk-crashes", help="kill -9 a bulk load repeatedly, check each time")
    bc.add_argument("--store", required=True)
    bc.add_argument("--kills", type=int, default=20)
    bc.add_argument("--log", default=None, help="write log (default: <store dir>.bulklog)")
    bc.add_argument("--seed", type=int, default=0)
    for name in ("crash-writer", "bulk-crash-writer"):
        cw = sub.add_parser(name, help="(internal) the writer that gets killed")
        cw.add_argument("--store", required=True)
        cw.add_argument("--log", required=True)
        cw.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    if args.cmd == "crash-writer":
        crash_writer(args.store, args.log, args.seed)
        return 0
    if args.cmd == "bulk-crash-writer":
        bulk_crash_writer(args.store, args.log, args.seed)
        return 0
    out: dict[str, Any]
    if args.cmd == "partial-reads":
        res = partial_reads(args.store, args.seconds, args.readers)
        out, ok = asdict(res), res.ok
    elif args.cmd == "lost-updates":
        value, retried = lost_updates(args.store, args.procs, args.increments)
        expected = args.procs * args.increments
        out, ok = {"value": value, "expected": expected, "retried": retried}, value == expected
    else:
        bulk = args.cmd == "bulk-crashes"
        suffix = ".bulklog" if bulk else ".crashlog"
        log = Path(args.log or args.store.rstrip("/").split("?")[0].split("://")[-1] + suffix)
        rounds = bulk_crash_rounds if bulk else crash_rounds
        crashes = rounds(args.store, log, args.kills, args.seed)
        out, ok = asdict(crashes), not crashes.problems
    print(json.dumps({"ok": ok, **out}, indent=2, ensure_ascii=False))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "CrashResult",
    "bulk_crash_rounds",
    "PartialReadsResult",
    "PartialReadsRun",
    "crash_check",
    "crash_rounds",
    "crash_writer",
    "lost_updates",
    "main",
    "partial_reads",
    "setup_partial_reads",
]
