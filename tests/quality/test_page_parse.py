"""quality.page.parse tries each line only against the checks its first character allows; it
takes a page apart exactly as the plain reading (every check on every line, in order) does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikikv.compile.pages import FACT_LINE, NOTE_LINE, WIKILINK
from wikikv.quality.page import (
    FACT_HEADINGS,
    LINK_HEADINGS,
    NOTE_LIKE,
    Fact,
    Link,
    Note,
    ParsedPage,
    parse,
)


def _plain(text: str) -> ParsedPage:
    """parse as it was: every check tried on every line."""
    lines = text.split("\n")
    page = ParsedPage(lines)
    section = ""
    in_front = False
    for i, line in enumerate(lines):
        if i == 0 and line == "---":
            in_front = page.front_matter = True
            continue
        if in_front:
            if line == "---":
                in_front = False
            continue
        if line.startswith("# ") and not page.title:
            page.title = line[2:].strip()
            continue
        if line.startswith("> ") and not page.summary and page.title:
            page.summary = line[2:].strip()
            continue
        if line.startswith("## "):
            section = line.strip()
            page.headings.add(section)
            continue
        fm = FACT_LINE.match(line)
        if fm:
            page.facts.append(Fact(i, fm.group("n"), fm.group("quote")))
            continue
        if NOTE_LIKE.match(line):
            nm = NOTE_LINE.match(line)
            if nm is None:
                page.bad_notes.append(i)
                continue
            n = nm.group("n")
            if n in page.notes:
                page.duplicate_notes.append(i)
                continue
            page.notes[n] = Note(i, n, nm.group("path"), int(nm.group("s")), int(nm.group("e")))
            continue
        if section in FACT_HEADINGS and line.startswith("- "):
            page.uncited_facts.append(i)
        for m in WIKILINK.finditer(line):
            page.links.append(Link(i, m.group(1).strip(), section in LINK_HEADINGS))
    return page


PAGE = """---
type: people
aliases: ["A"]
---
# Ada Lovelace
> A mathematician. See [[/people/Babbage|Babbage]].
# A second title line [[/works/Notes|Notes]]
> a second summary line [[/x/y]]
### a minor heading [[/h/three]]
#not a heading [[/h/none]]

## Key Facts
- Ada was born in 1815. [^1]
- Ada wrote [[/works/Notes|the Notes]]. [^2]
- a fact line without its marker [[/p/q]]
-not a fact [[/p/r]]
_no sentence_

## Related Pages
- [[/people/Babbage|Babbage]] — the article on Ada mentions Babbage
- [[ /people/Byron |Byron]] and [[/places/London]] — two links, one row

## Related Sources
- [[/sources/digests/d1|Ada]] — digest

[^1]: [[/sources/articles/d1]] chars 0-22
[^2]: [[/sources/articles/d1]] chars 23-60
[^2]: [[/sources/articles/d2]] chars 0-5
[^3]: [[/sources/articles/d1]] char 1
[^x]: nothing
[^4] not a note [[/p/s]]
[not a note either [[/p/t]]
"""


def test_parse_reads_a_page_as_the_plain_reading_does() -> None:
    got = parse(PAGE)
    assert got == _plain(PAGE)
    assert got.title == "Ada Lovelace"
    assert got.front_matter
    assert [f.n for f in got.facts] == ["1", "2"]
    assert len(got.duplicate_notes) == 1
    assert len(got.bad_notes) == 2
    assert got.uncited_facts  # the "- " line under Key Facts without a marker
    assert {link.target for link in got.links if link.in_section} == {
        "/people/Babbage",
        "/people/Byron",
        "/places/London",
    }


def test_unclosed_front_matter_hides_the_rest() -> None:
    text = "---\ntype: x\n# Title\n- a [^1]\n"
    assert parse(text) == _plain(text)
    assert parse(text).title == ""
    assert parse(text).front_matter


_LINES = st.sampled_from(
    [
        "---",
        "",
        "# Title",
        "# ",
        "#x",
        "> summary",
        ">",
        "## Key Facts",
        "## 要点",
        "## Related Pages",
        "## 相关页面",
        "## Related Sources",
        "### sub",
        "- a quote [^1]",
        "- [[/a/b|B]] quoted [^2]",
        "- [[/a/c|C]] — reason",
        "- no marker",
        "-x [[/a/d]]",
        "[^1]: [[/sources/articles/d1]] chars 0-5",
        "[^1]: [[/sources/articles/d2]] chars 3-9",
        "[^2]: [[/sources/articles/d1|x]] chars 0-5",
        "[^3]: bad",
        "[[/a/e]] at the start",
        "[x] [[/a/f|F]]",
        "text with [[/a/g|G]] and [[ /a/h ]]",
        "_a notice_",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=25))
def test_parse_is_the_plain_reading_on_any_arrangement(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert parse(text) == _plain(text)


def test_without_links_only_the_links_are_left_out() -> None:
    full, bare = parse(PAGE), parse(PAGE, links=False)
    assert full.links
    assert not bare.links
    full.links = []
    assert bare == full
