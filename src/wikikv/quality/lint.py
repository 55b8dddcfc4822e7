"""Wiki lint, the fact gatekeeper (L1 whitepaper §3.5): five checks per page, a status per page.

======  =======================  ==========================================  ===================
code    check                    found by                                    action
======  =======================  ==========================================  ===================
E1      fact duplication         the same fact line twice on a page          warn
E2      missing citation         malformed / missing footnote, quote not     block + recompile
                                 at its offsets, page without cited facts
E3      in-page contradiction    two claims of the page disagree             block + review
E4      cross-page conflict      a claim disagrees with another page's       warn + review queue
E5      source deleted           a cited article is gone or changed since    block + reschedule
======  =======================  ==========================================  ===================

``lint_status`` is ``failed`` when a blocking code (E2, E3, E5) is present, else ``passed``;
``lint_errors`` lists every code with its message. Only ``passed`` pages newer than their
sources serve direct answers (:func:`wikikv.query.answer.direct_page`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from wikikv.quality import validators as v
from wikikv.store.records import FileMeta, FileRecord, now

CODES = {
    v.DUPLICATE: "E1",
    v.MALFORMED: "E2",
    v.UNSUPPORTED: "E2",
    v.INCOMPLETE: "E2",
    v.IN_PAGE: "E3",
    v.CONTRADICTION: "E4",
    v.SOURCE_DELETED: "E5",
}
BLOCKING = {"E2", "E3", "E5"}
ACTIONS = {
    "E1": "warn",
    "E2": "block + recompile",
    "E3": "block + review",
    "E4": "warn + review queue",
    "E5": "block + reschedule",
}
MAX_ERRORS = 20


class PageWriter(Protocol):
    def put(self, path: str, text: str, meta: FileMeta) -> None: ...


def message(f: v.Finding) -> str:
    code = CODES[f.type]
    where = f" [^{f.n}]" if f.n and "," not in f.n else (f" [^{f.n}]" if f.n else "")
    other = f" ({f.target})" if f.target and f.type != v.CONTRADICTION else ""
    if f.type == v.CONTRADICTION:
        other = f" (other page: {f.target})"
    return f"{code}: {f.detail}{where}{other}"


def page_errors(findings: Iterable[v.Finding]) -> dict[str, list[str]]:
    """Lint messages per page (a cross-page conflict is reported on both pages)."""
    out: dict[str, list[str]] = defaultdict(list)
    for f in findings:
        if f.type not in CODES:
            continue
        out[f.path].append(message(f))
        if f.type == v.CONTRADICTION and f.target:
            mirrored = v.Finding(f.type, f.target, f.detail, f.path)
            out[f.target].append(message(mirrored))
    return out


def status_of(errors: list[str]) -> str:
    return "failed" if any(e[:2] in BLOCKING for e in errors) else "passed"


def linted_meta(meta: FileMeta, errors: list[str]) -> FileMeta:
    errors = sorted(set(errors))[:MAX_ERRORS]
    return msgspec.structs.replace(
        meta,
        lint_status=status_of(errors),
        lint_errors=errors,
        last_verified=now(),
        compiled_at=meta.compiled_at or meta.updated_at,
    )


@dataclass
class LintReport:
    pages: int = 0
    passed: int = 0
    failed: int = 0
    changed: int = 0
    by_code: dict[str, int] = field(default_factory=dict)
    by_type: dict[str, int] = field(default_factory=dict)
    elapsed: float = 0.0
    failed_pages: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def apply(
    pages: dict[str, FileRecord],
    findings: list[v.Finding],
    writer: PageWriter,
    report: LintReport,
) -> None:
    """Set ``lint_status`` / ``lint_errors`` on every page of ``pages``; write only the pages
    whose status or errors changed."""
    errors = page_errors(findings)
    codes: dict[str, int] = defaultdict(int)
    for path, rec in sorted(pages.items()):
        mine = sorted(set(errors.get(path, [])))[:MAX_ERRORS]
        for code in {e[:2] for e in mine}:
            codes[code] += 1
        status = status_of(mine)
        report.pages += 1
        if status == "passed":
            report.passed += 1
        else:
            report.failed += 1
            if len(report.failed_pages) < 50:
                report.failed_pages.append(path)
        if rec.meta.lint_status == status and list(rec.meta.lint_errors) == mine:
            continue
        writer.put(path, rec.text, linted_meta(rec.meta, mine))
        report.changed += 1
    report.by_code = {c: codes.get(c, 0) for c in ("E1", "E2", "E3", "E4", "E5")}
    report.by_type = v.by_type(findings)
