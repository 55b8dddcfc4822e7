"""Resumable build / add / update / remove of a kb from documents.

Every operation is one *sync* of the kb towards a set of documents, in two phases:

A. **Analyse** each new or changed document (unchanged fingerprints are skipped): store its
   article, then its :class:`~wikikv.compile.model.DocAnalysis` (system record) — in that order,
   batch by batch, so a killed job loses at most the batch in flight.
B. **Derive and render**: :func:`~wikikv.compile.model.derive` the entities of *all* current
   documents, then write every page (entity, digest, directory text) whose *signature* — what it
   is rendered from — differs from the one recorded when it was last written, and delete the
   pages nothing produces any more. The signature map is saved as pages are written, so a rerun
   after a kill writes exactly what is still missing.

The first sync runs the IASI cold start (descriptor + scaffold on a fixed-size sample). All
writes hold the kb's bulk-job lease and go through the kb API (parent-after-child), or through
``wikikv.store.bulk.BulkWriter`` when that module is present.
"""

from __future__ import annotations

import functools
import gc
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikikv.compile import handedits, moves, persisted, slim, state
from wikikv.compile.analyze import ANALYSIS_VERSION
from wikikv.compile.analyze_workers import analysed_chunks
from wikikv.compile.buildgate import BuildQuality, RenderCheck
from wikikv.compile.filter import filter_documents
from wikikv.compile.grounding_report import grounding_counts
from wikikv.compile.hand_review import HandEditReview
from wikikv.compile.incremental import affected_keys
from wikikv.compile.index_feed import IndexFeed, index_feed
from wikikv.compile.ingest import (
    Document,
    IngestIssue,
    drop_oversized,
    read_corpora,
    read_corpus,
)
from wikikv.compile.local_render import local_desired
from wikikv.compile.model import DocAnalysis, Model, article_path, derive_full, gazetteer_for
from wikikv.compile.page_writer import PageWriter
from wikikv.compile.pages import article_meta
from wikikv.compile.phase_clock import PhaseClock
from wikikv.compile.render import Desired, LazyTexts, desired_nodes
from wikikv.compile.restore import forget_missing
from wikikv.compile.schema import SAMPLE_SIZE, Schema, cold_start, sample_documents
from wikikv.compile.shared_values import shared
from wikikv.compile.summaries import add_summaries
from wikikv.config import FANOUT_BOUND
from wikikv.errors import NotFound, WikiKVError
from wikikv.forked import can_fork
from wikikv.llm.base import CompileProvider, DocInput
from wikikv.llm.extractive import ExtractiveProvider
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord, now
from wikikv.text.entities import ALIAS_KIND, Gazetteer

ProgressFn = Callable[[str, int, int], None]
# Pages between two saves of the signature map (what a resumed job can skip).
SAVE_EVERY = 4000
# With the search index on, a save must flush the index first: the pages waiting for it are held
# in memory and analysed at the flush, so the index is flushed (and the state saved) once this
# much text waits, in both phases. Memory stays bounded whatever the corpus; each flush rewrites
# the posting blocks it touches (appending to them: see wikikv.search.index), so fewer, larger
# flushes are cheaper — 16 MiB keeps the 2Wiki 6k build to one or two per phase.
INDEX_FLUSH_CHARS = 16 << 20
# A background writer's smallest flushes (see Compiler._indexer): the worker's last run, which
# nothing overlaps, is short in a small build; a large one flushes as the corpus's bytes, up
# to INDEX_FLUSH_CHARS, since every run adds a part to the merge of each common word's block
# (4 MiB runs at 100 MB of corpus: the merge 55 -> 82 s).
BACKGROUND_FLUSH_CHARS = 4 << 20
# Corpus bytes past which a build forks its index worker: the pages phase B writes hold ~10x
# the corpus's text (entity pages quote it), so 1 MiB makes several background flushes.
BACKGROUND_MIN_BYTES = 1 << 20


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector. Loading, deriving and rendering build a large heap of
    acyclic objects (the analyses of every document, the entities and their sets), and each
    generation-2 pass walks all of them: on the 6k corpus that is ~40% of a one-document
    incremental add. Reference counting still frees everything; cycles wait for the end."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@dataclass
class CompileOptions:
    fanout: int = FANOUT_BOUND
    workers: int = 2
    batch: int = 200
    sample_size: int = SAMPLE_SIZE
    index: bool = True
    fail_after_writes: int | None = None
    # Recompute every page's signature instead of only the affected ones (a full consistency
    # pass: a sync with nothing to do then writes nothing unless something was stale).
    full_render: bool = False
    # Called after a sync that analysed documents, with their number; returns the evolution
    # operators it committed. The evolution layer supplies it (wikikv.evolve.cadence.every(N):
    # one pass after every N ingested documents); the build does not import evolve.
    after_ingest: Callable[[KnowledgeBase, int], int] | None = None
    # Chinese tagging without jieba's HMM POS model: ~10x faster, misses transliterated names.
    fast_zh: bool = False
    # The quality gate's hooks (constraints in, pages linted as rendered, repair after each
    # batch): wikikv.quality.hooks.ErrorBookGate, handed in by the caller; without it pages are
    # written unchecked (compile/buildgate.py).
    quality: BuildQuality | None = None
    # False builds the wiki without evolution: an overflowing dimension is cut into plain name
    # ranges (as before semantic routing existed), the ablation baseline of `wikikv bench evolve`.
    semantic_routing: bool = True
    # Pages moved before this sync (new path -> old path; an evolution pass): the old path's
    # index entry goes in the flush that indexes the new one, so each posting block is
    # rewritten once for both instead of once more by a removal pass afterwards.
    moved_from: dict[str, str] = field(default_factory=dict)


@dataclass
class CompileReport:
    job: str = ""
    read: int = 0
    skipped: int = 0
    analyzed: int = 0
    removed: int = 0
    # a build without sync: the kb's documents its corpus no longer has (kept), a few by id
    kept_absent: int = 0
    kept_absent_ids: list[str] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    dropped_ids: list[str] = field(default_factory=list)
    issues: list[IngestIssue] = field(default_factory=list)
    encodings: list[IngestIssue] = field(default_factory=list)  # inputs decoded by a guess
    documents: int = 0
    entities: int = 0
    pages: int = 0
    links: int = 0
    facts: int = 0
    written: int = 0
    deleted: int = 0
    moved: int = 0  # pages the render put at another path: a redirect left at the old one
    resumed: bool = False
    restored: int = 0  # pages found deleted by hand (outside the build) and written again
    # Pages people edited that this job met: merged (compiler's facts merged into the person's
    # page), kept (left as the person wrote it, review item filed), taken (review accepted).
    hand_edits: dict[str, int] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)
    elapsed: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    evolved: int = 0  # evolution operators committed after this sync (after_ingest)
    # records the incremental model update read, by family; empty when everything was derived
    model_reads: dict[str, int] = field(default_factory=dict)
    model_fallback: str = ""  # why an add of new documents derived everything
    rescaffolded: bool = False  # the kb outgrew its cold start's sample: new dimensions
    # LLM mode: what the model proposed and what grounding kept and dropped (by reason)
    grounding: dict[str, Any] = field(default_factory=dict)
    # section and corpus summaries written by this job, with their synthesized shares
    summaries: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["issues"] = [{"source": i.source, "reason": i.reason} for i in self.issues]
        out["encodings"] = [{"source": i.source, "reason": i.reason} for i in self.encodings]
        return out


@dataclass
class BuildPlan:
    """What a build would change (:meth:`Compiler.plan`): document ids to add, update and
    remove; entity pages left without sources (removed with them); every node that goes
    (``nodes``: articles, digests and those pages); links from staying pages into them."""

    add: list[str] = field(default_factory=list)
    update: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    unchanged: int = 0
    pages: list[str] = field(default_factory=list)
    nodes: int = 0
    dangling: int = 0
    hand_edited: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def summary(self) -> str:
        lines = [
            f"plan: {len(self.add)} to add, {len(self.update)} to update, "
            f"{len(self.remove)} to remove, {self.unchanged} unchanged"
        ]
        if self.remove:
            lines.append(
                f"  removing takes {self.nodes} nodes: {len(self.remove)} articles and their "
                f"digests, {len(self.pages)} pages left without sources; "
                f"{self.dangling} links to them from other pages go too"
            )
            shown = ", ".join(self.remove[:8]) + (" ..." if len(self.remove) > 8 else "")
            lines.append(f"  documents removed: {shown}")
            if self.hand_edited:
                lines.append(
                    f"  {len(self.hand_edited)} of those pages were edited by hand: they are "
                    "kept (and a review item filed)"
                )
        return "\n".join(lines)


def _scaffold(schema: Schema) -> tuple[object, ...]:
    """What decides every entity's path before routing: the dimensions and the fallback."""
    return (
        [(d.name, list(d.kinds)) for d in schema.dimensions],
        schema.fallback,
        schema.language,
    )


class Compiler:
    """Compile documents into one kb (see the module docstring)."""

    def __init__(
        self,
        kb: KnowledgeBase,
        provider: CompileProvider | None = None,
        options: CompileOptions | None = None,
        progress: ProgressFn | None = None,
    ) -> None:
        self.kb = kb
        self.provider: CompileProvider = provider or ExtractiveProvider()
        self.options = options or CompileOptions()
        self.progress = progress or (lambda phase, done, total: None)
        self._gate: RenderCheck | None = None
        self._stager: Any = None  # a build's index worker (wikikv.search.staging.Stager)
        self._corpus_bytes = 0  # of the corpus being built, on disk

    # ------------------------------------------------------------------ entry points
    def build(
        self, corpus: str | Path, *, sync: bool = False, id_prefix: str = ""
    ) -> CompileReport:
        """Compile ``corpus`` into the kb: new and changed documents compiled, unchanged ones
        skipped. Documents of the kb that are not in ``corpus`` are kept unless ``sync`` (then
        removed: see :meth:`plan` for what that takes with it). Resumes a killed build."""
        self._stager = self._index_worker(Path(corpus))
        try:
            ingest = read_corpus(corpus, id_prefix)
            report = CompileReport(job="build", read=ingest.read, issues=ingest.issues)
            report.encodings = ingest.encodings
            kept = self._filter(ingest.documents, report)
            gone: set[str] = set()
            if sync:
                known = set(state.load_docs(self.kb))
                gone = known - {d.id for d in kept}
            return self.sync(kept, gone, report)
        finally:
            if self._stager is not None:
                self._stager.close()
                self._stager = None

    def _index_worker(self, corpus: Path) -> Any:
        """The worker that analyses a first build's index runs while the build goes on, when
        the build will flush several times and a second CPU is there; forked before the
        corpus is read, while this process is small: what the two share, and this process
        then frees or changes, stays in the worker as its own copy."""
        if not (self.options.index and self.options.workers > 1):
            return None
        if getattr(self.provider, "use_existing", None) is not None:  # not staged: LLM mode
            return None
        self._corpus_bytes = _bytes_on_disk(corpus)
        if self._corpus_bytes <= BACKGROUND_MIN_BYTES:
            return None
        try:
            from wikikv.search.index import stageable
            from wikikv.search.staging import Stager
        except ImportError:  # pragma: no cover - the search module ships with the package
            return None
        return Stager() if can_fork() and stageable(self.kb) else None

    def plan(
        self, corpus: str | Path | Sequence[str | Path], *, sync: bool = False, id_prefix: str = ""
    ) -> BuildPlan:
        """What a build (``sync``: a build that also removes documents absent from ``corpus``)
        would do, without writing: documents to add, update and remove, the pages left without
        any source, and the links from other pages into those that would dangle."""
        if isinstance(corpus, (str, Path)):
            ingest = read_corpus(corpus, id_prefix)
        else:
            ingest = read_corpora(list(corpus), id_prefix)
        docs = filter_documents(ingest.documents).kept
        stored = state.load_docs(self.kb)
        plan = BuildPlan(
            add=sorted(d.id for d in docs if d.id not in stored),
            update=sorted(
                d.id for d in docs if d.id in stored and stored[d.id].fingerprint != d.fingerprint
            ),
            unchanged=sum(
                1 for d in docs if d.id in stored and stored[d.id].fingerprint == d.fingerprint
            ),
        )
        if sync:
            plan.remove = sorted(set(stored) - {d.id for d in docs})
        if plan.remove:
            self._plan_removal(plan)
        return plan

    def _plan_removal(self, plan: BuildPlan) -> None:
        from wikikv.compile.model import digest_path

        removed = {article_path(i) for i in plan.remove}
        going = removed | {digest_path(i) for i in plan.remove}
        pages = [p for p in self.kb.prefix("/") if not p.startswith("/sources/")]
        records: dict[str, FileRecord] = {}
        for i in range(0, len(pages), 500):
            chunk = pages[i : i + 500]
            records.update(
                (path, rec)
                for path, rec in zip(chunk, self.kb.get_many(chunk), strict=True)
                if isinstance(rec, FileRecord)
            )
        orphans = {
            p for p, r in records.items() if r.meta.sources and set(r.meta.sources) <= removed
        }
        plan.pages = sorted(orphans)
        going |= orphans
        plan.nodes = len(going)
        plan.dangling = sum(
            1 for p, r in records.items() if p not in going for t in r.meta.links if t in going
        )
        plan.hand_edited = sorted(p for p in orphans if records[p].meta.edited_by)

    def add(
        self, corpus: str | Path | Sequence[Document] | Sequence[str | Path], id_prefix: str = ""
    ) -> CompileReport:
        """Add (or update) documents without touching the others; ``corpus`` is a folder, a
        file, several of them, or Document objects."""
        report = CompileReport(job="add")
        docs = self._read(corpus, report, id_prefix)
        return self.sync(self._filter(docs, report), set(), report)

    def update(
        self, corpus: str | Path | Sequence[Document] | Sequence[str | Path], id_prefix: str = ""
    ) -> CompileReport:
        """Recompile the documents whose content changed (same as :meth:`add`)."""
        report = self.add(corpus, id_prefix)
        report.job = "update"
        return report

    def remove(self, doc_ids: Iterable[str]) -> CompileReport:
        """Remove documents: their articles and digests, the facts that cited them, pages left
        without sources, links to those pages, their search entries and cached LLM answers."""
        report = CompileReport(job="remove")
        ids = set(doc_ids)
        known = set(state.load_docs(self.kb))
        missing = sorted(ids - known)
        if missing:
            raise NotFound(f"no such document in kb {self.kb.name!r}: {', '.join(missing[:5])}")
        return self.sync([], ids, report)

    # ------------------------------------------------------------------ helpers
    def _read(
        self,
        corpus: str | Path | Sequence[Document] | Sequence[str | Path],
        report: CompileReport,
        id_prefix: str = "",
    ) -> list[Document]:
        if isinstance(corpus, (str, Path)):
            ingest = read_corpus(corpus, id_prefix)
        elif corpus and all(isinstance(c, (str, Path)) for c in corpus):
            ingest = read_corpora([c for c in corpus if isinstance(c, (str, Path))], id_prefix)
        else:
            docs = [d for d in corpus if isinstance(d, Document)]
            report.read = len(docs)
            return docs
        report.read, report.issues = ingest.read, ingest.issues
        report.encodings = ingest.encodings
        return ingest.documents

    def _filter(self, docs: list[Document], report: CompileReport) -> list[Document]:
        docs, oversized = drop_oversized(docs, self.kb.settings.max_record_bytes)
        report.issues = [*report.issues, *oversized]
        filtered = filter_documents(docs)
        report.dropped = filtered.counts()
        report.dropped_ids = [d.id for d in filtered.dropped]
        return filtered.kept

    # ------------------------------------------------------------------ the sync
    def sync(self, docs: list[Document], remove: set[str], report: CompileReport) -> CompileReport:
        t0 = time.perf_counter()
        clock = PhaseClock(report.timings, self._stager)
        job = f"compile:{report.job}"
        with PageWriter(self.kb, job, self.options.fail_after_writes) as writer:
            before = state.load_progress(self.kb)
            report.resumed = before.state == "running"
            progress = state.Progress(
                job=report.job, state="running", phase="analyse", started_at=now(), updated_at=now()
            )
            state.write(self.kb, [state.progress_op(self.kb, progress)])
            # An add of new documents onto a kb with a usable stored model reads the analyses
            # and page signatures of what it touches only (by key); anything else reads all.
            partial = (
                report.job == "add"
                and not (remove or report.resumed or self.options.full_render)
                and isinstance(self.provider, ExtractiveProvider)
                and persisted.usable(self.kb)
            )
            lazy = state.load_pages_lazily(self.kb) if partial else None
            partial = lazy is not None and lazy.written
            pages = lazy if partial and lazy is not None else state.load_pages(self.kb)
            # whether the kb had a wiki before this job (phase A records the articles it writes)
            had_pages = pages.written
            with _gc_paused():
                stored = persisted.stored_analyses(self.kb, [d.id for d in docs]) if partial else {}
                if partial and stored:  # an update: derived again from everything
                    partial = False
                if not partial:
                    stored = state.load_docs(self.kb)
            # A full build looks for written pages deleted by hand since (they are written again
            # below); add/update/remove skip the lookup (one read per page) to stay incremental.
            restore = forget_missing(self.kb, pages) if report.job == "build" else set()
            report.restored = len(restore)
            todo = [
                d
                for d in docs
                if d.id not in stored
                or stored[d.id].fingerprint != d.fingerprint
                or stored[d.id].version != ANALYSIS_VERSION  # analysed by other detector code
                or article_path(d.id) in restore
            ]
            report.skipped = len(docs) - len(todo)
            current = {k: v for k, v in stored.items() if k not in remove}
            if report.job == "build" and not partial:
                absent = sorted(set(current) - {d.id for d in docs} - set(report.dropped_ids))
                report.kept_absent, report.kept_absent_ids = len(absent), absent[:5]
            schema = state.load_schema(self.kb)
            folder = schema.folder_corpus if schema else any(d.group for d in docs)
            add_tables = None  # the stored title tables, when the add read them already
            if todo and isinstance(self.provider, ExtractiveProvider):
                gazetteer = None
                if partial and all(d.lang != "zh" for d in todo):
                    new_titles = [(d.id, d.title, d.group, d.lang) for d in todo]
                    gazetteer = persisted.add_gazetteer(self.kb, new_titles, folder)
                if gazetteer is not None:
                    self.provider.use_gazetteer(gazetteer[0])
                    add_tables = gazetteer[1]
                else:
                    if partial:
                        partial = False
                        stored = state.load_docs(self.kb)
                        current = dict(stored)
                        pages = state.load_pages(self.kb)
                    titles = dict(current)
                    for d in todo:
                        titles[d.id] = DocAnalysis(d.id, d.title, d.lang, d.fingerprint, d.group)
                    self.provider.use_titles(*gazetteer_for(titles, folder))
                    del titles  # it refers to every analysis, which phase B slims
            clock.lap("prepare")
            texts = {d.id: d.text for d in docs}
            if self.options.quality is not None:
                self.options.quality.before_sync(self.kb, self.provider)
            analysed = self._phase_a(todo, writer, pages, progress)
            if todo and isinstance(self.provider, ExtractiveProvider):
                # phase B detects no entities: the corpus gazetteer (every title's variants)
                # would be held through the render for nothing; the next analysis sets its own
                self.provider.use_gazetteer(Gazetteer())
            current.update(analysed)
            report.analyzed = len(analysed)
            clock.lap("analyse")
            regrown = False
            if schema is None:
                schema = self._cold_start(current, folder)
                clock.lap("cold_start")
            elif self._sample_outgrown(schema, current, partial):
                if partial:  # the cold start reads every document; so does the derive after it
                    partial = False
                    current = state.load_docs(self.kb)
                    pages = state.load_pages(self.kb)
                grown = self._cold_start(current, folder, schema.semantic_routing)
                regrown = _scaffold(grown) != _scaffold(schema)
                if not regrown:  # the same dimensions: keep the routing planned for them
                    schema.sample_ids = grown.sample_ids
                    state.write(self.kb, [state.schema_op(self.kb, schema)])
                else:  # a dimension kept keeps its routing (evolution's plans among them)
                    kept = {d.name for d in grown.dimensions}
                    grown.routing = {d: r for d, r in schema.routing.items() if d in kept}
                    schema = grown
                report.rescaffolded = regrown
                clock.lap("cold_start")
            with _gc_paused():  # phase B
                if remove:
                    state.write(self.kb, state.drop_doc_ops(self.kb, remove & set(stored)))
                    report.removed = len(remove & set(stored))
                # Only new documents, on a kb whose pages are all written: the stored entity
                # model is updated for them alone (None when the change is corpus-wide).
                local = None
                if (
                    analysed
                    and had_pages
                    and not regrown
                    and not (self.options.full_render or report.resumed or restore or remove)
                    and not any(i in stored for i in analysed)
                    and isinstance(self.provider, ExtractiveProvider)
                ):
                    update = persisted.add_documents(self.kb, analysed, schema, add_tables)
                    if isinstance(update, persisted.Fallback):
                        report.model_fallback = update.reason
                    else:
                        local = update
                model: Model | None = None
                if local is not None:
                    report.model_reads = local.read
                    report.timings["model_update_cpu"] = local.cpu_s
                else:
                    if partial:  # the model update left it to a full derive: read everything
                        current = state.load_docs(self.kb)
                        pages = state.load_pages(self.kb)
                    derived = derive_full(current, schema)
                    model = derived.model
                    persisted.write_full(self.kb, derived, current, folder, schema)
                    del derived  # its per-document resolutions are not needed to render
                state.write(self.kb, [state.schema_op(self.kb, schema)])
                clock.lap("derive")
                if model is None:
                    assert local is not None
                    # only what the update touched, read by key (compile/local_render.py)
                    want = local_desired(
                        self.kb,
                        local,
                        analysed,
                        schema,
                        state.load_descriptor(self.kb),
                        self.provider.name,
                        self.provider.prompt_version,
                        pages.sigs,
                        self._lazy_texts(texts),
                        handedits.edited_paths(self.kb),
                    )
                    indexer = self._phase_b(want, schema, writer, pages, progress, report)
                else:
                    only = None
                    # A resumed job recomputes every signature: the killed one may have left
                    # directory signatures older than the pages under them.
                    incremental = not (
                        self.options.full_render
                        or report.resumed
                        or model.routing_changed
                        or restore
                    )
                    if incremental and pages.written:
                        touched = [stored[i] for i in remove | set(analysed) if i in stored]
                        touched += list(analysed.values())
                        only = affected_keys(self.kb, model, touched, pages.sigs)
                        del touched
                    # The model is stored and the affected keys known: the render reads neither
                    # the mentions of the analyses nor the surfaces of the entities, so they go
                    # (and the originals with them: nothing else may still refer to them).
                    current = slim.for_render(current)
                    stored, analysed = {}, {}
                    slim.compact(model)
                    slim.drop_analysis_caches()
                    want = desired_nodes(
                        self.kb.name,
                        current,
                        model,
                        schema,
                        state.load_descriptor(self.kb),
                        self.provider.name,
                        self.provider.prompt_version,
                        only,
                        pages.sigs,
                        self._lazy_texts(texts),
                    )
                    indexer = self._phase_b(want, schema, writer, pages, progress, report)
                clock.lap("render")
                if model is not None:
                    self._totals(model, current, report)
                    report.grounding = grounding_counts(current.values(), model.llm_dropped)
                elif local is not None:  # an add's model holds no LLM notes
                    meta = local.meta
                    report.documents, report.entities = meta.docs, meta.entities
                    report.links, report.facts = meta.links, meta.facts
                    report.pages = meta.entities + 2 * meta.docs
                # The quality pass reads the whole wiki back: what phase B held (every analysis,
                # the entities, the render plan, the signatures) goes first, so the two do not
                # peak together.
                whole = local is None
                del want, model, stored, current, analysed, texts, pages
                # The staged index runs are merged after that too: a merge scans every staged
                # block (152 s at 4 copies) and held the model all along.
                clock.lap(None)  # what the report's totals took
                if indexer is not None:
                    indexer.flush(last=True)
                clock.lap("index_merge")
                if self._gate is not None and self.options.quality is not None:
                    self.options.quality.after_batch(
                        self.kb, writer.put, self._gate.failed, report.analyzed, whole=whole
                    )
                    clock.lap("quality")
                progress.state = "done"
                progress.updated_at = now()
                state.write(self.kb, [state.progress_op(self.kb, progress)])
                if remove:
                    self._erase_cache(remove)
        if self.options.after_ingest is not None and report.analyzed:
            report.evolved = self.options.after_ingest(self.kb, report.analyzed)
        report.elapsed = time.perf_counter() - t0
        return report

    def _phase_a(
        self,
        todo: list[Document],
        writer: PageWriter,
        pages: state.PageMap,
        progress: state.Progress,
    ) -> dict[str, DocAnalysis]:
        out: dict[str, DocAnalysis] = {}
        progress.docs_total = len(todo)
        step = max(1, self.options.batch)
        self.progress("analyse", 0, len(todo))
        # Articles are searchable too: nav answers "which texts mention X" from their full text
        # (digests alone hold a few sentences per document).
        indexer = self._indexer()
        try:
            self._analyse_and_write(todo, step, writer, pages, progress, indexer, out)
        finally:
            if indexer is not None:
                indexer.close()
        return out

    def _analyse_and_write(
        self,
        todo: list[Document],
        step: int,
        writer: PageWriter,
        pages: state.PageMap,
        progress: state.Progress,
        indexer: IndexFeed | None,
        out: dict[str, DocAnalysis],
    ) -> None:
        done = 0
        unsaved: list[DocAnalysis] = []  # analysed, written, not yet recorded as done
        chunks = [todo[i : i + step] for i in range(0, len(todo), step)]
        # analysed ahead in forked workers when it pays, handed back in order (analyze_workers)
        with analysed_chunks(
            chunks, self.provider, self.options.workers, self.options.fast_zh, self._select_pages
        ) as stream:
            for chunk, received in zip(chunks, stream, strict=True):
                # held until the derive: one copy of each name, kind and offset (shared_values)
                analyses = [shared(a) for a in received]
                del received
                for doc, a in zip(chunk, analyses, strict=True):
                    path = article_path(doc.id)
                    meta = article_meta(a, doc.text, analysed=True)
                    writer.put(path, doc.text, meta)
                    if indexer is not None:
                        indexer.add_path(path, doc.text, meta)
                    pages.sigs[path] = "a:" + a.fingerprint
                    out[doc.id] = a
                writer.flush()
                unsaved += analyses
                done += len(chunk)
                last = done == len(todo)
                # A document is recorded as done only once its article is searchable: a job
                # killed before the index flush analyses the unrecorded ones again on resume.
                if indexer is None or last or indexer.due():
                    progress.docs_done = done
                    progress.updated_at = now()
                    record = functools.partial(
                        state.write,
                        self.kb,
                        state.doc_ops(self.kb, unsaved)
                        + [*state.pages_ops(self.kb, pages), state.progress_op(self.kb, progress)],
                    )
                    unsaved = []
                    if indexer is None:
                        record()
                    else:
                        indexer.flush(then=record)
                        if last:
                            indexer.drain()
                self.progress("analyse", done, len(todo))

    def _select_pages(self, chunk: Sequence[Document]) -> None:
        use_existing = getattr(self.provider, "use_existing", None)
        if use_existing is not None:  # LLM mode: SelectPages feeds the page prompts
            from wikikv.compile.select_pages import select_pages

            use_existing(select_pages(self.kb, list(chunk)))

    def _sample_outgrown(
        self, schema: Schema, current: dict[str, DocAnalysis], partial: bool
    ) -> bool:
        """Whether the scaffold is induced again: it came from a sample smaller than the cold
        start's (the kb had fewer documents), and the kb has since grown to at least twice
        that. A kb started from a few notes gets the dimensions its later notes call for (a
        first note about one person gave no /people), at most a handful of times (each
        doubling: the cost of a model's cold start stays bounded); a full sample sticks."""
        seen = len(schema.sample_ids)
        if not 0 < seen < self.options.sample_size:
            return False
        want = 2 * seen
        return (state.count_docs(self.kb, want) if partial else len(current)) >= want

    def _cold_start(
        self, docs: dict[str, DocAnalysis], folder: bool, semantic_routing: bool | None = None
    ) -> Schema:
        inputs = [DocInput(d.id, d.title, "", d.lang, d.group) for d in docs.values()]
        sample = sample_documents(inputs, self.options.sample_size)
        kinds: Counter[str] = Counter()
        names: Counter[str] = Counter()
        for s in sample:
            a = docs[s.id]
            kinds[a.about_kind] += 1
            for m in a.mentions:
                if m.kind == ALIAS_KIND:
                    continue  # a declared other name of the subject, not an entity of its own
                kinds[m.kind or "topic"] += 1
            # the corpus's common names are those many documents name, not one story's hero
            # named a hundred times in it, nor a dictionary word with no sign of a name
            # (once per document, in the order the document names them: a set's order changes
            # with the process's string hash seed, and so did how ties in the count were broken)
            named = [m.surface for m in a.mentions if m.kind != ALIAS_KIND and not m.weak]
            names.update(list(dict.fromkeys(named)))
        # A model reads the sample's texts (IASI); the extractive roles need only the counts.
        texts = (
            _load_texts(self.kb, {s.id for s in sample}) if hasattr(self.provider, "llm") else {}
        )
        sample_in = [DocInput(s.id, s.title, texts.get(s.id, ""), s.lang, s.group) for s in sample]
        top = [n for n, _ in names.most_common(20)]
        descriptor, schema = cold_start(
            self.provider,
            sample_in,
            dict(kinds),
            top,
            len(docs),
            self.options.fanout,
            self.kb.settings.max_depth,
            folder,
        )
        descriptor.created_at = now()
        schema.semantic_routing = (
            self.options.semantic_routing if semantic_routing is None else semantic_routing
        )
        state.write(
            self.kb, [state.descriptor_op(self.kb, descriptor), state.schema_op(self.kb, schema)]
        )
        return schema

    def _lazy_texts(self, texts: dict[str, str]) -> LazyTexts:
        return LazyTexts(texts, lambda doc_id: _load_texts(self.kb, {doc_id}).get(doc_id))

    def _phase_b(
        self,
        want: Desired,
        schema: Schema,
        writer: PageWriter,
        pages: state.PageMap,
        progress: state.Progress,
        report: CompileReport,
    ) -> IndexFeed | None:
        """Render and write what changed; returns the index writer, whose staged runs the
        caller merges (:meth:`IndexFeed.flush` with ``last``) once it has let go of the model."""
        progress.phase = "render"
        report.summaries = add_summaries(want, schema, self.provider).to_dict()
        if not want.partial:  # the sections' rankings (one row per page) are read only there
            want.ranked_at = None
        todo = [p for p, sig in want.sigs.items() if pages.sigs.get(p) != sig]
        # a partial (local) render lists what goes; a full one goes by what it no longer makes
        stale = want.stale if want.partial else [p for p in pages.sigs if p not in want.sigs]
        todo_files = [p for p in todo if p not in want.dirs]
        todo_dirs = sorted((p for p in todo if p in want.dirs), key=lambda p: -p.count("/"))
        indexer = self._indexer()
        try:
            self._render_all(
                want, writer, pages, progress, report, indexer, todo_files, todo_dirs, stale
            )
        except BaseException:
            if indexer is not None:
                indexer.close()
            raise
        return indexer

    def _render_all(
        self,
        want: Desired,
        writer: PageWriter,
        pages: state.PageMap,
        progress: state.Progress,
        report: CompileReport,
        indexer: IndexFeed | None,
        todo_files: list[str],
        todo_dirs: list[str],
        stale: list[str],
    ) -> None:
        texts = want.texts
        total = len(todo_files) + len(todo_dirs) + len(stale)
        self.progress("render", 0, total)
        need = {f.doc for p in todo_files for f in want.facts_of(p)} | {
            want.doc_of[p] for p in todo_files if p in want.doc_of
        }
        loaded = _load_texts(self.kb, need - set(texts))
        loaded.update(texts)
        gate = None
        if self.options.quality is not None:
            gate = self._gate = self.options.quality.render_check(self.kb, want.sigs.keys(), loaded)
        n = 0
        edited = handedits.edited_paths(self.kb)
        moved = moves.moved_pages(self.kb, stale, todo_files, pages.sigs, want.entity_at)
        if edited and moved:  # a person's page goes to its new path first, to be merged there
            edited = moves.carry_edits(self.kb, moved, edited)
        hand = HandEditReview(self.kb, report.hand_edits) if edited else None
        for path in todo_files:
            text, meta, parsed = want.render_parts(path, loaded)
            if hand is not None and path in edited:
                merged = hand.merge(path, text, meta, want.sigs[path])
                if merged is None:
                    continue  # left as the person wrote it; a review item says why
                text, meta = merged
                parsed = None  # the text is no longer the one rendered
            if gate is not None:
                meta = gate(path, text, meta, parsed)
            writer.put(path, text, meta)
            pages.sigs[path] = want.sigs[path]
            n += 1
            if indexer is not None:
                indexer.add_path(path, text, meta)
            if n % SAVE_EVERY == 0 if indexer is None else indexer.due():
                self._save(writer, pages, progress, n, indexer)
                self.progress("render", n, total)
        writer.flush()
        for path in stale:  # pages nothing produces any more
            if pages.sigs[path].startswith("d:"):
                continue
            if hand is not None and path in edited:
                hand.keep_orphan(path)  # a person's page outlives its sources: theirs now
                pages.sigs.pop(path, None)
                continue
            if path in moved and moves.leave_redirect(self.kb, path, moved[path]):
                pages.sigs.pop(path, None)  # bookmarks and links to the old path still work
                report.moved += 1
                if indexer is not None:
                    indexer.remove(path)
                continue
            try:
                self.kb.delete(path)
            except NotFound:
                pass
            pages.sigs.pop(path, None)
            report.deleted += 1
            if indexer is not None:
                indexer.remove(path)
        for path in todo_dirs:
            listing = want.dir_text[path]
            writer.mkdir(path, listing)
            pages.sigs[path] = want.sigs[path]
            if indexer is not None:
                indexer.add_dir(path, listing)
                # the listings are ~a tenth of a wiki's text (150 MB at 100 MB of corpus):
                # flushed as the pages are, not all in the last flush
                if indexer.due():
                    self._save(writer, pages, progress, n, indexer)
        writer.flush()
        for path in sorted(
            (p for p in stale if pages.sigs.get(p, "").startswith("d:")),
            key=lambda p: -p.count("/"),
        ):
            self._drop_empty_dir(path)
            pages.sigs.pop(path, None)
        report.written = n + len(todo_dirs)
        self._save(writer, pages, progress, n, indexer)
        self.progress("render", total, total)

    def _indexer(self) -> IndexFeed | None:
        """The search index writer of a phase. It stages its flushes (merged at the end of
        phase B: see wikikv.search.index.merge_staged) when the index has nothing yet, unless
        the provider searches the kb while it analyses (LLM mode: SelectPages); the build's
        index worker, if it forked one (a large first build), analyses the runs meanwhile."""
        if not self.options.index:
            return None
        staged = getattr(self.provider, "use_existing", None) is None
        indexer = index_feed(self.kb, INDEX_FLUSH_CHARS, staged, (staged and self._stager) or False)
        if indexer is not None:
            indexer.moved_from = self.options.moved_from
            if indexer.writer.background:  # ~10 runs of phase B's pages, 60 at 100 MB
                indexer.flush_chars = min(
                    max(self._corpus_bytes, BACKGROUND_FLUSH_CHARS), INDEX_FLUSH_CHARS
                )
        return indexer

    def _drop_empty_dir(self, path: str) -> None:
        try:
            if len(self.kb.ls_all(path)) == 0:
                self.kb.delete(path)
        except (NotFound, WikiKVError):
            pass

    def _save(
        self,
        writer: PageWriter,
        pages: state.PageMap,
        progress: state.Progress,
        n: int,
        indexer: IndexFeed | None,
    ) -> None:
        writer.flush()
        progress.pages_written = n
        progress.updated_at = now()
        record = functools.partial(
            state.write,
            self.kb,
            [*state.pages_ops(self.kb, pages), state.progress_op(self.kb, progress)],
        )
        if indexer is None:
            record()
        else:  # recorded once the pages are searchable (with a background index, later)
            indexer.flush(then=record)

    def _erase_cache(self, ids: set[str]) -> None:
        try:
            from wikikv.store.callcache_storage import BackendCacheStorage
        except ImportError:  # pragma: no cover - the cache module ships with the package
            return
        BackendCacheStorage.for_kb(self.kb).erase_documents(sorted(ids))

    def _totals(self, model: Model, docs: dict[str, DocAnalysis], report: CompileReport) -> None:
        report.documents = len(docs)
        report.entities = len(model.entities)
        report.pages = len(model.entities) + 2 * len(docs)
        report.links = sum(len(e.links) + e.links_hidden for e in model.entities.values())
        report.facts = sum(len(e.facts) for e in model.entities.values())


def _load_texts(kb: KnowledgeBase, ids: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    order = sorted(ids)
    for i in range(0, len(order), 500):
        chunk = order[i : i + 500]
        for doc_id, rec in zip(chunk, kb.get_many([article_path(d) for d in chunk]), strict=True):
            if isinstance(rec, FileRecord):
                out[doc_id] = rec.text
    return out


def _bytes_on_disk(corpus: Path) -> int:
    if corpus.is_dir():
        return sum(f.stat().st_size for f in corpus.rglob("*") if f.is_file())
    return corpus.stat().st_size if corpus.is_file() else 0
