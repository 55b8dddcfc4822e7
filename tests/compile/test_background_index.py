"""A first build writes its index runs in a forked worker (``wikikv.search.staging``) while it
renders on: the wiki and the index are the serial build's, a batch is recorded as done only once
its run is, and a build killed with a run in flight ends the worker and resumes to the same
wiki."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from tests.compile.test_streaming import _index
from wikikv.bench.compile import snapshot
from wikikv.compile import pipeline
from wikikv.compile.model import article_path
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.compile.state import load_docs, load_pages, load_progress
from wikikv.errors import SimulatedCrash
from wikikv.search import index as ix
from wikikv.search import staging
from wikikv.search.analysis import _doc_dec
from wikikv.search.index import IndexKeys
from wikikv.store.backends.base import prefix_end
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import open_store


def _paths_in_recorded_runs(kb: KnowledgeBase) -> set[str]:
    ik = IndexKeys(kb.name)
    recorded = {
        key[len(ik.runs) :]
        for key, _ in kb.backend.scan(ik.runs, prefix_end(ik.runs))
        if len(key) == len(ik.runs) + ix.RUN_SEQ_BYTES
    }
    return {
        _doc_dec.decode(item.value).path
        for key, item in kb.backend.scan(ik.run_entries, prefix_end(ik.run_entries))
        if key[-ix.RUN_SEQ_BYTES :] in recorded
    }


def _serial_build(tmp_path: Path, corpus: Path) -> tuple[object, object]:
    """The wiki and index a build with no worker writes."""
    with open_store(f"lmdb://{tmp_path / 'serial'}?sync=false") as store:
        kb = store.create_kb("kb")
        report = Compiler(kb, options=CompileOptions(workers=1)).build(corpus)
        assert not any(k.endswith("_index_cpu") for k in report.timings)  # no worker
        return snapshot(kb), _index(kb)


@pytest.fixture
def background(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every phase of a small build in the background, in small runs; the workers started."""
    monkeypatch.setattr(pipeline, "can_fork", lambda: True)
    monkeypatch.setattr(pipeline, "BACKGROUND_FLUSH_CHARS", 30_000)
    monkeypatch.setattr(pipeline, "INDEX_FLUSH_CHARS", 30_000)
    monkeypatch.setattr(pipeline, "BACKGROUND_MIN_BYTES", 30_000)
    started: list[int] = []
    real = staging.Stager.__init__

    def counting(self: staging.Stager) -> None:
        real(self)
        started.append(self.pid)

    monkeypatch.setattr(staging.Stager, "__init__", counting)
    return started


def test_a_build_with_a_background_index_writes_the_serial_wiki_and_index(
    tmp_path: Path, hotpot_slice: Path, background: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    serial = _serial_build(tmp_path, hotpot_slice)
    assert background == []  # one worker allowed: none forked
    runs: list[int] = []
    real = ix._commit_run

    def counting(*args: object) -> int:
        runs.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(ix, "_commit_run", counting)
    with open_store(f"lmdb://{tmp_path / 'background'}?sync=false") as s2:
        kb = s2.create_kb("kb")
        report = Compiler(kb, options=CompileOptions(workers=2)).build(hotpot_slice)
        assert len(background) == 1  # one worker, forked before the corpus was read
        assert len(runs) > 4  # the small runs the fixture asks for
        # the worker's CPU is reported by phase (a live process: not in the phases' own CPU)
        worker_cpu = {k: v for k, v in report.timings.items() if k.endswith("_index_cpu")}
        assert {"analyse_index_cpu", "render_index_cpu"} <= set(worker_cpu)
        assert sum(worker_cpu.values()) > 0
        assert mp.active_children() == []
        assert (snapshot(kb), _index(kb)) == serial


def test_a_build_killed_with_a_run_in_flight_resumes_to_the_same_wiki(
    tmp_path: Path, hotpot_slice: Path, background: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = _serial_build(tmp_path, hotpot_slice)
    real = ix._commit_run
    recorded: list[int] = []

    def killed_at_the_third(kb: object, *args: object) -> int:
        if len(recorded) == 2:
            raise SimulatedCrash("killed with a run in flight")
        recorded.append(1)
        return real(kb, *args)  # type: ignore[arg-type]

    with open_store(f"lmdb://{tmp_path / 'crash'}?sync=false") as s2:
        kb = s2.create_kb("kb")
        monkeypatch.setattr(ix, "_commit_run", killed_at_the_third)
        with pytest.raises(SimulatedCrash):
            Compiler(kb, options=CompileOptions(workers=2)).build(hotpot_slice)
        assert mp.active_children() == []  # the worker was ended, not left analysing
        # what is recorded as done is searchable once the runs merge: in a recorded run
        indexed = _paths_in_recorded_runs(kb)
        docs, pages = load_docs(kb), load_pages(kb).sigs
        assert docs
        assert pages.keys() - {article_path(d) for d in docs}  # phase B had begun
        assert {article_path(d) for d in docs} <= indexed
        assert pages.keys() <= indexed
        assert load_progress(kb).state != "done"
        monkeypatch.setattr(ix, "_commit_run", real)
        report = Compiler(kb, options=CompileOptions(workers=2)).build(hotpot_slice)
        assert report.resumed
        assert (snapshot(kb), _index(kb)) == clean


def test_a_background_writer_flushes_as_many_characters_as_the_corpus_has_bytes(
    tmp_path: Path,
) -> None:
    """At least BACKGROUND_FLUSH_CHARS (a small build's last run stays short), at most
    INDEX_FLUSH_CHARS (every run adds a part to the merge of each common word's block)."""
    sizes = {
        1_000: pipeline.BACKGROUND_FLUSH_CHARS,
        8 << 20: 8 << 20,
        1 << 30: pipeline.INDEX_FLUSH_CHARS,
    }
    with open_store(f"lmdb://{tmp_path / 's'}?sync=false") as store:
        compiler = Compiler(store.create_kb("kb"), options=CompileOptions(workers=2))
        for size, want in sizes.items():
            compiler._stager, compiler._corpus_bytes = staging.Stager(), size
            try:
                indexer = compiler._indexer()
                assert indexer is not None
                assert indexer.writer.background
                assert indexer.flush_chars == want
                indexer.close()
            finally:
                compiler._stager.close()
        compiler._stager = None
        serial = compiler._indexer()  # no worker: the serial flush size
        assert serial is not None
        assert serial.flush_chars == pipeline.INDEX_FLUSH_CHARS
