"""The web wiki browser: an APIRouter mounted on the HTTP API app (``create_app(store,
routers=[web.router])``; ``wikikv serve`` does it), serving server-rendered HTML at ``/``.

Every kb route goes through the API's :func:`kb_access` — so keys, scopes, path allow-lists and
ACCESS records apply exactly as for the JSON API — after :func:`_cookie_caller` has turned the
login cookie into the request's caller. The cookie holds the API key the user typed into the
login form, flagged HttpOnly (no script reads it) and SameSite=Strict (no other site sends it).

Every HTML response carries a Content-Security-Policy that allows scripts and styles from this
origin only, no inline script, no plugins, no framing: page text is sanitized on its way to HTML
(:mod:`.markdown`), and the policy stops anything that might still slip through from running.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterator
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Request
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from wikikv.errors import AccessDenied, NotFound, Unauthenticated, WikiKVError
from wikikv.interfaces.http.auth import principal_for
from wikikv.interfaces.http.context import Access, app_state, caller, kb_access
from wikikv.interfaces.http.errors import classify
from wikikv.interfaces.web import views
from wikikv.interfaces.web.i18n import LANG_COOKIE, LANGS, STRINGS, pick_lang
from wikikv.query.budget import Budget
from wikikv.query.nav import nav
from wikikv.search import search
from wikikv.store.apikeys import keys_configured
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT

KEY_COOKIE = "wikikv_key"
STATIC = "/static/wikikv"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
AUDIT_LIMIT = 200
SEARCH_LIMIT = 20
SUGGEST_NAMES = 8

router = APIRouter(include_in_schema=False)
_env = Environment(
    loader=PackageLoader("wikikv.interfaces.web", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


# ------------------------------------------------------------------------------ helpers
def render_template(lang: str, template: str, request: Request | None, **context: Any) -> str:
    other = LANGS[1 - LANGS.index(lang)]
    lang_url = (
        f"?lang={other}" if request is None else str(request.url.include_query_params(lang=other))
    )
    return _env.get_template(template).render(
        t=STRINGS[lang], lang=lang, static=STATIC, lang_url=lang_url, **context
    )


def respond(request: Request, body: str, status: int = 200) -> HTMLResponse:
    response = HTMLResponse(body, status_code=status, headers=SECURITY_HEADERS)
    if request.query_params.get("lang") in LANGS:
        response.set_cookie(LANG_COOKIE, pick_lang(request), max_age=365 * 86400, samesite="strict")
    return response


def html(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    body = render_template(pick_lang(request), template, request, **context)
    return respond(request, body, status)


async def _cookie_caller(request: Request) -> None:
    """A browser shows its key as the login cookie; an API client's header still wins."""
    if request.headers.get("authorization") or request.headers.get("x-api-key"):
        return
    token = request.cookies.get(KEY_COOKIE)
    if token:
        app = app_state(request)
        request.state.principal = await app.call(principal_for, app.store.backend, token)


async def web_access(request: Request, kb: str, scope: str = "read") -> Access:
    await _cookie_caller(request)
    return await kb_access(request, kb, scope)


def _login_redirect(request: Request) -> Response:
    target = quote(str(request.url.path) + ("?" + request.url.query if request.url.query else ""))
    response = RedirectResponse(f"/login?next={target}", status_code=303)
    if request.cookies.get(KEY_COOKIE):  # a revoked or unknown key: forget it
        response.delete_cookie(KEY_COOKIE, path="/")
    return response


Handler = Callable[..., Awaitable[Response]]


def _error_page(request: Request, exc: WikiKVError) -> Response:
    if isinstance(exc, Unauthenticated):
        return _login_redirect(request)
    status, _ = classify(exc)
    return html(request, "error.html", status, message=str(exc), kb=None)


async def _guarded(request: Request, handler: Callable[[], Awaitable[Response]]) -> Response:
    try:
        return await handler()
    except WikiKVError as exc:
        return _error_page(request, exc)


def _kb_context(access: Access) -> dict[str, Any]:
    name = access.kb.name
    return {"kb": name, "base": f"/wiki/{quote(name)}", "who": access.principal.who}


# ------------------------------------------------------------------------------ static
@cache
def _static(name: str) -> bytes:
    return resources.files("wikikv.interfaces.web").joinpath("static", name).read_bytes()


_MEDIA = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}


@router.get(STATIC + "/{name}")
async def static(name: str) -> Response:
    if name not in _MEDIA:
        return Response(status_code=404)
    return Response(
        _static(name),
        media_type=_MEDIA[name],
        headers={"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"},
    )


# ------------------------------------------------------------------------------ login
@router.get("/")
async def home(request: Request) -> Response:
    async def run() -> Response:
        await _cookie_caller(request)
        principal = await caller(request)
        app = app_state(request)
        names = await app.call(app.store.kbs)
        served = app.config.kbs
        shown = [n for n in names if principal.kb in (None, n) and (not served or n in served)]
        if len(shown) == 1:
            return RedirectResponse(f"/wiki/{quote(shown[0])}/", status_code=303)
        return html(request, "home.html", kbs=shown, kb=None, who=principal.who)

    return await _guarded(request, run)


@router.get("/login")
async def login_form(request: Request) -> Response:
    app = app_state(request)
    keyed = await app.call(keys_configured, app.store.backend)
    return html(
        request, "login.html", kb=None, keyed=keyed, failed=False,
        next=request.query_params.get("next", "/"),
    )  # fmt: skip


def _safe_next(target: str) -> str:
    """Only a path on this site: never ``//host`` or a scheme (an open redirect)."""
    if target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


@router.post("/login")
async def login(request: Request) -> Response:
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    token = (form.get("key") or [""])[0].strip()
    target = _safe_next((form.get("next") or ["/"])[0])
    app = app_state(request)
    try:
        await app.call(principal_for, app.store.backend, token or None)
    except AccessDenied:
        keyed = await app.call(keys_configured, app.store.backend)
        return html(request, "login.html", 401, kb=None, keyed=keyed, failed=True, next=target)
    response = RedirectResponse(target, status_code=303)
    if token:
        response.set_cookie(
            KEY_COOKIE,
            token,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(KEY_COOKIE, path="/")
    return response


# ------------------------------------------------------------------------------ wiki pages
def _cited(request: Request) -> tuple[int, int] | None:
    s, e = request.query_params.get("s"), request.query_params.get("e")
    if s is None or e is None or not s.isdigit() or not e.isdigit():
        return None
    return int(s), int(e)


def render_node(
    kb: KnowledgeBase, path: str, prefix: str, lang: str, cited: tuple[int, int] | None
) -> views.View:
    """The view of ``path`` (redirects followed), as the page route shows it."""
    rec, asked = views.follow(kb, path)
    if rec is None:
        raise NotFound(f"no page or directory at {path!r}")
    view = views.node_view(kb, rec, views.Urls(prefix), STRINGS[lang], cited)
    view.redirected_from = asked
    return view


@router.get("/wiki/{kb}/")
async def kb_root(kb: str, request: Request) -> Response:
    return await web_page(kb, request, ROOT)


def page_body(
    request: Request | None,
    source: KnowledgeBase,
    path: str,
    base: str,
    lang: str,
    cited: tuple[int, int] | None,
    **ctx: Any,
) -> str:
    """The HTML of one page, directory or source view — all the server-side work of the page
    route past access control (what ``wikikv bench web`` times)."""
    view = render_node(source, path, base, lang, cited)
    tree = views.tree(source, views.Urls(base))
    return render_template(lang, "node.html", request, view=view, tree=tree, base=base, **ctx)


@router.get("/wiki/{kb}/page")
async def web_page(kb: str, request: Request, path: str = ROOT) -> Response:
    async def run() -> Response:
        access = await web_access(request, kb)
        p = access.principal.check_path(path, traverse=True)
        access.note(p)
        ctx = _kb_context(access)
        base = ctx.pop("base")
        lang = pick_lang(request)
        body = await access.app.call(
            page_body, request, access.view, p, base, lang, _cited(request), **ctx
        )
        return respond(request, body)

    return await _guarded(request, run)


def _hits(kb: KnowledgeBase, q: str, urls: views.Urls) -> list[dict[str, str]]:
    """Names that start with what was typed first (the word is often unfinished), then the
    ranked full-text hits."""
    out: dict[str, dict[str, str]] = {}
    for name in kb.find_names(q.strip(), limit=SUGGEST_NAMES):
        if name.path not in out:
            out[name.path] = {"path": name.path, "title": name.name, "summary": "",
                              "kind": "name", "url": urls.page(name.path)}  # fmt: skip
    for h in search(kb, q, limit=SEARCH_LIMIT):
        if h.path not in out:
            out[h.path] = {"path": h.path, "title": h.title or views.display_name(h.path),
                           "summary": h.summary, "kind": h.kind, "url": urls.page(h.path)}  # fmt: skip
    return list(out.values())[:SEARCH_LIMIT]


@router.get("/wiki/{kb}/search")
async def search_page(kb: str, request: Request, q: str = "") -> Response:
    async def run() -> Response:
        access = await web_access(request, kb)
        access.note(ROOT, f"q={q}")
        ctx = _kb_context(access)
        hits = await access.app.slow(_hits, access.view, q, views.Urls(ctx["base"])) if q else []
        return html(request, "search.html", q=q, hits=hits, **ctx)

    return await _guarded(request, run)


@router.get("/wiki/{kb}/search.json")
async def search_json(kb: str, request: Request, q: str = "") -> Response:
    async def run() -> Response:
        access = await web_access(request, kb)
        access.note(ROOT, f"q={q}")
        urls = views.Urls(_kb_context(access)["base"])
        hits = await access.app.slow(_hits, access.view, q[:1000], urls) if q.strip() else []
        return Response(
            json.dumps({"q": q, "hits": hits}, ensure_ascii=False),
            media_type="application/json",
            headers={"X-Content-Type-Options": "nosniff"},
        )

    return await _guarded(request, run)


@router.get("/wiki/{kb}/nav")
async def nav_page(kb: str, request: Request, q: str = "", budget_ms: float = 50.0) -> Response:
    async def run() -> Response:
        access = await web_access(request, kb)
        access.note(ROOT)
        ctx = _kb_context(access)
        return html(request, "nav.html", q=q, budget_ms=budget_ms, **ctx)

    return await _guarded(request, run)


def _nav_lines(kb: KnowledgeBase, q: str, budget: Budget, urls: views.Urls) -> Iterator[bytes]:
    began = time.perf_counter()
    for result in nav(kb, q, budget):
        item = result.to_dict()
        item["url"] = urls.page(result.path)
        item["granularity"] = result.granularity
        yield (json.dumps(item, ensure_ascii=False) + "\n").encode()
    done = {"done": True, "elapsed_ms": round((time.perf_counter() - began) * 1000, 3)}
    yield (json.dumps(done) + "\n").encode()


@router.get("/wiki/{kb}/nav.ndjson")
async def web_nav_stream(
    kb: str, request: Request, q: str = "", budget_ms: float = 50.0
) -> Response:
    async def run() -> Response:
        access = await web_access(request, kb)
        access.note(ROOT, f"q={q}")
        ms = max(1.0, min(budget_ms, access.app.config.max_nav_budget_ms))
        urls = views.Urls(_kb_context(access)["base"])
        return StreamingResponse(
            _nav_lines(access.view, q[:1000], Budget(ms=ms), urls),
            media_type="application/x-ndjson",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    return await _guarded(request, run)


@router.get("/wiki/{kb}/audit")
async def audit_page(kb: str, request: Request, path: str = "") -> Response:
    async def run() -> Response:
        access = await web_access(request, kb)
        access.note(path or ROOT)
        ctx = _kb_context(access)
        entries = await access.app.slow(access.view.audit, AUDIT_LIMIT, path or None)
        rows = [
            (views._when(e.ts), e.actor, e.op, e.path, f"{e.old_version}→{e.new_version}", e.detail)
            for e in entries
        ]
        return html(request, "audit.html", rows=rows, path=path, **ctx)

    return await _guarded(request, run)


@router.get("/wiki/{kb}/quality")
async def quality_page(kb: str, request: Request) -> Response:
    async def run() -> Response:
        from wikikv.compile.check import check

        access = await web_access(request, kb)
        # The report counts the whole kb: only a key that may see all of it gets it.
        access.principal.check_path(ROOT)
        access.note(ROOT)
        ctx = _kb_context(access)
        report = await access.app.slow(check, access.kb)
        data = report.to_dict()
        examples = data.pop("examples")
        rows = [(k, v) for k, v in data.items() if k != "kb"]
        return html(request, "quality.html", rows=rows, ok=report.ok, examples=examples, **ctx)

    return await _guarded(request, run)


__all__ = ["KEY_COOKIE", "render_node", "router", "web_access"]
