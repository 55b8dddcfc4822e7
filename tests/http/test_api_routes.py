"""Every route of the HTTP API against a real server on a loopback port (open mode: no key)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import wikikv
from wikikv.config import StoreSettings
from wikikv.interfaces.http.app import create_app
from wikikv.interfaces.http.context import ServerConfig
from wikikv.query.budget import Budget
from wikikv.query.nav import nav
from wikikv.testing.http_server import LoopbackServer
from wikikv.testing.llm_server import ScriptedLLMServer, auto_reply, slow

KB = "/v1/kbs/demo"


def ok(r: httpx.Response) -> Any:
    assert r.status_code == 200, r.text
    return r.json()


def test_health_ready_metrics_openapi(open_server: str, client: httpx.Client) -> None:
    assert ok(client.get(f"{open_server}/healthz")) == {"status": "ok"}
    ready = ok(client.get(f"{open_server}/readyz"))
    assert ready["status"] == "ready"
    assert ready["auth"].startswith("open")
    client.get(f"{open_server}{KB}/get", params={"path": "/people"})
    metrics = client.get(f"{open_server}/metrics")
    assert metrics.status_code == 200
    assert 'route="/v1/kbs/{kb}/get"' in metrics.text
    assert "wikikv_store_bytes" in metrics.text
    spec = ok(client.get(f"{open_server}/openapi.json"))
    for route in (
        "get",
        "ls",
        "prefix",
        "search",
        "read",
        "nav",
        "ask",
        "drill",
        "rollup",
        "audit",
    ):
        assert f"/v1/kbs/{{kb}}/{route}" in spec["paths"], route
    assert "/v1/kbs/{kb}/jobs/{job_id}" in spec["paths"]


def test_kbs_get_ls_prefix(open_server: str, client: httpx.Client) -> None:
    assert ok(client.get(f"{open_server}/v1/kbs"))["kbs"] == ["demo", "jobs", "other"]
    page = ok(client.get(f"{open_server}{KB}/get", params={"path": "/people/Lu Xun"}))
    assert page["type"] == "file"
    assert page["path"] == "/people/Lu Xun"
    assert page["text"]
    folder = ok(client.get(f"{open_server}{KB}/get", params={"path": "/people"}))
    assert folder["type"] == "dir"
    assert "Lu Xun" in folder["files"]
    listing = ok(client.get(f"{open_server}{KB}/ls", params={"path": "/"}))
    assert {"people", "places", "works"} <= set(listing["sub_dirs"])
    assert listing["page"] == 0
    assert listing["pages"] >= 1
    paths = ok(client.get(f"{open_server}{KB}/prefix", params={"text": "/people/", "limit": 2}))
    assert paths["paths"] == ["/people/Arthur Conan Doyle", "/people/Insider"]


def test_ls_pages(tmp_path: Path, client: httpx.Client) -> None:
    settings = StoreSettings(dir_page_entries=8)
    with wikikv.open_store(f"lmdb://{tmp_path}?sync=false", settings) as store:
        kb = store.create_kb("paged")
        for i in range(13):
            kb.put(f"/big/p{i:04d}", "x")
        with LoopbackServer(create_app(store)) as url:
            first = ok(client.get(f"{url}/v1/kbs/paged/ls", params={"path": "/big"}))
            assert first["pages"] == 2
            assert len(first["files"]) == 8
            second = ok(client.get(f"{url}/v1/kbs/paged/ls", params={"path": "/big", "page": 1}))
            assert second["files"] == [f"p{i:04d}" for i in range(8, 13)]
            assert second["text"] == ""
            beyond = client.get(f"{url}/v1/kbs/paged/ls", params={"path": "/big", "page": 2})
            assert beyond.status_code == 404


def test_search_read_drill_rollup(open_server: str, client: httpx.Client) -> None:
    hits = ok(client.get(f"{open_server}{KB}/search", params={"q": "Lu Xun", "limit": 3}))["hits"]
    assert "/people/Lu Xun" in [h["path"] for h in hits]
    items = ok(
        client.post(f"{open_server}{KB}/read", json={"paths": ["/people/Lu Xun", "/nowhere"]})
    )["items"]
    assert items[0]["title"] == "Lu Xun"
    assert any(link["path"] for link in items[0]["links"])
    assert items[1] == {"path": "/nowhere", "error": "not found"}
    drill = ok(client.get(f"{open_server}{KB}/drill", params={"path": "/", "levels": 2}))
    assert {"path": "/people/Lu Xun", "level": 2, "type": "file", "name": "Lu Xun"} in drill[
        "nodes"
    ]
    up = ok(client.get(f"{open_server}{KB}/rollup", params={"path": "/people/Lu Xun"}))
    assert [a["path"] for a in up["ancestors"]] == ["/", "/people"]


def test_nav_streams_the_cli_stream(
    open_store_served: tuple[str, wikikv.Store], client: httpx.Client
) -> None:
    url, store = open_store_served
    query = "Who wrote The True Story of Ah Q?"
    params: dict[str, Any] = {"q": query, "max_reads": 8, "budget_ms": 60000}
    received: list[dict[str, Any]] = []
    with client.stream("GET", f"{url}{KB}/nav", params=params) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/x-ndjson")
        assert "content-length" not in r.headers  # chunked: lines are sent as found
        lines = r.iter_lines()
        first = json.loads(next(lines))  # read before the rest of the stream
        assert first["level"] == "index"
        assert first["path"] == "/"
        received = [first] + [json.loads(line) for line in lines if line]
    # The same stream as `wikikv nav --json` (one NavResult.to_dict per line), minus timings.
    local = [r.to_dict() for r in nav(store.kb("demo"), query, Budget(ms=60000, max_reads=8))]
    strip = [{k: v for k, v in d.items() if k != "elapsed_ms"} for d in received]
    assert strip == [{k: v for k, v in d.items() if k != "elapsed_ms"} for d in local]
    assert any(d["path"].startswith("/works/") or d["path"].startswith("/people/") for d in strip)


def test_nav_as_server_sent_events(open_server: str, client: httpx.Client) -> None:
    events: list[tuple[str, str]] = []
    headers = {"Accept": "text/event-stream"}
    params = {"q": "Lu Xun", "max_reads": 4}
    with client.stream("GET", f"{open_server}{KB}/nav", params=params, headers=headers) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        event = ""
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                events.append((event, line[6:]))
    assert events[0][0] == "result"
    assert json.loads(events[0][1])["level"] == "index"
    assert events[-1] == ("end", "{}")


def test_ask(open_server: str, client: httpx.Client) -> None:
    answer = ok(client.post(f"{open_server}{KB}/ask", json={"question": "Where was Lu Xun born?"}))
    assert answer["answer"]
    assert answer["mode"] in ("direct", "evidence")
    assert any(
        "/people/Lu Xun" in c["path"] or "Shaoxing" in c["path"] for c in answer["citations"]
    )


def test_write_delete_and_audit(open_server: str, client: httpx.Client) -> None:
    body = {"path": "/notes/API", "text": "Written over HTTP.", "title": "API", "expect_version": 0}
    assert ok(client.put(f"{open_server}{KB}/page", json=body)) == {
        "path": "/notes/API",
        "version": 1,
    }
    body.update(text="Second version.", expect_version=1)
    assert ok(client.put(f"{open_server}{KB}/page", json=body))["version"] == 2
    page = ok(client.get(f"{open_server}{KB}/get", params={"path": "/notes/API"}))
    assert page["text"] == "Second version."
    changes = ok(client.get(f"{open_server}{KB}/audit", params={"path": "/notes/API"}))
    assert changes["entries"][0]["actor"] == "local"
    assert changes["entries"][0]["new_version"] == 2
    deleted = client.delete(f"{open_server}{KB}/page", params={"path": "/notes/API"})
    assert ok(deleted) == {"path": "/notes/API", "deleted": True}
    gone = client.get(f"{open_server}{KB}/get", params={"path": "/notes/API"})
    assert gone.status_code == 404
    records = ok(client.get(f"{open_server}{KB}/audit", params={"kind": "access", "limit": 20}))
    seen = [(e["route"], e["path"], e["result"]) for e in records["entries"]]
    assert ("GET /v1/kbs/{kb}/get", "/notes/API", "404") in seen
    assert ("DELETE /v1/kbs/{kb}/page", "/notes/API", "200") in seen
    assert ("PUT /v1/kbs/{kb}/page", "/notes/API", "200") in seen
    assert all(e["who"] == "local" for e in records["entries"])


def _wait(client: httpx.Client, url: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, Any] = ok(client.get(url))
        if job["state"] not in ("queued", "running") or time.monotonic() > deadline:
            return job
        time.sleep(0.05)


def test_compile_jobs(open_server: str, client: httpx.Client) -> None:
    base = f"{open_server}/v1/kbs/jobs"
    docs = [
        {
            "id": "ahq",
            "title": "Ah Q",
            "text": "Ah Q is a character created by Lu Xun in Shaoxing.",
        },
        {"id": "kong", "title": "Kong Yiji", "text": "Kong Yiji is a story by Lu Xun."},
    ]
    started = client.post(f"{base}/jobs/build", json={"documents": docs})
    assert started.status_code == 202, started.text
    job = _wait(client, f"{base}/jobs/{started.json()['id']}")
    assert job["state"] == "done", job
    assert job["result"]["documents"] == 2
    assert job["phase"] == "render"
    assert ok(client.get(f"{base}/descriptor"))["descriptor"]
    extra = [{"id": "more", "title": "More", "text": "Zhou Zuoren was the brother of Lu Xun."}]
    added = _wait(
        client, f"{base}/jobs/{ok_job(client.post(f'{base}/jobs/add', json={'documents': extra}))}"
    )
    assert added["state"] == "done"
    assert added["result"]["documents"] == 3
    changed = [
        {"id": "more", "title": "More", "text": "Zhou Zuoren, brother of Lu Xun, wrote essays."}
    ]
    updated = _wait(
        client,
        f"{base}/jobs/{ok_job(client.post(f'{base}/jobs/update', json={'documents': changed}))}",
    )
    assert updated["state"] == "done"
    assert updated["result"]["analyzed"] == 1
    removed = _wait(
        client,
        f"{base}/jobs/{ok_job(client.post(f'{base}/jobs/remove', json={'doc_ids': ['more']}))}",
    )
    assert removed["state"] == "done"
    assert removed["result"]["documents"] == 2
    report = ok(client.get(f"{base}/check", params={"fsck": "true"}))
    assert report["ok"] is True
    missing = _wait(
        client,
        f"{base}/jobs/{ok_job(client.post(f'{base}/jobs/remove', json={'doc_ids': ['nope']}))}",
    )
    assert missing["state"] == "failed"
    assert missing["error"]["code"] == "not_found"


def ok_job(r: httpx.Response) -> str:
    assert r.status_code == 202, r.text
    job_id: str = r.json()["id"]
    return job_id


def test_job_cancellation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, client: httpx.Client
) -> None:
    # The job runs in LLM mode against the scripted model, whose answers are held until the
    # test releases them: the cancel deterministically reaches a running job (offline, a small
    # job could finish before the request arrives).
    with ScriptedLLMServer() as llm:
        llm.default = lambda request: slow(auto_reply(request), 600.0)
        monkeypatch.setenv("WIKIKV_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("WIKIKV_LLM_MODEL", "scripted")
        store = wikikv.open_store(str(tmp_path / "store"))
        store.create_kb("jobs")
        try:
            with LoopbackServer(create_app(store, ServerConfig(llm="openai"))) as url:
                base = f"{url}/v1/kbs/jobs"
                docs = [{"id": "d1", "title": "Lisbon", "text": "Lisbon is a city."}]
                job_id = ok_job(client.post(f"{base}/jobs/add", json={"documents": docs}))
                deadline = time.monotonic() + 60
                while not llm.requests and time.monotonic() < deadline:
                    time.sleep(0.02)  # the job is inside its first model call
                assert llm.requests
                assert ok(client.get(f"{base}/jobs/{job_id}"))["state"] == "running"
                flagged = ok(client.delete(f"{base}/jobs/{job_id}"))
                assert flagged["cancel_requested"] is True
                llm.release()
                job = _wait(client, f"{base}/jobs/{job_id}")
                assert job["state"] == "cancelled", job
                assert job["error"]["code"] == "job_cancelled"
                assert job["cancel_requested"] is True
                # The kb is writable again: the cancelled job released its lease.
                body = {"path": "/notes/after-cancel", "text": "ok"}
                assert client.put(f"{base}/page", json=body).status_code == 200
                assert client.get(f"{base}/jobs/nosuchjob").status_code == 404
        finally:
            store.close()
