"""Running the API under uvicorn (``wikikv serve``), one process or ``workers`` processes.

Workers are separate processes that each open the store (LMDB readers never block; writes
serialize in the engine), so the app is built by :func:`app_from_env` from settings passed in
the environment — uvicorn imports it by name in every worker.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
from dataclasses import asdict

from fastapi import FastAPI

from wikikv.errors import ConfigError
from wikikv.interfaces.http.context import ServerConfig
from wikikv.store.apikeys import keys_configured
from wikikv.store.store import open_store

ENV = "WIKIKV_SERVE_SETTINGS"
FACTORY = "wikikv.interfaces.http.server:app_from_env"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def auth_notice(store_url: str, host: str) -> str:
    """The line ``serve`` prints about auth; refuses a non-loopback bind with no key."""
    with open_store(store_url) as store:
        keyed = keys_configured(store.backend)
    if keyed:
        return "API keys configured: every request needs Authorization: Bearer wkv:..."
    if not is_loopback(host):
        raise ConfigError(
            f"no API key is configured, so the server binds loopback only, not {host!r}: "
            "create a key first (wikikv keys create --kb NAME --name WHO --scope read)"
        )
    return (
        "No API key configured: serving WITHOUT authentication, on loopback only "
        "(create one with `wikikv keys create` to require keys)."
    )


def app_from_env() -> FastAPI:
    from wikikv.interfaces.http.app import create_app
    from wikikv.interfaces.web import router as web_browser

    raw = json.loads(os.environ[ENV])
    return create_app(raw["store"], ServerConfig(**raw["config"]), routers=[web_browser])


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def run(
    store_url: str,
    host: str,
    port: int,
    workers: int,
    config: ServerConfig,
    log_level: str = "warning",
) -> None:
    import uvicorn

    os.environ[ENV] = json.dumps({"store": store_url, "config": asdict(config)})
    uvicorn.run(
        FACTORY,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        access_log=False,  # the ACCESS records in the store are the access log
        proxy_headers=True,
        server_header=False,
    )


__all__ = ["app_from_env", "auth_notice", "free_port", "is_loopback", "run"]
