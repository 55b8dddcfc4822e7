"""A compiled page taken apart: its facts, their citations, its links and its sections.

:func:`wikikv.quality.page.parse` reads this back from any page's text; the renderer builds it
for the entity pages it writes (:func:`wikikv.compile.pages.render_entity_parts`), so the render
gate does not parse again the text it was just handed. It lives here, below the quality layer,
for that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FACT_HEADINGS = ("## Key Facts", "## 要点")
SOURCE_HEADINGS = ("## Related Sources", "## 相关来源")
LINK_HEADINGS = ("## Related Pages", "## 相关页面")


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
