"""Builds that meet bad input: oversized documents, errors that must surface as themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikikv.bench.compile import snapshot
from wikikv.compile.check import check
from wikikv.compile.ingest import read_corpus
from wikikv.compile.model import article_path
from wikikv.compile.page_writer import PageWriter
from wikikv.compile.pipeline import Compiler
from wikikv.config import StoreSettings
from wikikv.errors import RecordTooLarge
from wikikv.search.index import clear_index
from wikikv.store.bulk import BulkWriter
from wikikv.store.records import FileMeta, FileRecord
from wikikv.store.store import Store, open_store

BIG = "Lisbon river city. " * 320_000  # 6.1 MB: under ingest's 8 MiB, over the 4 MiB record cap
SMALL = "Porto is a city on the Douro river in Portugal. It is known for port wine.\n"


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
            with PageWriter(kb, "build", None) as writer:
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


# ------------------------------------------------------------------ encodings
GERMAN = "Herr Müller wohnt in der Großstraße 5 in Köln. Er liest gern Bücher über Äpfel …\n"
CHINESE = "我家的后园有一株枣树，还有一株也是枣树。这上面的夜的天空，奇怪而高，我生平没有见过。\n"


def test_cp1252_is_decoded_as_such_and_reported(tmp_path: Path) -> None:
    """GB18030 decodes these bytes too — as garbled Chinese. The detector must not."""
    (tmp_path / "mueller.md").write_bytes(GERMAN.encode("cp1252"))
    (tmp_path / "short.txt").write_bytes("Herr Müller … Großstraße".encode("cp1252"))
    result = read_corpus(tmp_path)
    assert not result.issues
    texts = {d.id: d.text for d in result.documents}
    assert "Müller" in texts["mueller"]
    assert "Großstraße" in texts["mueller"]
    assert texts["short"] == "Herr Müller … Großstraße"
    assert all(d.lang == "en" for d in result.documents)
    guessed = {Path(g.source).name: g.reason for g in result.encodings}
    assert guessed["mueller.md"].startswith("decoded as cp1252 (confidence ")
    assert guessed["short.txt"].startswith("decoded as cp1252")


def test_gb18030_chinese_still_decodes(tmp_path: Path) -> None:
    (tmp_path / "zaoshu.md").write_bytes(CHINESE.encode("gb18030"))
    (tmp_path / "utf8.md").write_text(CHINESE, encoding="utf-8")
    result = read_corpus(tmp_path)
    texts = {d.id: d.text for d in result.documents}
    assert texts["zaoshu"] == texts["utf8"] == CHINESE.strip()
    assert [Path(g.source).name for g in result.encodings] == ["zaoshu.md"]  # UTF-8 is no guess
    assert "gb18030" in result.encodings[0].reason


def test_an_encoding_that_cannot_be_told_is_refused_and_reported(tmp_path: Path) -> None:
    (tmp_path / "noise.md").write_bytes(bytes(range(128, 256)) * 4)
    (tmp_path / "ok.md").write_text(SMALL, encoding="utf-8")
    result = read_corpus(tmp_path)
    assert [d.id for d in result.documents] == ["ok"]
    [issue] = result.issues
    assert "cannot tell the text encoding" in issue.reason


def test_the_build_report_says_what_was_guessed(store: Store, tmp_path: Path) -> None:
    (tmp_path / "mueller.md").write_bytes(GERMAN.encode("cp1252"))
    (tmp_path / "porto.md").write_text(SMALL, encoding="utf-8")
    report = Compiler(store.create_kb("wiki")).build(tmp_path)
    assert [Path(e["source"]).name for e in report.to_dict()["encodings"]] == ["mueller.md"]
    assert report.analyzed == 2


# ------------------------------------------------------------ hand deletions, check
def test_rebuild_restores_pages_deleted_by_hand(store: Store, small_en: Path) -> None:
    kb = store.create_kb("wiki")
    Compiler(kb).build(small_en)
    before = snapshot(kb)
    entity = next(p for p in before if p.startswith("/") and not p.startswith("/sources"))
    kb.delete("/sources", recursive=True)  # what `wikikv rm -r /sources` does
    if kb.get(entity) is not None and entity != "/":
        kb.delete(entity, recursive=True)
    assert check(kb).broken_links > 0
    report = Compiler(kb).build(small_en)
    assert report.restored > 0
    assert report.analyzed > 0  # the deleted articles were written again
    assert snapshot(kb) == before
    restored = check(kb)
    assert restored.broken_links == 0
    assert restored.ok
    again = Compiler(kb).build(small_en)  # and the next build has nothing to restore
    assert again.restored == 0
    assert again.analyzed == 0


def test_check_fails_when_the_search_index_does_not_cover_the_pages(
    store: Store, small_en: Path
) -> None:
    kb = store.create_kb("wiki")
    Compiler(kb).build(small_en)
    assert check(kb).ok
    clear_index(kb)
    report = check(kb)
    assert report.index_coverage == 0.0
    assert not report.ok
