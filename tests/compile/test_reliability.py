"""Builds that meet bad input: oversized documents, errors that must surface as themselves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from wikikv.compile.model import article_path
from wikikv.compile.pipeline import Compiler, _Writer
from wikikv.config import StoreSettings
from wikikv.errors import RecordTooLarge
from wikikv.store.bulk import BulkWriter
from wikikv.store.records import FileMeta, FileRecord
from wikikv.store.store import Store, open_store

BIG = "Lisbon river city. " * 320_000  # 6.1 MB: under ingest's 8 MiB, over the 4 MiB record cap
SMALL = "Porto is a city on the Douro river in Portugal. It is known for port wine.\n"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(f"lmdb://{tmp_path / 'store'}?sync=false")
    yield s
    s.close()


def test_oversized_file_is_reported_and_skipped_not_fatal(store: Store, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "lisbon.md").write_text(BIG, encoding="utf-8")
    (corpus / "porto.md").write_text(SMALL, encoding="utf-8")
    kb = store.create_kb("wiki")
    report = Compiler(kb).build(corpus)
    assert report.analyzed == 1
    assert isinstance(kb.get(article_path("porto")), FileRecord)
    assert kb.get(article_path("lisbon")) is None
    [issue] = [i for i in report.issues if "lisbon" in i.source]
    assert issue.reason.startswith("oversized")
    assert "skipped" in issue.reason
    # A rerun does the same (nothing half-written blocks it).
    again = Compiler(kb).build(corpus)
    assert [i.reason for i in again.issues] == [issue.reason]


def test_oversized_jsonl_record_is_reported_and_skipped(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    rows = [{"id": "big", "title": "Lisbon", "text": BIG}, {"id": "porto", "text": SMALL}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    kb = store.create_kb("wiki")
    report = Compiler(kb).build(path)
    assert report.analyzed == 1
    assert [i.reason.split(":")[0] for i in report.issues] == ["oversized"]
    assert isinstance(kb.get(article_path("porto")), FileRecord)


def test_a_build_error_surfaces_as_itself(tmp_path: Path) -> None:
    """A record the store refuses ends the build with the store's own error (it used to end in
    a TypeError from the writer's exit, hiding it)."""
    settings = StoreSettings(max_record_bytes=100_000)
    store = open_store(f"lmdb://{tmp_path / 'store'}?sync=false", settings)
    try:
        kb = store.create_kb("wiki")

        def build_step() -> None:
            with _Writer(kb, "build", None) as writer:
                writer.put("/too/big", "x" * 200_000, FileMeta())
                writer.flush()  # raises inside the block, as a build's batch flush does

        with pytest.raises(RecordTooLarge):
            build_step()
        assert kb.get("/too/big") is None
        assert store.kb("wiki").lease("next").release() is None  # the lease was released
    finally:
        store.close()


def test_the_writer_passes_an_error_raised_inside_it(store: Store) -> None:
    kb = store.create_kb("wiki")

    def failing_job() -> None:
        with BulkWriter(kb) as bw:
            bw.put_file("/a", "text")
            raise RecordTooLarge("demo", 2, 1)

    with pytest.raises(RecordTooLarge, match="demo"):
        failing_job()
    assert kb.get("/a") is None  # buffered, never flushed
