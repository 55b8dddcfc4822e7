"""The MCP server driven by the SDK's own client, over stdio (a real `wikikv mcp` process) and
over streamable HTTP (a real server on a loopback port), with the same keys and ACLs."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

import wikikv
from wikikv.interfaces.mcp.http import mcp_http_app
from wikikv.interfaces.mcp.server import MCPConfig
from wikikv.testing.http_server import LoopbackServer

from .conftest import SECRET, Keys, build_store

READ_TOOLS = ["wiki_ask", "wiki_ls", "wiki_nav", "wiki_read", "wiki_search"]


def stdio(root: Path, token: str | None = None, *extra: str) -> Client:
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    if token:
        env["WIKIKV_API_KEY"] = token
    args = ["-m", "wikikv", "mcp", "--store", str(root), "--kb", "demo", *extra]
    return Client(StdioServerParameters(command=sys.executable, args=args, env=env))


@asynccontextmanager
async def over_http(url: str, token: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            yield client


def data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    out: dict[str, Any] = result.structured_content
    return out


def error_text(result: Any) -> str:
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.fixture(scope="module")
def stdio_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp-stdio")
    build_store(root)
    return root


def test_stdio_tools_and_resources(stdio_store: Path) -> None:
    async def main() -> None:
        async with stdio(stdio_store) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(tools) == READ_TOOLS  # no writing tool without --allow-write
            for tool in tools.values():
                assert len(tool.description or "") > 60
                assert tool.input_schema["type"] == "object"
            assert tools["wiki_nav"].input_schema["properties"]["budget_ms"]["maximum"] == 10_000
            hits = data(await client.call_tool("wiki_search", {"query": "Lu Xun", "limit": 3}))
            assert "/people/Lu Xun" in [h["path"] for h in hits["hits"]]
            read = data(await client.call_tool("wiki_read", {"paths": ["/people/Lu Xun"]}))
            assert read["items"][0]["title"] == "Lu Xun"
            listing = data(await client.call_tool("wiki_ls", {"path": "/"}))
            assert "people" in listing["sub_dirs"]
            nav = data(await client.call_tool("wiki_nav", {"query": "Lu Xun", "max_reads": 5}))
            assert nav["results"][0]["level"] == "index"
            assert len(nav["results"]) <= 6  # the budget holds: the root plus at most 5 reads
            answer = data(
                await client.call_tool("wiki_ask", {"question": "Where was Lu Xun born?"})
            )
            assert answer["answer"]
            bad = await client.call_tool("wiki_read", {"paths": ["relative"]})
            assert "invalid_path" in error_text(bad)
            other = await client.call_tool("wiki_ls", {"path": "/", "kb": "nokb"})
            assert "unknown_kb" in error_text(other)
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["wikikv://{kb}/{+path}"]
            page = await client.read_resource("wikikv://demo/people/Lu%20Xun")
            assert "title: Lu Xun" in page.contents[0].text

    anyio.run(main)


def test_stdio_with_a_scoped_key(stdio_store: Path) -> None:
    with wikikv.open_store(str(stdio_store)) as store:
        keys = Keys(store, stdio_store)

    async def main() -> None:
        async with stdio(stdio_store, keys.people, "--allow-write") as client:
            tools = sorted(t.name for t in (await client.list_tools()).tools)
            assert tools == sorted([*READ_TOOLS, "wiki_write"])
            hidden = await client.call_tool("wiki_read", {"paths": ["/vault/Plans"]})
            assert "forbidden" in error_text(hidden)
            hits = data(await client.call_tool("wiki_search", {"query": SECRET}))
            assert all(h["path"].startswith(("/people", "/places")) for h in hits["hits"])
            nav = data(
                await client.call_tool("wiki_nav", {"query": "Vault Plans", "max_reads": 20})
            )
            assert SECRET not in str(nav)
            wrote = data(
                await client.call_tool("wiki_write", {"path": "/people/Via MCP", "text": "Hi."})
            )
            assert wrote == {"path": "/people/Via MCP", "version": 1}
            refused = await client.call_tool("wiki_write", {"path": "/vault/X", "text": "no"})
            assert "forbidden" in error_text(refused)
            with pytest.raises(Exception, match="forbidden"):
                await client.read_resource("wikikv://demo/vault/Plans")

    anyio.run(main)
    with wikikv.open_store(str(stdio_store)) as store:
        assert not store.kb("demo").exists("/vault/X")
        assert store.kb("demo").get("/people/Via MCP") is not None


@pytest.fixture(scope="module")
def mcp_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Keys, wikikv.Store]]:
    root = tmp_path_factory.mktemp("mcp-http")
    build_store(root)
    store = wikikv.open_store(str(root))
    keys = Keys(store, root)
    app = mcp_http_app(store, MCPConfig(allow_write=True))
    with LoopbackServer(app) as url:
        yield url, keys, store
    store.close()


def test_http_needs_a_key(mcp_http: tuple[str, Keys, wikikv.Store]) -> None:
    url, keys, _ = mcp_http
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": "Bearer wkv:demo:abc:forged"}):
        r = httpx.post(f"{url}/mcp", json=body, headers=headers)
        assert r.status_code == 401
        assert r.json()["error"]["code"] == "unauthenticated"


def test_http_keys_kbs_and_acls(mcp_http: tuple[str, Keys, wikikv.Store]) -> None:
    url, keys, store = mcp_http

    async def main() -> None:
        async with over_http(url, keys.reader) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            assert names == READ_TOOLS  # a read key is not offered the writing tool
            hits = data(await client.call_tool("wiki_search", {"query": "Lu Xun"}))
            assert hits["hits"]
            write = await client.call_tool("wiki_write", {"path": "/people/X", "text": "no"})
            assert write.is_error
        async with over_http(url, keys.writer) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            assert "wiki_write" in names
            wrote = data(
                await client.call_tool("wiki_write", {"path": "/notes/MCP", "text": "Hi."})
            )
            assert wrote["version"] == 1
        async with over_http(url, keys.other) as client:
            for tool, args in (
                ("wiki_search", {"query": "Lu Xun", "kb": "demo"}),
                ("wiki_read", {"paths": ["/people/Lu Xun"], "kb": "demo"}),
                ("wiki_ls", {"path": "/", "kb": "demo"}),
                ("wiki_nav", {"query": "Lu Xun", "kb": "demo"}),
                ("wiki_ask", {"question": "Who is Lu Xun?", "kb": "demo"}),
            ):
                text = error_text(await client.call_tool(tool, args))
                assert "forbidden" in text
                assert "Shaoxing" not in text
            with pytest.raises(Exception, match="forbidden"):
                await client.read_resource("wikikv://demo/people/Lu%20Xun")
            # Its own kb works, and shows nothing of demo.
            own = data(await client.call_tool("wiki_read", {"paths": ["/people/Lu Xun"]}))
            assert "Other kb page" in own["items"][0]["text"]
        async with over_http(url, keys.people) as client:
            text = error_text(await client.call_tool("wiki_ls", {"path": "/vault"}))
            assert "forbidden" in text
            root = data(await client.call_tool("wiki_ls", {"path": "/"}))
            assert sorted(root["sub_dirs"]) == ["people", "places"]
            nav = data(await client.call_tool("wiki_nav", {"query": SECRET, "max_reads": 20}))
            assert SECRET not in str(nav)
            answer = data(
                await client.call_tool("wiki_ask", {"question": "What are the Vault Plans?"})
            )
            assert SECRET not in str(answer)

    anyio.run(main)
    # Every call left an ACCESS record in the kb it aimed at, refused ones included.
    from wikikv.store.access import read_access

    deadline = time.monotonic() + 10  # records are written in batches, every 0.2 s
    while True:
        records = list(read_access(store.backend, "demo", limit=None))
        last = [r for r in records if r.route == "MCP wiki_ask" and r.who.endswith("(people-only)")]
        if last or time.monotonic() > deadline:  # the last call's record: all before it are in
            break
        time.sleep(0.05)
    routes = {(r.route, r.result) for r in records}
    assert ("MCP wiki_write", "200") in routes
    assert ("MCP wiki_search", "403") in routes
    assert any(r.who.endswith("(people-only)") and r.result == "403" for r in records)


def test_wiki_write_is_a_persons_write(mcp_http: tuple[str, Keys, wikikv.Store]) -> None:
    """`wiki_write` holds an agent to what a person's write holds them to (sources refused, a
    moved page written where it went, nothing changed by a refusal) and marks what it writes
    as edited by hand, so a build merges into it instead of writing over it."""
    from wikikv.compile.handedits import edited_paths
    from wikikv.store.records import FileRecord

    url, keys, store = mcp_http
    kb = store.kb("demo")
    kb.move("/people/John Watson", "/characters/John Watson")
    compiled = kb.get("/people/Sherlock Holmes")
    assert isinstance(compiled, FileRecord)
    nodes = kb.keys.space_range("N")
    before = {k: it.version for k, it in store.backend.scan(*nodes)}

    async def main() -> None:
        async with over_http(url, keys.writer) as client:
            for path in ("/sources/articles/Lu Xun", "/sources/digests/Lu Xun", "/sources/new"):
                text = error_text(await client.call_tool("wiki_write", {"path": path, "text": "x"}))
                assert "wiki_write: read_only_source: " in text
                assert "Edit the document's file and compile it again" in text
            moved = {"path": "/people/John Watson", "text": "Watson, edited."}
            text = error_text(await client.call_tool("wiki_write", moved))
            assert "page_moved: /people/John Watson moved to /characters/John Watson" in text
            assert {k: it.version for k, it in store.backend.scan(*nodes)} == before
            edit = {"path": "/people/Sherlock Holmes", "text": compiled.text + "\nMy note.\n"}
            wrote = data(await client.call_tool("wiki_write", edit))
            assert wrote["version"] == compiled.version + 1

    anyio.run(main)
    page = kb.get("/people/Sherlock Holmes")
    assert isinstance(page, FileRecord)
    assert page.meta.edited_by.endswith("(writer)")
    assert page.meta.sources == compiled.meta.sources  # the compiler's metadata carried over
    assert page.meta.links == compiled.meta.links
    # the tool sets no kind, aliases or tags, and an empty title or summary is none given:
    # the page keeps its own (before, an agent's edit turned the entity into a bare page)
    assert (page.meta.kind, page.meta.title, page.meta.summary) == (
        compiled.meta.kind,
        compiled.meta.title,
        compiled.meta.summary,
    )
    assert (page.meta.aliases, page.meta.tags) == (compiled.meta.aliases, compiled.meta.tags)
    assert compiled.meta.kind == "entity"
    assert compiled.meta.aliases
    assert "/people/Sherlock Holmes" in edited_paths(kb)
    assert kb.get("/sources/new") is None
