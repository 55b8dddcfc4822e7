"""Fixtures of the vault tests: a small compiled wiki (English and Chinese, one redirect)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.compile.conftest import SMALL_EN, ZH_FILES
from wikikv.bench.compile import shared_data
from wikikv.compile.pipeline import Compiler
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store, open_store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(f"lmdb://{tmp_path / 'store'}?sync=false")
    yield s
    s.close()


def build_small_wiki(kb: KnowledgeBase, folder: Path) -> None:
    """Compile the small English corpus and the small Chinese one, then move a page so the kb
    holds a redirect too."""
    folder.mkdir(parents=True, exist_ok=True)
    en = folder / "small.jsonl"
    en.write_text("\n".join(json.dumps(r) for r in SMALL_EN) + "\n", encoding="utf-8")
    Compiler(kb).add(en)
    zh = folder / "zh"
    for rel, text in ZH_FILES.items():
        f = zh / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    Compiler(kb).add(zh)
    kb.put("/notes/scratch", "A hand-written note linking [[/places/London]].")
    kb.move("/notes/scratch", "/notes/kept")


@pytest.fixture
def wiki(store: Store, tmp_path: Path) -> KnowledgeBase:
    kb = store.create_kb("src")
    build_small_wiki(kb, tmp_path / "corpus")
    return kb


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = shared_data()
    if not (path / "luxun").is_dir():
        pytest.fail(f"shared data not found at {path} (set WIKIKV_SHARED_DATA)")
    return path
