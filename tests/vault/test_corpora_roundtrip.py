"""Round-trip identity on the compiled Lu Xun and HotpotQA wikis (opt-in: ``--runslow``).

Export as a vault and as JSON lines, import each into a new kb, and compare every record (with
the version and update time an import resets blanked, listings as sets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.bench.compile import CORPORA
from wikikv.compile.pipeline import Compiler
from wikikv.store.store import Store
from wikikv.vault import export_kb, import_source
from wikikv.vault.exporter import identity_view


@pytest.mark.slow
@pytest.mark.parametrize("name", ["luxun", "hotpotqa"])
def test_corpus_wiki_round_trips(name: str, data_dir: Path, store: Store, tmp_path: Path) -> None:
    kb = store.create_kb(name)
    Compiler(kb).build(data_dir / CORPORA[name])
    original = identity_view(kb)
    assert len(original) > 1000
    for fmt in ("vault", "json"):
        dest = tmp_path / fmt
        report = export_kb(kb, dest, "vault" if fmt == "vault" else "json")
        assert report.records == len(original)
        import_source(store, f"{name}-{fmt}", dest)
        assert identity_view(store.kb(f"{name}-{fmt}")) == original
