"""A first build stages its index flushes as runs and merges them once (every posting block
written once, instead of rewritten by every flush that touches it). The merged index equals the
one plain flushes write; a run killed before its completion record is dropped; a page indexed
again by a later run keeps only its last postings; a merge killed half-way is done again; and
any later write merges the runs a killed build left before its own."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from wikikv.errors import SimulatedCrash
from wikikv.search import index as ix
from wikikv.search import spill
from wikikv.search.analysis import _enc
from wikikv.search.index import IndexKeys, IndexWriter, index_page, read_stats
from wikikv.store.backends.base import Delete, Op, Put, prefix_end
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta, FileRecord

from .test_index import _raw_index


def _page(path: str, text: str) -> FileRecord:
    return FileRecord(name=path.rsplit("/", 1)[1], path=path, text=text, meta=FileMeta())


FIRST = [_page(f"/a/p{i}", f"alpha common word{i} shared{i % 3}") for i in range(12)]
SECOND = [_page(f"/b/q{i}", f"alpha common other{i} shared{i % 4}") for i in range(12)]
THIRD = [_page(f"/c/r{i}", f"beta common third{i}") for i in range(5)]


def _plain(kb: KnowledgeBase, batches: list[list[FileRecord]]) -> None:
    for batch in batches:
        with IndexWriter(kb) as writer:
            writer.add_all(batch)


def _stage(writer: IndexWriter, batches: list[list[FileRecord]]) -> None:
    for batch in batches:
        writer.add_all(batch)
        writer.flush()


def _staged_keys(kb: KnowledgeBase) -> list[bytes]:
    ik = IndexKeys(kb.name)
    return [
        key
        for start in (ik.runs, ik.run_entries, ik.run_blocks)
        for key, _ in kb.backend.scan(start, prefix_end(start))
    ]


def _run_files(kb: KnowledgeBase) -> list[str]:
    return sorted(p.name for p in spill.run_dir(kb.backend, kb.name).iterdir())


def _same_index(kb: KnowledgeBase, reference: KnowledgeBase) -> None:
    assert _raw_index(kb) == _raw_index(reference)
    got = read_stats(kb.backend, IndexKeys(kb.name))[1]
    want = read_stats(reference.backend, IndexKeys(reference.name))[1]
    assert (got.n, got.total) == (want.n, want.total)


def test_staged_runs_merge_into_the_index_plain_flushes_write(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    plain, kb = make_kb("plain"), make_kb("staged")
    _plain(plain, [FIRST, SECOND, THIRD])
    writer = IndexWriter(kb, staged=True)
    _stage(writer, [FIRST, SECOND])
    ik = IndexKeys(kb.name)
    start, end = ik.postings_range()
    assert list(kb.backend.scan(start, end)) == []  # staged: no block written yet
    assert _staged_keys(kb)
    assert len(_run_files(kb)) == 2  # the blocks: one file per run, outside the store
    writer.add_all(THIRD)
    writer.finish()
    assert _staged_keys(kb) == []
    assert _run_files(kb) == []
    _same_index(kb, plain)


def test_a_run_killed_before_its_completion_record_is_dropped(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, kb = make_kb("plain"), make_kb("killed")
    _plain(plain, [FIRST, SECOND])
    _stage(IndexWriter(kb, staged=True), [FIRST])
    monkeypatch.setattr(ix, "BATCH_OPS", 5)  # the run spans several commits
    runs = IndexKeys(kb.name).runs
    real = kb.commit

    def crash_at_completion(ops: list[Op]) -> object:
        if any(op.key.startswith(runs) for op in ops):
            raise SimulatedCrash("killed before the run's completion record")
        return real(ops)

    monkeypatch.setattr(kb, "commit", crash_at_completion)
    with pytest.raises(SimulatedCrash):
        _stage(IndexWriter(kb, staged=True), [SECOND])
    monkeypatch.setattr(kb, "commit", real)
    assert len(_run_files(kb)) == 2  # the killed run's file, which no record counts
    writer = IndexWriter(kb, staged=True)  # the resumed build indexes the pages again
    _stage(writer, [SECOND])
    writer.finish()
    _same_index(kb, plain)
    assert _run_files(kb) == []


def test_a_page_staged_again_keeps_only_its_last_postings(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    changed = _page("/a/p1", "alpha rewritten text")
    plain, kb = make_kb("plain"), make_kb("again")
    _plain(plain, [FIRST, SECOND, [changed]])
    writer = IndexWriter(kb, staged=True)
    _stage(writer, [FIRST, SECOND, [changed]])
    writer.finish()
    _same_index(kb, plain)


# Two runs, then a page of the first indexed again (superseded), in a third.
STAGED = [FIRST, SECOND, [_page("/a/p1", "alpha rewritten text")]]


def _merge_commits(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many commits a merge of STAGED makes, with small batches."""
    _stage(IndexWriter(kb, staged=True), STAGED)
    real, seen = kb.commit, []

    def counting(ops: list[Op]) -> object:
        seen.append(len(ops))
        return real(ops)

    monkeypatch.setattr(kb, "commit", counting)
    ix.merge_staged(kb)
    monkeypatch.setattr(kb, "commit", real)
    return len(seen)


def _crash_after(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, commits: int, why: str
) -> Callable[[list[Op]], object]:
    """Make ``kb`` raise :class:`SimulatedCrash` on every commit after its first ``commits``;
    returns the real commit, to put back."""
    real, calls = kb.commit, []

    def crash(ops: list[Op]) -> object:
        calls.append(1)
        if len(calls) > commits:
            raise SimulatedCrash(why)
        return real(ops)

    monkeypatch.setattr(kb, "commit", crash)
    return real


@pytest.mark.parametrize("at", [0.0, 0.2, 0.5, 0.8, 1.0])
def test_a_merge_killed_anywhere_is_finished_by_the_next_write(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch, at: float
) -> None:
    """Killed after its plan, between blocks, between entries or before its last deletes: the
    next write (a library page write) finishes the merge, and the index is the plain one."""
    monkeypatch.setattr(ix, "BATCH_OPS", 7)
    extra = _page("/d/late", "alpha common late")
    plain, kb = make_kb("plain"), make_kb("half")
    _plain(plain, [*STAGED, [extra]])
    total = _merge_commits(make_kb("count"), monkeypatch)
    assert total > 10
    kill_at = min(total - 1, int(at * total))
    _stage(IndexWriter(kb, staged=True), STAGED)
    real = _crash_after(kb, monkeypatch, kill_at, f"merge killed at commit {kill_at} of {total}")
    with pytest.raises(SimulatedCrash):
        ix.merge_staged(kb)
    monkeypatch.setattr(kb, "commit", real)
    assert _staged_keys(kb)
    assert index_page(kb, extra)  # merges what is left first
    assert _staged_keys(kb) == []
    _same_index(kb, plain)


def test_a_later_write_merges_the_runs_a_killed_build_left(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    extra = _page("/d/late", "alpha common late")
    plain, kb = make_kb("plain"), make_kb("left")
    _plain(plain, [FIRST, SECOND, [extra]])
    _stage(IndexWriter(kb, staged=True), [FIRST, SECOND])  # killed before finish()
    with IndexWriter(kb) as writer:
        writer.add(extra)
    assert _staged_keys(kb) == []
    _same_index(kb, plain)


def test_a_writer_stages_only_into_an_index_with_no_docs(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    plain, kb = make_kb("plain"), make_kb("incremental")
    _plain(plain, [FIRST, SECOND])
    _plain(kb, [FIRST])
    writer = IndexWriter(kb, staged=True)
    _stage(writer, [SECOND])  # an incremental build: written at once, nothing staged
    assert _staged_keys(kb) == []
    _same_index(kb, plain)


def _named(path: str) -> FileRecord:
    meta = FileMeta(title="Marguerite Oswald", aliases=["Margo Oswaldine"])
    return FileRecord(name=path.rsplit("/", 1)[1], path=path, text="a page", meta=meta)


def _variant_versions(kb: KnowledgeBase) -> set[int]:
    start = IndexKeys(kb.name).variant_prefix("")[:-1]
    return {item.version for _, item in kb.backend.scan(start, prefix_end(start))}


def test_a_name_in_several_runs_has_its_neighbourhood_written_once(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    runs = [[_named(f"/{d}/n{i}") for i in range(3)] for d in "abc"]
    plain, kb = make_kb("plain"), make_kb("staged")
    _plain(plain, runs)
    writer = IndexWriter(kb, staged=True)
    _stage(writer, runs)
    writer.finish()
    _same_index(kb, plain)
    assert _variant_versions(plain) == {3}  # each plain flush writes them again
    assert _variant_versions(kb) == {1}


def test_a_plain_write_between_runs_makes_the_writer_write_the_neighbourhood_again(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    plain, kb = make_kb("plain"), make_kb("staged")
    for target, staged in ((plain, False), (kb, True)):
        writer = IndexWriter(target, staged=staged)
        writer.add(_named("/a/n0"))
        writer.flush()
        writer.remove("/a/n0")  # the name's last page: its neighbourhood is deleted
        writer.flush()
        writer.add(_named("/b/n0"))
        writer.finish()
    _same_index(kb, plain)
    assert _variant_versions(kb)  # written again after the delete


def _stored(kb: KnowledgeBase, batches: list[list[FileRecord]]) -> list[list[FileRecord]]:
    """The pages written to the kb (a lost run file is written again from them)."""
    return [[kb.put(p.path, p.text, p.meta) for p in batch] for batch in batches]


@pytest.mark.parametrize("damage", ["missing", "truncated", "another run's"])
def test_a_run_whose_file_is_lost_is_written_again_from_the_stored_pages(
    make_kb: Callable[[str], KnowledgeBase], damage: str
) -> None:
    plain, kb = make_kb("plain"), make_kb("lost")
    _plain(plain, [FIRST, SECOND])
    writer = IndexWriter(kb, staged=True)
    _stage(writer, _stored(kb, [FIRST, SECOND]))
    directory = spill.run_dir(kb.backend, kb.name)
    first, second = sorted(directory.iterdir())
    if damage == "missing":
        first.unlink()
    elif damage == "truncated":
        first.write_bytes(first.read_bytes()[:-1])
    else:
        first.write_bytes(second.read_bytes())
    writer.finish()
    _same_index(kb, plain)
    assert _staged_keys(kb) == []
    assert _run_files(kb) == []


def test_runs_an_older_build_staged_in_the_store_are_merged(
    make_kb: Callable[[str], KnowledgeBase],
) -> None:
    """A build killed before run files existed left its runs' blocks under ``I r`` and
    completion records holding stats alone: the merge writes those runs again from the pages
    and deletes their staged blocks."""
    plain, kb = make_kb("plain"), make_kb("older")
    _plain(plain, [FIRST, SECOND])
    stored = _stored(kb, [FIRST, SECOND])
    _stage(IndexWriter(kb, staged=True), stored[:1])
    ik = IndexKeys(kb.name)
    ((key, item),) = kb.backend.scan(ik.runs, prefix_end(ik.runs))
    seq = key[len(ik.runs) :]
    old_block = ik.run_block(ik.posting("alpha", 0), seq)
    kb.commit(
        [
            Put(key, _enc.encode(ix._run_record(item.value).stats)),  # the older record
            Put(old_block, b"\x00" * 28),
        ]
    )
    spill.clear(spill.run_dir(kb.backend, kb.name))
    writer = IndexWriter(kb, staged=True)
    _stage(writer, stored[1:])
    writer.finish()
    _same_index(kb, plain)
    assert _staged_keys(kb) == []
    assert kb.backend.get(old_block) is None


def test_a_merge_killed_after_its_blocks_needs_no_run_file(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the cursor marks the blocks written, a merge done again reads no run file."""
    plain, kb = make_kb("plain"), make_kb("after-blocks")
    extra = _page("/d/late", "alpha common late")
    _plain(plain, [*STAGED, [extra]])
    _stage(IndexWriter(kb, staged=True), STAGED)
    cursor = IndexKeys(kb.name).run(b"\x00")
    real = kb.commit

    def crash_after_blocks(ops: list[Op]) -> object:
        if any(isinstance(op, Delete) for op in ops):  # the first batch moving entries
            raise SimulatedCrash("merge killed after its blocks")
        return real(ops)

    monkeypatch.setattr(kb, "commit", crash_after_blocks)
    with pytest.raises(SimulatedCrash):
        ix.merge_staged(kb)
    monkeypatch.setattr(kb, "commit", real)
    assert kb.backend.get(cursor) is not None
    spill.clear(spill.run_dir(kb.backend, kb.name))  # the files are no longer needed
    assert index_page(kb, extra)
    _same_index(kb, plain)
    assert kb.backend.get(cursor) is None


def test_a_writer_does_not_write_a_neighbourhood_another_writer_stored(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build's phases each have their writer: the second finds the names' neighbourhoods
    stored (their own keys) and writes none of them again."""
    plain, kb = make_kb("plain"), make_kb("staged")
    runs = [[_named(f"/{d}/n{i}") for i in range(3)] for d in "ab"]
    _plain(plain, runs)
    _stage(IndexWriter(kb, staged=True), runs[:1])
    variants = IndexKeys(kb.name).variant_prefix("")[:-1]
    real, written = kb.commit, []

    def spy(ops: list[Op]) -> object:
        written.extend(op.key for op in ops if op.key.startswith(variants))
        return real(ops)

    monkeypatch.setattr(kb, "commit", spy)
    writer = IndexWriter(kb, staged=True)
    _stage(writer, runs[1:])
    monkeypatch.setattr(kb, "commit", real)
    writer.finish()
    assert written == []
    _same_index(kb, plain)
    assert _variant_versions(kb) == {1}


@pytest.mark.parametrize("at", [0.3, 0.6, 0.9])
def test_a_run_killed_among_its_neighbourhoods_leaves_none_half_written(
    make_kb: Callable[[str], KnowledgeBase], monkeypatch: pytest.MonkeyPatch, at: float
) -> None:
    """Each word's own key is written after the rest of its neighbourhood, so a word the next
    writer skips (its own key is stored) has every key: killed anywhere in the run's batches,
    the resumed build leaves the plain index."""
    runs = [[_named(f"/a/n{i}") for i in range(2)]]
    plain, count, kb = make_kb("plain"), make_kb("count"), make_kb("killed")
    _plain(plain, runs)
    monkeypatch.setattr(ix, "BATCH_OPS", 3)
    real_count, seen = count.commit, []

    def counting(ops: list[Op]) -> object:
        seen.append(1)
        return real_count(ops)

    monkeypatch.setattr(count, "commit", counting)
    _stage(IndexWriter(count, staged=True), runs)
    kill_at = int(at * len(seen))
    real = _crash_after(kb, monkeypatch, kill_at, f"run killed at commit {kill_at} of {len(seen)}")
    with pytest.raises(SimulatedCrash):
        _stage(IndexWriter(kb, staged=True), runs)
    monkeypatch.setattr(kb, "commit", real)
    writer = IndexWriter(kb, staged=True)
    _stage(writer, runs)
    writer.finish()
    _same_index(kb, plain)
