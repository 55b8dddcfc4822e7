"""Every typed error becomes its status code and stable code, over a real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import wikikv
from wikikv import errors as e
from wikikv.config import StoreSettings
from wikikv.interfaces.http.app import create_app
from wikikv.interfaces.http.context import ServerConfig
from wikikv.interfaces.http.errors import ERROR_TABLE, classify
from wikikv.store.apikeys import create_key
from wikikv.testing.http_server import LoopbackServer

from .conftest import headers


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, wikikv.Store]]:
    """A server whose store takes records up to 4 KiB and requests up to 64 KiB."""
    root = tmp_path_factory.mktemp("small")
    store = wikikv.open_store(f"lmdb://{root}?sync=false", StoreSettings(max_record_bytes=4096))
    kb = store.create_kb("demo")
    kb.put("/people/Lu Xun", "Writer.")
    with LoopbackServer(create_app(store, ServerConfig(max_body_bytes=64 * 1024))) as url:
        yield url, store
    store.close()


def expect(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code


def test_400_404_409(small: tuple[str, wikikv.Store], client: httpx.Client) -> None:
    url, _ = small
    expect(client.get(f"{url}/v1/kbs/demo/get", params={"path": "relative"}), 400, "invalid_path")
    expect(client.get(f"{url}/v1/kbs/demo/get", params={"path": "/a//b"}), 400, "invalid_path")
    expect(client.get(f"{url}/v1/kbs/Bad!Name/get", params={"path": "/"}), 400, "invalid_kb_name")
    expect(client.get(f"{url}/v1/kbs/demo/search"), 400, "bad_request")  # q is required
    expect(client.get(f"{url}/v1/kbs/nokb/get", params={"path": "/"}), 404, "unknown_kb")
    expect(client.get(f"{url}/v1/kbs/demo/get", params={"path": "/nope"}), 404, "not_found")
    expect(
        client.get(f"{url}/v1/kbs/demo/ls", params={"path": "/people/Lu Xun"}),
        400,
        "not_a_directory",
    )
    expect(client.get(f"{url}/no/such/route"), 404, "not_found")
    body = {"path": "/people/Lu Xun", "text": "Stale write.", "expect_version": 7}
    expect(client.put(f"{url}/v1/kbs/demo/page", json=body), 409, "version_conflict")
    body = {"path": "/people", "text": "A page over a directory."}
    expect(client.put(f"{url}/v1/kbs/demo/page", json=body), 400, "is_a_directory")
    expect(
        client.delete(f"{url}/v1/kbs/demo/page", params={"path": "/people"}),
        409,
        "directory_not_empty",
    )
    # Nothing changed: the page is still at version 1 with its text.
    page = client.get(f"{url}/v1/kbs/demo/get", params={"path": "/people/Lu Xun"}).json()
    assert (page["text"], page["meta"]["version"]) == ("Writer.", 1)


def test_413_too_large(small: tuple[str, wikikv.Store], client: httpx.Client) -> None:
    url, store = small
    body = {"path": "/big/page", "text": "x" * 8000}
    expect(client.put(f"{url}/v1/kbs/demo/page", json=body), 413, "record_too_large")
    huge = {"path": "/big/page", "text": "x" * 100_000}
    expect(client.put(f"{url}/v1/kbs/demo/page", json=huge), 413, "request_too_large")
    assert not store.kb("demo").exists("/big/page")


def test_423_while_a_job_holds_the_kb(
    small: tuple[str, wikikv.Store], client: httpx.Client
) -> None:
    url, store = small
    with store.kb("demo").lease("test-bulk-job"):
        body = {"path": "/people/Zhou Zuoren", "text": "Brother."}
        expect(client.put(f"{url}/v1/kbs/demo/page", json=body), 423, "kb_locked")
    assert client.put(f"{url}/v1/kbs/demo/page", json=body).status_code == 200


def test_401_403(tmp_path: Path, client: httpx.Client) -> None:
    with wikikv.open_store(f"lmdb://{tmp_path}?sync=false") as store:
        kb = store.create_kb("demo")
        reader = create_key(kb, "reader", ["read"]).token
        with LoopbackServer(create_app(store)) as url:
            get = f"{url}/v1/kbs/demo/get"
            expect(client.get(get, params={"path": "/"}), 401, "unauthenticated")
            bad = headers(reader[:-2] + "xx")
            expect(client.get(get, params={"path": "/"}, headers=bad), 401, "unauthenticated")
            junk = {"Authorization": "Bearer not-a-key"}
            expect(client.get(get, params={"path": "/"}, headers=junk), 401, "unauthenticated")
            assert client.get(get, params={"path": "/"}, headers=headers(reader)).status_code == 200
            assert (
                client.get(get, params={"path": "/"}, headers={"X-API-Key": reader}).status_code
                == 200
            )
            body = {"path": "/x", "text": "no"}
            put = client.put(f"{url}/v1/kbs/demo/page", json=body, headers=headers(reader))
            expect(put, 403, "forbidden")
            # Health, readiness and metrics stay public.
            assert client.get(f"{url}/readyz").json()["auth"] == "api-keys"


def test_read_only_server_refuses_writes(tmp_path: Path, client: httpx.Client) -> None:
    with wikikv.open_store(f"lmdb://{tmp_path}?sync=false") as store:
        store.create_kb("demo")
        with LoopbackServer(create_app(store, ServerConfig(allow_write=False))) as url:
            r = client.put(f"{url}/v1/kbs/demo/page", json={"path": "/x", "text": "no"})
            expect(r, 403, "forbidden")
            assert not store.kb("demo").exists("/x")


def _instance(cls: type[BaseException]) -> BaseException:
    samples: dict[type[BaseException], BaseException] = {
        e.InvalidPath: e.InvalidPath("x", "relative", "detail"),
        e.InvalidKBName: e.InvalidKBName("X", "detail"),
        e.RecordTooLarge: e.RecordTooLarge("/x", 10, 5),
        e.RequestTooLarge: e.RequestTooLarge(10, 5),
        e.UnknownKB: e.UnknownKB("x"),
        e.ConflictError: e.ConflictError("/x", 1, 2),
        e.PageMoved: e.PageMoved("/x", "/y", "write it at /y", None, 2),
        e.ReadOnlySource: e.ReadOnlySource("/sources/x", "message"),
    }
    return samples.get(cls) or cls("message")


@pytest.mark.parametrize(
    ("cls", "status", "code"), ERROR_TABLE, ids=lambda v: getattr(v, "__name__", str(v))
)
def test_every_typed_error_has_its_row(cls: type[BaseException], status: int, code: str) -> None:
    # Subclasses come before their bases, so each class lands on its own row.
    assert classify(_instance(cls)) == (status, code)


def test_serve_without_keys_binds_loopback_only(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from wikikv.interfaces.cli import main

    store_dir = str(tmp_path / "s")
    with wikikv.open_store(store_dir) as store:
        store.create_kb("demo")
    refused = CliRunner().invoke(main, ["serve", "--store", store_dir, "--host", "0.0.0.0"])
    assert refused.exit_code == 1
    assert "binds loopback only" in refused.output
    from wikikv.interfaces.http.server import auth_notice

    assert "WITHOUT authentication, on loopback only" in auth_notice(store_dir, "127.0.0.1")
    with wikikv.open_store(store_dir) as store:
        create_key(store.kb("demo"), "ops", ["read"])
    assert auth_notice(store_dir, "0.0.0.0").startswith("API keys configured")
