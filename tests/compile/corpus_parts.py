"""Slicing a JSON-lines test corpus into the parts a test builds and adds, and asking a built
kb what a full render of its documents would still change (shared by the tests that compare an
incremental wiki with a full build)."""

from __future__ import annotations

from pathlib import Path

from wikikv.compile import persisted
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.store.kb import KnowledgeBase


def lines_of(path: Path) -> list[str]:
    """The non-empty lines of a JSON-lines corpus."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def full_rerender_writes(kb: KnowledgeBase, fanout: int | None = None) -> int:
    """What a full derive and render of the kb's documents (with its stored schema) changes."""
    kb.commit([persisted.Delete(kb.keys.system(persisted.META))])
    options = CompileOptions(full_render=True, **({"fanout": fanout} if fanout else {}))
    report = Compiler(kb, options=options).remove([])
    assert not report.model_reads
    return report.written + report.deleted
