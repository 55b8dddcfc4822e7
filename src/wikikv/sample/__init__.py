"""The bundled sample wiki: a few dozen English and Chinese pages, laid out by path.

``wiki/<dir>/<name>.md`` is the page ``/<dir>/<name>`` (Markdown with YAML front matter, see
:mod:`wikikv.pages_md`); ``wiki/<dir>/_index.md`` is the description of the directory ``/<dir>``
and ``wiki/index.md`` the root overview. ``wikikv demo`` loads it with :func:`load_sample`.
"""

from __future__ import annotations

import importlib
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikikv import pages_md
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT, normalize
from wikikv.store.records import FileMeta, text_from_bytes

SAMPLE_DIR = Path(__file__).parent / "wiki"
ROOT_FILE = "index.md"
DIR_FILE = "_index.md"


@dataclass(frozen=True)
class SamplePage:
    path: str
    text: str
    meta: FileMeta


@dataclass(frozen=True)
class SampleDir:
    path: str
    text: str


@dataclass(frozen=True)
class LoadResult:
    kb: str
    pages: int
    dirs: int
    bulk: bool


def _kb_path(rel: Path) -> str:
    parts = [unicodedata.normalize("NFC", p) for p in rel.parts]
    return normalize("/" + "/".join(parts))


def _read(file: Path) -> str:
    return text_from_bytes(file.read_bytes(), str(file))


def sample_dirs(root: Path = SAMPLE_DIR) -> list[SampleDir]:
    """The root and every directory with its description, parents before children."""
    out = [SampleDir(ROOT, _read(root / ROOT_FILE) if (root / ROOT_FILE).exists() else "")]
    dirs = sorted((d for d in root.rglob("*") if d.is_dir()), key=lambda d: (len(d.parts), str(d)))
    for d in dirs:
        index = d / DIR_FILE
        out.append(SampleDir(_kb_path(d.relative_to(root)), _read(index) if index.exists() else ""))
    return out


def sample_pages(root: Path = SAMPLE_DIR) -> list[SamplePage]:
    """Every page of the sample wiki, sorted by path."""
    out = []
    for file in sorted(root.rglob("*.md")):
        rel = file.relative_to(root)
        if rel.name == DIR_FILE or rel == Path(ROOT_FILE):
            continue
        text, meta = pages_md.parse(_read(file), str(rel))
        out.append(SamplePage(_kb_path(rel.with_suffix("")), text, meta))
    return sorted(out, key=lambda p: p.path)


def _bulk_writer() -> Any | None:
    """``wikikv.store.bulk.BulkWriter`` when this build has it (the fast batched load path)."""
    try:
        return importlib.import_module("wikikv.store.bulk").BulkWriter
    except (ImportError, AttributeError):
        return None


def load_sample(kb: KnowledgeBase, root: Path = SAMPLE_DIR) -> LoadResult:
    """Write the sample wiki into ``kb`` (directories with their descriptions, then pages)."""
    dirs = sample_dirs(root)
    pages = sample_pages(root)
    kb.set_dir_text(ROOT, dirs[0].text)
    writer = _bulk_writer()
    if writer is not None:
        with writer(kb, job="demo") as bw:
            for d in dirs[1:]:
                bw.mkdir(d.path, d.text)
            for p in pages:
                bw.put_file(p.path, p.text, p.meta)
    else:
        for d in dirs[1:]:
            kb.mkdir(d.path, d.text)
        for p in pages:
            kb.put(p.path, p.text, p.meta)
    return LoadResult(kb.name, len(pages), len(dirs), writer is not None)
