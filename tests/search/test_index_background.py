"""A background writer hands each staged run to a forked worker (wikikv.search.staging) and
writes the run's records when it collects it: the index equals the serial writer's, a flush's
``then`` runs only once its run is recorded, in order, and a worker that fails or dies stops the
writer with the error and leaves no run that counts."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest

from wikikv.errors import BackendError, IndexWorkerFailed
from wikikv.search import index as ix
from wikikv.search import spill
from wikikv.search.index import IndexKeys, IndexWriter
from wikikv.search.staging import Stager
from wikikv.search.tokenize import _RUN_MEMO
from wikikv.store.backends.base import prefix_end
from wikikv.store.kb import KnowledgeBase

from .test_index_staged import FIRST, SECOND, THIRD, _page, _run_files, _same_index, _stage

# Chinese text: the runs' segmentations go to the worker and come back as memo keys.
CJK = [_page(f"/z/c{i}", f"鲁迅的小说集《呐喊》第{i}篇 common") for i in range(4)] + [
    _page("/z/%E5%91%90%E5%96%8A%E9%9B%86", "an escaped name: its segment decodes to CJK")
]


@pytest.fixture(autouse=True)
def _fork_here(monkeypatch: pytest.MonkeyPatch) -> None:
    # a one-CPU machine would make every writer serial: the worker is what is tested here
    monkeypatch.setattr(ix, "can_fork", lambda: True)


def _runs_recorded(kb: KnowledgeBase) -> int:
    runs = IndexKeys(kb.name).runs
    return sum(
        1
        for key, _ in kb.backend.scan(runs, prefix_end(runs))
        if len(key) == len(runs) + ix.RUN_SEQ_BYTES
    )


def _flush_and_drain(writer: IndexWriter) -> None:
    writer.flush()
    writer.drain()


def test_background_runs_build_the_index_the_serial_writer_builds(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    serial, kb = make_kb("serial"), make_kb("background")
    batches = [FIRST, CJK, SECOND, THIRD]
    writer = IndexWriter(serial, staged=True)
    _stage(writer, batches)
    writer.finish()
    _RUN_MEMO.clear()  # the segmentations stored with the runs come from the worker
    writer = IndexWriter(kb, staged=True, background=True)
    assert writer.background
    _stage(writer, batches)
    writer.finish()
    assert not writer.background  # finish() ended the worker
    _same_index(kb, serial)
    assert _run_files(kb) == []


def test_then_runs_once_its_run_is_recorded_and_in_order(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    kb = make_kb("then")
    calls: list[tuple[str, int]] = []
    writer = IndexWriter(kb, staged=True, background=True)
    for name, batch in (("first", FIRST), ("second", SECOND)):
        writer.add_all(batch)
        writer.flush(then=lambda name=name: calls.append((name, _runs_recorded(kb))))
    # the second run is still in flight: the first was recorded when it was submitted
    assert calls == [("first", 1)]
    writer.drain()
    assert calls == [("first", 1), ("second", 2)]
    writer.finish()


def test_a_serial_flush_first_writes_the_run_in_flight(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    """A removal cannot be staged: the flush writes in place, after the run before it."""
    plain, kb = make_kb("plain"), make_kb("mixed")
    for batch in (FIRST, SECOND):
        with IndexWriter(plain) as w:
            w.add_all(batch)
    with IndexWriter(plain) as w:
        w.remove(FIRST[0].path)
    calls: list[str] = []
    writer = IndexWriter(kb, staged=True, background=True)
    writer.add_all(FIRST)
    writer.flush(then=lambda: calls.append("run"))
    writer.add_all(SECOND)
    writer.remove(FIRST[0].path)
    writer.flush(then=lambda: calls.append("in place"))
    assert calls == ["run", "in place"]
    writer.finish()
    _same_index(kb, plain)


def test_an_error_in_the_worker_is_raised_as_itself(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = make_kb("error")
    writer = IndexWriter(kb, staged=True, background=True)
    blocked = spill.run_dir(kb.backend, kb.name) / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setattr(ix.spill, "run_dir", lambda backend, name: blocked)
    writer.add_all(FIRST)
    writer.flush()
    with pytest.raises(BackendError, match="Not a directory"):
        writer.drain()
    writer.close()
    assert _runs_recorded(kb) == 0


def test_a_worker_killed_outright_stops_the_writer_and_no_run_counts(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    plain, kb = make_kb("plain"), make_kb("killed")
    with IndexWriter(plain) as w:
        w.add_all(FIRST)
    writer = IndexWriter(kb, staged=True, background=True)
    assert writer._stager is not None
    os.kill(writer._stager.pid, signal.SIGKILL)
    writer.add_all(FIRST)
    with pytest.raises(IndexWorkerFailed, match="exited with code -9"):
        _flush_and_drain(writer)  # refused at once, or collected as the worker's death
    writer.close()
    assert _runs_recorded(kb) == 0
    resumed = IndexWriter(kb, staged=True, background=True)  # the build run again
    _stage(resumed, [FIRST])
    resumed.finish()
    _same_index(kb, plain)


def test_close_ends_the_worker_and_drops_the_run_in_flight(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    kb = make_kb("closed")
    writer = IndexWriter(kb, staged=True, background=True)
    assert writer._stager is not None
    pid = writer._stager.pid
    writer.add_all(FIRST)
    called: list[int] = []
    writer.flush(then=lambda: called.append(1))
    writer.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, and reaped
    assert called == []
    assert _runs_recorded(kb) == 0


def test_no_worker_for_an_index_that_is_not_empty(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    """Only a first build stages: an update of an index writes in place, with no worker."""
    kb = make_kb("updated")
    with IndexWriter(kb) as w:
        w.add_all(FIRST)
    writer = IndexWriter(kb, staged=True, background=True)
    assert not writer.background


def test_a_borrowed_worker_outlives_the_writers_that_use_it(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    """A build forks one worker early and lends it to each phase's writer: a writer's finish
    leaves it running for the next; a writer dropped with a run in flight ends it."""
    serial, kb = make_kb("serial"), make_kb("borrowed")
    with IndexWriter(serial) as w:
        for batch in (FIRST, SECOND):
            w.add_all(batch)
    stager = Stager()
    try:
        first = IndexWriter(kb, staged=True, background=stager)
        _stage(first, [FIRST])
        first.drain()
        first.close()
        assert not stager.closed
        second = IndexWriter(kb, staged=True, background=stager)
        assert second.background
        _stage(second, [SECOND])
        second.finish()
        assert not stager.closed
        _same_index(kb, serial)
        third = IndexWriter(make_kb("dropped"), staged=True, background=stager)
        third.add_all(FIRST)
        third.flush()
        third.close()  # the run in flight is dropped, and the worker holding it with it
        assert stager.closed
        assert not IndexWriter(make_kb("after"), staged=True, background=stager).background
    finally:
        stager.close()
