"""Schemathesis over the served OpenAPI document: generated requests to every operation find no
5xx, no undocumented status or content type, and no response that breaks its schema.

Bounded: a few examples per operation (the ``ci`` profile's 50 would take minutes), against a
throwaway store with the sample kb, so generated writes and jobs harm nothing.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from wikikv.testing.http_server import free_port

from .conftest import build_store

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    """``wikikv serve`` in its own process (hypothesis watches this process's global random
    state, which the server's threads would touch)."""
    root: Path = tmp_path_factory.mktemp("schema-store")
    build_store(root)
    port = free_port()
    cmd = [sys.executable, "-m", "wikikv", "serve", "--store", str(root), "--port", str(port)]
    log = root / "serve.log"
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "wikikv serve did not start"
            time.sleep(0.05)
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")
    finally:
        proc.terminate()
        proc.wait(timeout=15)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_openapi_conformance(case: schemathesis.Case) -> None:
    # Most generated kb names do not exist; aim half of them at the real one.
    if "kb" in (case.path_parameters or {}) and hash(str(case.query)) % 2 == 0:
        case.path_parameters["kb"] = "demo"
    case.call_and_validate(checks=CHECKS)
