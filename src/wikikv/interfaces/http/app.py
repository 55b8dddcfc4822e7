"""The HTTP API as an ASGI app: :func:`create_app`.

Routes (all JSON; OpenAPI at ``/openapi.json``, docs at ``/docs``)::

    GET  /healthz  /readyz  /metrics
    GET  /v1/kbs
    GET  /v1/kbs/{kb}/get?path=       ls?path=&page=     prefix?text=&limit=
    GET  /v1/kbs/{kb}/search?q=       drill?path=&levels= rollup?path=   audit?kind=&path=
    POST /v1/kbs/{kb}/read  {paths}   ask {question, max_reads, budget_ms}
    GET  /v1/kbs/{kb}/nav?q=&budget_ms=&max_reads=&format=ndjson|sse     (streamed)
    PUT/DELETE /v1/kbs/{kb}/page                                         (write scope)
    POST /v1/kbs/{kb}/jobs/{build|add|update|remove}; GET/DELETE .../jobs/{id}   (admin)
    GET  /v1/kbs/{kb}/descriptor  check                                  (admin for check)

Errors are ``{"error": {"code", "message", "type"}}`` with the status of
:data:`wikikv.interfaces.http.errors.ERROR_TABLE`.

Mounting another router (the web wiki browser does this)::

    from fastapi import APIRouter, Request
    from wikikv.interfaces.http.context import kb_access

    router = APIRouter()

    @router.get("/wiki/{kb}/page")
    async def page(kb: str, path: str, request: Request) -> HTMLResponse:
        access = await kb_access(request, kb, "read")   # key -> 401, other kb / scope -> 403
        p = access.principal.check_path(path)           # outside the allow-list -> 403
        access.note(p)                                  # the ACCESS record names this path
        rec = await access.app.call(access.view.get, p) # read through the caller's view
        ...

    app = create_app(store, routers=[router])           # or app.include_router(router) later

Auth and ACLs are applied by :func:`kb_access` and the caller's view (:class:`ScopedKB`), not
by middleware: a route that never calls ``kb_access`` is public (like ``/healthz``). Every
response of a request that called ``kb_access`` leaves one ACCESS record (who, route, path,
status) in the kb's log. Typed WikiKV errors raised anywhere in a route become JSON errors.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from wikikv import __version__
from wikikv.config import CacheSettings
from wikikv.errors import RequestTooLarge, WikiKVError
from wikikv.interfaces.http import models as m
from wikikv.interfaces.http.context import AppState, ServerConfig, app_state, json_response
from wikikv.interfaces.http.errors import BAD_REQUEST, classify, error_body
from wikikv.interfaces.http.jobs import JobRunner
from wikikv.interfaces.http.metrics import CONTENT_TYPE, Metrics
from wikikv.library import open_store
from wikikv.store.access import AccessLog
from wikikv.store.apikeys import keys_configured
from wikikv.store.store import Store

ASGIHandler = Callable[[Scope, Receive, Send], Awaitable[None]]


class ServingMiddleware:
    """Pure ASGI (no per-request task): body-size limit, latency metrics, ACCESS records."""

    def __init__(self, app: ASGIApp, state: AppState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [500]
        limit = self.state.config.max_body_bytes
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            exc = RequestTooLarge(declared, limit)
            response = json_response(
                error_body("request_too_large", str(exc), "RequestTooLarge"), 413
            )
            await response(scope, receive, send)
            return
        seen = [0]

        async def limited_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                seen[0] += len(message.get("body", b""))
                if seen[0] > limit:
                    raise RequestTooLarge(seen[0], limit)
            return message

        done = [False]

        def finish() -> None:
            if not done[0]:
                done[0] = True
                self._after(scope, status[0], time.perf_counter() - started)

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                finish()  # before the last byte leaves: the caller's next request sees it
            await send(message)

        try:
            await self.app(scope, limited_receive, watch)
        finally:
            finish()

    def _after(self, scope: Scope, status: int, seconds: float) -> None:
        route = scope.get("route")
        template = getattr(route, "path", None) or "unmatched"
        metrics = self.state.metrics
        if metrics is not None:
            metrics.observe(scope["method"], template, status, seconds)
        st: MutableMapping[str, Any] = scope.get("state") or {}
        kb = st.get("audit_kb")
        if kb is None:
            return
        principal = st.get("principal")
        if principal is not None:
            who = principal.who
        else:
            client = scope.get("client")
            who = f"anonymous@{client[0]}" if client else "anonymous"
        if status in (401, 403) or (status == 404 and principal is None):
            # A refused request still leaves its trace in the kb it aimed at, if that kb exists.
            try:
                if not self.state.store.has_kb(kb):
                    return
            except WikiKVError:
                return
        elif status == 404 and st.get("audit_path") is None:
            return  # an unknown kb: nothing to record it in
        self.state.access.record(
            kb,
            who,
            f"{scope['method']} {template}",
            st.get("audit_path") or "",
            str(status),
            st.get("audit_detail", ""),
        )


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _install_errors(app: FastAPI) -> None:
    async def typed(request: Request, exc: Exception) -> Response:
        status, code = classify(exc)
        return json_response(error_body(code, str(exc), type(exc).__name__), status)

    async def invalid(request: Request, exc: Exception) -> Response:
        errors = exc.errors() if isinstance(exc, RequestValidationError) else []
        parts = [
            f"{'.'.join(str(x) for x in e.get('loc', ()))}: {e.get('msg', '')}" for e in errors[:5]
        ]
        message = "; ".join(parts) or str(exc)
        return json_response(error_body(BAD_REQUEST, message, "RequestValidationError"), 400)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return json_response(error_body(code, str(exc.detail), "HTTPException"), exc.status_code)

    app.add_exception_handler(WikiKVError, typed)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http_error)


def _health_router() -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz", response_model=m.HealthOut, summary="The process is up")
    async def healthz() -> Response:
        return json_response({"status": "ok"})

    @router.get(
        "/readyz",
        response_model=m.HealthOut,
        responses={503: {"model": m.HealthOut}},
        summary="The store answers",
    )
    async def readyz(request: Request) -> Response:
        state = app_state(request)
        try:
            keyed = await state.call(keys_configured, state.store.backend)
        except WikiKVError as exc:
            return json_response({"status": f"unavailable: {exc}"}, 503)
        return json_response(
            {
                "status": "ready",
                "store": state.store.backend.scheme,
                "auth": "api-keys" if keyed else "open (no key configured; loopback only)",
            }
        )

    @router.get(
        "/metrics",
        response_class=Response,
        responses={200: {"content": {CONTENT_TYPE: {"schema": {"type": "string"}}}}},
        summary="Prometheus metrics",
    )
    async def metrics(request: Request) -> Response:
        state = app_state(request)
        body = await state.slow(state.metrics.render)
        return Response(body, media_type=CONTENT_TYPE)

    return router


def create_app(
    store: Store | str,
    config: ServerConfig | None = None,
    *,
    routers: Sequence[APIRouter] = (),
) -> FastAPI:
    """The API over ``store`` (a :class:`Store`, or a URL the app opens and closes itself).
    ``routers`` are mounted after the API's own (see the module docstring)."""
    from wikikv.interfaces.http import routes_read, routes_write

    cfg = config or ServerConfig()
    owns = isinstance(store, str)
    if isinstance(store, str):
        cache = CacheSettings(l1=True, l2_url=cfg.l2_url) if cfg.cache else None
        opened = open_store(store, cache=cache)
    else:
        opened = store
    state = AppState(
        opened,
        cfg,
        AccessLog(opened.backend, cfg.access_flush_interval),
        owns_store=owns,
    )
    state.jobs = JobRunner(cfg.llm)
    state.metrics = Metrics(state)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        state.access.start()
        try:
            yield
        finally:
            state.access.close()
            if state.owns_store:
                state.store.close()

    app = FastAPI(
        title="WikiKV",
        version=__version__,
        summary="Read, navigate, ask and compile WikiKV knowledge bases.",
        lifespan=lifespan,
    )
    app.state.wikikv = state
    _install_errors(app)
    app.include_router(_health_router())
    app.include_router(routes_read.router)
    app.include_router(routes_write.router)
    app.include_router(routes_write.admin)
    for router in routers:
        app.include_router(router)
    app.add_middleware(ServingMiddleware, state=state)
    return app


__all__ = ["ServerConfig", "create_app"]
