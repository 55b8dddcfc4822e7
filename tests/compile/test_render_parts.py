"""The renderer hands the render gate each entity page taken apart (render_entity_parts), so the
gate does not parse the text again: what it hands over is what quality.page.parse reads back
from the text, and the gate's verdicts are those of a gate that parses."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from wikikv.compile import pages as pg
from wikikv.compile.model import Fact
from wikikv.compile.parsed import ParsedPage
from wikikv.compile.pipeline import Compiler
from wikikv.quality.hooks import ErrorBookGate, RenderGate, gated
from wikikv.quality.page import parse
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta, FileRecord
from wikikv.store.store import Store


class _Checked(ErrorBookGate):
    """The build's gate, checking each handed-over page against the parse of its text; with
    ``drop``, it hands the gate nothing (the gate parses every page itself)."""

    def __init__(self, drop: bool = False) -> None:
        self.drop = drop
        self.handed = 0
        self.parsed_here = 0

    def render_check(
        self, kb: KnowledgeBase, will_exist: Iterable[str], texts: dict[str, str]
    ) -> Any:
        return _Check(self, super().render_check(kb, will_exist, texts))


class _Check:
    def __init__(self, owner: _Checked, inner: RenderGate) -> None:
        self.owner = owner
        self.inner = inner
        self.failed = inner.failed

    def __call__(
        self, path: str, text: str, meta: FileMeta, parsed: ParsedPage | None = None
    ) -> FileMeta:
        if parsed is not None:
            self.owner.handed += 1
            assert parsed == parse(text), path
        elif meta.kind == "entity":
            self.owner.parsed_here += 1
        return self.inner(path, text, meta, None if self.owner.drop else parsed)


def _lint(kb: KnowledgeBase) -> dict[str, tuple[str, list[str]]]:
    out = {}
    for p in kb.prefix("/"):
        rec = kb.get(p)
        if isinstance(rec, FileRecord):
            out[p] = (rec.meta.lint_status, list(rec.meta.lint_errors))
    return out


@pytest.mark.parametrize("corpus", ["small_en", "small_zh", "hotpot_slice"])
def test_handed_pages_are_the_parsed_text_and_lint_the_same(
    store: Store, corpus: str, request: pytest.FixtureRequest
) -> None:
    path: Path = request.getfixturevalue(corpus)
    results = []
    for drop in (False, True):
        gate = _Checked(drop)
        kb = store.create_kb(f"k{int(drop)}")
        Compiler(kb, options=dataclasses.replace(gated(), quality=gate)).build(path)
        results.append((_lint(kb), gate.handed, gate.parsed_here))
    (handed_lint, handed, parsed_here), (dropped_lint, _, _) = results
    assert handed > 0
    assert parsed_here == 0  # every entity page of these corpora is handed over
    assert handed_lint == dropped_lint


def _page(
    name: str = "Ada Lovelace",
    quote: str = "Ada was a mathematician.",
    target: str = "/people/Charles Babbage",
    reason: str = "the article on Ada mentions Charles Babbage",
    doc: str = "d1",
) -> tuple[str, ParsedPage | None]:
    """A page laid out as render_entity_parts lays it out, and its parts."""
    out = ["---", "type: people", "aliases: []", "---", f"# {name}", "> A mathematician.", ""]
    out.append("## Key Facts")
    heads = [out[-1]]
    cites = [(len(out), quote, pg.article_path(doc), Fact(doc, 0, len(quote)))]
    out.append(f"- {quote} [^1]")
    out += ["", "## Related Pages"]
    heads.append(out[-1])
    rows = [(len(out), target, True, reason)]
    out.append(f"- [[{target}|Charles Babbage]] — {reason}")
    notes_at = len(out) + 1
    out += ["", f"[^1]: [[{pg.article_path(doc)}]] chars 0-{len(quote)}"]
    text = "\n".join(out) + "\n"
    parts = pg._parts(out, text, name, "A mathematician.", heads, rows, cites, notes_at)
    return text, parts


def test_a_plain_page_is_handed_over_as_parsed() -> None:
    text, parts = _page()
    assert parts is not None
    assert parts == parse(text)


@pytest.mark.parametrize(
    "change",
    [
        {"quote": "Ada was\na mathematician."},  # a line break in a quote: other lines
        {"name": "  "},  # a blank name: no title, so the summary line is not the summary
        {"name": "Ada\n---"},
        {"target": "/topics/C# (language)"},  # no wikilink can hold the target
        {"reason": "see [[/people/Byron]]"},  # the row holds a link of its own
        {"reason": "a footnote mark [^2]"},  # the row reads as a fact line
        {"doc": "d]1"},  # the note's path is not a note's
    ],
)
def test_a_page_the_text_could_read_otherwise_is_parsed_by_the_gate(
    change: dict[str, str],
) -> None:
    text, parts = _page(**change)
    assert parts is None


def test_a_sentence_says_something_with_two_words_besides_the_name() -> None:
    says_something = pg.says_something
    names = ["Grey Harbour", "Harbour"]
    assert not says_something("Grey Harbour said:", names)
    assert not says_something("Grey Harbour won.", names)  # one word is a speech tag at most
    assert says_something("Grey Harbour won the cup.", names)
    assert says_something("In 1950 Grey Harbour won.", names)  # numbers are words too
    assert not says_something("“Grey Harbour!”", names)
