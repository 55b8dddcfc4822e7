"""Phase A's document analysis in forked worker processes, handed back in order.

The build's first phase alternates two kinds of work per batch: analysing the documents (pure
functions of the text and the corpus gazetteer) and writing their articles and index postings
(the store, one process). On a large English corpus the analysis is about half of the phase, so
it runs ahead in worker processes forked once the gazetteer is loaded — the children share it
copy-on-write — while this process writes. Each worker takes every n-th batch (round-robin) and
this process reads the results back in batch order, so the analyses, and everything written from
them, are exactly those of the serial loop. A worker never touches the store.

Serial (in this process, the batch's ``before`` hook called first) when it would not pay or
cannot be done: a provider other than the plain extractive one (an LLM provider searches the kb
between batches and runs its own concurrency), Chinese documents (their jieba tagging has its own
pool, :func:`wikikv.compile.analyze.tag_chinese`), a small job, one CPU, or no ``fork``.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import queue
import resource
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

import msgspec

from wikikv.compile.analyze import analyze_documents
from wikikv.compile.ingest import Document
from wikikv.compile.model import DocAnalysis
from wikikv.errors import AnalysisWorkerFailed
from wikikv.forked import answer_each, become_worker, can_fork, cpus, frozen_heap, unpacked
from wikikv.llm.base import CompileProvider
from wikikv.llm.extractive import ExtractiveProvider

# Below this much text a fork costs more than it saves (an add of a few documents).
PARALLEL_MIN_CHARS = 500_000
# How far the workers may run ahead of this process, in characters of text: about what this
# process's index flushes take at a time (INDEX_FLUSH_CHARS), so the workers keep analysing
# through a flush; their waiting results take ~1.8 bytes per byte of text.
AHEAD_CHARS = 16 << 20

_decoder = msgspec.msgpack.Decoder(list[DocAnalysis])
_encoder = msgspec.msgpack.Encoder()

# What a forked worker analyses: set just before the fork, read by the children only.
_job: tuple[Sequence[Sequence[Document]], CompileProvider, bool] | None = None


def worker_count(
    chunks: Sequence[Sequence[Document]], provider: CompileProvider, workers: int
) -> int:
    """How many worker processes to analyse ``chunks`` with (0: in this process)."""
    if type(provider) is not ExtractiveProvider or workers < 2 or len(chunks) < 2:
        return 0
    if _cpus() < 2 or not can_fork():
        return 0
    docs = [d for c in chunks for d in c]
    if any(d.lang == "zh" for d in docs) or sum(len(d.text) for d in docs) < PARALLEL_MIN_CHARS:
        return 0
    return min(workers, _cpus())


def _cpus() -> int:
    return cpus()


def cpu_with_children() -> float:
    """CPU seconds of this process and of its ended children (the workers, once closed)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


class AnalysisStream:
    """The analyses of each batch, in batch order (iterate once)."""

    def __init__(
        self,
        chunks: Sequence[Sequence[Document]],
        provider: CompileProvider,
        workers: int = 2,
        fast_zh: bool = False,
        before: Callable[[Sequence[Document]], None] | None = None,
    ) -> None:
        self.chunks = chunks
        self.provider = provider
        self.workers = workers
        self.fast_zh = fast_zh
        self.before = before
        self.forked = worker_count(chunks, provider, workers)
        self._procs: list[Any] = []
        self._tasks: list[Connection] = []
        self._results: list[Connection] = []
        self._arrived: queue.SimpleQueue[bytes | int] = queue.SimpleQueue()
        self._reader: threading.Thread | None = None
        self._done = False

    def __iter__(self) -> Iterator[list[DocAnalysis]]:
        if not self.forked:
            for chunk in self.chunks:
                if self.before is not None:
                    self.before(chunk)
                yield analyze_documents(chunk, self.provider, self.workers, self.fast_zh)
            return
        self._start()
        ends = list(itertools.accumulate(sum(len(d.text) for d in c) for c in self.chunks))
        sent = 0
        for i in range(len(self.chunks)):
            # ahead of this process by up to AHEAD_CHARS of text (and two batches a worker)
            before_i = ends[i - 1] if i else 0
            while sent < len(self.chunks) and (
                sent < i + 2 * self.forked or ends[sent] - before_i <= AHEAD_CHARS
            ):
                self._tasks[sent % self.forked].send(sent)
                sent += 1
            yield self._receive()
        self._done = True

    def _start(self) -> None:
        global _job
        ctx = mp.get_context("fork")
        pipes = [(ctx.Pipe(duplex=False), ctx.Pipe(duplex=False)) for _ in range(self.forked)]
        _job = (self.chunks, self.provider, self.fast_zh)
        try:
            with frozen_heap():
                for (task_r, task_w), (res_r, res_w) in pipes:
                    others = [
                        c for p in pipes for pair in p for c in pair if c not in (task_r, res_w)
                    ]
                    args = (task_r, res_w, others, os.getpid())
                    proc = ctx.Process(target=_serve, args=args, daemon=True)
                    proc.start()
                    task_r.close()
                    res_w.close()
                    self._procs.append(proc)
                    self._tasks.append(task_w)
                    self._results.append(res_r)
        finally:
            _job = None
        # A worker blocks once its pipe is full: a thread keeps reading them, in batch order,
        # while this process is busy (an index flush), so the workers go on analysing.
        self._reader = threading.Thread(target=self._read, name="analysis-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for i in range(len(self.chunks)):
            w = i % self.forked
            try:
                self._arrived.put(self._results[w].recv_bytes())
            except (EOFError, OSError):  # the pipe ends when the worker, its only writer, dies
                self._arrived.put(w)
                return

    def _receive(self) -> list[DocAnalysis]:
        raw = self._arrived.get()
        if isinstance(raw, int):
            proc = self._procs[raw]
            proc.join(timeout=5)
            raise AnalysisWorkerFailed(
                f"analysis worker {proc.pid} exited with code {proc.exitcode}"
            )
        return _decoder.decode(unpacked(raw))

    def close(self) -> None:
        """End the workers: each reads the end of its task pipe and exits; stopped early
        (an error), they are killed instead of finishing the batches sent ahead."""
        for conn in self._tasks:
            conn.close()
        for proc in self._procs:
            if not self._done:
                proc.kill()
            proc.join(timeout=30)
            if proc.is_alive():  # pragma: no cover - a worker stuck past its pipe's end
                proc.kill()
                proc.join()
        if self._reader is not None:
            self._reader.join()  # every worker is gone: its reads end
        for conn in self._results:
            conn.close()
        self._procs, self._tasks, self._results, self._reader = [], [], [], None


@contextmanager
def analysed_chunks(
    chunks: Sequence[Sequence[Document]],
    provider: CompileProvider,
    workers: int = 2,
    fast_zh: bool = False,
    before: Callable[[Sequence[Document]], None] | None = None,
) -> Iterator[AnalysisStream]:
    """An :class:`AnalysisStream` whose workers end with the block, also when it raises."""
    stream = AnalysisStream(chunks, provider, workers, fast_zh, before)
    try:
        yield stream
    finally:
        stream.close()


def _serve(
    tasks: Connection, results: Connection, inherited: list[Connection], parent: int
) -> None:
    """A worker: analyse the batches whose numbers arrive on ``tasks`` until its end."""
    become_worker(parent)
    for conn in inherited:  # the other workers' ends: their pipes must end with the parent
        conn.close()
    assert _job is not None
    chunks, provider, fast_zh = _job
    answer_each(
        tasks.recv,
        lambda i: _encoder.encode(analyze_documents(chunks[i], provider, 1, fast_zh)),
        results,
    )
