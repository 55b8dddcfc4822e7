"""A small hand-built kb (English and Chinese pages) on the memory and LMDB backends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wikikv.search.ranking import clear_caches
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta
from wikikv.store.store import Store, open_store

PAGES: list[tuple[str, str, FileMeta]] = [
    (
        "/people/lu-xun",
        "Lu Xun was a Chinese writer and essayist. He wrote [[A Madman's Diary]] and "
        "[[The True Story of Ah Q|Ah Q]]. Born in [[Shaoxing]].",
        FileMeta(
            kind="entity",
            title="Lu Xun",
            aliases=["Zhou Shuren", "鲁迅"],
            tags=["writer", "essayist"],
            summary="Chinese writer, founder of modern Chinese literature",
        ),
    ),
    (
        "/people/xu-guangping",
        "Xu Guangping was an activist. She was the partner of Lu Xun in Shanghai.",
        FileMeta(kind="entity", title="Xu Guangping", tags=["activist"], summary="Activist"),
    ),
    (
        "/places/shaoxing",
        "Shaoxing is a city in Zhejiang where Lu Xun was born. It is famous for rice wine.",
        FileMeta(kind="entity", title="Shaoxing", tags=["city"], summary="City in Zhejiang"),
    ),
    (
        "/works/madman",
        "A short story published in 1918 in New Youth, written in vernacular Chinese.",
        FileMeta(
            kind="entity",
            title="A Madman's Diary",
            aliases=["狂人日记"],
            summary="Short story by Lu Xun",
            links=["/people/lu-xun"],
        ),
    ),
    (
        "/works/ah-q",
        "《阿Q正传》是鲁迅创作的中篇小说，1921年发表于北京《晨报副刊》。",
        FileMeta(
            kind="entity",
            title="阿Q正传",
            aliases=["The True Story of Ah Q"],
            summary="鲁迅的中篇小说",
        ),
    ),
    (
        "/topics/orchid-society",
        "A club of growers that meets monthly.",
        FileMeta(kind="article", title="Orchid Society", summary="A growers club"),
    ),
    (
        "/topics/greenhouse",
        "Orchid care: an orchid needs humidity; orchid roots rot in wet soil; repot the orchid "
        "after the orchid flowers. Orchid orchid.",
        FileMeta(kind="digest", title="Greenhouse notes", summary="Notes on plants"),
    ),
    (
        "/places/beijing",
        "北京是中华人民共和国的首都，鲁迅曾在北京生活和写作。",
        FileMeta(kind="entity", title="北京", aliases=["Beijing", "Peking"], summary="中国首都"),
    ),
]


def fill(kb: KnowledgeBase) -> None:
    """Write the pages (no indexing) and give the top directories an overview."""
    for path, text, meta in PAGES:
        kb.put(path, text, meta)
    kb.set_dir_text("/people", "People of the Lu Xun circle.")


@pytest.fixture(params=["memory", "lmdb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    clear_caches()
    url = "memory://" if request.param == "memory" else str(tmp_path / "store")
    s = open_store(url)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def make_kb(store: Store) -> Callable[[str], KnowledgeBase]:
    """Create a kb holding the sample pages (not yet indexed)."""

    def make(name: str) -> KnowledgeBase:
        kb = store.create_kb(name, exist_ok=True)
        fill(kb)
        return kb

    return make


@pytest.fixture
def kb(make_kb: Callable[[str], KnowledgeBase]) -> KnowledgeBase:
    return make_kb("wiki")


@pytest.fixture
def sample_paths() -> list[str]:
    """Every indexable path of the sample kb: the pages and the /people directory."""
    return [p for p, _, _ in PAGES] + ["/people"]


@pytest.fixture
def sample_pages() -> list[tuple[str, str, FileMeta]]:
    return PAGES
