"""Seed known errors into a wiki, to measure the validators' detection recall (and to test them).

Each seeder changes one page (or directory) through the kb API, the way a faulty writer would,
and returns what a validator must report: ``(error type, path)``. Seeds of one run go to
distinct pages, so one seed cannot hide another.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from wikikv.compile.pages import WIKILINK
from wikikv.quality import validators as v
from wikikv.quality.page import parse
from wikikv.store.bulk import BulkWriter
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import parent
from wikikv.store.records import DirRecord, FileRecord

Seeded = tuple[str, str]


@dataclass
class Pool:
    """Pages and directories still free for seeding."""

    pages: list[str]
    dirs: list[str]
    rng: random.Random

    def page(self, kb: KnowledgeBase, need_facts: int = 1) -> FileRecord | None:
        while self.pages:
            path = self.pages.pop(self.rng.randrange(len(self.pages)))
            rec = kb.get(path)
            if isinstance(rec, FileRecord) and len(parse(rec.text).facts) >= need_facts:
                return rec
        return None


def pool(kb: KnowledgeBase, seed: int = 0) -> Pool:
    view = v.View(kb)
    pages = sorted(p for p, r in view.pages.items() if r.meta.kind == "entity")
    dirs = sorted(
        d for d, r in view.dirs.items() if any(ln.startswith("- [[") for ln in r.text.split("\n"))
    )
    return Pool(pages, dirs, random.Random(seed))


def _insert_after_summary(text: str, line: str) -> str:
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if ln.startswith("> "):
            return "\n".join(lines[: i + 1] + [line] + lines[i + 1 :])
    return text + "\n" + line


def dangling(kb: KnowledgeBase, p: Pool, i: int) -> Seeded | None:
    rec = p.page(kb, 0)
    if rec is None:
        return None
    target = f"/nowhere/Missing page {i}"
    kb.put(
        rec.path, _insert_after_summary(rec.text, f"See also [[{target}|Missing {i}]]."), rec.meta
    )
    return v.DANGLING, rec.path


def incomplete(kb: KnowledgeBase, p: Pool, i: int) -> Seeded | None:
    rec = p.page(kb, 1)
    if rec is None:
        return None
    page = parse(rec.text)
    if i % 2 == 0:  # the summary line goes
        drop = {n for n, ln in enumerate(page.lines) if ln.startswith("> ")}
    else:  # the key facts section goes, with its facts and footnotes
        drop = {f.line for f in page.facts} | {n.line for n in page.notes.values()}
        drop |= {n for n, ln in enumerate(page.lines) if ln in ("## Key Facts", "## 要点")}
    text = "\n".join(ln for n, ln in enumerate(page.lines) if n not in drop)
    kb.put(rec.path, text, rec.meta)
    return v.INCOMPLETE, rec.path


_BREAKERS: tuple[Callable[[re.Match[str]], str], ...] = (
    lambda m: f"[^{m.group('n')}]: {m.group('path')} chars {m.group('s')}..{m.group('e')}",
    lambda m: f"[^{m.group('n')}]: [[{m.group('path')}]] from {m.group('s')} to {m.group('e')}",
    lambda m: f"[^{m.group('n')}] [[{m.group('path')}]] chars {m.group('s')}-{m.group('e')}",
    lambda m: "",  # the footnote is lost: its marker cites nothing
)


def malformed(kb: KnowledgeBase, p: Pool, i: int) -> Seeded | None:
    from wikikv.compile.pages import NOTE_LINE

    rec = p.page(kb, 1)
    if rec is None:
        return None
    lines = rec.text.split("\n")
    for n, ln in enumerate(lines):
        m = NOTE_LINE.match(ln)
        if m is not None:
            lines[n] = _BREAKERS[i % len(_BREAKERS)](m)
            kb.put(rec.path, "\n".join(lines), rec.meta)
            return v.MALFORMED, rec.path
    return None


def unseen(kb: KnowledgeBase, p: Pool, i: int) -> Seeded | None:
    rec = p.page(kb, 0)
    if rec is None:
        return None
    kb.put(rec.path, rec.text + f"\nA note added by hand ({i}).\n", rec.meta)  # a person
    with BulkWriter(kb, job="compile:seed") as w:  # the compiler, not reading it
        w.put_file(rec.path, rec.text, rec.meta)
    return v.UNSEEN, rec.path


def index(kb: KnowledgeBase, p: Pool, i: int) -> Seeded | None:
    if i % 3 != 2:
        got = _index_text(kb, p, i)
        if got is not None:
            return got
    rec = p.page(kb, 0)  # a page drops out of the search index
    if rec is None:
        return None
    from wikikv.search.index import IndexWriter

    with IndexWriter(kb) as w:
        w.remove(rec.path)
    return v.INDEX, rec.path


def _index_text(kb: KnowledgeBase, p: Pool, i: int) -> Seeded | None:
    while p.dirs:
        d = p.dirs.pop(p.rng.randrange(len(p.dirs)))
        drec = kb.get(d)
        if not isinstance(drec, DirRecord):
            continue
        lines = drec.text.split("\n")
        rows = [n for n, ln in enumerate(lines) if ln.startswith("- [[")]
        if i % 3 == 0 and rows:  # a listed page is missing from the index text
            victim = rows[p.rng.randrange(len(rows))]
            m = WIKILINK.search(lines[victim])
            if m is None or parent(m.group(1).strip()) != d:
                continue
            del lines[victim]
        else:  # the index text lists a page that is not there
            lines.append(f"- [[{d.rstrip('/')}/Ghost page {i}|Ghost page {i}]] — seeded")
        kb.set_dir_text(d, "\n".join(lines))
        return v.INDEX, d
    return None


def unsupported(kb: KnowledgeBase, p: Pool, i: int) -> Seeded | None:
    rec = p.page(kb, 1)
    if rec is None:
        return None
    page = parse(rec.text)
    fact = page.facts[p.rng.randrange(len(page.facts))]
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in fact.quote)
    claim = (
        f"据说此人在{1700 + i}年获得了一项从未有过的奖励。"
        if zh
        else f"It was awarded the Interplanetary Prize of {1700 + i} by the Moon Council."
    )
    text = "\n".join(
        f"- {claim} [^{fact.n}]" if n == fact.line else ln for n, ln in enumerate(page.lines)
    )
    kb.put(rec.path, text, rec.meta)
    return v.UNSUPPORTED, rec.path


def contradiction(kb: KnowledgeBase, p: Pool, i: int) -> Seeded | None:
    a = p.page(kb, 1)
    b = p.page(kb, 1)
    if a is None or b is None:
        return None
    name = a.meta.title
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in name)
    for rec, year in ((a, 1700 + i), (b, 1500 + i)):
        page = parse(rec.text)
        fact = page.facts[0]
        claim = f"{name}生于{year}年。" if zh else f"{name} was born in {year}."
        text = "\n".join(
            ln if n != fact.line else ln + f"\n- {claim} [^{fact.n}]"
            for n, ln in enumerate(page.lines)
        )
        kb.put(rec.path, text, rec.meta)
    return v.CONTRADICTION, a.path


SEEDERS: dict[str, Callable[[KnowledgeBase, Pool, int], Seeded | None]] = {
    v.DANGLING: dangling,
    v.INCOMPLETE: incomplete,
    v.MALFORMED: malformed,
    v.UNSEEN: unseen,
    v.INDEX: index,
    v.UNSUPPORTED: unsupported,
    v.CONTRADICTION: contradiction,
}


def seed_errors(
    kb: KnowledgeBase, per_type: int, seed: int = 0, types: tuple[str, ...] = v.ERROR_TYPES
) -> list[Seeded]:
    """Seed ``per_type`` errors of each type (fewer when the wiki runs out of pages)."""
    free = pool(kb, seed)
    out: list[Seeded] = []
    for t in types:
        for i in range(per_type):
            got = SEEDERS[t](kb, free, i)
            if got is None:
                break
            out.append(got)
    return out


def detected(seeded: list[Seeded], findings: list[v.Finding]) -> dict[str, dict[str, int]]:
    """Per type: how many seeds a finding of that type reports (at the page or its pair)."""
    found: set[tuple[str, str]] = set()
    for f in findings:
        found.add((f.type, f.path))
        if f.target:
            found.add((f.type, f.target))
    out: dict[str, dict[str, int]] = {}
    for t, path in seeded:
        row = out.setdefault(t, {"seeded": 0, "detected": 0})
        row["seeded"] += 1
        row["detected"] += int((t, path) in found)
    return out
