"""Server settings: serving a subset of the kbs, and the store behind the cache tiers."""

from __future__ import annotations

from pathlib import Path

import httpx

import wikikv
from wikikv.interfaces.http.app import create_app
from wikikv.interfaces.http.context import ServerConfig
from wikikv.testing.http_server import LoopbackServer


def test_only_the_named_kbs_are_served_through_the_cache(tmp_path: Path) -> None:
    with wikikv.open_store(str(tmp_path)) as store:
        store.create_kb("demo").put("/people/Lu Xun", "Writer.")
        store.create_kb("hidden").put("/people/Lu Xun", "Not served.")
    app = create_app(str(tmp_path), ServerConfig(kbs=["demo"], cache=True))
    state = app.state.wikikv
    assert state.store.backend.describe().startswith("L1+")
    with LoopbackServer(app) as url, httpx.Client(base_url=url) as client:
        assert client.get("/v1/kbs").json() == {"kbs": ["demo"]}
        page = client.get("/v1/kbs/demo/get", params={"path": "/people/Lu Xun"})
        assert page.json()["text"] == "Writer."
        refused = client.get("/v1/kbs/hidden/get", params={"path": "/people/Lu Xun"})
        assert refused.status_code == 404
        assert refused.json()["error"]["code"] == "unknown_kb"
        assert "Not served" not in refused.text
        unknown = client.get("/v1/kbs/nokb/get", params={"path": "/"})
        assert "demo" not in unknown.json()["error"]["message"]
        assert "hidden" not in unknown.json()["error"]["message"]
        assert state.store.backend.stats.l1_hits + state.store.backend.stats.l1_misses > 0
