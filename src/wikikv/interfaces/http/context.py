"""Per-app state and the request dependencies every router shares (auth, kb, ACL, audit notes).

Routers get the caller and the kb through :func:`kb_access`::

    @router.get("/v1/kbs/{kb}/thing")
    async def thing(kb: str, path: str, request: Request) -> Response:
        access = await kb_access(request, kb, "read")   # 401/403/404 raised here
        p = access.principal.check_path(path)            # 403 outside the key's allow-list
        access.note(p)                                   # what the ACCESS record names
        view = access.view                               # the kb as this key may see it
        data = await access.app.call(compute, view, p)   # blocking work off the event loop
        return json_response(data)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio.to_thread
import msgspec
from starlette.requests import Request
from starlette.responses import Response

from wikikv.errors import UnknownKB
from wikikv.interfaces.http.auth import Principal, principal_for, token_of
from wikikv.store.access import AccessLog
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store

T = TypeVar("T")
_json = msgspec.json.Encoder()
EMBEDDED = ("lmdb", "memory")


@dataclass
class ServerConfig:
    """Settings of one server (``wikikv serve`` options)."""

    max_body_bytes: int = 8 << 20
    max_nav_budget_ms: float = 10_000.0
    llm: str = "offline"
    access_flush_interval: float = 0.2
    allow_write: bool = True
    kbs: list[str] = field(default_factory=list)  # serve only these (empty: every kb)
    cache: bool = False  # open the store behind the L1 cache tier (and L2 with l2_url)
    l2_url: str | None = None


@dataclass
class AppState:
    """What the routes of one app share: the store, the ACCESS log, jobs, metrics."""

    store: Store
    config: ServerConfig
    access: AccessLog
    jobs: Any = None
    metrics: Any = None
    owns_store: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def inline(self) -> bool:
        """Embedded engines answer in microseconds: call them on the event loop; a network
        engine (Redis, PostgreSQL) may block, so its calls run in the thread pool."""
        return self.store.backend.scheme in EMBEDDED

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self.inline:
            return fn(*args, **kwargs)
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

    async def slow(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Work that may take milliseconds on any engine (search, nav, ask): always off-loop."""
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))


def app_state(request: Request) -> AppState:
    state: AppState = request.app.state.wikikv
    return state


@dataclass
class Access:
    """One request's caller, kb and view; ``note`` says what its ACCESS record names."""

    app: AppState
    request: Request
    principal: Principal
    kb: KnowledgeBase

    @property
    def view(self) -> KnowledgeBase:
        return self.principal.view(self.kb)

    def note(self, path: str, detail: str = "") -> None:
        self.request.state.audit_path = path
        if detail:
            self.request.state.audit_detail = detail[:300]


async def caller(request: Request) -> Principal:
    """The request's caller (401 when the store has keys and this request shows none)."""
    cached = getattr(request.state, "principal", None)
    if isinstance(cached, Principal):
        return cached
    app = app_state(request)
    token = token_of(request.headers.get("authorization"), request.headers.get("x-api-key"))
    principal = await app.call(principal_for, app.store.backend, token)
    request.state.principal = principal
    return principal


async def kb_access(request: Request, kb: str, scope: str) -> Access:
    """Authenticate, check the kb and the scope, open the kb — in that order, so a key of
    another kb learns nothing (not even whether ``kb`` exists)."""
    app = app_state(request)
    request.state.audit_kb = kb
    principal = await caller(request)
    principal.check_kb(kb)
    principal.check_scope(scope)
    if app.config.kbs and kb not in app.config.kbs:
        raise UnknownKB(kb)  # names only the kb asked for, like the store's own error
    found = await app.call(app.store.kb, kb)
    return Access(app, request, principal, found)


async def usable_kbs(app: AppState, principal: Principal) -> list[str]:
    """The kbs this server serves to this caller."""
    names = await app.call(app.store.kbs)
    served = app.config.kbs
    return [n for n in names if principal.kb in (None, n) and (not served or n in served)]


def json_response(data: Any, status: int = 200) -> Response:
    return Response(_json.encode(data), status_code=status, media_type="application/json")


__all__ = [
    "Access",
    "AppState",
    "ServerConfig",
    "app_state",
    "caller",
    "json_response",
    "kb_access",
]
