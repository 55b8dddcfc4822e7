"""Two-layer repair (LLM-Wiki §3.3).

**Layer 1 — code fixes**, deterministic, after every build/add batch: dangling links (the row
goes, an inline link becomes its label), malformed references (a footnote in a near-miss format
is rewritten in the exact one; one that cannot be read goes with the facts it no longer
supports), drifted quotes (offsets re-pointed to the quote's place in the cited article, or the
quote restored to the cited text when only spacing or punctuation drifted), index drift
(directory index rows re-made from the listing; pages missing from the search index re-indexed).

**Layer 2 — content fixes**, every N documents: offline it removes what it cannot support
(facts whose cited span does not hold them), reschedules pages for recompilation (incomplete
pages, deleted or changed sources), demotes (confidence) and queues for review what needs a
person (contradictions, lost hand edits). With an LLM it first asks: a fact the cited span
supports is kept and remembered as verified; a candidate contradiction the model rejects is
waived; confirmed ones go to review with the model's explanation.

Every repair is written under the kb's bulk-job lease (parent-after-child, versions checked,
one audit entry per record) and leaves an explicit ``repair`` audit entry saying what it did.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from wikikv.compile import state
from wikikv.compile.pages import WIKILINK
from wikikv.dirindex import index_row, with_row
from wikikv.quality import validators as v
from wikikv.quality.page import article_of, parse
from wikikv.quality.queue import enqueue
from wikikv.store.audit import audit_op
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import basename, unescape_segment
from wikikv.store.records import FileMeta, FileRecord

LENIENT_NOTE = re.compile(
    r"^\[\^(?P<n>\d+)\]:\s*\[*\s*(?P<path>/sources/articles/[^\]\s|]+)[^\]]*\]*\s*"
    r"(?:chars?|characters|offsets?)?\s*[:=]?\s*(?P<s>\d+)\s*(?:-|–|—|\.\.|to)\s*(?P<e>\d+)\s*$"
)
DEMOTED_CONFIDENCE = 0.5
STALE_SIG = "e:rescheduled"
Writer = Callable[[str, str, FileMeta], None]


@dataclass
class RepairReport:
    fixed: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    removed_facts: int = 0
    demoted: int = 0
    queued: int = 0
    rescheduled: list[str] = field(default_factory=list)
    reschedule_docs: list[str] = field(default_factory=list)
    waived: int = 0
    llm_calls: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["fixed"] = dict(self.fixed)
        return out


class _Edit:
    """The pending changes to one page: lines to drop or replace, links to forget."""

    def __init__(self, rec: FileRecord) -> None:
        self.rec = rec
        self.drop: set[int] = set()
        self.replace: dict[int, str] = {}
        self.unlink: set[str] = set()
        self.notes: list[str] = []
        self.demote = False

    def text(self) -> str:
        lines = self.rec.text.split("\n")
        out = []
        for i, line in enumerate(lines):
            if i in self.drop:
                continue
            line = self.replace.get(i, line)
            if self.unlink:
                line = WIKILINK.sub(self._unlinked, line)
            out.append(line)
        return "\n".join(out)

    def _unlinked(self, m: re.Match[str]) -> str:
        if m.group(1).strip() not in self.unlink:
            return m.group(0)
        full = m.group(0)[2:-2]
        return full.split("|", 1)[1] if "|" in full else basename(m.group(1).strip())

    def meta(self) -> FileMeta:
        m = self.rec.meta
        links = [t for t in m.links if t not in self.unlink]
        confidence = min(m.confidence, DEMOTED_CONFIDENCE) if self.demote else m.confidence
        return msgspec.structs.replace(
            m, links=links, confidence=confidence, compiled_at=m.compiled_at or m.updated_at
        )


class Repairer:
    """Collects fixes per page, then writes each changed page once."""

    def __init__(self, kb: KnowledgeBase, view: v.View, write: Writer) -> None:
        self.kb = kb
        self.view = view
        self.write = write
        self.edits: dict[str, _Edit] = {}
        self.report = RepairReport()
        self.reindex: list[str] = []
        self._rescheduled_findings: list[v.Finding] = []

    def _edit(self, path: str) -> _Edit | None:
        if path not in self.edits:
            rec = self.view.pages.get(path)
            if rec is None:
                return None
            self.edits[path] = _Edit(rec)
        return self.edits[path]

    # ------------------------------------------------------------------ layer 1
    def layer1(self, findings: Iterable[v.Finding]) -> list[v.Finding]:
        """Apply the code fixes; returns the findings layer 1 left."""
        left: list[v.Finding] = []
        for f in findings:
            fix = self._layer1_fixes.get(f.type)
            if fix is not None and fix(self, f):
                self.report.fixed[f.type] += 1
            else:
                left.append(f)
        return left

    def _dangling(self, f: v.Finding) -> bool:
        e = self._edit(f.path)
        if e is None:
            return False
        page = self.view.parsed[f.path]
        for link in page.links:
            if link.target == f.target and link.in_section:
                e.drop.add(link.line)
        e.unlink.add(f.target)
        e.notes.append(f"dropped link to {f.target}")
        return True

    def _fact_line(self, path: str, n: str, line: int = -1) -> int | None:
        if line >= 0:
            return line
        for fact in self.view.parsed[path].facts:
            if fact.n == n:
                return fact.line
        return None

    def _malformed(self, f: v.Finding) -> bool:
        e = self._edit(f.path)
        if e is None:
            return False
        page = self.view.parsed[f.path]
        line_no = _line_of(f.detail)
        if f.detail.startswith("footnote not in the citation format") and line_no is not None:
            m = LENIENT_NOTE.match(page.lines[line_no])
            if m is not None and int(m.group("s")) < int(m.group("e")):
                e.replace[line_no] = (
                    f"[^{m.group('n')}]: [[{m.group('path')}]] chars {m.group('s')}-{m.group('e')}"
                )
                e.notes.append(f"rewrote footnote [^{m.group('n')}] in the citation format")
            else:
                e.drop.add(line_no)
                e.notes.append(f"dropped unreadable footnote at line {line_no}")
            return True
        if line_no is not None:  # a duplicate footnote, or a fact line without a marker
            e.drop.add(line_no)
            e.notes.append(f"dropped line {line_no}: {f.detail}")
            return True
        if f.detail == "footnote that no fact cites" and f.n in page.notes:
            e.drop.add(page.notes[f.n].line)
            e.notes.append(f"dropped footnote [^{f.n}] that no fact cites")
            return True
        fact_line = self._fact_line(f.path, f.n, f.line)
        if fact_line is None:
            return False
        e.drop.add(fact_line)
        if f.n in page.notes:
            e.drop.add(page.notes[f.n].line)
        e.notes.append(f"dropped fact [^{f.n}]: {f.detail}")
        self.report.removed_facts += 1
        return True

    def _drift(self, f: v.Finding) -> bool:
        """A quote whose offsets drifted (found verbatim elsewhere in the cited article), or
        whose text drifted from the cited span only in spacing or punctuation."""
        e = self._edit(f.path)
        source = self.view.article(f.target) if f.target else None
        page = self.view.parsed[f.path]
        note = page.notes.get(f.n)
        fact_line = self._fact_line(f.path, f.n, f.line)
        if e is None or source is None or note is None or fact_line is None:
            return False
        quote = next(x.quote for x in page.facts if x.line == fact_line)
        if sum(1 for x in page.facts if x.n == f.n) > 1:
            return False  # a marker two facts share: the footnote cannot be re-pointed for one
        at = source.text.find(quote) if quote else -1
        if at >= 0:
            e.replace[note.line] = f"[^{f.n}]: [[{note.path}]] chars {at}-{at + len(quote)}"
            e.notes.append(f"re-pointed [^{f.n}] to chars {at}-{at + len(quote)}")
            return True
        span = source.text[note.start : note.end]
        if (
            span
            and "\n" not in span
            and v.overlap(quote, span) >= v.SAME_TEXT
            and (v.overlap(span, quote) >= v.SAME_TEXT)
        ):
            e.replace[fact_line] = f"- {span} [^{f.n}]"
            e.notes.append(f"restored the cited text of [^{f.n}]")
            return True
        return False

    def _index(self, f: v.Finding) -> bool:
        if f.detail == "page missing from the search index":
            self.reindex.append(f.path)
            return True
        rec = self.view.dirs.get(f.path)
        if rec is None or f.detail == "listed child has no record":
            return False
        if f.detail == "index row for a page not in the listing":
            lines = rec.text.split("\n")
            rec.text = "\n".join(ln for ln in lines if not _row_targets(ln, f.target))
        else:
            child = self.kb.get(f.target)
            if child is None:
                return False
            rec.text = with_row(rec.text, index_row(f.target, child))
        self.kb.set_dir_text(f.path, rec.text)
        self._audit(f.path, f"{f.type}: {f.detail} {f.target}")
        return True

    _layer1_fixes: dict[str, Callable[[Repairer, v.Finding], bool]] = {}

    # ------------------------------------------------------------------ layer 2
    def layer2(self, findings: Iterable[v.Finding], checker: Any | None = None) -> list[v.Finding]:
        """Content fixes (see the module docstring); returns what is left for a person."""
        left: list[v.Finding] = []
        waived: dict[str, str] = {}
        for f in findings:
            if f.type == v.UNSUPPORTED:
                if checker is not None:
                    ok, why = checker.supported(self.view, f)
                    self.report.llm_calls += 1
                    if ok:
                        waived[f.key] = f"LLM verified: {why}"[:300]
                        continue
                if self._malformed(f):  # remove the fact it cannot support
                    self.report.fixed[f.type] += 1
                continue
            if f.type in (v.INCOMPLETE, v.SOURCE_DELETED):
                self._reschedule(f)
                continue
            if f.type in (v.CONTRADICTION, v.IN_PAGE):
                why = ""
                if checker is not None:
                    agree, why = checker.contradicts(self.view, f)
                    self.report.llm_calls += 1
                    if not agree:
                        waived[f.key] = f"LLM found no contradiction: {why}"[:300]
                        continue
                for p in {f.path, f.target} - {""}:
                    e = self._edit(p)
                    if e is not None and not e.demote:
                        e.demote = True
                        e.notes.append(f"demoted: {f.detail}")
                        self.report.demoted += 1
                note = f" LLM: {why}" if why else ""
                self._queue(f, "review: which value do the sources support?" + note)
                left.append(f)
                continue
            if f.type == v.UNSEEN:
                self._queue(f, "review: the hand edit was overwritten; restore it or accept")
                left.append(f)
                continue
            left.append(f)
        self.report.waived += len(waived)
        self.waived = waived
        return left

    waived: dict[str, str] = {}

    def _queue(self, f: v.Finding, action: str) -> None:
        if enqueue(self.kb, f, action) is not None:
            self.report.queued += 1

    def _reschedule(self, f: v.Finding) -> None:
        """Mark the page for recompilation; a deleted source's document leaves the compile
        state when the recompile runs (its facts and links go with it)."""
        if f.type == v.SOURCE_DELETED and f.detail == "cited source was deleted":
            art = article_of(f.target)
            if art is not None:
                doc = unescape_segment(basename(art))
                if doc not in self.report.reschedule_docs:
                    self.report.reschedule_docs.append(doc)
        if f.path not in self.report.rescheduled:
            self.report.rescheduled.append(f.path)
            self._rescheduled_findings.append(f)

    # ------------------------------------------------------------------ writes
    def _audit(self, path: str, detail: str) -> None:
        ver = self.kb.version(path)
        self.kb.backend.batch(
            [audit_op(self.kb.keys, self.kb.actor, "repair", path, ver, ver, detail[:500])]
        )

    def commit(self) -> int:
        """Write every edited page once, re-index what drifted, and mark the rescheduled pages
        for recompilation. Returns the number of pages written."""
        n = 0
        for path, e in sorted(self.edits.items()):
            text, meta = e.text(), e.meta()
            if text == e.rec.text and meta == e.rec.meta:
                continue
            self.write(path, text, meta)
            self._audit(path, "; ".join(e.notes))
            n += 1
        if self.reindex:
            from wikikv.search.sync import reindex

            reindex(self.kb, [], sorted(set(self.reindex)))
            for p in set(self.reindex):
                self._audit(p, "index_inconsistency: re-indexed")
        if self.report.rescheduled:
            # A signature that matches nothing: the next full-render sync re-renders the page
            # if the model still produces it, and deletes it as stale if not.
            pages = state.load_pages(self.kb)
            compiled = [p for p in self.report.rescheduled if p in pages.sigs]
            for p in compiled:
                pages.sigs[p] = STALE_SIG
                self._audit(p, f"{v.RESCHEDULED} for recompilation (page read at this version)")
            state.write(self.kb, state.pages_ops(self.kb, pages))
            for f in self._rescheduled_findings:
                if f.path not in pages.sigs:  # not a compiled page: only a person can fix it
                    self._queue(f, "review: not a compiled page; complete it by hand")
            self.report.rescheduled = compiled
        return n


Repairer._layer1_fixes = {
    v.DANGLING: Repairer._dangling,
    v.MALFORMED: Repairer._malformed,
    v.UNSUPPORTED: Repairer._drift,
    v.INDEX: Repairer._index,
}


def _line_of(detail: str) -> int | None:
    m = re.search(r"line (\d+)$", detail)
    return int(m.group(1)) if m else None


def _row_targets(line: str, target: str) -> bool:
    if not line.startswith("- [["):
        return False
    m = WIKILINK.search(line)
    return m is not None and m.group(1).strip() == target


def reparse(view: v.View, paths: Iterable[str]) -> None:
    """Reload pages after a repair so the next round sees what was written."""
    paths = sorted(set(paths))
    for p, rec in zip(paths, view.kb.get_many(paths), strict=True):
        if isinstance(rec, FileRecord) and p in view.pages:
            view.pages[p] = rec
            view.parsed[p] = parse(rec.text)
