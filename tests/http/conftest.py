"""Fixtures of the HTTP API tests: compiled sample kbs and real servers on loopback ports."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import wikikv
from wikikv.compile.pipeline import Compiler
from wikikv.config import CacheSettings
from wikikv.interfaces.http.app import create_app
from wikikv.interfaces.http.context import ServerConfig
from wikikv.search.sync import reindex
from wikikv.store.apikeys import create_key
from wikikv.testing.http_server import LoopbackServer

SAMPLE = Path(wikikv.__file__).parent / "sample" / "corpus" / "en"
SECRET = "ZEBRA-7731-CLASSIFIED"  # appears only in the other kb and the hidden subtree


def build_store(root: Path) -> None:
    """Two kbs: ``demo`` (the compiled English sample, plus a hidden /vault page) and
    ``other`` (a page of its own); every secret page carries :data:`SECRET`."""
    with wikikv.open_store(str(root)) as store:
        demo = store.create_kb("demo")
        Compiler(demo).build(SAMPLE)
        demo.put(
            "/vault/Plans",
            f"The {SECRET} plans mention [[Lu Xun]].",
            wikikv.FileMeta(title="Vault Plans", summary=f"{SECRET} summary"),
        )
        demo.put("/people/Insider", "An insider who knows the [[Vault Plans]].")
        reindex(demo, [], ["/vault/Plans", "/people/Insider"])
        store.create_kb("jobs")
        other = store.create_kb("other")
        other.put("/people/Lu Xun", f"Other kb page {SECRET} about Lu Xun.")
        reindex(other, [], ["/people/Lu Xun"])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("api-store")
    build_store(root)
    return root


class Keys:
    """Tokens of the keyed server: per-kb readers, a writer, an admin, an ACL'd reader."""

    def __init__(self, store: wikikv.Store, root: Path) -> None:
        self.root = root
        demo, other = store.kb("demo"), store.kb("other")
        self.reader = create_key(demo, "reader", ["read"]).token
        self.writer = create_key(demo, "writer", ["write"]).token
        self.admin = create_key(demo, "admin", ["admin"]).token
        self.people = create_key(demo, "people-only", ["write"], ["/people", "/places"]).token
        self.other = create_key(other, "other-reader", ["admin"]).token


def headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def open_store_served(built: Path) -> Iterator[tuple[str, wikikv.Store]]:
    """The sample store served with no key configured (open, loopback)."""
    store = wikikv.open_store(str(built))
    with LoopbackServer(create_app(store, ServerConfig(access_flush_interval=0.05))) as url:
        yield url, store
    store.close()


@pytest.fixture(scope="module")
def open_server(open_store_served: tuple[str, wikikv.Store]) -> str:
    return open_store_served[0]


@pytest.fixture(scope="module", params=["plain", "cached"])
def keyed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Keys]]:
    """A store with keys, served plainly and behind the L1 cache tier."""
    root = tmp_path_factory.mktemp("keyed-store")
    build_store(root)
    cache = CacheSettings(l1=True) if request.param == "cached" else None
    store = wikikv.open_store(str(root), cache=cache)
    keys = Keys(store, root)
    with LoopbackServer(create_app(store, ServerConfig(access_flush_interval=0.05))) as url:
        yield url, keys
    store.close()


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as c:
        yield c
