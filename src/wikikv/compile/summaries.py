"""Grounded summaries above the pages (ADR-029 tiers): sections and the corpus.

Digests stay extractive (ranked sentences with offsets). Above the entity pages:

* every **section** — a dimension, and each routing sub-dimension — gets a summary made of its
  main pages' summaries (the pages most documents are about or mention). Offline it is those
  summaries themselves (nothing synthesized); with a model it is the ``section`` role's
  rewording, whose *synthesized share* — the share of its words found in none of the pages'
  summaries or names — is measured, stored in the section's text, and bounded by
  :data:`SYNTHESIS_BOUND`: an answer over the bound is replaced by the extractive summary;
* the **root** gets a corpus summary whose every claim cites a page: offline, the summary of
  each dimension's main page, citing it; with a model, the ``corpus`` role's claims, each kept
  only when every page it cites is one it was given.

Both are written into the directory texts before their signatures are taken, so a section is
rewritten when its summary changes and never otherwise.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from wikikv.compile import pages as pg
from wikikv.compile.render import Desired
from wikikv.compile.schema import Schema
from wikikv.store.paths import ROOT, escape_segment, parent

SYNTHESIS_BOUND = 0.35  # at most this share of a section summary's words may be new
SECTION_PAGES = 12  # pages' summaries a section summary is made from
EXTRACTIVE_PAGES = 3
CORPUS_PAGES = 3  # main pages per dimension offered to the corpus summary
_WORD = re.compile(r"[\u3400-\u9fff]|[^\W_]+", re.UNICODE)


@dataclass
class SummaryStats:
    """What the summaries of one render took: sections written, how many by the model, their
    synthesized shares, replacements over the bound, and the root's claims."""

    sections: int = 0
    by_model: int = 0
    over_bound: int = 0
    shares: dict[str, float] = field(default_factory=dict)
    claims: int = 0
    claims_dropped: int = 0

    def to_dict(self) -> dict[str, Any]:
        shares = list(self.shares.values())
        return {
            "sections": self.sections,
            "by_model": self.by_model,
            "over_bound_replaced": self.over_bound,
            "synthesis_bound": SYNTHESIS_BOUND,
            "max_synthesized_share": round(max(shares), 4) if shares else 0.0,
            "mean_synthesized_share": round(sum(shares) / len(shares), 4) if shares else 0.0,
            "root_claims": self.claims,
            "root_claims_dropped": self.claims_dropped,
        }


def words(text: str) -> list[str]:
    """Folded words of ``text``; each Han character is a word (Chinese has no spaces)."""
    return [w.casefold() for w in _WORD.findall(text)]


def synthesized_share(summary: str, sources: Iterable[str]) -> float:
    """The share of ``summary``'s words that occur in none of ``sources``."""
    said = words(summary)
    if not said:
        return 0.0
    known = {w for s in sources for w in words(s)}
    return sum(1 for w in said if w not in known) / len(said)


def _set_text(want: Desired, path: str, text: str) -> None:
    want.dir_text[path] = text
    data = repr((text,)).encode("utf-8", "surrogatepass")
    want.sigs[path] = "d:" + hashlib.blake2b(data, digest_size=12).hexdigest()


def _insert(text: str, block: str, before: str | None = None) -> str:
    """``block`` after the heading and description lines of a directory text (or before the
    line ``before`` when it is there)."""
    lines = text.split("\n")
    if before is not None and before in lines:
        at = lines.index(before)
    else:
        at = 0
        while at < len(lines) and (lines[at].startswith("#") or lines[at].startswith(">")):
            at += 1
    while at > 0 and not lines[at - 1].strip():
        at -= 1  # directly after the text above, then one blank line on each side
    rest = lines[at:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    return "\n".join([*lines[:at], "", block.rstrip("\n"), "", *rest])


def add_summaries(want: Desired, schema: Schema, provider: object) -> SummaryStats:
    """Write the section summaries and the corpus summary into ``want``'s directory texts (see
    the module docstring); ``provider`` is the compile provider (a model when it has
    ``section_summary``)."""
    stats = SummaryStats()
    zh = schema.language == "zh"
    dims = ["/" + escape_segment(spec.name) for spec in schema.dimensions]
    section = getattr(provider, "section_summary", None)
    for d in sorted(want.dir_text):
        members = want.ranked(d)  # most documents first
        if not members or not (d in dims or parent(d) in dims):
            continue  # not a section
        offered = [(m.path, f"{m.name}: {want.summary(m)}") for m in members[:SECTION_PAGES]]
        # Made of the first pages' own summaries, the extractive text has no word of its own:
        # its synthesized share is 0 (summarising every member of a large section to measure
        # that was most of an incremental add's render).
        text = " ".join(t for _, t in offered[:EXTRACTIVE_PAGES])
        share, model_wrote = 0.0, False
        if section is not None:
            written = section(d, offered)
            written_share = synthesized_share(written, [t for _, t in offered])
            stats.by_model += 1
            if written and written_share <= SYNTHESIS_BOUND:
                text, share, model_wrote = written, written_share, True
            else:
                stats.over_bound += 1
        stats.sections += 1
        stats.shares[d] = round(share, 4)
        head = "## 概述" if zh else "## Summary"
        # The share is shown where a model wrote the summary; an extractive one is the pages'
        # own sentences (share 0 by construction), where the line would only be noise.
        note = ""
        if model_wrote:
            note = (
                f"> 综合词占比 {share:.0%}（上限 {SYNTHESIS_BOUND:.0%}）\n"
                if zh
                else f"> synthesized words: {share:.0%} (bound {SYNTHESIS_BOUND:.0%})\n"
            )
        _set_text(want, d, _insert(want.dir_text[d], f"{head}\n{pg.one_line(text, 900)}\n{note}"))
    _corpus(want, schema, provider, dims, stats)
    return stats


def _corpus(
    want: Desired,
    schema: Schema,
    provider: object,
    dims: list[str],
    stats: SummaryStats,
) -> None:
    zh = schema.language == "zh"
    # pages a document is about say what the corpus holds; mentioned-only ones come last
    main = [(d, sorted(want.ranked(d), key=lambda m: not m.about)[:CORPUS_PAGES]) for d in dims]
    offered = [(m.path, f"{m.name}: {want.summary(m)}") for _, ms in main for m in ms]
    names = {m.path: m.name for _, ms in main for m in ms}
    claims: list[tuple[str, list[str]]] = [
        (want.summary(ms[0]), [ms[0].path]) for _, ms in main if ms
    ]
    corpus = getattr(provider, "corpus_summary", None)
    if corpus is not None and offered:
        written, dropped = corpus(offered)
        stats.claims_dropped += dropped
        if written:
            claims = written
    stats.claims = len(claims)
    if not claims or ROOT not in want.dir_text:
        return
    lines = ["## 语料概述" if zh else "## Corpus Summary"]
    for n, (text, cited) in enumerate(claims, 1):
        refs = ", ".join(f"[[{p}|{pg.one_line(names.get(p, p), 80)}]]" for p in cited)
        lines.append(f"{n}. {pg.one_line(text, 300)} — {refs}")
    catalog = "## 目录" if zh else "## Directory Catalog"
    _set_text(want, ROOT, _insert(want.dir_text[ROOT], "\n".join(lines) + "\n", before=catalog))
