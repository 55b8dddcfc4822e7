"""A compiled page taken apart: its facts, their citations, its links and its sections.

The format is the one :mod:`wikikv.compile.pages` writes (LLM-Wiki Appendix E): key facts as
``- <quote> [^n]`` lines, one ``[^n]: [[/sources/articles/<id>]] chars a-b`` note per citation,
wikilinks on the other lines. Parsing is tolerant — validators report what does not fit, and
repairs rewrite single lines, so a page is never rebuilt from a lossy parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wikikv.compile.pages import FACT_LINE, NOTE_LINE, WIKILINK

ARTICLES = "/sources/articles/"
FACT_HEADINGS = ("## Key Facts", "## 要点")
SOURCE_HEADINGS = ("## Related Sources", "## 相关来源")
LINK_HEADINGS = ("## Related Pages", "## 相关页面")
# Anything that looks like a footnote definition, well-formed or not.
NOTE_LIKE = re.compile(r"^\[\^[^\]]*\]:")
CITE_MARK = re.compile(r"\[\^(\d+)\]")


@dataclass
class Fact:
    line: int
    n: str
    quote: str


@dataclass
class Note:
    line: int
    n: str
    path: str
    start: int
    end: int


@dataclass
class Link:
    line: int
    target: str
    in_section: bool  # a row of "Related Pages" (removable whole) rather than inline prose


@dataclass
class ParsedPage:
    lines: list[str]
    title: str = ""
    summary: str = ""
    front_matter: bool = False
    headings: set[str] = field(default_factory=set)
    facts: list[Fact] = field(default_factory=list)
    notes: dict[str, Note] = field(default_factory=dict)
    bad_notes: list[int] = field(default_factory=list)  # line numbers of unparseable notes
    duplicate_notes: list[int] = field(default_factory=list)
    uncited_facts: list[int] = field(default_factory=list)  # "- ..." lines under Key Facts
    links: list[Link] = field(default_factory=list)

    def has_any(self, headings: tuple[str, ...]) -> bool:
        return any(h in self.headings for h in headings)


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
