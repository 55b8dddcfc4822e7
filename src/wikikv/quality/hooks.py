"""The quality gate a build is handed (:class:`ErrorBookGate`, the three hooks of
:class:`wikikv.compile.buildgate.BuildQuality`; the build does not import this layer, the callers
that build — the CLI's build/add/update/remove/build-many, HTTP build jobs, the demo, lint's
recompile, evolution's re-render — pass it in ``CompileOptions.quality``, see :func:`gated`):

* :func:`inject` before a sync: the Error Book's open rules become the LLM provider's
  constraints (they enter every page prompt, versioned with it).
* :class:`RenderGate` while pages are rendered: each entity page is linted before it is written
  (E1, E2, E3, E5 and the structural checks need only the page, the paths the sync will hold
  and the cited texts), so a page is born with its ``lint_status`` at no extra write.
* :func:`after_batch` after the pages are written: layer-1 code fixes on the written pages,
  their findings folded into the Error Book; every ``VERIFY_EVERY`` batches the open entries
  are re-validated (and closed when fixed); every ``LLM_FIX_EVERY`` documents, layer 2.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from wikikv.compile.buildgate import PageWrite
from wikikv.compile.model import article_path
from wikikv.compile.pipeline import CompileOptions
from wikikv.compile.render import ARTICLES
from wikikv.quality import errorbook as eb
from wikikv.quality import validators as v
from wikikv.quality.claims import NameIndex, claims_of, conflicts, may_claim
from wikikv.quality.lint import linted_meta, page_errors
from wikikv.quality.page import ParsedPage, parse
from wikikv.quality.queue import decided_keys
from wikikv.quality.repair import Repairer
from wikikv.quality.stream import repair_view, validate_chunked
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import basename, parent, unescape_segment
from wikikv.store.records import FileMeta, FileRecord

VERIFY_EVERY = 5  # batches between re-validations of the open Error Book entries
LLM_FIX_EVERY = 500  # documents between layer-2 passes


def inject(kb: KnowledgeBase, provider: Any) -> list[str]:
    """Give the provider the open constraint rules (providers without ``constraints`` are the
    offline ones: nothing to inject into)."""
    if not hasattr(provider, "constraints"):
        return []
    rules = eb.open_constraints(eb.load(kb))
    provider.constraints = rules
    return rules


_ARTICLES = ARTICLES + "/"


class _RenderView(v.View):
    """A :class:`~wikikv.quality.validators.View` of the sync being rendered. It holds no copy
    of what the render holds already: the paths are the render's own (a set view of its
    signatures, ~800k paths at 100 MB of corpus), and an article of a document whose text the
    render holds is made when asked for, not kept (every article is cited by some page, so
    kept records were one per document by the render's end)."""

    def __init__(self, kb: KnowledgeBase, will_exist: Iterable[str], texts: dict[str, str]):
        self.kb = kb
        self.all_paths = will_exist if isinstance(will_exist, AbstractSet) else set(will_exist)
        self.pages = {}
        self.dirs = {}
        self.parsed = {}
        self._articles = {}
        self._exists = {}
        self._texts = texts
        # the few ids the article path does not give back (cut when long, or not NFC)
        self._odd = {article_path(d): d for d in texts if not _round_trips(d)}

    def _doc(self, path: str) -> str | None:
        """The document whose article ``path`` is, when the render holds its text."""
        if not path.startswith(_ARTICLES):
            return None
        doc = self._odd.get(path)
        if doc is None:
            doc = unescape_segment(path[len(_ARTICLES) :])
        return doc if doc in self._texts and article_path(doc) == path else None

    def articles(self, paths: Iterable[str]) -> None:
        rest = [p for p in paths if p not in self._articles and self._doc(p) is None]
        if rest:
            super().articles(rest)

    def article(self, path: str) -> FileRecord | None:
        doc = self._doc(path)
        if doc is None:
            return super().article(path)
        return FileRecord(name=basename(path), path=path, text=self._texts[doc])


def _round_trips(doc_id: str) -> bool:
    return unescape_segment(article_path(doc_id)[len(_ARTICLES) :]) == doc_id


class RenderGate:
    """Lint each entity page as it is rendered (see the module docstring)."""

    def __init__(self, kb: KnowledgeBase, will_exist: Iterable[str], texts: dict[str, str]):
        self.view = _RenderView(kb, will_exist, texts)
        self.failed: list[str] = []

    def __call__(
        self, path: str, text: str, meta: FileMeta, parsed: ParsedPage | None = None
    ) -> FileMeta:
        if meta.kind != "entity":
            return meta
        rec = FileRecord(name=basename(path), path=path, text=text, meta=meta)
        # the renderer's own reading of the page it wrote, else the text's
        page = parsed if parsed is not None else parse(text)
        found = [f for f in v.check_page(self.view, path, rec, page) if f.type in v.PAGE_TYPES]
        found += _in_page(path, rec, page)
        out = linted_meta(meta, page_errors(found).get(path, []))
        if out.lint_errors:
            self.failed.append(path)
        return out


def _in_page(path: str, rec: FileRecord, page: ParsedPage) -> list[v.Finding]:
    if not any(may_claim(f.quote) for f in page.facts):
        return []  # no fact states a claim (most pages): nothing can conflict
    names = NameIndex()
    names.add(path, [rec.meta.title, *rec.meta.aliases])
    triples = [(f.n, f.quote, rec.meta.title) for f in page.facts]
    found = claims_of(path, triples, names, v.own_names(rec))
    return [
        v.Finding(
            v.IN_PAGE,
            path,
            f"{c.attribute}: {c.first.value!r} vs {c.second.value!r}",
            n=f"{c.first.fact},{c.second.fact}",
        )
        for c in conflicts(found)
    ]


def after_batch(
    kb: KnowledgeBase,
    write: Any,
    written: list[str],
    analyzed: int,
    llm: Any | None = None,
    whole: bool = True,
) -> dict[str, Any]:
    """Layer 1 on ``written`` pages (those the render gate flagged: a page rendered clean has
    nothing for layer 1), the Error Book's counters, periodic verification and layer 2 (see the
    module docstring). ``write(path, text, meta)`` is the pipeline's writer. Without ``whole``
    (an incremental add that renders only what it touched) the two passes over the whole wiki
    wait for the next sync that may take them: their counters keep counting."""
    book = eb.load(kb)
    book.batches += 1
    book.docs_since_llm_fix += analyzed
    out: dict[str, Any] = {}
    structural = [v.DANGLING, v.MALFORMED, v.INDEX, v.UNSUPPORTED]
    if written:
        scope = set(written) | {parent(p) for p in written}
        view = v.View(kb, scope)
        _, found = v.validate(kb, paths=scope, types=structural, view=view)
        found = [f for f in found if f.key not in book.waived]
        if found:
            eb.record(book, found)
            rep = Repairer(kb, view, write)
            rep.layer1(found)
            out["layer1"] = dict(rep.report.fixed)
            rep.commit()
    if book.batches >= VERIFY_EVERY and whole:
        book.batches = 0
        decided = decided_keys(kb)
        open_types = [
            e.type for e in book.entries.values() if e.status == "open" and e.type in v.ALL_TYPES
        ]
        if open_types:
            found = validate_chunked(kb, open_types)
            found = [f for f in found if f.key not in book.waived and f.key not in decided]
            eb.record(book, found, checked=open_types)
        out["verified"] = open_types
    if book.docs_since_llm_fix >= LLM_FIX_EVERY and whole:
        book.docs_since_llm_fix = 0
        out["layer2"] = _layer2(kb, book, write, llm)
    eb.save(kb, book)
    return out


def _layer2(kb: KnowledgeBase, book: eb.Book, write: Any, llm: Any | None) -> dict[str, Any]:
    from wikikv.quality.llm_checks import LLMChecker

    content = [v.UNSUPPORTED, v.INCOMPLETE, v.CONTRADICTION, v.IN_PAGE, v.SOURCE_DELETED]
    # In chunks, and the repair sees only the pages found: holding the whole wiki parsed was
    # the peak of a large build (+900 MB at 4 copies of 2Wiki 6k).
    found = validate_chunked(kb, content)
    decided = decided_keys(kb)
    found = [f for f in found if f.key not in book.waived and f.key not in decided]
    eb.record(book, found)
    checker = LLMChecker(llm) if llm is not None and hasattr(llm, "complete_json") else None
    rep = Repairer(kb, repair_view(kb, found), write)
    rep.layer2(found, checker)
    book.waived.update(rep.waived)
    # Inside a sync a recompile cannot run: pages to recompile stay failed (E2/E5 block them)
    # until ``wikikv lint --fix`` or a full-render build recompiles them.
    rep.report.rescheduled = []
    rep.commit()
    return rep.report.to_dict()


class ErrorBookGate:
    """The build's quality hooks (:class:`wikikv.compile.buildgate.BuildQuality`): the Error
    Book's rules into the provider, each entity page linted as rendered, layer-1 repair and the
    Error Book's counters after each batch."""

    def before_sync(self, kb: KnowledgeBase, provider: Any) -> None:
        inject(kb, provider)

    def render_check(
        self, kb: KnowledgeBase, will_exist: Iterable[str], texts: dict[str, str]
    ) -> RenderGate:
        return RenderGate(kb, will_exist, texts)

    def after_batch(
        self,
        kb: KnowledgeBase,
        write: PageWrite,
        flagged: list[str],
        analyzed: int,
        whole: bool = True,
    ) -> None:
        after_batch(kb, write, flagged, analyzed, whole=whole)


def gated(options: CompileOptions | None = None, **changes: Any) -> CompileOptions:
    """``options`` (the defaults when None), with ``changes`` applied, and the Error Book gate:
    what a caller that builds hands the build (``Compiler(kb, provider, gated(...))``)."""
    return dataclasses.replace(options or CompileOptions(), **changes, quality=ErrorBookGate())
