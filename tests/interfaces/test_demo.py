"""``wikikv demo``: the bundled sample wiki loads, every wikilink resolves, the tour prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from wikikv import pages_md, sample
from wikikv.interfaces.cli import main
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileRecord
from wikikv.store.store import open_store

ENGLISH = [
    "/people/Lu Xun",
    "/characters/Sherlock Holmes",
    "/places/Shaoxing",
    "/works/Call to Arms",
]
CHINESE = ["/人物/鲁迅", "/作品/阿Q正传", "/地点/绍兴", "/概念/五四运动"]


def demo(store_url: str, *args: str) -> Result:
    result = CliRunner().invoke(main, ["demo", "--store", store_url, *args], catch_exceptions=False)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def resolves(kb: KnowledgeBase, target: str) -> bool:
    if target.startswith("/"):
        return isinstance(kb.get(target), FileRecord)
    return bool(kb.find_names(target, limit=1, exact=True))


def test_sample_wiki_size_and_languages() -> None:
    pages = sample.sample_pages()
    assert 30 <= len(pages) <= 40
    assert any(all(ord(c) < 128 for c in p.path) for p in pages)
    assert sum(1 for p in pages if any("\u4e00" <= c <= "\u9fff" for c in p.path)) >= 10
    assert all(p.meta.title and p.meta.summary for p in pages)
    dirs = sample.sample_dirs()
    assert dirs[0].path == "/"
    assert dirs[0].text
    assert all(d.text for d in dirs), "every dimension has an _index.md description"


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """One demo load shared by the read-only tests: (store URL, the tour it printed)."""
    store_url = str(tmp_path_factory.mktemp("demo") / "store")
    return store_url, demo(store_url).stdout


def test_demo_loads_the_sample_and_shows_the_tour(demo_store: tuple[str, str]) -> None:
    store_url, out = demo_store
    for fragment in ("Lu Xun", "鲁迅", "ls", "get", "prefix", "/works/The True Story of Ah Q"):
        assert fragment in out
    with open_store(store_url) as store:
        kb = store.kb("demo")
        for path in ENGLISH + CHINESE:
            page = kb.get(path)
            assert isinstance(page, FileRecord), path
        root = kb.get("/")
        assert isinstance(root, DirRecord)
        assert "Sample wiki" in root.text
        walked = set(kb.walk("/"))
        expected = {p.path for p in sample.sample_pages()}
        assert expected <= walked
        assert kb.find_names("福尔摩斯", exact=True)[0].path == "/characters/Sherlock Holmes"


def test_every_wikilink_in_the_sample_resolves(demo_store: tuple[str, str]) -> None:
    store_url, _ = demo_store
    with open_store(store_url) as store:
        kb = store.kb("demo")
        links = 0
        for path in kb.walk("/"):
            rec = kb.get(path)
            assert isinstance(rec, (DirRecord, FileRecord))
            for target in pages_md.wikilinks(rec.text):
                links += 1
                assert resolves(kb, target), f"{path} links to missing [[{target}]]"
        assert links > 100


def test_demo_replaces_the_kb_and_keeps_others(tmp_path: Path) -> None:
    store_url = str(tmp_path / "store")
    with open_store(store_url) as store:
        store.create_kb("other").put("/keep", "me")
        store.create_kb("demo").put("/stale", "gone after demo")
    report = json.loads(demo(store_url, "--json").stdout)
    assert report["load"]["pages"] == len(sample.sample_pages())
    assert report["get"][1]["path"] == "/人物/鲁迅"
    demo(store_url)  # twice in a row is fine
    with open_store(store_url) as store:
        assert store.kb("demo").get("/stale") is None
        assert store.kb("other").get("/keep") is not None


def test_demo_without_bulk_writer_loads_page_by_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sample, "_bulk_writer", lambda: None)
    store_url = str(tmp_path / "store")
    report = json.loads(demo(store_url, "--json").stdout)
    assert report["load"]["bulk"] is False
    with open_store(store_url) as store:
        assert (
            len([p for p in store.kb("demo").walk("/")])
            == report["load"]["pages"] + report["load"]["dirs"]
        )
