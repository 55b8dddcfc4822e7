"""``wikikv bench vault``: export and import throughput and the size of the export on a compiled
wiki (default: the 2Wiki 6k corpus), for the vault and the JSON-lines formats side by side, with
the store's own binary backup (an LMDB copy) as the baseline a person cannot read.

Each export is imported into a fresh kb and compared with the original record by record
(:func:`wikikv.vault.exporter.identity_view`), so the numbers are for a round trip that is exact.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikikv.bench.report import machine_info

if TYPE_CHECKING:
    from wikikv.store.kb import KnowledgeBase
    from wikikv.store.store import Store

Log = Callable[[str], None]
DEFAULT_CORPUS = "2wiki-corpus-6k"


def tree_size(root: Path) -> tuple[int, int]:
    """(bytes, files) under ``root``."""
    total = files = 0
    for folder, _, names in os.walk(root):
        for name in names:
            total += (Path(folder) / name).stat().st_size
            files += 1
    return total, files


def measure(store: Any, kb: Any, work: Path, log: Log) -> dict[str, Any]:
    """Export ``kb`` both ways, import each export into a new kb and compare; plus the LMDB
    backup baseline. Files go under ``work``."""
    from wikikv.store.store import open_store
    from wikikv.vault import export_kb, import_source
    from wikikv.vault.exporter import identity_view

    original = identity_view(kb)
    pages = sum(1 for row in original if row[0] == "page")
    rows: list[dict[str, Any]] = []
    for fmt in ("vault", "json"):
        dest = work / f"export-{fmt}"
        log(f"export + import ({fmt}) …")
        exported = export_kb(kb, dest, "vault" if fmt == "vault" else "json")
        size, files = tree_size(dest)
        imported = import_source(store, f"copy-{fmt}", dest)
        same = identity_view(store.kb(f"copy-{fmt}")) == original
        rows.append(
            {
                "format": fmt,
                "pages": exported.pages,
                "records": exported.records,
                "export_s": round(exported.seconds, 2),
                "export_pages_per_s": round(exported.pages / exported.seconds, 1),
                "import_s": round(imported.seconds, 2),
                "import_pages_per_s": round(imported.pages / imported.seconds, 1),
                "size_mb": round(size / 1e6, 1),
                "files": files,
                "round_trip_identical": same,
            }
        )
    # Baseline: the store's binary backup of the same kb alone (not readable, not portable).
    solo = open_store(f"lmdb://{work / 'solo'}?sync=false")
    import_source(solo, kb.name, work / "export-json")
    solo.backend.sync()
    t = time.perf_counter()
    solo.backup(work / "backup")
    backup_s = time.perf_counter() - t
    backup_bytes, backup_files = tree_size(work / "backup")
    solo.close()
    rows.append(
        {
            "format": "lmdb backup (baseline)",
            "pages": pages,
            "records": len(original),
            "export_s": round(backup_s, 2),
            "export_pages_per_s": round(pages / backup_s, 1) if backup_s else 0.0,
            "import_s": None,
            "import_pages_per_s": None,
            "size_mb": round(backup_bytes / 1e6, 1),
            "files": backup_files,
            "round_trip_identical": None,
        }
    )
    return {"pages": pages, "records": len(original), "rows": rows}


def build_wiki(corpus: str, work: Path, log: Log) -> tuple[Store, KnowledgeBase, float]:
    """Compile a shared corpus offline into a throwaway LMDB store under ``work``; the store,
    its kb and the build's seconds (``bench web`` builds its wiki the same way)."""
    from wikikv.bench.compile import CORPORA, shared_data
    from wikikv.compile.pipeline import Compiler
    from wikikv.quality.hooks import gated
    from wikikv.store.store import open_store

    store = open_store(f"lmdb://{work / 'store'}?sync=false")
    kb = store.create_kb("wiki")
    log(f"building the {corpus} wiki …")
    t = time.perf_counter()
    Compiler(kb, options=gated()).build(shared_data() / CORPORA[corpus])
    return store, kb, time.perf_counter() - t


def run(corpus: str = DEFAULT_CORPUS, log: Log = print) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="wikikv-bench-vault-"))
    try:
        store, kb, build_s = build_wiki(corpus, work, log)
        result = measure(store, kb, work, log)
        store.close()
        return {
            "benchmark": "vault",
            "corpus": corpus,
            "build_s": round(build_s, 1),
            **result,
            "machine": machine_info(),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
