"""The MCP server over streamable HTTP, behind the same API keys as the HTTP API.

:class:`KeyGate` answers 401 before the MCP transport sees a request without a valid key (once
any key exists in the store); the tools then apply the key's kb, scopes and allow-list.
"""

from __future__ import annotations

import json
from typing import Any

import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from wikikv.errors import WikiKVError
from wikikv.interfaces.http.auth import principal_for, token_of
from wikikv.interfaces.http.errors import classify, error_body
from wikikv.interfaces.mcp.server import MCPConfig, build_server
from wikikv.store.store import Store


class KeyGate:
    """Pure ASGI: refuse HTTP requests whose key does not authenticate."""

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", ())}
        token = token_of(headers.get("authorization"), headers.get("x-api-key"))
        try:
            await anyio.to_thread.run_sync(principal_for, self.store.backend, token)
        except WikiKVError as exc:
            status, code = classify(exc)
            body = json.dumps(error_body(code, str(exc), type(exc).__name__)).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b"Bearer"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def mcp_http_app(store: Store, config: MCPConfig, host: str = "127.0.0.1") -> Any:
    """The streamable-HTTP ASGI app (endpoint ``/mcp``) guarded by :class:`KeyGate`."""
    server = build_server(store, config)
    inner = server.streamable_http_app(host=host, stateless_http=True, json_response=True)
    return KeyGate(inner, store)


__all__ = ["KeyGate", "mcp_http_app"]
