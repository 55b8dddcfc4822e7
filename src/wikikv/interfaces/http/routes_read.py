"""Read routes: get, ls (paged), prefix, search, read (batch), nav (streamed), ask, drill,
rollup, audit. Every one goes through :func:`kb_access` (key, kb, scope) and the caller's
path allow-list, and reads through the caller's view of the kb."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any, Literal

import msgspec
from fastapi import APIRouter, Query, Request
from starlette.responses import Response, StreamingResponse

from wikikv.errors import Forbidden, NotFound
from wikikv.interfaces.http import models as m
from wikikv.interfaces.http.context import (
    app_state,
    caller,
    json_response,
    kb_access,
    usable_kbs,
)
from wikikv.query.answer import ask
from wikikv.query.budget import Budget
from wikikv.query.nav import nav
from wikikv.query.ops import MAX_DRILL_LEVELS, drill_down, roll_up, wiki_read, wiki_search
from wikikv.store.access import read_access
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT
from wikikv.store.records import DirRecord, FileRecord, NodeRecord, RedirectRecord

router = APIRouter(prefix="/v1", tags=["read"])

PathQ = Annotated[
    str, Query(min_length=1, max_length=4096, description="A wiki path, e.g. /people")
]
KB = Annotated[str, "kb"]
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": m.ErrorOut} for code in (400, 401, 403, 404, 413, 423, 500, 503)
}


def node_json(rec: NodeRecord) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(rec)  # records omit default fields: restore them
    data.setdefault("meta", {})
    if isinstance(rec, FileRecord):
        data["type"] = "file"
        data.setdefault("text", "")
    elif isinstance(rec, DirRecord):
        data["type"] = "dir"
        data.setdefault("text", "")
        data.setdefault("sub_dirs", [])
        data.setdefault("files", [])
    elif isinstance(rec, RedirectRecord):
        data["type"] = "redirect"
    return data


def _get(kb: KnowledgeBase, path: str) -> dict[str, Any]:
    rec = kb.get(path)
    if rec is None:
        raise NotFound(f"no page or directory at {path!r} in kb {kb.name!r}")
    return node_json(rec)


@router.get("/kbs", response_model=m.KBsOut, responses=ERRORS, summary="The kbs this key may use")
async def list_kbs(request: Request) -> Response:
    app = app_state(request)
    principal = await caller(request)
    return json_response({"kbs": await usable_kbs(app, principal)})


@router.get(
    "/kbs/{kb}/get", response_model=m.NodeOut, responses=ERRORS, summary="One page or directory"
)
async def get_node(kb: str, path: PathQ, request: Request) -> Response:
    access = await kb_access(request, kb, "read")
    p = access.principal.check_path(path, traverse=True)
    access.note(p)
    return json_response(await access.app.call(_get, access.view, p))


def _ls(kb: KnowledgeBase, path: str, page: int) -> dict[str, Any]:
    listing = kb.ls(path, page)
    return {
        "path": listing.path,
        "page": listing.page,
        "pages": listing.pages,
        "sub_dirs": listing.sub_dirs,
        "files": listing.files,
        "text": listing.text if page == 0 else "",
    }


@router.get(
    "/kbs/{kb}/ls", response_model=m.ListingOut, responses=ERRORS, summary="A directory, paged"
)
async def ls(
    kb: str,
    request: Request,
    path: PathQ = ROOT,
    page: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> Response:
    access = await kb_access(request, kb, "read")
    p = access.principal.check_path(path, traverse=True)
    access.note(p)
    return json_response(await access.app.call(_ls, access.view, p, page))


@router.get(
    "/kbs/{kb}/prefix", response_model=m.PrefixOut, responses=ERRORS, summary="Paths by prefix"
)
async def prefix(
    kb: str,
    request: Request,
    text: Annotated[str, Query(max_length=4096)] = "/",
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> Response:
    access = await kb_access(request, kb, "read")
    acl = access.principal.acl
    if not any(pre.startswith(text) or text.startswith(pre) for pre in acl.prefixes or ("/",)):
        raise Forbidden(f"no path starting with {text!r} is in this key's allow-list")
    access.note(text)
    paths = await access.app.call(access.view.prefix, text, limit)
    return json_response({"paths": paths})


@router.get("/kbs/{kb}/search", response_model=m.SearchOut, responses=ERRORS, summary="Search")
async def search(
    kb: str,
    request: Request,
    q: Annotated[str, Query(min_length=1, max_length=1000)],
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    kind: Annotated[list[str] | None, Query(max_length=20)] = None,
) -> Response:
    access = await kb_access(request, kb, "read")
    access.note(ROOT, f"q={q}")
    hits = await access.app.slow(wiki_search, access.view, q, limit, kind or None)
    return json_response({"hits": hits})


def _read(kb: KnowledgeBase, paths: list[str]) -> list[dict[str, Any]]:
    return wiki_read(kb, paths)


@router.post(
    "/kbs/{kb}/read", response_model=m.ReadOut, responses=ERRORS, summary="Read pages (batch)"
)
async def read(kb: str, body: m.ReadIn, request: Request) -> Response:
    access = await kb_access(request, kb, "read")
    paths = [access.principal.check_path(p) for p in body.paths]
    access.note(paths[0], f"{len(paths)} paths")
    items = await access.app.call(_read, access.view, paths)
    return json_response({"items": items})


def _nav_lines(kb: KnowledgeBase, query: str, budget: Budget, fmt: str) -> Iterator[bytes]:
    for result in nav(kb, query, budget):
        line = json.dumps(result.to_dict(), ensure_ascii=False)
        if fmt == "sse":
            yield f"event: result\ndata: {line}\n\n".encode()
        else:
            yield (line + "\n").encode()
    if fmt == "sse":
        yield b"event: end\ndata: {}\n\n"


@router.get(
    "/kbs/{kb}/nav",
    responses={
        **ERRORS,
        200: {
            "description": "Results as they are found, coarse to fine: NDJSON lines (the "
            "`wikikv nav --json` stream) or Server-Sent Events (`event: result`, then "
            "`event: end`).",
            "content": {
                "application/x-ndjson": {"schema": m.NavResultOut.model_json_schema()},
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "event": {"type": "string", "enum": ["result", "end"]},
                            "data": {"type": "string", "description": "A NavResult as JSON"},
                        },
                        "required": ["data"],
                    }
                },
            },
        },
    },
    response_class=StreamingResponse,
    summary="Budgeted navigation, streamed",
)
async def nav_stream(
    kb: str,
    request: Request,
    q: Annotated[str, Query(min_length=1, max_length=1000)],
    budget_ms: Annotated[float, Query(gt=0, le=60_000)] = 50.0,
    max_reads: Annotated[int | None, Query(ge=1, le=10_000)] = None,
    format: Annotated[Literal["ndjson", "sse"] | None, Query()] = None,
) -> StreamingResponse:
    access = await kb_access(request, kb, "read")
    access.note(ROOT, f"q={q}")
    fmt = format or (
        "sse" if "text/event-stream" in request.headers.get("accept", "") else "ndjson"
    )
    ms = min(budget_ms, access.app.config.max_nav_budget_ms)
    budget = Budget(ms=ms, max_reads=max_reads)
    media = "text/event-stream" if fmt == "sse" else "application/x-ndjson"
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        _nav_lines(access.view, q, budget, fmt), media_type=media, headers=headers
    )


def _ask(kb: KnowledgeBase, body: m.AskIn, llm: str) -> dict[str, Any]:
    provider = None
    if llm == "openai":
        from wikikv.llm.openai_compat import OpenAICompatProvider

        provider = OpenAICompatProvider.from_env()
    try:
        answer = ask(
            kb,
            body.question,
            provider,
            Budget(ms=body.budget_ms, max_reads=body.max_reads),
            allow_direct=body.allow_direct,
        )
    finally:
        if provider is not None:
            provider.close()
    return answer.to_dict()


@router.post(
    "/kbs/{kb}/ask", response_model=m.AskOut, responses=ERRORS, summary="Ask, with citations"
)
async def ask_route(kb: str, body: m.AskIn, request: Request) -> Response:
    access = await kb_access(request, kb, "read")
    access.note(ROOT, f"q={body.question}")
    result = await access.app.slow(_ask, access.view, body, access.app.config.llm)
    return json_response(result)


@router.get("/kbs/{kb}/drill", response_model=m.DrillOut, responses=ERRORS, summary="Drill down")
async def drill(
    kb: str,
    request: Request,
    path: PathQ = ROOT,
    levels: Annotated[int, Query(ge=0, le=MAX_DRILL_LEVELS)] = 1,
) -> Response:
    access = await kb_access(request, kb, "read")
    p = access.principal.check_path(path, traverse=True)
    access.note(p)
    return json_response(await access.app.slow(drill_down, access.view, p, levels))


def _rollup(kb: KnowledgeBase, path: str) -> dict[str, Any]:
    return {"path": path, "ancestors": roll_up(kb, path)}


@router.get("/kbs/{kb}/rollup", response_model=m.RollupOut, responses=ERRORS, summary="Roll up")
async def rollup(kb: str, request: Request, path: PathQ) -> Response:
    access = await kb_access(request, kb, "read")
    p = access.principal.check_path(path)
    access.note(p)
    return json_response(await access.app.call(_rollup, access.view, p))


@router.get("/kbs/{kb}/audit", response_model=m.AuditOut, responses=ERRORS, summary="Audit trail")
async def audit(
    kb: str,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 50,
    path: Annotated[str | None, Query(max_length=4096)] = None,
    kind: Annotated[Literal["changes", "access"], Query()] = "changes",
) -> Response:
    """The change trail (who changed which path) or, with ``kind=access``, the ACCESS records
    (who read or wrote which path through which route). A key with an allow-list sees only
    the entries of its paths; ACCESS records need the admin scope."""
    access = await kb_access(request, kb, "read")
    access.note(path or ROOT, f"kind={kind}")
    if path is not None:
        access.principal.check_path(path, traverse=True)
    app = access.app
    if kind == "access":
        if not access.principal.acl.unrestricted or "admin" not in access.principal.scopes:
            raise Forbidden("ACCESS records need an admin key without a path allow-list")
        await app.slow(app.access.flush)
        entries: list[Any] = await app.slow(
            lambda: list(read_access(app.store.backend, kb, limit, path))
        )
    else:
        entries = await app.slow(access.view.audit, limit, path)
    return json_response({"kind": kind, "entries": msgspec.to_builtins(entries)})
