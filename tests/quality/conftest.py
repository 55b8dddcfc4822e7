"""Fixtures of the quality tests: small wikis compiled in the test (memory store, offline)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.compile.conftest import SMALL_EN
from wikikv.compile.pipeline import Compiler
from wikikv.quality.hooks import gated
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store, open_store
from wikikv.testing.llm_server import ScriptedLLMServer

# Two sources that disagree on a birth year: the compiled wiki carries the conflict on the Lu
# Xun page (E3, both facts there) and between the Lu Xun and Xu Guangping pages (E4).
CONFLICTING = [
    {
        "id": "lx",
        "title": "Lu Xun",
        "text": "Lu Xun was born in 1881 in Shaoxing. Lu Xun was a Chinese writer and essayist. "
        "He died in 1936 in Shanghai.",
    },
    {
        "id": "xgp",
        "title": "Xu Guangping",
        "text": "Lu Xun was born in 1882, Xu Guangping wrote in her memoir. Xu Guangping was a "
        "Chinese writer and the partner of Lu Xun. She met him in Beijing in 1925.",
    },
    {
        "id": "sx",
        "title": "Shaoxing",
        "text": "Shaoxing is a city in Zhejiang. Shaoxing is known for its rice wine and canals.",
    },
]


def write_corpus(path: Path, docs: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return path


@pytest.fixture
def store() -> Iterator[Store]:
    s = open_store("memory://")
    yield s
    s.close()


@pytest.fixture
def clean_kb(store: Store, tmp_path: Path) -> KnowledgeBase:
    kb = store.create_kb("clean")
    Compiler(kb, options=gated()).build(write_corpus(tmp_path / "small.jsonl", SMALL_EN))
    return kb


@pytest.fixture
def conflict_kb(store: Store, tmp_path: Path) -> KnowledgeBase:
    kb = store.create_kb("conflict")
    Compiler(kb, options=gated()).build(write_corpus(tmp_path / "conflict.jsonl", CONFLICTING))
    return kb


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer().start()
    try:
        yield server
    finally:
        server.stop()
