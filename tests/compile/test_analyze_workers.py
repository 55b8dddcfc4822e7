"""Phase A's analysis in forked workers (``wikikv.compile.analyze_workers``): the analyses come
back exactly as the serial loop makes them, in batch order; a build with workers writes the same
wiki and index; a worker that dies or fails stops the build with an error and leaves no process
behind; and the cases that must stay serial do."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import msgspec
import pytest

from tests.compile.test_streaming import _index
from wikikv.bench.compile import snapshot
from wikikv.compile import analyze_workers
from wikikv.compile.analyze import analyze_documents
from wikikv.compile.analyze_workers import AnalysisStream, analysed_chunks, worker_count
from wikikv.compile.ingest import Document, read_corpus
from wikikv.compile.llm_provider import LLMCompileProvider
from wikikv.compile.model import DocAnalysis, gazetteer_for
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.errors import AnalysisWorkerFailed, CorpusError, SimulatedCrash
from wikikv.llm.extractive import ExtractiveProvider
from wikikv.store.store import open_store

pytestmark = pytest.mark.skipif(
    "fork" not in mp.get_all_start_methods() or (os.cpu_count() or 1) < 2,
    reason="forked workers need fork and two CPUs",
)


def _docs(corpus: Path) -> list[Document]:
    return read_corpus(corpus).documents


def _provider(docs: Sequence[Document]) -> ExtractiveProvider:
    provider = ExtractiveProvider()
    titles = {d.id: DocAnalysis(d.id, d.title, d.lang, d.fingerprint, d.group) for d in docs}
    provider.use_titles(*gazetteer_for(titles, False))
    return provider


def _chunks(docs: list[Document], step: int) -> list[list[Document]]:
    return [docs[i : i + step] for i in range(0, len(docs), step)]


def _encoded(batches: Sequence[list[DocAnalysis]]) -> list[bytes]:
    return [msgspec.msgpack.encode(b) for b in batches]


def test_forked_workers_hand_back_the_serial_analyses_in_order(
    hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(hotpot_slice)
    provider = _provider(docs)
    chunks = _chunks(docs, 7)
    serial = [analyze_documents(c, provider, 1) for c in chunks]
    monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 0)
    monkeypatch.setattr(analyze_workers, "_cpus", lambda: 4)
    with analysed_chunks(chunks, provider, workers=3) as stream:
        assert stream.forked == 3  # round-robin over three workers: order is the reader's job
        forked = list(stream)
    assert _encoded(forked) == _encoded(serial)
    assert [[a.id for a in b] for b in forked] == [[d.id for d in c] for c in chunks]
    assert mp.active_children() == []


def _logging(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """Workers append the first document id of each batch they analyse to ``log``."""
    real = analyze_workers.analyze_documents

    def logged(chunk: Sequence[Document], *args: object) -> list[DocAnalysis]:
        out = real(chunk, *args)  # type: ignore[arg-type]
        with log.open("a") as f:
            f.write(chunk[0].id + "\n")
        return out

    monkeypatch.setattr(analyze_workers, "analyze_documents", logged)


def _analysed(log: Path, want: int, wait: float) -> int:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        n = len(log.read_text().split()) if log.exists() else 0
        if n >= want:
            return n
        time.sleep(0.05)
    return len(log.read_text().split()) if log.exists() else 0


def test_workers_keep_analysing_while_this_process_is_busy(
    tmp_path: Path, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader thread drains the workers' pipes: they analyse every batch within the
    lookahead while the consumer does not ask (an index flush), instead of blocking on a full
    pipe; and they stop at the lookahead."""
    docs = _docs(hotpot_slice)
    chunks = _chunks(docs * 4, 10)  # 60 batches, ~260 KB of results a worker: a pipe holds 64
    monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 0)
    log = tmp_path / "all.log"
    _logging(monkeypatch, log)
    with analysed_chunks(chunks, _provider(docs), workers=2) as stream:
        batches = iter(stream)
        first = next(batches)
        assert _analysed(log, len(chunks), 60) == len(chunks)
        rest = list(batches)
    assert [b[0].id for b in [first, *rest]] == [c[0].id for c in chunks]
    monkeypatch.setattr(analyze_workers, "AHEAD_CHARS", 0)  # two batches a worker, no more
    log = tmp_path / "ahead.log"
    _logging(monkeypatch, log)
    with analysed_chunks(chunks, _provider(docs), workers=2) as stream:
        batches = iter(stream)
        next(batches)
        assert _analysed(log, len(chunks), 2) <= 2 * 2
        assert len(list(batches)) == len(chunks) - 1


def test_a_build_with_forked_workers_writes_the_same_wiki_and_index(
    tmp_path: Path, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store(f"lmdb://{tmp_path / 'serial'}?sync=false") as s1:
        serial = s1.create_kb("kb")
        Compiler(serial, options=CompileOptions(batch=9, workers=1)).build(hotpot_slice)
        forks: list[int] = []
        real = AnalysisStream._start

        def counting(self: AnalysisStream) -> None:
            forks.append(self.forked)
            real(self)

        monkeypatch.setattr(AnalysisStream, "_start", counting)
        monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 0)
        monkeypatch.setattr(analyze_workers, "_cpus", lambda: 4)
        with open_store(f"lmdb://{tmp_path / 'forked'}?sync=false") as s2:
            forked = s2.create_kb("kb")
            Compiler(forked, options=CompileOptions(batch=9, workers=3)).build(hotpot_slice)
            assert forks == [3]
            assert snapshot(forked) == snapshot(serial)
            assert _index(forked) == _index(serial)


def test_a_build_killed_while_workers_analyse_ends_them_and_resumes(
    tmp_path: Path, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 0)
    with open_store(f"lmdb://{tmp_path / 'clean'}?sync=false") as s1:
        clean = s1.create_kb("kb")
        Compiler(clean, options=CompileOptions(workers=1)).build(hotpot_slice)
        with open_store(f"lmdb://{tmp_path / 'crash'}?sync=false") as s2:
            kb = s2.create_kb("kb")
            with pytest.raises(SimulatedCrash):
                Compiler(kb, options=CompileOptions(batch=20, fail_after_writes=90)).build(
                    hotpot_slice
                )
            assert mp.active_children() == []
            report = Compiler(kb).build(hotpot_slice)
            assert report.resumed
            assert snapshot(kb) == snapshot(clean)
            assert _index(kb) == _index(clean)


def test_a_worker_that_dies_stops_the_stream_with_an_error(
    hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(hotpot_slice)
    chunks = _chunks(docs, 10)
    real = analyze_workers.analyze_documents

    def dying(chunk: Sequence[Document], *args: object) -> list[DocAnalysis]:
        if chunk[0].id == chunks[3][0].id:
            os._exit(3)  # killed mid-batch (the OOM killer, a kill -9)
        return real(chunk, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(analyze_workers, "analyze_documents", dying)
    monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 0)
    monkeypatch.setattr(analyze_workers, "_cpus", lambda: 4)
    got: list[list[DocAnalysis]] = []

    def read_all() -> None:
        with analysed_chunks(chunks, _provider(docs), workers=3) as stream:
            for batch in stream:
                got.append(batch)  # noqa: PERF402 - one at a time: the error comes mid-way

    with pytest.raises(AnalysisWorkerFailed, match="code 3"):
        read_all()
    assert len(got) == 3  # the batches before the lost one were handed back
    assert mp.active_children() == []


def test_an_error_in_a_worker_is_raised_as_itself(
    hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(hotpot_slice)

    def failing(chunk: Sequence[Document], *args: object) -> list[DocAnalysis]:
        raise CorpusError(f"cannot analyse {chunk[0].id}")

    monkeypatch.setattr(analyze_workers, "analyze_documents", failing)
    monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 0)

    def read_all() -> None:
        with analysed_chunks(_chunks(docs, 10), _provider(docs), workers=2) as stream:
            list(stream)

    with pytest.raises(CorpusError, match=f"cannot analyse {docs[0].id}"):
        read_all()
    assert mp.active_children() == []


def test_what_stays_in_this_process(hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(hotpot_slice)
    chunks = _chunks(docs, 10)
    provider = ExtractiveProvider()
    monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 0)
    assert worker_count(chunks, provider, 2) == 2
    monkeypatch.setattr(analyze_workers, "_cpus", lambda: 1)
    assert worker_count(chunks, provider, 2) == 0  # one CPU
    monkeypatch.setattr(analyze_workers, "_cpus", lambda: 2)
    assert worker_count(chunks, provider, 1) == 0  # workers=1: serial
    assert worker_count(chunks[:1], provider, 2) == 0  # one batch: nothing to overlap
    zh = Document("zh1", "狂人日记", "今天晚上，很好的月光。", "f", lang="zh")
    assert worker_count([*chunks, [zh]], provider, 2) == 0  # jieba has its own pool
    llm = object.__new__(LLMCompileProvider)  # searches the kb between batches
    assert worker_count(chunks, llm, 2) == 0
    monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 10**9)
    assert worker_count(chunks, provider, 2) == 0  # too little text to pay for a fork


def test_serially_each_batch_is_preceded_by_its_hook(hotpot_slice: Path) -> None:
    docs = _docs(hotpot_slice)
    chunks = _chunks(docs, 50)
    seen: list[str] = []
    provider = ExtractiveProvider()
    with analysed_chunks(chunks, provider, 1, before=lambda c: seen.append(c[0].id)) as stream:
        for batch in stream:
            seen.append("got " + batch[0].id)
    assert seen == [x for c in chunks for x in (c[0].id, "got " + c[0].id)]


def test_ctrl_c_in_a_worker_is_left_to_this_process(
    hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C reaches every process of the group: a worker ignores it (no traceback per
    worker, no lost batch); this process's KeyboardInterrupt ends the workers."""
    docs = _docs(hotpot_slice)
    chunks = _chunks(docs, 10)
    monkeypatch.setattr(analyze_workers, "PARALLEL_MIN_CHARS", 0)
    with analysed_chunks(chunks, _provider(docs), workers=2) as stream:
        batches = iter(stream)
        first = next(batches)
        for proc in stream._procs:
            os.kill(proc.pid, signal.SIGINT)
        rest = list(batches)
    assert len([first, *rest]) == len(chunks)


_ORPHAN = """
import sys, time
from pathlib import Path
from wikikv.compile import analyze_workers
from wikikv.compile.analyze_workers import analysed_chunks
from wikikv.compile.ingest import read_corpus
from wikikv.llm.extractive import ExtractiveProvider

def slow(chunk, *args):
    time.sleep(60)

analyze_workers.analyze_documents = slow
analyze_workers.PARALLEL_MIN_CHARS = 0
docs = read_corpus(Path(sys.argv[1])).documents
with analysed_chunks([docs[:5], docs[5:10]], ExtractiveProvider(), 2) as stream:
    stream._start()
    stream._tasks[0].send(0)  # each worker busy with a batch when this process is killed
    stream._tasks[1].send(1)
    print(" ".join(str(p.pid) for p in stream._procs), flush=True)
    time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_die_with_a_build_killed_outright(tmp_path: Path, hotpot_slice: Path) -> None:
    """A build killed with SIGKILL (no cleanup runs) leaves no worker analysing for nobody."""
    script = tmp_path / "orphan.py"
    script.write_text(_ORPHAN)
    with subprocess.Popen(
        [sys.executable, str(script), str(hotpot_slice)], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2
        assert all(_alive(p) for p in pids)
        proc.kill()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)
