"""``wikikv demo``: compiles the bundled sample corpus into a fresh kb and tours what was built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from wikikv import pages_md
from wikikv.compile.check import check
from wikikv.interfaces.cli import main
from wikikv.sample import CORPUS_DIR
from wikikv.store.records import DirRecord, FileRecord
from wikikv.store.store import open_store

ENTITY_PAGES = [
    "/people/Sherlock Holmes",
    "/people/John Watson",
    "/people/Lu Xun",
    "/people/周作人",
    "/places/Shaoxing",
    "/works/The Hound of the Baskervilles",
]


def demo(store_url: str, *args: str) -> Result:
    result = CliRunner().invoke(main, ["demo", "--store", store_url, *args], catch_exceptions=False)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def test_sample_corpus_is_english_and_chinese() -> None:
    files = sorted(CORPUS_DIR.rglob("*.md"))
    assert len(files) >= 10
    assert any(all(ord(c) < 128 for c in f.stem) for f in files)
    assert sum(1 for f in files if any("\u4e00" <= c <= "\u9fff" for c in f.stem)) >= 4


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """One demo run shared by the read-only tests: (store URL, the tour it printed)."""
    store_url = str(tmp_path_factory.mktemp("demo") / "store")
    return store_url, demo(store_url).stdout


def test_demo_compiles_the_corpus_and_shows_the_tour(demo_store: tuple[str, str]) -> None:
    store_url, out = demo_store
    for fragment in (
        "documents",
        "wikikv ls '/people'",
        "wikikv get '/people/Lu Xun'",
        "wikikv search",
        "wikikv nav",
        "周树人",
        "Mr. Holmes",
        "try next",
    ):
        assert fragment in out, fragment
    with open_store(store_url) as store:
        kb = store.kb("demo")
        for path in ENTITY_PAGES:
            assert isinstance(kb.get(path), FileRecord), path
        assert kb.find_names("zhou shuren", exact=True)[0].path == "/people/Lu Xun"


def test_the_demo_wiki_passes_the_quality_check(demo_store: tuple[str, str]) -> None:
    store_url, _ = demo_store
    with open_store(store_url) as store:
        kb = store.kb("demo")
        report = check(kb)
        assert report.ok, report.to_dict()
        assert report.duplicate_titles == 0
        assert report.broken_links == 0
        links = 0
        for path in kb.walk("/"):
            rec = kb.get(path)
            assert isinstance(rec, (DirRecord, FileRecord))
            for target in pages_md.wikilinks(rec.text):
                links += 1
                assert isinstance(kb.get(target.split("|")[0]), FileRecord | DirRecord), target
        assert links > 50


def test_demo_json_and_it_replaces_the_kb_and_keeps_others(tmp_path: Path) -> None:
    store_url = str(tmp_path / "store")
    with open_store(store_url) as store:
        store.create_kb("other").put("/keep", "me")
        store.create_kb("demo").put("/stale", "gone after demo")
    report = json.loads(demo(store_url, "--json").stdout)
    assert report["build"]["documents"] == len(list(CORPUS_DIR.rglob("*.md")))
    assert report["build"]["facts"] > 0
    assert report["build"]["links"] > 0
    assert [p["path"] for p in report["get"]] == ["/people/Sherlock Holmes", "/people/Lu Xun"]
    assert report["search"]["hits"][0]["path"].endswith("Sherlock Holmes")
    assert any(r["path"] == "/people/Lu Xun" for r in report["nav"]["results"])
    demo(store_url)  # twice in a row is fine
    with open_store(store_url) as store:
        assert store.kb("demo").get("/stale") is None
        assert store.kb("other").get("/keep") is not None
