"""Pages written by hand through the library on a compiled wiki: the parent directory's index
text follows them (lint stays clean), and ``check`` sees their body wikilinks as lint does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import wikikv
from tests.compile.conftest import SMALL_EN
from wikikv.compile.check import check
from wikikv.compile.pipeline import Compiler
from wikikv.dirindex import row_target
from wikikv.quality import validators as v
from wikikv.quality.hooks import gated
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileMeta, FileRecord
from wikikv.store.store import Store

from .conftest import write_corpus


@pytest.fixture
def lib_store() -> Iterator[Store]:
    s = wikikv.open_store("memory://")  # the library's store: its write observers wired in
    yield s
    s.close()


@pytest.fixture
def kb(lib_store: Store, tmp_path: Path) -> KnowledgeBase:
    kb = lib_store.create_kb("hand")
    Compiler(kb, options=gated()).build(write_corpus(tmp_path / "small.jsonl", SMALL_EN))
    return kb


def _indexed_dir(kb: KnowledgeBase) -> str:
    for p in kb.prefix("/"):
        rec = kb.get(p)
        if isinstance(rec, DirRecord) and p != "/" and not p.startswith("/sources"):
            if any(row_target(ln) for ln in rec.text.split("\n")):
                return p
    raise AssertionError("the compiled wiki has no directory with an index text")


def _index_findings(kb: KnowledgeBase) -> list[v.Finding]:
    _, found = v.validate(kb, types=[v.INDEX])
    return found


def _rows(kb: KnowledgeBase, d: str) -> list[str]:
    rec = kb.get(d)
    assert isinstance(rec, DirRecord)
    return [t for t in map(row_target, rec.text.split("\n")) if t is not None]


def test_put_rm_mv_keep_the_parent_index_text_current(kb: KnowledgeBase) -> None:
    assert _index_findings(kb) == []
    d = _indexed_dir(kb)
    page = f"{d}/Hand Written"
    kb.put(page, "A page a person wrote.", FileMeta(title="Hand written", summary="by hand"))
    assert _index_findings(kb) == []
    assert page in _rows(kb, d)
    rec = kb.get(d)
    assert isinstance(rec, DirRecord)
    assert f"- [[{page}|Hand written]] — by hand" in rec.text.split("\n")
    kb.put(page, "Edited.", FileMeta(title="Hand written", summary="by hand"))
    assert _rows(kb, d).count(page) == 1  # an update adds no second row
    other = next(p for p in _rows(kb, d) if p != page)
    moved = f"{d}/Moved Here"
    kb.move(page, moved)
    assert _index_findings(kb) == []
    assert moved in _rows(kb, d)
    assert page not in _rows(kb, d)
    kb.delete(moved)
    kb.delete(other)
    assert _index_findings(kb) == []
    assert moved not in _rows(kb, d)
    assert other not in _rows(kb, d)


def test_a_directory_without_an_index_text_is_left_alone(kb: KnowledgeBase) -> None:
    kb.mkdir("/notes", "My notes.")
    kb.put("/notes/one", "First.")
    rec = kb.get("/notes")
    assert isinstance(rec, DirRecord)
    assert rec.text == "My notes."


def test_check_counts_broken_body_links_of_hand_pages(kb: KnowledgeBase) -> None:
    assert check(kb).broken_links == 0
    d = _indexed_dir(kb)
    target = next(p for p in _rows(kb, d))
    kb.put(
        "/notes/mine",
        f"See [[{target}]], [[/nowhere/Missing|a page]] and [[/nowhere/Missing]] again.",
    )
    lint_dangling = [f for f in v.validate(kb, types=[v.DANGLING])[1] if f.path == "/notes/mine"]
    assert [f.target for f in lint_dangling] == ["/nowhere/Missing"]
    report = check(kb)
    assert report.broken_links == 1
    assert report.examples["broken"] == ["/notes/mine -> /nowhere/Missing"]
    rec = kb.get("/notes/mine")
    assert isinstance(rec, FileRecord)
    assert rec.meta.kind == "page"
