"""Stored analyses are read back in chunks: every one of them, whatever the chunk boundaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.compile import state
from wikikv.compile.model import DocAnalysis
from wikikv.store.store import open_store


@pytest.mark.parametrize("n", [0, 1, 5, 6, 7])
def test_load_docs_reads_every_analysis_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    monkeypatch.setattr(state, "LOAD_CHUNK", 3)
    with open_store(f"lmdb://{tmp_path / 's'}?sync=false") as store:
        kb = store.create_kb("kb")
        docs = [DocAnalysis(f"d{i}", f"Title {i}", "en", f"fp{i}") for i in range(n)]
        state.write(kb, state.doc_ops(kb, docs))
        assert state.load_docs(kb) == {d.id: d for d in docs}
