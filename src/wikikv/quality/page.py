"""A compiled page taken apart: its facts, their citations, its links and its sections.

The format is the one :mod:`wikikv.compile.pages` writes (LLM-Wiki Appendix E): key facts as
``- <quote> [^n]`` lines, one ``[^n]: [[/sources/articles/<id>]] chars a-b`` note per citation,
wikilinks on the other lines. Parsing is tolerant — validators report what does not fit, and
repairs rewrite single lines, so a page is never rebuilt from a lossy parse. The parts are
defined in :mod:`wikikv.compile.parsed` (the renderer builds them too, for the render gate).
"""

from __future__ import annotations

import re

from wikikv.compile.pages import FACT_LINE, NOTE_LINE, WIKILINK
from wikikv.compile.parsed import (
    FACT_HEADINGS,
    LINK_HEADINGS,
    SOURCE_HEADINGS,
    Fact,
    Link,
    Note,
    ParsedPage,
)

__all__ = [
    "ARTICLES",
    "CITE_MARK",
    "FACT_HEADINGS",
    "LINK_HEADINGS",
    "NOTE_LIKE",
    "SOURCE_HEADINGS",
    "Fact",
    "Link",
    "Note",
    "ParsedPage",
    "article_of",
    "drop_lines",
    "parse",
    "replace_line",
]

ARTICLES = "/sources/articles/"
# Anything that looks like a footnote definition, well-formed or not.
NOTE_LIKE = re.compile(r"^\[\^[^\]]*\]:")
CITE_MARK = re.compile(r"\[\^(\d+)\]")


def parse(text: str, links: bool = True) -> ParsedPage:
    """``text`` taken apart; without ``links`` the wikilinks are not collected (a pass that
    checks no link target reads none)."""
    lines = text.split("\n")
    page = ParsedPage(lines)
    start = 0
    if lines[0] == "---":  # front matter, up to the next "---" line (or the end)
        page.front_matter = True
        try:
            start = lines.index("---", 1) + 1
        except ValueError:
            start = len(lines)
    # Each check below needs a given opening ("# ", "> ", "## ", "- ", "[^", "[["), so a line
    # is tried only against the checks its first character allows: parse runs on every page
    # twice per build (the render gate, the quality pass).
    facts, found, headings = page.facts, page.links, page.headings
    fact_match, note_like, note_match = FACT_LINE.match, NOTE_LIKE.match, NOTE_LINE.match
    find_links = WIKILINK.finditer
    in_facts = in_links = False
    for i in range(start, len(lines)):
        line = lines[i]
        first = line[:1]
        if first == "#":
            if line.startswith("# ") and not page.title:
                page.title = line[2:].strip()
                continue
            if line.startswith("## "):
                section = line.strip()
                headings.add(section)
                in_facts, in_links = section in FACT_HEADINGS, section in LINK_HEADINGS
                continue
        elif first == ">":
            if line.startswith("> ") and not page.summary and page.title:
                page.summary = line[2:].strip()
                continue
        elif first == "-":
            fm = fact_match(line)
            if fm:
                facts.append(Fact(i, fm.group("n"), fm.group("quote")))
                continue
            if in_facts and line.startswith("- "):
                page.uncited_facts.append(i)
        elif first == "[" and note_like(line):
            nm = note_match(line)
            if nm is None:
                page.bad_notes.append(i)
                continue
            n, path, s, e = nm.group("n", "path", "s", "e")
            if n in page.notes:
                page.duplicate_notes.append(i)
                continue
            page.notes[n] = Note(i, n, path, int(s), int(e))
            continue
        if links and "[[" in line:
            for m in find_links(line):
                found.append(Link(i, m.group(1).strip(), in_links))
    return page


def article_of(path: str) -> str | None:
    """The cited article path when ``path`` names one, else None."""
    return path if path.startswith(ARTICLES) and len(path) > len(ARTICLES) else None


def drop_lines(text: str, numbers: set[int]) -> str:
    lines = text.split("\n")
    return "\n".join(line for i, line in enumerate(lines) if i not in numbers)


def replace_line(text: str, number: int, new: str) -> str:
    lines = text.split("\n")
    lines[number] = new
    return "\n".join(lines)
