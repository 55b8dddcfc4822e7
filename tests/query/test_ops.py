"""wiki_search / wiki_read / drill_down / roll_up over a small kb."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from wikikv.errors import InvalidPath, NotFound
from wikikv.query.ops import drill_down, parse_wikilinks, roll_up, wiki_read, wiki_search
from wikikv.search.index import IndexWriter
from wikikv.search.ranking import clear_caches
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileMeta, FileRecord
from wikikv.store.store import open_store


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    clear_caches()
    store = open_store("memory://")
    kb = store.create_kb("wiki")
    kb.set_dir_text("/", "A wiki about Lu Xun.\n\nSecond paragraph.")
    kb.mkdir("/people", "People around Lu Xun.")
    kb.put(
        "/people/lu-xun",
        "Lu Xun wrote [[A Madman's Diary]] and [[阿Q正传|Ah Q]]; he was born in "
        "[[Shaoxing#Early life]]. See also [[Nobody Here]] and [[/people/xu-guangping]].",
        FileMeta(kind="entity", title="Lu Xun", aliases=["鲁迅"], summary="Writer"),
    )
    kb.put(
        "/people/xu-guangping",
        "Partner of [[Lu Xun]].",
        FileMeta(kind="entity", title="Xu Guangping", links=["/places/shaoxing"]),
    )
    kb.put("/places/shaoxing", "City.", FileMeta(kind="entity", title="Shaoxing"))
    kb.put("/works/fiction/madman", "Story.", FileMeta(kind="entity", title="A Madman's Diary"))
    kb.put("/works/fiction/ah-q", "中篇小说。", FileMeta(kind="entity", title="阿Q正传"))
    with IndexWriter(kb) as writer:
        for path in kb.walk("/"):
            rec = kb.get(path)
            if isinstance(rec, FileRecord | DirRecord):
                writer.add(rec)
    yield kb
    store.close()


def test_parse_wikilinks() -> None:
    text = "[[A]] and [[B|bee]], [[C#sec|see]], [[A]] again, [[ broken ]], [not a link]"
    assert parse_wikilinks(text) == [("A", "A"), ("B", "bee"), ("C", "see"), ("broken", "broken")]


def test_wiki_search_is_json_ready(kb: KnowledgeBase) -> None:
    hits = wiki_search(kb, "Lu Xun", limit=3)
    assert hits[0]["path"] == "/people/lu-xun"
    assert set(hits[0]) == {"path", "title", "summary", "score", "why", "kind"}
    json.dumps(hits)
    assert wiki_search(kb, "鲁迅")[0]["path"] == "/people/lu-xun"
    assert [h["path"] for h in wiki_search(kb, "people", kinds=["dir"])] == ["/people"]


def test_wiki_read_page_with_resolved_links(kb: KnowledgeBase) -> None:
    [page] = wiki_read(kb, ["/people/lu-xun"])
    assert page["type"] == "file"
    assert page["title"] == "Lu Xun"
    assert page["aliases"] == ["鲁迅"]
    links = {link["target"]: link["path"] for link in page["links"]}
    assert links == {
        "A Madman's Diary": "/works/fiction/madman",
        "阿Q正传": "/works/fiction/ah-q",
        "Shaoxing": "/places/shaoxing",
        "Nobody Here": None,
        "/people/xu-guangping": "/people/xu-guangping",
    }
    ah_q = next(link for link in page["links"] if link["target"] == "阿Q正传")
    assert ah_q["label"] == "Ah Q"
    assert ah_q["via"] == "wikilink"


def test_wiki_read_batch_with_meta_links_dirs_and_misses(kb: KnowledgeBase) -> None:
    items = wiki_read(kb, ["/people/xu-guangping", "/people", "/nope", "/"])
    xu, people, missing, root = items
    assert [(link["path"], link["via"]) for link in xu["links"]] == [
        ("/people/lu-xun", "wikilink"),
        ("/places/shaoxing", "meta"),
    ]
    assert people["type"] == "dir"
    assert people["text"] == "People around Lu Xun."
    assert set(people["files"]) == {"/people/lu-xun", "/people/xu-guangping"}
    assert missing == {"path": "/nope", "error": "not found"}
    assert set(root["sub_dirs"]) == {"/people", "/places", "/works"}
    json.dumps(items)


def test_wiki_read_follows_redirects(kb: KnowledgeBase) -> None:
    kb.move("/places/shaoxing", "/places/shaoxing-city")
    [item] = wiki_read(kb, ["/places/shaoxing"])
    assert item["path"] == "/places/shaoxing-city"
    assert item["requested"] == "/places/shaoxing"


def test_wiki_read_rejects_bad_input(kb: KnowledgeBase) -> None:
    with pytest.raises(InvalidPath):
        wiki_read(kb, ["no-slash"])
    with pytest.raises(InvalidPath):
        wiki_read(kb, ["/people"] * 101)


def test_drill_down_levels(kb: KnowledgeBase) -> None:
    one = drill_down(kb, "/", 1)
    assert [(n["path"], n["level"]) for n in one["nodes"]] == [
        ("/", 0),
        ("/people", 1),
        ("/places", 1),
        ("/works", 1),
    ]
    assert one["nodes"][0]["overview"] == "A wiki about Lu Xun."
    three = drill_down(kb, "/", 3)
    got = {n["path"]: n["level"] for n in three["nodes"]}
    assert got["/works/fiction"] == 2
    assert got["/works/fiction/ah-q"] == 3
    assert got["/people/lu-xun"] == 2
    assert three["truncated"] is False
    order = [n["path"] for n in three["nodes"]]
    assert (
        order.index("/works") < order.index("/works/fiction") < order.index("/works/fiction/ah-q")
    )
    two = drill_down(kb, "/works", 2)
    assert {n["path"] for n in two["nodes"]} == {
        "/works",
        "/works/fiction",
        "/works/fiction/madman",
        "/works/fiction/ah-q",
    }
    leaf = drill_down(kb, "/people/lu-xun", 2)
    assert leaf["nodes"] == [
        {"path": "/people/lu-xun", "level": 0, "type": "file", "name": "lu-xun", "title": "Lu Xun"}
    ]
    with pytest.raises(NotFound):
        drill_down(kb, "/missing", 1)


def test_roll_up_ancestors(kb: KnowledgeBase) -> None:
    chain = roll_up(kb, "/works/fiction/ah-q")
    assert [n["path"] for n in chain] == ["/", "/works", "/works/fiction"]
    assert [n["level"] for n in chain] == [0, 1, 2]
    assert chain[0]["overview"] == "A wiki about Lu Xun."
    assert roll_up(kb, "/") == []
    with pytest.raises(NotFound):
        roll_up(kb, "/nope/x")
