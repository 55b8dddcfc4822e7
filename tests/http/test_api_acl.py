"""Keys, kbs and path allow-lists over every route, with the cache tier off and on: refused
attempts say nothing, and no response body carries what the key may not see."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import httpx

from wikikv.store.paths import ROOT

from .conftest import SECRET, Keys, headers

DEMO = "/v1/kbs/demo"


def calls(base: str) -> list[tuple[str, str, dict[str, Any]]]:
    """One request per kb route: (method, url, httpx kwargs)."""
    return [
        ("GET", f"{base}/get", {"params": {"path": "/people/Lu Xun"}}),
        ("GET", f"{base}/ls", {"params": {"path": "/"}}),
        ("GET", f"{base}/prefix", {"params": {"text": "/"}}),
        ("GET", f"{base}/search", {"params": {"q": "Lu Xun"}}),
        ("POST", f"{base}/read", {"json": {"paths": ["/people/Lu Xun"]}}),
        ("GET", f"{base}/nav", {"params": {"q": "Lu Xun", "max_reads": 6}}),
        ("POST", f"{base}/ask", {"json": {"question": "Who is Lu Xun?"}}),
        ("GET", f"{base}/drill", {"params": {"path": "/", "levels": 3}}),
        ("GET", f"{base}/rollup", {"params": {"path": "/people/Lu Xun"}}),
        ("GET", f"{base}/audit", {}),
        ("GET", f"{base}/audit", {"params": {"kind": "access"}}),
        ("PUT", f"{base}/page", {"json": {"path": "/people/Intruder", "text": "x"}}),
        ("DELETE", f"{base}/page", {"params": {"path": "/people/Lu Xun"}}),
        ("POST", f"{base}/jobs/add", {"json": {"documents": [{"id": "d", "text": "x"}]}}),
        ("GET", f"{base}/jobs/abc", {}),
        ("GET", f"{base}/descriptor", {}),
        ("GET", f"{base}/check", {}),
    ]


def test_another_kbs_key_is_refused_everywhere(
    keyed: tuple[str, Keys], client: httpx.Client
) -> None:
    url, keys = keyed
    answers: dict[str, list[str]] = {}
    for kb in ("demo", "nosuchkb"):
        for method, target, kwargs in calls(f"{url}/v1/kbs/{kb}"):
            r = client.request(method, target, headers=headers(keys.other), **kwargs)
            assert r.status_code == 403, (target, r.text)
            assert r.json()["error"]["code"] == "forbidden"
            assert "Lu Xun" not in r.text
            answers.setdefault(kb, []).append(r.text.replace(kb, "KB"))
    # The same refusal whether the kb exists or not: nothing is learnt about it.
    assert answers["demo"] == answers["nosuchkb"]
    r = client.get(
        f"{url}{DEMO}/get", params={"path": "/people/Lu Xun"}, headers=headers(keys.reader)
    )
    assert r.status_code == 200
    assert client.get(f"{url}/v1/kbs", headers=headers(keys.other)).json() == {"kbs": ["other"]}


def test_the_other_kb_never_leaks_into_demo_answers(
    keyed: tuple[str, Keys], client: httpx.Client
) -> None:
    url, keys = keyed
    for method, target, kwargs in calls(url + DEMO):
        r = client.request(method, target, headers=headers(keys.reader), **kwargs)
        assert SECRET not in r.text or "/vault" in r.text, target  # only demo's own vault
        assert "Other kb page" not in r.text, target


def test_no_key_or_a_bad_key_is_refused(keyed: tuple[str, Keys], client: httpx.Client) -> None:
    url, keys = keyed
    for method, target, kwargs in calls(url + DEMO):
        r = client.request(method, target, **kwargs)
        assert r.status_code == 401, target
        forged = keys.reader.rsplit(":", 1)[0] + ":forged-secret"
        r = client.request(method, target, headers=headers(forged), **kwargs)
        assert r.status_code == 401, target
        assert "Lu Xun" not in r.text


def test_scopes(keyed: tuple[str, Keys], client: httpx.Client) -> None:
    url, keys = keyed
    page = {"path": "/notes/scoped", "text": "x"}
    assert (
        client.put(f"{url}{DEMO}/page", json=page, headers=headers(keys.reader)).status_code == 403
    )
    assert (
        client.put(f"{url}{DEMO}/page", json=page, headers=headers(keys.writer)).status_code == 200
    )
    assert client.get(f"{url}{DEMO}/check", headers=headers(keys.writer)).status_code == 403
    assert client.get(f"{url}{DEMO}/check", headers=headers(keys.admin)).status_code == 200
    access = client.get(
        f"{url}{DEMO}/audit", params={"kind": "access"}, headers=headers(keys.admin)
    )
    entries = access.json()["entries"]
    assert any(
        e["who"].endswith("(writer)") and e["route"] == "PUT /v1/kbs/{kb}/page" for e in entries
    )
    refused = [e for e in entries if e["who"].endswith("(reader)") and e["result"] == "403"]
    assert refused, "a refused write is an ACCESS record too"
    changes = client.get(
        f"{url}{DEMO}/audit", params={"path": "/notes/scoped"}, headers=headers(keys.admin)
    )
    assert changes.json()["entries"][0]["actor"].endswith("(writer)")


def _visible(path: str) -> bool:
    return path in ("/", "/people", "/places") or path.startswith(("/people/", "/places/"))


def test_path_allow_list_on_every_route(keyed: tuple[str, Keys], client: httpx.Client) -> None:
    url, keys = keyed
    h = headers(keys.people)
    bodies: list[tuple[int, str]] = []

    def go(method: str, route: str, status: int = 200, **kwargs: Any) -> Any:
        r = client.request(method, f"{url}{DEMO}/{route}", headers=h, **kwargs)
        assert r.status_code == status, (route, kwargs, r.text)
        bodies.append((r.status_code, r.text))
        return r.json() if r.headers["content-type"].startswith("application/json") else r.text

    # Direct names of hidden paths: refused.
    go("GET", "get", 403, params={"path": "/vault/Plans"})
    go("GET", "ls", 403, params={"path": "/vault"})
    go("GET", "prefix", 403, params={"text": "/vault"})
    go("POST", "read", 403, json={"paths": ["/people/Lu Xun", "/vault/Plans"]})
    go("GET", "rollup", 403, params={"path": "/vault/Plans"})
    go("GET", "drill", 403, params={"path": "/sources"})
    go("GET", "audit", 403, params={"path": "/vault"})
    go("GET", "audit", 403, params={"kind": "access"})
    go("PUT", "page", 403, json={"path": "/vault/Mine", "text": "x"})
    go("DELETE", "page", 403, params={"path": "/vault/Plans"})
    go("POST", "jobs/remove", 403, json={"doc_ids": ["x"]})
    go("GET", "descriptor", 403)
    # The root is traversable: its listing shows only the way to allowed paths, no text.
    root = go("GET", "get", params={"path": "/"})
    assert root["text"] == ""
    assert sorted(root["sub_dirs"]) == ["people", "places"]
    assert root["files"] == []
    listing = go("GET", "ls", params={"path": "/"})
    assert sorted(listing["sub_dirs"]) == ["people", "places"]
    assert all(_visible(p) for p in go("GET", "prefix", params={"text": "/"})["paths"])
    # Everything that returns paths returns allowed ones only.
    for q in ("Vault Plans", SECRET, "Lu Xun", "Sherlock Holmes"):
        hits = go("GET", "search", params={"q": q, "limit": 20})["hits"]
        assert all(_visible(hit["path"]) for hit in hits), hits
        lines = go("GET", "nav", params={"q": q, "max_reads": 30, "budget_ms": 60000})
        results = [json.loads(line) for line in lines.splitlines() if line]
        assert results, q
        assert all(_visible(r["path"]) for r in results), results
        answer = go("POST", "ask", json={"question": f"What about {q}?"})
        assert all(_visible(c["path"]) for c in answer["citations"])
    drill = go("GET", "drill", params={"path": "/", "levels": 4})
    assert all(_visible(n["path"]) for n in drill["nodes"])
    assert {"/people/Lu Xun", "/places/Shaoxing"} <= {n["path"] for n in drill["nodes"]}
    up = go("GET", "rollup", params={"path": "/people/Lu Xun"})["ancestors"]
    assert [a["path"] for a in up] == [ROOT, "/people"]
    assert up[0]["overview"] == ""
    # A link to a hidden page resolves nowhere, as if it did not exist.
    insider = go("POST", "read", json={"paths": ["/people/Insider"]})["items"][0]
    assert [link["path"] for link in insider["links"]] == [None]
    for entry in go("GET", "audit", params={"limit": 500})["entries"]:
        assert _visible(entry["path"]), entry
    # Writes inside the allow-list work.
    assert go("PUT", "page", json={"path": "/people/New Person", "text": "Hello."})["version"] == 1
    for status, body in bodies:
        assert SECRET not in body.replace(f'"question":"What about {SECRET}?"', "")
        if status == 200:
            assert "/vault" not in body


def test_a_revoked_key_stops_at_once(keyed: tuple[str, Keys], client: httpx.Client) -> None:
    url, keys = keyed
    store_dir = str(keys.root)
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "wikikv",
            "keys",
            "create",
            "--store",
            store_dir,
            "--kb",
            "demo",
            "--name",
            "temp",
            "--scope",
            "read",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    created = json.loads(made.stdout)
    h = headers(created["token"])
    assert client.get(f"{url}{DEMO}/get", params={"path": "/"}, headers=h).status_code == 200
    listed = subprocess.run(
        [
            sys.executable,
            "-m",
            "wikikv",
            "keys",
            "list",
            "--store",
            store_dir,
            "--kb",
            "demo",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert created["id"] in {k["id"] for k in json.loads(listed.stdout)}
    assert "secret" not in listed.stdout
    assert created["token"].rsplit(":", 1)[1] not in listed.stdout
    subprocess.run(
        [
            sys.executable,
            "-m",
            "wikikv",
            "keys",
            "revoke",
            "--store",
            store_dir,
            "--kb",
            "demo",
            created["id"],
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    r = client.get(f"{url}{DEMO}/get", params={"path": "/"}, headers=h)
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "unauthenticated"
