"""llm/ is providers, prompts, the call cache and accounting: it imports neither the compiler
nor the store (issue 14, item 6). The kb-backed cache storage lives in the store and the compile
provider in the compiler, each satisfying llm/'s protocols without importing across."""

from __future__ import annotations

import ast
from pathlib import Path

import wikikv

SRC = Path(wikikv.__file__).parent
# The offline provider still builds on the compiler's sentence and entity code; it moves with
# the text-analysis package (issue 14 item 6, helper q8c) — the one known exception.
KNOWN = {"extractive.py"}


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_llm_imports_neither_compile_nor_store() -> None:
    offenders = {
        f"{path.name}: {module}"
        for path in sorted((SRC / "llm").glob("*.py"))
        if path.name not in KNOWN
        for module in imported(path)
        if module.startswith(("wikikv.compile", "wikikv.store"))
    }
    assert offenders == set()


def test_the_cache_storage_in_the_store_does_not_import_llm() -> None:
    modules = imported(SRC / "store" / "callcache_storage.py")
    assert not any(m.startswith("wikikv.llm") for m in modules)


def test_the_check_sees_a_lazy_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from wikikv.store.kb import KnowledgeBase\n", encoding="utf-8")
    assert "wikikv.store.kb" in imported(bad)
