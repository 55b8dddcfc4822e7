"""An add rebuilds a listing from its rows as written: a member it does not render keeps its
line, read from the listing record (not from the member's page); a listing that is not the
text recorded when it was written keeps no line (the tests in test_persisted_model.py compare
adds with a full build, page for page)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from wikikv.compile import local_render
from wikikv.compile import pages as pg
from wikikv.compile.model import member_paths
from wikikv.compile.persisted import Member
from wikikv.compile.pipeline import Compiler
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord
from wikikv.store.store import Store, open_store

_DIR = "/people"


def _listing(members: dict[str, Member]) -> tuple[list[tuple[str, str, Member]], str]:
    keys = sorted(members)
    paths = member_paths(_DIR, [members[k].name for k in keys])
    rows = [(k, p, members[k]) for k, p in zip(keys, paths, strict=True)]
    lines = [pg.row_line(p, m.name, "", f"about {m.name}") for _, p, m in rows]
    return rows, pg.listing_of_lines("people", "who", lines, "en")


def _kept(
    before: dict[str, Member],
    now: dict[str, Member],
    text: str,
    rendered: frozenset[str] = frozenset(),
) -> dict[str, str]:
    up: Any = SimpleNamespace(members_before={_DIR: before})
    want: Any = SimpleNamespace(entity_at=dict.fromkeys(rendered))
    rows, _ = _listing(now)
    out = local_render._kept_lines(up, {_DIR: now}, {_DIR: rows}, {_DIR: text}, want)
    return out.get(_DIR, {})


def test_members_keep_their_lines_unless_rendered_renamed_or_new() -> None:
    before = {f"k{i}": Member(f"Name {i}", 10 - i, False) for i in range(5)}
    rows, text = _listing(before)
    kept = _kept(before, before, text)
    assert kept == {k: pg.row_line(p, m.name, "", f"about {m.name}") for k, p, m in rows}
    # one rendered here, one renamed, one new: the others keep theirs
    now = {**before, "k1": Member("Other", 9, False), "k9": Member("New", 1, False)}
    kept = _kept(before, now, text, rendered=frozenset({rows[2][1]}))
    assert sorted(kept) == ["k0", "k3", "k4"]
    assert kept["k3"] == text.splitlines()[-2]


def test_a_listing_that_does_not_read_back_keeps_no_line() -> None:
    before = {f"k{i}": Member(f"Name {i}", 10 - i, False) for i in range(5)}
    _, text = _listing(before)
    lines = text.splitlines()
    dropped = "\n".join(lines[:-2] + lines[-1:]) + "\n"  # a row missing
    assert _kept(before, before, dropped) == {}
    swapped = "\n".join(lines[:-2] + [lines[-1], lines[-2]]) + "\n"  # rows out of key order
    assert _kept(before, before, swapped) == {}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(f"lmdb://{tmp_path / 'store'}?sync=false")


def _listings(kb: KnowledgeBase) -> dict[str, str]:
    out: dict[str, str] = {}
    todo = ["/"]
    while todo:
        d = todo.pop()
        rec = kb.get(d)
        assert isinstance(rec, DirRecord)
        out[d] = rec.text
        todo += [f"{d.rstrip('/')}/{s}" for s in rec.sub_dirs if not d.startswith("/sources")]
    return out


def test_an_add_reads_rows_from_listings_and_not_from_an_edited_one(
    store: Store, tmp_path: Path, hotpot_slice: Path
) -> None:
    lines = [x for x in hotpot_slice.read_text(encoding="utf-8").splitlines() if x]
    picks = (3, 77, 149)
    rest = tmp_path / "rest.jsonl"
    rest.write_text("\n".join(x for i, x in enumerate(lines) if i not in picks) + "\n")
    added = tmp_path / "added.jsonl"
    added.write_text("\n".join(lines[i] for i in picks) + "\n")

    # as written: the add takes the rows of the members it does not render from the listings
    kb = store.create_kb("kb")
    Compiler(kb).build(rest)
    report = Compiler(kb).add(added)
    assert report.model_reads, report.model_fallback
    assert report.model_reads.get("listing rows kept (render)", 0) > 20, report.model_reads

    # every listing's text changed behind the build's back (its rows' summaries): none is
    # trusted, each row the add lists comes from its member's page, as the build wrote it
    edited = store.create_kb("edited")
    Compiler(edited).build(rest)
    before = _listings(edited)
    for d, text in before.items():
        if " — " in text:
            edited.set_dir_text(d, text.replace(" — ", " — EDITED "))
    report = Compiler(edited).add(added)
    assert report.model_reads.get("listing rows kept (render)", 0) == 0, report.model_reads
    after = _listings(edited)
    rebuilt = [d for d, text in after.items() if text != before[d].replace(" — ", " — EDITED ")]
    assert rebuilt
    as_added = _listings(kb)
    for d in rebuilt:
        if d == "/":  # the root names its kb
            continue
        assert "EDITED" not in after[d], d
        assert after[d] == as_added[d], d
