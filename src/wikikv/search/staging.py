"""A staged run's analysis, and a worker process that does it beside the build.

A first build writes its index as staged runs (:func:`wikikv.search.index.merge_staged`). Turning
a run's pages into posting blocks and writing the run's file reads nothing from the store and is
a third of a large English build's CPU (every entity page quotes the sentences it cites, so the
index tokenises about ten times the corpus). A build on two or more CPUs therefore hands each run
to a :class:`Stager`, a forked worker, and goes on rendering the next batch while the worker
analyses this one; it writes the run's store records (its doc entries, then its completion
record) when it collects the result, in the order it submitted the runs, so the index and the
store are exactly those of the serial build. The worker never touches the store, and a run whose
records were not written when a build was killed does not count (its file is dropped with the
others by the merge), as before.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import weakref
from collections import defaultdict, deque
from collections.abc import Iterable
from multiprocessing.connection import Connection
from operator import iadd, itemgetter
from pathlib import Path
from typing import Any

import msgspec

from wikikv.errors import IndexWorkerFailed
from wikikv.forked import answer_each, become_worker, frozen_heap, unpacked
from wikikv.search import spill
from wikikv.search.analysis import (
    _BUCKET_BYTE,
    BUCKETS,
    TF_LENS,
    DocEntry,
    Fields,
    IndexStats,
    _enc,
    body_postings,
    bucket_of,
    split_fields,
)
from wikikv.search.tokenize import memo_words, remember_segmentation

Groups = list[defaultdict[str, bytearray]]


def run_of(pages: Iterable[Fields]) -> tuple[Groups, list[tuple[bytes, DocEntry]], set[str]]:
    """``pages`` analysed into one run: per bucket, each block's postings, the doc entries and
    the name words. A body-only term's posting is one of a few per page (:func:`body_postings`),
    shared, and appended to its block by ``map`` in C: this loop runs once per posting (1.5M
    for one copy of 2Wiki 6k)."""
    groups: Groups = [defaultdict(bytearray) for _ in range(BUCKETS)]
    entries: list[tuple[bytes, DocEntry]] = []
    words: set[str] = set()
    pack_rest = TF_LENS.pack
    for fields in pages:
        a = split_fields(fields)
        group, ref, lens = groups[bucket_of(a.ref)], a.ref, a.entry.lens
        for term, tf in a.tfs.items():  # the posting layout of packed(): ref, then tf and lens
            group[term] += ref + pack_rest(*tf, *lens)
        body = a.body
        if body:
            shared = body_postings(a)
            blocks = map(group.__getitem__, body)
            deque(map(iadd, blocks, map(shared.__getitem__, body.values())), 0)
        entries.append((ref, a.entry))
        words.update(a.vocab)
    return groups, entries, words


def named_blocks(groups: Groups) -> list[tuple[bytes, bytearray]]:
    """A run's blocks in key order, named by their posting key after the ``p`` prefix (term,
    NUL, bucket byte); ``groups`` is emptied."""
    named: list[tuple[bytes, bytearray]] = []
    for b, group in enumerate(groups):
        tail = b"\x00" + _BUCKET_BYTE[b]
        named.extend(
            zip([term.encode("utf-8") + tail for term in group], group.values(), strict=True)
        )
        group.clear()
    named.sort(key=itemgetter(0))
    return named


def run_stats(stats: IndexStats) -> list[int]:
    """A run's stats: n, the field totals, then the directories' (a run written before
    directories were counted apart ends after the totals)."""
    return [stats.n, *stats.total, stats.dirs, *stats.dir_total]


class StagedRun(msgspec.Struct, array_like=True):
    """One run analysed and its file written: what its store records are made of."""

    size: int  # of the run file
    digest: bytes
    refs: list[bytes]  # the run's docs, in ref order
    entries: list[bytes]  # their encoded doc entries, in the same order
    stats: list[int]  # run_stats()
    words: list[str]  # the name words (their typo neighbourhoods go with the run)
    segmentations: dict[str, list[str]] = {}  # jieba words of the CJK runs asked for


def analyse_run(pages: Iterable[Fields], directory: Path, seq: bytes) -> StagedRun:
    """Analyse ``pages`` and write their blocks to run ``seq``'s file in ``directory``."""
    groups, entries, words = run_of(pages)
    size, digest = spill.write_run(directory, seq, named_blocks(groups))
    del groups
    entries.sort(key=itemgetter(0))
    counted = IndexStats()
    for _, entry in entries:
        counted.count(entry, 1)
    return StagedRun(
        size,
        digest,
        [ref for ref, _ in entries],
        [_enc.encode(entry) for _, entry in entries],
        run_stats(counted),
        sorted(words),
    )


class _Job(msgspec.Struct, array_like=True):
    directory: str
    seq: bytes
    pages: list[Fields]
    known: dict[str, list[str]]  # stored segmentations of the pages' CJK runs
    wanted: list[str]  # the runs whose segmentation the store lacks: sent back


_job_enc = msgspec.msgpack.Encoder()
_job_dec = msgspec.msgpack.Decoder(_Job)
_run_dec = msgspec.msgpack.Decoder(StagedRun)


class Stager:
    """A forked worker analysing runs while this process goes on; one run at a time in flight
    (:meth:`submit`, then :meth:`collect` before the next). Fork it where no other thread runs."""

    def __init__(self) -> None:
        ctx = mp.get_context("fork")
        task_r, self._tasks = ctx.Pipe(duplex=False)
        self._results, res_w = ctx.Pipe(duplex=False)
        with frozen_heap():
            self._proc: Any = ctx.Process(
                target=_serve,
                args=(task_r, res_w, [self._tasks, self._results], os.getpid()),
                daemon=True,
                name="index-stager",
            )
            self._proc.start()
        task_r.close()
        res_w.close()
        self.in_flight = False
        # also when the writer is dropped unclosed (a build that raised): the worker is idle
        # or busy with a run nobody will collect, so it is killed, never waited for
        self._end = weakref.finalize(self, _stop, self._proc, self._tasks, self._results)

    @property
    def closed(self) -> bool:
        return not self._end.alive

    @property
    def pid(self) -> int:
        return int(self._proc.pid)

    def submit(
        self,
        directory: Path,
        seq: bytes,
        pages: list[Fields],
        known: dict[str, list[str]],
        wanted: list[str],
    ) -> None:
        if self.in_flight:
            raise RuntimeError("collect the run in flight before submitting another")
        try:
            self._tasks.send_bytes(_job_enc.encode(_Job(str(directory), seq, pages, known, wanted)))
        except OSError as exc:  # the worker is gone: its end of the pipe closed
            raise self._failed() from exc
        self.in_flight = True

    def collect(self) -> StagedRun:
        """The run in flight, analysed and written (the worker's error raised here)."""
        self.in_flight = False
        try:
            raw = self._results.recv_bytes()
        except (EOFError, OSError) as exc:  # the pipe ends when the worker, its writer, dies
            raise self._failed() from exc
        run = _run_dec.decode(unpacked(raw))
        for chars, words in run.segmentations.items():
            remember_segmentation(chars, words)  # so the run's memo ops can be made here
        return run

    def close(self) -> None:
        """End the worker (a run still in flight is dropped: nobody wants it)."""
        self.in_flight = False
        self._end()

    def _failed(self) -> IndexWorkerFailed:
        self._proc.join(timeout=5)
        return IndexWorkerFailed(
            f"index worker {self._proc.pid} exited with code {self._proc.exitcode}"
        )


def _stop(proc: Any, *conns: Connection) -> None:
    proc.kill()
    proc.join()
    for conn in conns:
        conn.close()


def _serve(
    tasks: Connection, results: Connection, inherited: list[Connection], parent: int
) -> None:
    """The worker: analyse the runs that arrive on ``tasks`` until its end."""
    become_worker(parent)
    for conn in inherited:  # the parent's ends: the pipes must end with the parent
        conn.close()
    answer_each(tasks.recv_bytes, _analysed, results)


def _analysed(raw: bytes) -> bytes:
    """One job's answer: its run, analysed and written."""
    job = _job_dec.decode(raw)
    for chars, words in job.known.items():
        remember_segmentation(chars, words)
    run = analyse_run(job.pages, Path(job.directory), job.seq)
    for chars in job.wanted:
        found = memo_words(chars)
        if found is not None:
            run.segmentations[chars] = found
    return _job_enc.encode(run)
