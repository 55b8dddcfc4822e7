"""The browser in a real browser: Playwright drives Debian's headless Chromium against the API
app with the browser router on a loopback port. Screenshots land in ``$WIKIKV_SCREENSHOTS``
(default ``<tmp>/wikikv-screenshots``) for a person to look at.

Chromium comes from the ``chromium`` Debian package (``scripts/test`` installs it when missing);
Playwright's own browser download is never used.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.web.conftest import EVIL, Served
from wikikv.interfaces.web.routes import KEY_COOKIE

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_MS = 30_000  # first Chinese query loads jieba's dictionary; the machine may be busy
expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="module")
def shots() -> Path:
    folder = Path(
        os.environ.get("WIKIKV_SCREENSHOTS") or Path(tempfile.gettempdir()) / "wikikv-screenshots"
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_timeout(TIMEOUT_MS)
    tab = context.new_page()
    dialogs: list[str] = []
    tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    yield tab
    context.close()
    assert dialogs == [], f"a page opened dialogs: {dialogs}"


def test_read_the_wiki_end_to_end(page: Page, open_site: Served, shots: Path) -> None:
    # open the root: the single kb opens, the tree shows directories with counts
    page.goto(open_site.url + "/")
    expect(page.locator("h1#title")).to_have_text("/")
    people = page.locator("aside.tree a", has_text="people")
    listed = len(open_site.store.kb("demo").ls_all("/people"))
    expect(page.locator("aside.tree li", has_text="people").locator(".count")).to_have_text(
        str(listed)
    )
    page.screenshot(path=str(shots / "01-root.png"), full_page=True)

    # descend to a page
    people.click()
    expect(page.locator("h1#title")).to_have_text("people")
    page.locator("ul#files a", has_text="Lu Xun").first.click()
    expect(page.locator("h1#title")).to_have_text("Lu Xun")
    page.screenshot(path=str(shots / "02-page.png"), full_page=True)

    # follow a wikilink
    link = page.locator("#body a.wikilink", has_text="Shaoxing").first
    link.click()
    expect(page.locator("h1#title")).to_have_text("Shaoxing")
    assert "/places/Shaoxing" in page.url

    # open a citation: the quote is highlighted at its offsets
    fact = page.locator("#body li", has=page.locator("a.cite")).first
    quote = fact.inner_text().rsplit(" [", 1)[0].strip()
    fact.locator("a.cite").click()
    mark = page.locator("mark#cite")
    expect(mark).to_be_visible()
    assert mark.inner_text() == quote
    assert page.evaluate("document.querySelector('mark#cite') !== null")
    page.screenshot(path=str(shots / "03-citation.png"), full_page=True)

    # search as you type (English, then Chinese)
    box = page.locator("input#q")
    box.press_sequentially("Sherlo", delay=40)
    first = page.locator("#suggest li a.hit").first
    expect(first).to_contain_text("Sherlock Holmes")
    page.screenshot(path=str(shots / "04-search.png"))
    first.click()
    expect(page.locator("h1#title")).to_have_text("Sherlock Holmes")
    box = page.locator("input#q")
    box.fill("")
    box.press_sequentially("鲁迅", delay=40)
    expect(page.locator("#suggest li a.hit").first).to_contain_text("鲁迅")

    # live nav: results appear coarse to fine, in arrival order
    page.goto(open_site.url + "/wiki/demo/nav")
    page.locator("#nav-q").fill("Who wrote The True Story of Ah Q?")
    # An ample budget: nav ends on its own when the demo is explored (a few ms quiet), so the
    # count below does not depend on how loaded the machine is.
    page.locator("#nav-budget").fill("5000")
    page.locator("#nav-run").click()
    expect(page.locator("#nav-status")).to_contain_text("done")
    items = page.locator("#nav-results li.nav-result")
    assert items.count() >= 3
    levels = [items.nth(i).get_attribute("data-level") for i in range(items.count())]
    grains = [
        int(items.nth(i).get_attribute("data-granularity") or 0) for i in range(items.count())
    ]
    elapsed = [float(items.nth(i).get_attribute("data-elapsed") or 0) for i in range(items.count())]
    assert levels[0] == "index"
    assert grains == sorted(grains)
    assert elapsed == sorted(elapsed)
    page.screenshot(path=str(shots / "05-nav.png"), full_page=True)

    # the audit trail, the quality report, and Chinese
    page.locator(".menu a", has_text="Audit trail").click()
    expect(page.locator("table#audit tbody tr").first).to_be_visible()
    page.locator(".menu a", has_text="Quality report").click()
    expect(page.locator("#quality-verdict")).to_be_visible()
    page.locator("a#lang").click()
    expect(page.locator(".menu")).to_contain_text("浏览")
    page.screenshot(path=str(shots / "06-quality-zh.png"), full_page=True)


def test_hostile_page_runs_nothing(page: Page, open_site: Served, shots: Path) -> None:
    page.goto(open_site.url + "/wiki/demo/page?path=" + EVIL)
    expect(page.locator("#body")).to_contain_text("Plain text after the attacks: still here.")
    body = page.locator("#body")
    body.locator("text=hover me").hover()
    for anchor in body.locator("a").all():
        href = anchor.get_attribute("href") or ""
        assert not href.lower().startswith(("javascript:", "data:")), href
    assert page.evaluate("window.__pwned === undefined")
    assert body.locator("script, iframe, svg, object, embed").count() == 0
    handlers = page.evaluate(
        "[...document.querySelectorAll('#body *')]"
        ".flatMap(e => [...e.attributes].map(a => a.name)).filter(n => n.startsWith('on'))"
    )
    assert handlers == []
    page.screenshot(path=str(shots / "07-hostile.png"), full_page=True)


def test_login_with_a_key_and_the_allow_list(page: Page, keyed_site: Served, shots: Path) -> None:
    page.goto(keyed_site.url + "/wiki/demo/page?path=/people/Lu%20Xun")
    expect(page.locator("input#key")).to_be_visible()  # sent to the login form
    page.locator("input#key").fill("wkv:demo:not:valid")
    page.locator("#login-submit").click()
    expect(page.locator("#login-failed")).to_be_visible()
    page.locator("input#key").fill(keyed_site.tokens["people"])
    page.screenshot(path=str(shots / "08-login.png"))
    page.locator("#login-submit").click()
    expect(page.locator("h1#title")).to_have_text("Lu Xun")  # back where the user was going
    cookie = next(c for c in page.context.cookies() if c["name"] == KEY_COOKIE)
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Strict"
    assert KEY_COOKIE not in page.evaluate("document.cookie")  # no script can read the key
    page.goto(keyed_site.url + "/wiki/demo/page?path=/places/Shaoxing")
    expect(page.locator("#error-message")).to_contain_text("allow-list")
    page.locator("form.logout button").click()
    page.goto(keyed_site.url + "/wiki/demo/page?path=/people/Lu%20Xun")
    expect(page.locator("input#key")).to_be_visible()
