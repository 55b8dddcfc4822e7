"""The build reaches the quality gate only through the hooks it is handed
(``CompileOptions.quality``): a bare compiler writes pages unchecked, the gated one lints them as
it renders, and ``wikikv build`` hands the gate in."""

from __future__ import annotations

from pathlib import Path

from tests.compile.conftest import SMALL_EN
from wikikv.compile.pipeline import Compiler
from wikikv.quality.hooks import gated
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.store.store import Store, open_store

from .conftest import CONFLICTING, write_corpus
from .test_errorbook_io import _cli


def _statuses(kb: KnowledgeBase) -> dict[str, str]:
    out = {}
    for p in kb.prefix("/"):
        rec = kb.get(p)
        if isinstance(rec, FileRecord) and rec.meta.kind == "entity":
            out[p] = rec.meta.lint_status
    return out


def test_a_bare_build_writes_unchecked_pages_and_a_gated_one_lints_them(
    store: Store, tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "small.jsonl", SMALL_EN)
    bare = store.create_kb("bare")
    Compiler(bare).build(corpus)
    assert set(_statuses(bare).values()) == {"unchecked"}
    checked = store.create_kb("checked")
    Compiler(checked, options=gated()).build(corpus)
    assert set(_statuses(checked).values()) == {"passed"}
    assert _statuses(checked).keys() == _statuses(bare).keys()  # the same wiki otherwise


def test_cli_build_hands_the_gate_in(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    corpus = write_corpus(tmp_path / "c.jsonl", CONFLICTING)
    code, out = _cli(store_dir, "build", "--kb", "w", str(corpus), "--json")
    assert code == 0, out
    with open_store(f"lmdb://{store_dir}") as s:
        statuses = _statuses(s.kb("w"))
    assert sorted(statuses.values()).count("failed") == 1  # Lu Xun's page: two birth years (E3)
    assert "unchecked" not in statuses.values()
