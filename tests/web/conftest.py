"""Fixtures of the web browser tests: the compiled sample wiki (English and Chinese) plus pages
that exercise redirects, hostile text and a 1,000-child directory, served by the real API app
with the browser router on a loopback port — once open (no keys) and once with keys."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import wikikv
from wikikv.compile.pipeline import Compiler
from wikikv.interfaces.http.app import create_app
from wikikv.interfaces.http.context import ServerConfig
from wikikv.interfaces.web import router
from wikikv.search.sync import reindex
from wikikv.store.apikeys import create_key
from wikikv.store.bulk import BulkWriter
from wikikv.testing.http_server import LoopbackServer

SAMPLE = Path(wikikv.__file__).parent / "sample" / "corpus"
BIG_DIR = "/many"
BIG_CHILDREN = 1000
EVIL = "/topics/Hostile page"
# Every way a page's text could try to become markup that runs; each sets window.__pwned.
EVIL_TEXT = """# Hostile <script>window.__pwned = "h1"</script>

<script>window.__pwned = "script"</script>
<img src="x" onerror="window.__pwned = 'onerror'">
<a href="javascript:window.__pwned='raw-a'">raw anchor</a>
<div onclick="window.__pwned='onclick'" onmouseover="window.__pwned='hover'">hover me</div>
<iframe src="javascript:window.__pwned='iframe'"></iframe>
<svg onload="window.__pwned='svg'"></svg>

[markdown link](javascript:window.__pwned='md-link')
[data link](data:text/html,<script>window.__pwned='data'</script>)
![image](javascript:window.__pwned='md-img')
<javascript:window.__pwned='autolink'>
[[javascript:window.__pwned='wikilink'|wikilink]]
[[/people/Lu Xun|" onmouseover="window.__pwned='attr-break]]

Plain text after the attacks: still here.
"""


@dataclass
class Served:
    url: str
    store: wikikv.Store
    tokens: dict[str, str]


def build(root: Path) -> None:
    with wikikv.open_store(str(root)) as store:
        kb = store.create_kb("demo")
        Compiler(kb).build(SAMPLE)
        kb.put("/notes/Old name", "Moved soon. Links to [[/people/Lu Xun]].")
        kb.move("/notes/Old name", "/notes/New name")
        kb.put(
            EVIL,
            EVIL_TEXT,
            wikikv.FileMeta(
                title="Hostile <script>window.__pwned='title'</script>",
                summary="<b onmouseover=\"window.__pwned='summary'\">bold?</b>",
                tags=["<script>window.__pwned='tag'</script>"],
            ),
        )
        with BulkWriter(kb, job="fixture") as bw:
            for i in range(BIG_CHILDREN):
                bw.put_file(f"{BIG_DIR}/item {i:04d}", f"Item {i}.")
        reindex(kb, [], ["/notes/New name", EVIL])


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("web-store")
    build(root)
    return root


@pytest.fixture(scope="session")
def open_site(built: Path) -> Iterator[Served]:
    store = wikikv.open_store(str(built))
    app = create_app(store, ServerConfig(access_flush_interval=0.05), routers=[router])
    with LoopbackServer(app) as url:
        yield Served(url, store, {})
    store.close()


@pytest.fixture(scope="session")
def keyed_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("web-keyed-store")
    build(root)
    store = wikikv.open_store(str(root))
    kb = store.kb("demo")
    tokens = {
        "reader": create_key(kb, "reader", ["read"]).token,
        "people": create_key(kb, "people-only", ["read"], ["/people"]).token,
    }
    app = create_app(store, ServerConfig(access_flush_interval=0.05), routers=[router])
    with LoopbackServer(app) as url:
        yield Served(url, store, tokens)
    store.close()
