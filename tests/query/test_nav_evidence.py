"""Issue 8 item 4: enumeration questions answer with evidence, a listing only when a directory is
the answer; the budget clock starts once the analyzers are ready, so a cold CLI process gets
evidence within the default budget."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.query.wiki_fixture import make_store
from wikikv.query.budget import Budget
from wikikv.query.nav import NavResult, classify, nav, search_text
from wikikv.store.kb import KnowledgeBase


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    store, kb = make_store()
    yield kb
    store.close()


def run(kb: KnowledgeBase, q: str, reads: int = 30) -> list[NavResult]:
    return list(nav(kb, q, Budget(max_reads=reads)))


def test_a_chinese_which_question_returns_the_matching_pages_and_sources(kb: KnowledgeBase) -> None:
    q = "哪些文章写到了绍兴？"
    assert classify(q) == "enumeration"
    results = run(kb, q)
    assert not any(r.reason.startswith("enumeration: listing") for r in results)
    entities = [r.path for r in results if r.level == "entity"]
    assert "/地点/绍兴" in entities
    cited = {s for r in results for s in r.sources} | {
        r.path for r in results if r.level == "article"
    }
    assert "/sources/articles/d5" in cited  # the article that is about 绍兴
    assert "/sources/articles/d4" in cited  # and the one that mentions it


def test_an_english_which_question_returns_evidence_not_a_listing(kb: KnowledgeBase) -> None:
    q = "Which films did Christopher Nolan direct?"
    assert classify(q) == "enumeration"
    results = run(kb, q)
    assert not any(r.reason.startswith("enumeration: listing") for r in results)
    paths = {r.path for r in results}
    assert {"/films/Inception", "/films/Dunkirk"} & paths or {
        "/sources/articles/d1",
        "/sources/articles/d6",
    } & paths


def test_a_listing_answers_when_the_directory_itself_is_asked_for(kb: KnowledgeBase) -> None:
    results = run(kb, "列出所有人物")
    assert results[1].level == "dimension"
    assert results[1].path == "/人物"
    assert results[1].reason == "enumeration: listing"
    assert "/人物/鲁迅" in [r.path for r in results if r.level == "entity"]


def test_frame_words_are_dropped_from_what_an_enumeration_searches() -> None:
    assert "哪些" not in search_text("哪些文章写到了绍兴？")
    assert "文章" not in search_text("哪些文章写到了绍兴？")
    assert "绍兴" in search_text("哪些文章写到了绍兴？")
    assert search_text("魏晋风度及文章与药及酒之关系") == "魏晋风度及文章与药及酒之关系"


def test_the_budget_clock_starts_when_navigation_starts(kb: KnowledgeBase) -> None:
    budget = Budget(ms=40.0)
    time.sleep(0.08)  # set-up that happened after the budget was made, before nav ran
    results = list(nav(kb, "鲁迅的故乡在哪里", budget))
    assert any(r.level == "entity" for r in results)


def test_a_partly_spent_budget_is_not_given_back(kb: KnowledgeBase) -> None:
    budget = Budget(ms=40.0)
    budget.charge(reads=1)  # already in use by the caller: its clock keeps running
    time.sleep(0.08)
    assert [r.level for r in nav(kb, "鲁迅的故乡在哪里", budget)] == ["index"]


def test_nav_from_a_cold_cli_process_returns_evidence_within_the_default_budget(
    tmp_path: Path,
) -> None:
    url = str(tmp_path / "store")
    store, _ = make_store(url)
    store.close()
    env = dict(os.environ, WIKIKV_CACHE_DIR=str(tmp_path / "cache"))
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "wikikv",
            "nav",
            "--store",
            url,
            "--kb",
            "films",
            "鲁迅的故乡在哪里",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    levels = [ln.split("]")[0].strip("[ ") for ln in out.stdout.splitlines() if ln.startswith("[")]
    assert levels[0] == "index"
    assert "entity" in levels  # evidence, not only the root overview
    assert "start-up" in out.stderr  # the CLI reports its own start-up time separately
