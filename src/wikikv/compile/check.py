"""``wikikv check --report``: the quality of a built wiki, measured on the wiki itself.

Invariants (each must hold on every corpus): fsck clean; no broken wikilink; every wikilink
between entity pages has its reverse; every fact's quote is the cited article's text between
the cited offsets, verbatim; every entity page reachable from the root; the fan-out bound on
every directory outside ``/sources``; the depth bound everywhere.

Measures: fact coverage (share of the documents' informative sentences quoted on some page),
duplicate-entity rate (corpus title groups carried by more than one entity page), orphan rate
(entity pages no other entity page links to), index coverage (entity pages in the search index;
below 1.0 fails the check: search would miss pages).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from wikikv.compile import state
from wikikv.compile.pages import FACT_LINE, HIDDEN_LINKS, NOTE_LINE, WIKILINK
from wikikv.errors import InvalidPath
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import ROOT, depth, is_under
from wikikv.store.records import DirRecord, FileRecord
from wikikv.text.entities import fold
from wikikv.text.note_glosses import note_mark_length

SAMPLE = 10


@dataclass
class CheckReport:
    kb: str
    nodes: int = 0
    entity_pages: int = 0
    documents: int = 0
    fsck_clean: bool | None = None
    fsck_problems: int = 0
    links: int = 0
    broken_links: int = 0
    missing_reverse: int = 0
    facts: int = 0
    invalid_citations: int = 0
    unreachable: int = 0
    fanout_violations: int = 0
    depth_violations: int = 0
    max_fanout: int = 0
    max_depth: int = 0
    orphans: int = 0
    fact_coverage: float = 0.0
    title_groups: int = 0
    duplicate_titles: int = 0
    indexed: int | None = None
    examples: dict[str, list[str]] = field(default_factory=dict)

    @property
    def citation_validity(self) -> float:
        return 1.0 if not self.facts else 1 - self.invalid_citations / self.facts

    @property
    def duplicate_rate(self) -> float:
        return self.duplicate_titles / self.title_groups if self.title_groups else 0.0

    @property
    def orphan_rate(self) -> float:
        return self.orphans / self.entity_pages if self.entity_pages else 0.0

    @property
    def broken_link_rate(self) -> float:
        return self.broken_links / self.links if self.links else 0.0

    @property
    def index_coverage(self) -> float | None:
        if self.indexed is None:
            return None
        return self.indexed / self.entity_pages if self.entity_pages else 1.0

    @property
    def ok(self) -> bool:
        """Whether every invariant holds."""
        return (
            self.fsck_clean is not False
            and self.broken_links == 0
            and self.missing_reverse == 0
            and self.invalid_citations == 0
            and self.unreachable == 0
            and self.fanout_violations == 0
            and self.depth_violations == 0
            # search must find every entity page: an index that is missing or stale fails
            and (self.index_coverage is None or self.index_coverage >= 1.0)
        )

    def note(self, kind: str, example: str) -> None:
        bucket = self.examples.setdefault(kind, [])
        if len(bucket) < SAMPLE:
            bucket.append(example)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(
            ok=self.ok,
            citation_validity=self.citation_validity,
            duplicate_rate=self.duplicate_rate,
            orphan_rate=self.orphan_rate,
            broken_link_rate=self.broken_link_rate,
            index_coverage=self.index_coverage,
        )
        return out


def check(kb: KnowledgeBase, fanout: int | None = None, run_fsck: bool = True) -> CheckReport:
    """Measure the wiki of ``kb`` (read-only)."""
    report = CheckReport(kb.name)
    schema = state.load_schema(kb)
    bound = fanout or (schema.fanout if schema else 256)
    if run_fsck:
        try:
            from wikikv.store.fsck import fsck
        except ImportError:  # pragma: no cover - fsck ships with the store
            pass
        else:
            found = fsck(kb)
            report.fsck_clean = found.clean
            report.fsck_problems = found.problems
    reachable = _walk(kb, report, bound)
    report.unreachable = 0
    pages: dict[str, FileRecord] = {}
    articles: dict[str, str] = {}
    for path in kb.prefix("/"):
        if path not in reachable:
            report.unreachable += 1
            report.note("unreachable", path)
    hand: dict[str, FileRecord] = {}
    for path, rec in reachable.items():
        if isinstance(rec, FileRecord):
            if rec.meta.kind == "entity":
                pages[path] = rec
            elif rec.meta.kind == "article":
                articles[path] = rec.text
            elif rec.meta.kind == "page" and not is_under(path, "/sources"):
                hand[path] = rec
    report.entity_pages = len(pages)
    report.nodes = len(reachable)
    cited = _links_and_facts(kb, report, pages, articles, reachable)
    _hand_links(kb, report, hand, reachable)
    _coverage(kb, report, cited, articles)
    _dups(report, pages, kb, schema.folder_corpus if schema else False)
    _index(kb, report, pages)
    return report


def _walk(kb: KnowledgeBase, report: CheckReport, bound: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    stack = [ROOT]
    while stack:
        p = stack.pop()
        rec = kb.get(p, follow_redirects=False)
        if rec is None:
            continue
        out[p] = rec
        report.max_depth = max(report.max_depth, depth(p))
        if depth(p) > kb.settings.max_depth:
            report.depth_violations += 1
        if isinstance(rec, DirRecord):
            listing = kb.ls_all(p)
            children = listing.child_paths()
            if not is_under(p, "/sources"):
                report.max_fanout = max(report.max_fanout, len(children))
                if len(children) > bound:
                    report.fanout_violations += 1
                    report.note("fanout", f"{p}: {len(children)}")
            for c, r in zip(children, kb.get_many(children), strict=True):
                if isinstance(r, DirRecord):
                    stack.append(c)
                elif r is not None:
                    out[c] = r
                    report.max_depth = max(report.max_depth, depth(c))
                    if depth(c) > kb.settings.max_depth:
                        report.depth_violations += 1
    return out


def _hand_links(
    kb: KnowledgeBase, report: CheckReport, pages: dict[str, FileRecord], reachable: dict[str, Any]
) -> None:
    """Body wikilinks of pages put by hand (kind ``page``): counted and checked as lint checks
    them (absolute targets; a redirect left by a move still resolves). They take no part in the
    compiled wiki's facts, reverse links and orphans."""
    for path, rec in pages.items():
        prose = "\n".join(ln for ln in rec.text.split("\n") if not FACT_LINE.match(ln))
        for target in dict.fromkeys(m.group(1).strip() for m in WIKILINK.finditer(prose)):
            if not target.startswith("/"):
                continue
            report.links += 1
            if target not in reachable and not _resolves(kb, target):
                report.broken_links += 1
                report.note("broken", f"{path} -> {target}")


def _resolves(kb: KnowledgeBase, target: str) -> bool:
    try:
        return kb.get(target) is not None
    except InvalidPath:  # a target no page can have
        return False


def _links_and_facts(
    kb: KnowledgeBase,
    report: CheckReport,
    pages: dict[str, FileRecord],
    articles: dict[str, str],
    reachable: dict[str, Any],
) -> dict[str, set[tuple[int, int]]]:
    cited: dict[str, set[tuple[int, int]]] = {}
    outgoing: dict[str, set[str]] = {}
    inbound: Counter[str] = Counter()
    for path, rec in pages.items():
        targets = set()
        # Quotes are verbatim source text and may hold "[[...]]" of their own: links are read
        # from every line but the fact lines.
        prose = "\n".join(ln for ln in rec.text.split("\n") if not FACT_LINE.match(ln))
        for m in WIKILINK.finditer(prose):
            target = m.group(1).strip()
            report.links += 1
            if target not in reachable:
                report.broken_links += 1
                report.note("broken", f"{path} -> {target}")
            targets.add(target)
        outgoing[path] = {t for t in targets if t in pages}
        for t in outgoing[path]:
            if t != path:
                inbound[t] += 1
        notes: dict[str, tuple[str, int, int]] = {}
        facts: list[tuple[str, str]] = []
        for line in rec.text.split("\n"):
            fm = FACT_LINE.match(line)
            if fm:
                facts.append((fm.group("n"), fm.group("quote")))
                continue
            nm = NOTE_LINE.match(line)
            if nm:
                notes[nm.group("n")] = (nm.group("path"), int(nm.group("s")), int(nm.group("e")))
        for n, quote in facts:
            report.facts += 1
            ref = notes.get(n)
            text = articles.get(ref[0]) if ref else None
            if ref is None or text is None or text[ref[1] : ref[2]] != quote:
                report.invalid_citations += 1
                report.note("citation", f"{path} [^{n}]")
                continue
            cited.setdefault(ref[0], set()).add((ref[1], ref[2]))
    # a page that lists only its closest related pages owes no link back to the others
    bounded = {path for path, rec in pages.items() if HIDDEN_LINKS.search(rec.text)}
    for path, targets in outgoing.items():
        for t in targets:
            if path not in outgoing.get(t, set()) and t not in bounded:
                report.missing_reverse += 1
                report.note("reverse", f"{path} -> {t}")
    report.orphans = sum(1 for p in pages if inbound[p] == 0)
    return cited


def _coverage(
    kb: KnowledgeBase,
    report: CheckReport,
    cited: dict[str, set[tuple[int, int]]],
    articles: dict[str, str],
) -> None:
    from wikikv.compile.model import article_path

    docs = state.load_docs(kb)
    report.documents = len(docs)
    total = hit = 0
    for d in docs.values():
        path = article_path(d.id)
        text = articles.get(path, "")
        # a sentence is quoted when a cited span covers its words: a quote may start past the
        # sentence's note mark ("章士钊（1881—1973）…" of "〔2〕章士钊…") or at its note's opening
        # (two sentences quoted as one)
        spans = sorted(cited.get(path, ()))
        starts = [a for a, _ in spans]
        reach: list[int] = []  # the furthest end of the spans starting at or before each start
        for _, b in spans:
            reach.append(max(b, reach[-1]) if reach else b)
        for i in d.informative:
            s = d.sentences[i]
            total += 1
            words = s.start + note_mark_length(text[s.start : s.end])
            k = bisect_right(starts, words) - 1
            if k >= 0 and reach[k] >= s.end:
                hit += 1
    report.fact_coverage = hit / total if total else 0.0


def _dups(
    report: CheckReport, pages: dict[str, FileRecord], kb: KnowledgeBase, folder: bool
) -> None:
    """Title groups (passages with one title describe one entity) carried by more than one
    entity page, as its name or an alias. In a folder corpus a file name shared by two folders
    names two works (homonyms), so only the qualified name counts."""
    docs = state.load_docs(kb)
    groups: dict[str, str] = {}
    shared = Counter(fold(d.title) for d in docs.values())
    for d in docs.values():
        key = fold(d.title)
        if folder and shared[key] > 1:
            continue
        groups.setdefault(key, d.title)
    names: dict[str, set[str]] = {}
    for path, rec in pages.items():
        for n in {rec.meta.title, *rec.meta.aliases}:
            names.setdefault(fold(n), set()).add(path)
    report.title_groups = len(groups)
    for key, title in groups.items():
        carriers = names.get(key, set())
        if len(carriers) > 1 and not _work_and_protagonist(carriers, pages):
            report.duplicate_titles += 1
            report.note("duplicate", f"{title}: {sorted(carriers)[:3]}")


def _work_and_protagonist(carriers: set[str], pages: dict[str, FileRecord]) -> bool:
    """Two pages of one title under two dimensions that link to each other: a work and the
    person it is named after (《孔乙己》 and 孔乙己), not one entity carried twice."""
    if len(carriers) != 2:
        return False
    a, b = sorted(carriers)
    return (
        a.split("/")[1] != b.split("/")[1] and b in pages[a].meta.links and a in pages[b].meta.links
    )


def _index(kb: KnowledgeBase, report: CheckReport, pages: dict[str, FileRecord]) -> None:
    try:
        from wikikv.search.analysis import IndexKeys, doc_ref
    except ImportError:
        return
    ik = IndexKeys(kb.name)
    paths = sorted(pages)
    found = 0
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        items = kb.backend.get_many([ik.doc(doc_ref(p)) for p in chunk])
        found += sum(1 for it in items if it is not None)
    report.indexed = found
