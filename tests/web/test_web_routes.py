"""The browser's HTML over a real loopback server: what each page shows, that hostile text stays
text, and that keys, ACLs and the login cookie work as documented."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import quote

import httpx
import pytest

from tests.web.conftest import BIG_CHILDREN, BIG_DIR, EVIL, Served
from wikikv.compile.pages import FACT_LINE, NOTE_LINE
from wikikv.interfaces.web.routes import KEY_COOKIE
from wikikv.store.records import FileRecord


def page_url(site: Served, path: str, **extra: str) -> str:
    query = "".join(f"&{k}={quote(v)}" for k, v in extra.items())
    return f"{site.url}/wiki/demo/page?path={quote(path, safe='/')}{query}"


class Markup(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Markup()
    parser.feed(html)
    return parser.tags


def test_hostile_page_text_renders_inert(open_site: Served) -> None:
    r = httpx.get(page_url(open_site, EVIL))
    assert r.status_code == 200
    assert "script-src 'self'" in r.headers["content-security-policy"]
    tags = tags_of(r.text)
    scripts = [a for t, a in tags if t == "script"]
    assert scripts == [{"src": "/static/wikikv/app.js", "defer": None}]  # ours, nothing else
    for tag, attrs in tags:
        assert tag not in ("iframe", "svg", "object", "embed")
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert "javascript:" not in (value or "").lower().replace("%3a", ":").split("?")[0]
    # the attack text is still shown, as text
    assert "&lt;script&gt;window.__pwned" in r.text
    assert "Plain text after the attacks: still here." in r.text
    assert "Hostile &lt;script&gt;" in r.text  # the title, escaped


def test_directory_page_lists_a_thousand_children(open_site: Served) -> None:
    r = httpx.get(page_url(open_site, BIG_DIR))
    assert r.status_code == 200
    names = re.findall(r"<li><a href=\"[^\"]+\">(item \d{4})</a></li>", r.text)
    assert len(names) == BIG_CHILDREN
    root = httpx.get(f"{open_site.url}/wiki/demo/")
    assert re.search(r">many</a> <span class=\"count\">1000</span>", root.text)


def test_citation_highlights_the_quote_at_its_exact_offsets(open_site: Served) -> None:
    kb = open_site.store.kb("demo")
    page = kb.get("/people/Lu Xun")
    assert isinstance(page, FileRecord)
    lines = page.text.split("\n")
    fact = next(m for m in map(FACT_LINE.match, lines) if m)
    note = next(m for m in map(NOTE_LINE.match, lines) if m and m.group("n") == fact.group("n"))
    html = httpx.get(page_url(open_site, "/people/Lu Xun")).text
    href = re.search(r'<a href="([^"]+)" class="cite"', html)
    assert href is not None
    source = httpx.get(open_site.url + href.group(1).replace("&amp;", "&")).text
    mark = re.search(r'<mark id="cite">(.*?)</mark>', source, re.S)
    assert mark is not None
    article = kb.get(note.group("path"))
    assert isinstance(article, FileRecord)
    s, e = int(note.group("s")), int(note.group("e"))
    assert mark.group(1) == article.text[s:e] == fact.group("quote")


def test_redirects_are_followed_and_said(open_site: Served) -> None:
    r = httpx.get(page_url(open_site, "/notes/Old name"))
    assert r.status_code == 200
    assert 'id="redirected"' in r.text
    assert "<code>/notes/Old name</code>" in r.text
    assert "Moved soon." in r.text


def test_a_page_and_a_directory_show_their_title_once(open_site: Served) -> None:
    for path, title in (("/people/Lu Xun", "Lu Xun"), ("/people", "people")):
        html = httpx.get(page_url(open_site, path)).text
        headings = re.findall(r"<h1[^>]*>([^<]*)</h1>", html)
        assert headings == [title], (path, headings)


def test_backlinks_find_the_pages_that_link_here(open_site: Served) -> None:
    html = httpx.get(page_url(open_site, "/people/Lu Xun")).text
    section = html.split('id="backlinks"', 1)[1].split("</ul>", 1)[0]
    assert "New name" in section  # a hand-written note found by search
    assert "Shaoxing" in section  # a compiled page (links both ways)


def test_search_json_and_language(open_site: Served) -> None:
    hits = httpx.get(f"{open_site.url}/wiki/demo/search.json", params={"q": "鲁迅"}).json()["hits"]
    assert any(h["path"] == "/people/Lu Xun" for h in hits)  # 鲁迅 is an alias of Lu Xun
    zh = httpx.get(f"{open_site.url}/wiki/demo/", params={"lang": "zh"})
    assert "浏览" in zh.text
    assert "审计记录" in zh.text
    assert "wikikv_lang=zh" in zh.headers["set-cookie"]
    by_header = httpx.get(f"{open_site.url}/wiki/demo/", headers={"accept-language": "zh-CN"})
    assert "浏览" in by_header.text
    en = httpx.get(f"{open_site.url}/wiki/demo/")
    assert "Browse" in en.text


def test_audit_and_quality_pages(open_site: Served) -> None:
    audit = httpx.get(f"{open_site.url}/wiki/demo/audit", params={"path": "/notes"}).text
    assert "/notes/Old name" in audit
    assert "move" in audit
    quality = httpx.get(f"{open_site.url}/wiki/demo/quality").text
    assert 'id="quality-verdict"' in quality
    assert "broken_links" in quality


def test_nav_stream_arrives_coarse_to_fine(open_site: Served) -> None:
    with httpx.stream(
        "GET",
        f"{open_site.url}/wiki/demo/nav.ndjson",
        params={"q": "Who wrote The True Story of Ah Q?", "budget_ms": "500"},
    ) as r:
        items = [json.loads(line) for line in r.iter_lines() if line.strip()]
    results, done = items[:-1], items[-1]
    assert done["done"] is True
    assert results[0]["level"] == "index"
    grains = [x["granularity"] for x in results]
    assert grains == sorted(grains)
    assert any(x["path"] == "/people/Lu Xun" for x in results)


# ------------------------------------------------------------------------------ keys and ACLs
def test_without_a_key_the_browser_asks_for_one(keyed_site: Served) -> None:
    r = httpx.get(f"{keyed_site.url}/wiki/demo/page?path=/people")
    assert r.status_code == 303
    assert r.headers["location"].startswith("/login?next=")
    form = httpx.get(keyed_site.url + r.headers["location"])
    assert 'name="key"' in form.text
    assert 'type="password"' in form.text


def test_login_sets_an_httponly_samesite_cookie(keyed_site: Served) -> None:
    bad = httpx.post(f"{keyed_site.url}/login", data={"key": "wkv:demo:nope:nope", "next": "/"})
    assert bad.status_code == 401
    assert "set-cookie" not in bad.headers
    good = httpx.post(
        f"{keyed_site.url}/login",
        data={"key": keyed_site.tokens["reader"], "next": "/wiki/demo/page?path=/people"},
    )
    assert good.status_code == 303
    assert good.headers["location"] == "/wiki/demo/page?path=/people"
    cookie = good.headers["set-cookie"]
    assert cookie.startswith(f"{KEY_COOKIE}=")
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert "Path=/" in cookie
    with httpx.Client(
        base_url=keyed_site.url, cookies={KEY_COOKIE: keyed_site.tokens["reader"]}
    ) as c:
        assert c.get("/wiki/demo/page", params={"path": "/people"}).status_code == 200


def test_login_never_redirects_off_site(keyed_site: Served) -> None:
    for target in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        r = httpx.post(
            f"{keyed_site.url}/login", data={"key": keyed_site.tokens["reader"], "next": target}
        )
        assert r.headers["location"] == "/"


@pytest.mark.parametrize(
    ("path", "status"), [("/people/Lu Xun", 200), ("/places/Shaoxing", 403), ("/", 200)]
)
def test_a_path_allow_list_applies_to_the_browser(
    keyed_site: Served, path: str, status: int
) -> None:
    with httpx.Client(
        base_url=keyed_site.url, cookies={KEY_COOKIE: keyed_site.tokens["people"]}
    ) as c:
        r = c.get("/wiki/demo/page", params={"path": path})
        assert r.status_code == status
        if path == "/":
            assert ">people</a>" in r.text
            assert ">places</a>" not in r.text
        hits = c.get("/wiki/demo/search.json", params={"q": "Shaoxing"}).json()["hits"]
        assert hits
        assert all(h["path"].startswith("/people") for h in hits)
        assert c.get("/wiki/demo/quality").status_code == 403


def test_a_revoked_or_unknown_cookie_is_dropped(keyed_site: Served) -> None:
    with httpx.Client(base_url=keyed_site.url, cookies={KEY_COOKIE: "wkv:demo:zz:zz"}) as c:
        r = c.get("/wiki/demo/")
        assert r.status_code == 303
        assert f'{KEY_COOKIE}=""' in r.headers["set-cookie"]


def test_wikikv_serve_mounts_the_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import asdict

    from wikikv.interfaces.http.context import ServerConfig
    from wikikv.interfaces.http.server import ENV, app_from_env

    monkeypatch.setenv(ENV, json.dumps({"store": "memory://", "config": asdict(ServerConfig())}))
    app = app_from_env()
    assert app.url_path_for("web_page", kb="demo") == "/wiki/demo/page"
    assert app.url_path_for("web_nav_stream", kb="demo") == "/wiki/demo/nav.ndjson"
    assert app.url_path_for("login_form") == "/login"
    assert not any(p.startswith("/wiki") for p in app.openapi()["paths"])  # HTML, not API
