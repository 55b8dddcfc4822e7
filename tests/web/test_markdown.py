"""Page text to HTML: wikilinks and citations become links, nothing in the text becomes markup
that runs, and the fast path for directory listings renders exactly what markdown-it does."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.web.test_web_routes import tags_of
from wikikv.interfaces.web.markdown import _MD, Links, clear_cache, render, sanitize


def links() -> Links:
    return Links(
        page_url=lambda t: "/wiki/k/page?path=" + t,
        source_url=lambda c: f"/wiki/k/page?path={c.path}&s={c.start}&e={c.end}",
    )


def slow(text: str) -> str:
    return sanitize(_MD.render(text, {"links": links()}))


@pytest.mark.parametrize(
    "attack",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](data:text/html,<script>alert(1)</script>)",
        "<javascript:alert(1)>",
        '<a href="javascript:alert(1)">a</a>',
        "[[x|<b onmouseover=alert(1)>y</b>]]",
        '[[x" onmouseover="alert(1)|y]]',
        "- [[/a|A]] — <script>alert(1)</script>\n" * 10,
    ],
)
def test_attacks_render_as_text(attack: str) -> None:
    html = render(attack, links())
    for tag, attrs in tags_of(html):
        assert tag in ("p", "a", "ul", "li", "br"), tag
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert not (value or "").lower().startswith(("javascript:", "data:")), value
    assert "alert(1)" in html  # still there, as text


def test_wikilinks_and_citations_become_links() -> None:
    text = (
        "- A fact. [^1]\n\nSee [[/people/Lu Xun|Lu Xun]] and [[Shaoxing]].\n\n"
        "[^1]: [[/sources/articles/a]] chars 3-9\n"
    )
    html = render(text, links())
    assert '<a href="/wiki/k/page?path=/sources/articles/a&amp;s=3&amp;e=9" class="cite"' in html
    assert '<a href="/wiki/k/page?path=/people/Lu Xun" class="wikilink"' in html
    assert ">Lu Xun</a>" in html
    assert '<a href="/wiki/k/page?path=Shaoxing" class="wikilink"' in html


def test_a_link_without_a_label_shows_the_page_name_not_its_path() -> None:
    text = "[^1]: [[/sources/articles/彷徨%2F祝福]] chars 3-9\n\nSee [[/people/Lu Xun]].\n"
    html = render(text, links())
    assert ">彷徨/祝福</a>" in html
    assert ">Lu Xun</a>" in html
    assert "%2F祝福</a>" not in html


def test_a_long_listing_takes_the_fast_path_and_matches_markdown_it() -> None:
    lines = [f"- [[/d/E {i}|E {i}]] — summary {i}" for i in range(50)]
    text = "# d\n> 50 entries\n\n" + "\n".join(lines) + "\n\nAfter the *list*.\n"
    assert render(text, links()) == slow(text)


summaries = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=30
)
names = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="[]|#\n\r"),
    min_size=1,
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(names, names, summaries), min_size=8, max_size=20), st.booleans())
def test_fast_path_renders_what_markdown_it_renders(
    rows: list[tuple[str, str, str]], blank_before: bool
) -> None:
    clear_cache()
    body = "\n".join(f"- [[/x/{t}|{label}]] — {s}" for t, label, s in rows)
    text = ("Intro line.\n\n" if blank_before else "") + body + "\n"
    assert render(text, links()) == slow(text)


@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_quote_path_matches_urllib(path: str) -> None:
    from urllib.parse import quote

    from wikikv.interfaces.web.views import quote_path

    assert quote_path(path) == quote(path, safe="/")
