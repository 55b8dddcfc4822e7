"""The review queue: filing, listing, deciding, and decided items not raised again."""

from __future__ import annotations

import pytest

from wikikv import open_store
from wikikv.errors import NotFound, ReviewDecided
from wikikv.review import ReviewQueue, item_key
from wikikv.store.kb import KnowledgeBase


@pytest.fixture
def kb() -> KnowledgeBase:
    return open_store("memory://").create_kb("t")


def test_file_list_and_refresh(kb: KnowledgeBase) -> None:
    q = ReviewQueue(kb)
    first = q.file("hand-edit", "/people/A", "not merged", {"facts": "2"})
    assert first is not None
    assert first.status == "open"
    assert first.key == item_key("hand-edit", "/people/A", "not merged")
    q.file("lint/E3", "/places/B", "broken link")
    again = q.file("hand-edit", "/people/A", "not merged", {"facts": "3"})
    assert again is not None
    assert again.details == {"facts": "3"}
    assert [i.path for i in q.items()] == ["/people/A", "/places/B"]
    assert [i.path for i in q.items(kind="lint/E3")] == ["/places/B"]
    assert [i.path for i in q.items(path_prefix="/people")] == ["/people/A"]
    # Items are system records: never in the tree.
    assert kb.ls("/").files == []
    assert kb.ls("/").sub_dirs == []


def test_decided_items_are_not_raised_again(kb: KnowledgeBase) -> None:
    q = ReviewQueue(kb)
    item = q.file("hand-edit", "/p", "why")
    assert item is not None
    done = q.reject(item.key, note="keep mine", by="ann")
    assert (done.status, done.note, done.decided_by) == ("rejected", "keep mine", "ann")
    assert q.decided(item.key)
    assert q.file("hand-edit", "/p", "why") is None
    assert q.items() == []
    assert [i.status for i in q.items(status=None)] == ["rejected"]
    # The same decision again is a no-op; the opposite one is refused.
    assert q.reject(item.key).status == "rejected"
    with pytest.raises(ReviewDecided):
        q.accept(item.key)
    assert q.drop(item.key)
    assert not q.drop(item.key)
    assert q.file("hand-edit", "/p", "why") is not None


def test_unknown_item_and_custom_key(kb: KnowledgeBase) -> None:
    q = ReviewQueue(kb)
    with pytest.raises(NotFound):
        q.accept("nope")
    item = q.file("lint/E1", "/x", "r1", key="E1:/x")
    assert item is not None
    assert q.get("E1:/x") == item
    assert q.accept("E1:/x").status == "accepted"
