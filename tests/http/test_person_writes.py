"""A person's writes through the HTTP API are held to what `wikikv put` holds them to: a source
(``/sources/...``) is neither written nor deleted, and a page that moved is not written over
its redirect. Every refusal is checked to change nothing (the kb's records, indexes, system
records and audit trail, byte for byte), over a real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import wikikv
from wikikv.compile.handedits import edited_paths
from wikikv.interfaces.http.app import create_app
from wikikv.interfaces.http.context import ServerConfig
from wikikv.store.records import FileRecord, RedirectRecord
from wikikv.testing.http_server import LoopbackServer

from .conftest import build_store

KB = "/v1/kbs/demo"
Snapshot = dict[bytes, tuple[int, bytes]]


@pytest.fixture
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, wikikv.Store]]:
    root = tmp_path_factory.mktemp("person-writes")
    build_store(root)
    store = wikikv.open_store(str(root))
    with LoopbackServer(create_app(store, ServerConfig(access_flush_interval=0.05))) as url:
        yield url, store
    store.close()


def snapshot(store: wikikv.Store) -> Snapshot:
    """Everything of kb ``demo`` but the access records and statistics (a refused request
    leaves its ACCESS record: that is the point of them)."""
    keys = store.kb("demo").keys
    out: Snapshot = {}
    for space in "NDPASLI":
        start, end = keys.space_range(space)
        out.update((k, (it.version, it.value)) for k, it in store.backend.scan(start, end))
    return out


def refused(r: httpx.Response, status: int, code: str, *says: str) -> str:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code
    for words in says:
        assert words in error["message"], error["message"]
    message: str = error["message"]
    return message


def test_a_source_is_not_written(served: tuple[str, wikikv.Store], client: httpx.Client) -> None:
    url, store = served
    article = "/sources/articles/Lu Xun"
    before = store.kb("demo").get(article)
    assert isinstance(before, FileRecord)
    untouched = snapshot(store)
    body = {"path": article, "text": before.text.replace("writer", "novelist")}
    refused(
        client.put(f"{url}{KB}/page", json=body),
        403,
        "read_only_source",
        "/sources/articles/Lu Xun is a source: the text of document 'Lu Xun'",
        "would break their citations",
        "`wikikv update FILE`",
        "POST /v1/kbs/demo/jobs/update",
    )
    # with the version it is at, as a digest, or the folder itself: the same
    body["expect_version"] = before.version
    refused(client.put(f"{url}{KB}/page", json=body), 403, "read_only_source")
    digest = {"path": "/sources/digests/Lu Xun", "text": "Mine."}
    refused(client.put(f"{url}{KB}/page", json=digest), 403, "read_only_source")
    new = {"path": "/sources/articles/Mine", "text": "A source of my own.", "expect_version": 0}
    refused(client.put(f"{url}{KB}/page", json=new), 403, "read_only_source")
    whole = {"path": "/sources", "text": "Over a directory."}
    refused(client.put(f"{url}{KB}/page", json=whole), 403, "read_only_source", "holds the sources")
    assert snapshot(store) == untouched
    # a page is still written as before
    page = {"path": "/notes/Mine", "text": "Cites [[/sources/articles/Lu Xun]]."}
    assert client.put(f"{url}{KB}/page", json=page).status_code == 200


def test_a_source_is_not_deleted(served: tuple[str, wikikv.Store], client: httpx.Client) -> None:
    url, store = served
    untouched = snapshot(store)
    message = refused(
        client.delete(f"{url}{KB}/page", params={"path": "/sources/articles/Lu Xun"}),
        403,
        "read_only_source",
        "would leave their citations dangling",
        "`wikikv remove 'Lu Xun'`",
        'POST /v1/kbs/demo/jobs/remove {"doc_ids": ["Lu Xun"]}',
    )
    assert "Remove the document instead" in message
    for params in (
        {"path": "/sources/digests/Lu Xun", "expect_version": "1"},
        {"path": "/sources/articles", "recursive": "true"},
        {"path": "/sources", "recursive": "true"},
    ):
        refused(client.delete(f"{url}{KB}/page", params=params), 403, "read_only_source")
    assert snapshot(store) == untouched
    assert isinstance(store.kb("demo").get("/sources/articles/Lu Xun"), FileRecord)
    # the remove job the message points at is how a document goes
    job = client.post(f"{url}{KB}/jobs/remove", json={"doc_ids": ["Lu Xun"]})
    assert job.status_code == 202, job.text


def test_a_moved_page_is_not_written_over_its_redirect(
    served: tuple[str, wikikv.Store], client: httpx.Client
) -> None:
    url, store = served
    kb = store.kb("demo")
    old, new = "/people/John Watson", "/characters/John Watson"
    kb.move(old, new)  # what `wikikv mv` does: a redirect left at the old path
    read = client.get(f"{url}{KB}/get", params={"path": old}).json()
    assert read["path"] == new  # a read of the old path gives the page where it went
    untouched = snapshot(store)
    for expect in (None, read["meta"]["version"], 0):
        body = {"path": old, "text": "Watson, edited.", "expect_version": expect}
        refused(
            client.put(f"{url}{KB}/page", json=body),
            409,
            "page_moved",
            f"{old} moved to {new} (a redirect is there now): write it at {new} instead",
            "delete the redirect first",
        )
    assert snapshot(store) == untouched
    # where it went, the write is a hand edit like any other
    body = {"path": new, "text": "Watson, edited.", "expect_version": read["meta"]["version"]}
    assert client.put(f"{url}{KB}/page", json=body).status_code == 200
    assert new in edited_paths(kb)
    # deleting the redirect frees the old path for a page of its own
    assert client.delete(f"{url}{KB}/page", params={"path": old}).status_code == 200
    assert client.put(f"{url}{KB}/page", json={"path": old, "text": "Another."}).status_code == 200
    assert isinstance(kb.get(old, follow_redirects=False), FileRecord)


def test_a_redirect_to_nothing_is_no_page(
    served: tuple[str, wikikv.Store], client: httpx.Client
) -> None:
    """A redirect whose page is gone leads nowhere (a read is a 404): a write there makes the
    page, as at any free path."""
    url, store = served
    kb = store.kb("demo")
    kb.put_redirect("/people/Gone", "/people/Nowhere")
    assert client.get(f"{url}{KB}/get", params={"path": "/people/Gone"}).status_code == 404
    body = {"path": "/people/Gone", "text": "Here now."}
    assert client.put(f"{url}{KB}/page", json=body).status_code == 200
    assert not isinstance(kb.get("/people/Gone", follow_redirects=False), RedirectRecord)


def test_a_scoped_key_is_told_nothing_of_where_a_page_went(tmp_path: Path) -> None:
    """A redirect to a path the key may not see reads as nothing to that key: the error of a
    moved page must not name the hidden path either."""
    from wikikv.store.apikeys import create_key

    from .conftest import headers

    with wikikv.open_store(f"lmdb://{tmp_path}?sync=false") as store:
        kb = store.create_kb("demo")
        kb.put("/people/Zhou", "A page.")
        kb.move("/people/Zhou", "/vault/Zhou")
        people = create_key(kb, "people-only", ["write"], ["/people"]).token
        with LoopbackServer(create_app(store)) as url, httpx.Client(timeout=30) as c:
            body = {"path": "/people/Zhou", "text": "Mine."}
            r = c.put(f"{url}{KB}/page", json=body, headers=headers(people))
            assert r.status_code == 200, r.text
            assert "/vault" not in r.text


def test_a_field_not_sent_keeps_the_pages_value(
    served: tuple[str, wikikv.Store], client: httpx.Client
) -> None:
    """PUT with a text and a title keeps the page's kind, aliases, tags and summary; a field
    that is sent, even empty, replaces the page's."""
    url, store = served
    kb = store.kb("demo")
    before = kb.get("/people/Sherlock Holmes")
    assert isinstance(before, FileRecord)
    assert before.meta.kind == "entity"
    assert before.meta.aliases
    assert before.meta.summary
    body = {"path": "/people/Sherlock Holmes", "text": before.text + "\nA note.\n"}
    r = client.put(f"{url}{KB}/page", json={**body, "title": "Holmes"})
    assert r.status_code == 200, r.text
    after = kb.get("/people/Sherlock Holmes")
    assert isinstance(after, FileRecord)
    assert after.meta.title == "Holmes"
    assert (after.meta.kind, after.meta.aliases, after.meta.tags, after.meta.summary) == (
        before.meta.kind,
        before.meta.aliases,
        before.meta.tags,
        before.meta.summary,
    )
    r = client.put(f"{url}{KB}/page", json={**body, "aliases": [], "summary": "Edited."})
    assert r.status_code == 200, r.text
    again = kb.get("/people/Sherlock Holmes")
    assert isinstance(again, FileRecord)
    assert again.meta.aliases == []
    assert again.meta.summary == "Edited."
    assert again.meta.kind == "entity"
