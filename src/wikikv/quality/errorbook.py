"""The Error Book (LLM-Wiki §3.3): recurring construction errors of one kb, their root causes and
the constraint rules learned from them.

Lifecycle: **detect** (validators) → **attribute** (a root cause per error type) → **constrain**
(a rule) → **inject** (the open rules go into the next LLM compile prompts; see
:func:`constraints_version`) → **verify & close** (re-validation finds no affected page left).
An entry reopens when its error comes back.

Stored per kb as one system record (``quality/errorbook``, outside the tree), with the repair
counters and the verdicts that waive a finding (an LLM verified the fact; a person decided);
exported and imported as ``error_book.yaml``. Its times (``first_seen``, ``last_seen``,
``last_verified``, ``closed_at``) are ISO 8601 date-times in UTC; a book exported before that,
with epoch seconds, is still read.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import msgspec
import yaml

from wikikv.errors import InvalidErrorBook
from wikikv.quality import validators as v
from wikikv.store.backends.base import Put
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import now

RECORD = "quality/errorbook"
MAX_AFFECTED = 500  # paths kept per entry (the count is exact)


class Entry(msgspec.Struct, omit_defaults=True):
    id: str
    type: str
    phenomenon: str
    root_cause: str
    constraint: str
    verification: str
    status: str = "open"  # open | closed
    affected: list[str] = msgspec.field(default_factory=list)
    affected_count: int = 0
    occurrences: int = 0  # findings seen over the entry's life
    first_seen: float = 0.0
    last_seen: float = 0.0
    last_verified: float = 0.0
    closed_at: float = 0.0


class Book(msgspec.Struct, omit_defaults=True):
    entries: dict[str, Entry] = msgspec.field(default_factory=dict)
    batches: int = 0  # compile batches since the last verification
    docs_since_llm_fix: int = 0
    waived: dict[str, str] = msgspec.field(default_factory=dict)  # finding key → why


# What each error type means, why it happens and the rule that prevents it (attribution).
ATTRIBUTION: dict[str, tuple[str, str, str, str]] = {
    v.DANGLING: (
        "Wikilinks to pages that do not exist",
        "A link was written assuming its target page exists, without checking the index.",
        "NEVER create a link to a page that is not in the wiki's index: link only to page "
        "paths you were given as existing.",
        "Resolve every wikilink target in the store.",
    ),
    v.INCOMPLETE: (
        "Entity pages missing required sections (title, summary, cited key facts, sources)",
        "The page was written from too little cited material, or its output was cut short.",
        "Every entity page has a one-line summary and at least one key fact quoted from a "
        "cited source, and lists its sources.",
        "Template completeness check of the page's sections.",
    ),
    v.MALFORMED: (
        "Citations that break the format [^n]: [[/sources/articles/<id>]] chars a-b",
        "Citation markers were written without their footnote, or footnotes in free form.",
        "Cite every key fact with a marker [^n] whose footnote is exactly "
        "'[^n]: [[/sources/articles/<id>]] chars <start>-<end>'.",
        "Regex validation of every footnote and marker.",
    ),
    v.UNSEEN: (
        "Pages rewritten from a version their writer never read (a hand edit lost)",
        "The compiler re-rendered a page without reading its hand-edited current version.",
        "Before rewriting a page, read its current version and keep hand-written changes.",
        "Audit trail: a compile write after a hand edit with no merge between them.",
    ),
    v.INDEX: (
        "Directory indexes or the search index disagree with the stored pages",
        "Pages were added, moved or deleted without updating the directory text or the "
        "search index in the same batch.",
        "Update the directory index and the search index in the same batch as every page "
        "creation, move or deletion.",
        "Bidirectional diff of listings, index text rows and search entries.",
    ),
    v.UNSUPPORTED: (
        "Key facts the cited source text does not support",
        "A fact was paraphrased or generalised beyond the cited passage, or its offsets drifted.",
        "Do not add entity attributes or facts unless the cited source supports them: quote "
        "the source verbatim with its exact character offsets.",
        "The quote must equal the cited article text at its offsets (with an LLM: "
        "source-grounded verification).",
    ),
    v.CONTRADICTION: (
        "Related pages give different values for the same attribute of an entity",
        "Pages were compiled from different sources without checking what related pages state.",
        "When a related page already states a date or place of an entity, do not state a "
        "different value unless a cited source says so, and then cite it.",
        "Claims (entity, attribute, value) compared across pages (with an LLM: pairwise "
        "checks of linked pages).",
    ),
    v.DUPLICATE: (
        "The same key fact twice on one page (lint E1)",
        "Two sources with the same sentence were both quoted.",
        "Quote each fact once per page, even when several sources repeat it.",
        "Normalised comparison of the fact lines of a page.",
    ),
    v.IN_PAGE: (
        "Two key facts on one page disagree (lint E3)",
        "Facts from sources that disagree were put side by side without noting it.",
        "Do not state two different values for one attribute on a page; keep the one the "
        "cited sources support and note the disagreement.",
        "Claims compared within the page.",
    ),
    v.SOURCE_DELETED: (
        "Pages citing a source that was deleted or changed since (lint E5)",
        "A source changed or went away after the page was compiled.",
        "Cite only sources present in the corpus; recompile pages when their sources change.",
        "Every cited article exists and is older than the page's compile time.",
    ),
}


def _key(kb: KnowledgeBase) -> bytes:
    return kb.keys.system(RECORD)


def load(kb: KnowledgeBase) -> Book:
    item = kb.backend.get(_key(kb))
    return Book() if item is None else msgspec.msgpack.decode(item.value, type=Book)


def save(kb: KnowledgeBase, book: Book) -> None:
    kb.backend.batch([Put(_key(kb), msgspec.msgpack.encode(book))])


def new_entry(error_type: str) -> Entry:
    phen, cause, rule, check = ATTRIBUTION[error_type]
    return Entry(error_type, error_type, phen, cause, rule, check)


def record(book: Book, findings: Iterable[v.Finding], checked: Iterable[str] | None = None) -> None:
    """Detect → attribute → constrain: fold findings into the book. Types in ``checked`` (all
    by default) were fully re-validated: their entries keep only the paths found now and close
    when none is left."""
    t = now()
    affected: dict[str, set[str]] = defaultdict(set)
    counts: dict[str, int] = defaultdict(int)
    for f in findings:
        if f.key in book.waived:
            continue
        affected[f.type].add(f.path)
        counts[f.type] += 1
    for error_type, paths in affected.items():
        entry = book.entries.get(error_type)
        if entry is None:
            entry = book.entries[error_type] = new_entry(error_type)
            entry.first_seen = t
        if entry.status == "closed":
            entry.status, entry.closed_at = "open", 0.0
        entry.occurrences += counts[error_type]
        entry.last_seen = t
        merged = set(entry.affected) | paths if checked is None else paths
        entry.affected = sorted(merged)[:MAX_AFFECTED]
        entry.affected_count = max(len(merged), len(entry.affected))
    for error_type in set(v.ALL_TYPES) if checked is None else set(checked):
        entry = book.entries.get(error_type)
        if entry is None:
            continue
        entry.last_verified = t
        if error_type not in affected and checked is not None:
            entry.affected, entry.affected_count = [], 0
            if entry.status == "open":
                entry.status, entry.closed_at = "closed", t


def verify(kb: KnowledgeBase, book: Book, view: v.View | None = None) -> list[v.Finding]:
    """Verify & close: re-validate every open entry's error type over the wiki."""
    open_types = [
        e.type for e in book.entries.values() if e.status == "open" and e.type in v.ALL_TYPES
    ]
    if not open_types:
        return []
    _, found = v.validate(kb, types=open_types, view=view)
    found = [f for f in found if f.key not in book.waived and not _decided(kb, f)]
    record(book, found, checked=open_types)
    return found


def _decided(kb: KnowledgeBase, finding: v.Finding) -> bool:
    from wikikv.quality.queue import decided

    return decided(kb, finding)


def open_constraints(book: Book) -> list[str]:
    """The rules to inject into compile prompts: one per open entry, in a stable order."""
    return [e.constraint for _, e in sorted(book.entries.items()) if e.status == "open"]


def constraints_version(rules: list[str]) -> str:
    """A short hash of the injected rules: part of the prompt version, so a cached answer
    produced under other rules is never reused."""
    if not rules:
        return ""
    return hashlib.blake2b("\n".join(rules).encode(), digest_size=4).hexdigest()


# ------------------------------------------------------------------------ YAML
def _iso(ts: float) -> str | None:
    """An ISO 8601 date-time in UTC (``2026-11-23T15:50:00Z``), or None for "never"."""
    if not ts:
        return None
    return (
        dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


def _ts(value: Any, field: str) -> float:
    """Seconds since the epoch from an ISO 8601 date-time (a value without an offset is UTC),
    or from a number: the books exported before timestamps were ISO held epoch floats."""
    if value in (None, ""):
        return 0.0
    if isinstance(value, bool):
        raise InvalidErrorBook(f"{field}: {value!r} is not an ISO date-time")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dt.datetime):
        when = value
    else:
        try:
            when = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            raise InvalidErrorBook(f"{field}: {value!r} is not an ISO date-time") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.timestamp()


def to_yaml(book: Book) -> str:
    rows = []
    for _, e in sorted(book.entries.items()):
        rows.append(
            {
                "id": e.id,
                "type": e.type,
                "phenomenon": e.phenomenon,
                "affected_paths": list(e.affected),
                "affected_count": e.affected_count,
                "occurrences": e.occurrences,
                "root_cause": e.root_cause,
                "constraint_rule": e.constraint,
                "verification_method": e.verification,
                "status": e.status,
                "first_seen": _iso(e.first_seen),
                "last_seen": _iso(e.last_seen),
                "last_verified": _iso(e.last_verified),
                "closed_at": _iso(e.closed_at),
            }
        )
    return yaml.safe_dump(
        {"error_book": rows}, allow_unicode=True, sort_keys=False, default_flow_style=False
    )


REQUIRED = ("id", "type", "phenomenon", "root_cause", "constraint_rule", "verification_method")


def from_yaml(text: str) -> list[Entry]:
    """Entries of an ``error_book.yaml``; InvalidErrorBook names the first problem."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidErrorBook(f"not YAML: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("error_book"), list):
        raise InvalidErrorBook("expected a mapping with an 'error_book' list")
    out: list[Entry] = []
    seen: set[str] = set()
    for i, row in enumerate(data["error_book"]):
        where = f"error_book[{i}]"
        if not isinstance(row, dict):
            raise InvalidErrorBook(f"{where}: expected a mapping")
        for name in REQUIRED:
            if not isinstance(row.get(name), str) or not row[name].strip():
                raise InvalidErrorBook(f"{where}.{name}: a non-empty string is required")
        if row["id"] in seen:
            raise InvalidErrorBook(f"{where}.id: {row['id']!r} appears twice")
        seen.add(row["id"])
        status = row.get("status", "open")
        if status not in ("open", "closed"):
            raise InvalidErrorBook(f"{where}.status: {status!r} is not open or closed")
        paths = row.get("affected_paths", []) or []
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise InvalidErrorBook(f"{where}.affected_paths: expected a list of paths")
        out.append(
            Entry(
                id=row["id"],
                type=row["type"],
                phenomenon=row["phenomenon"],
                root_cause=row["root_cause"],
                constraint=row["constraint_rule"],
                verification=row["verification_method"],
                status=status,
                affected=list(paths)[:MAX_AFFECTED],
                affected_count=int(row.get("affected_count") or len(paths)),
                occurrences=int(row.get("occurrences") or 0),
                first_seen=_ts(row.get("first_seen"), f"{where}.first_seen"),
                last_seen=_ts(row.get("last_seen"), f"{where}.last_seen"),
                last_verified=_ts(row.get("last_verified"), f"{where}.last_verified"),
                closed_at=_ts(row.get("closed_at"), f"{where}.closed_at"),
            )
        )
    return out


def import_yaml(kb: KnowledgeBase, text: str) -> int:
    """Merge the entries of ``text`` into the kb's book (same id: replaced). All or nothing."""
    entries = from_yaml(text)
    book = load(kb)
    for e in entries:
        book.entries[e.id] = e
    save(kb, book)
    return len(entries)
