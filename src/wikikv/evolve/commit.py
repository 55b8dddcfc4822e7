"""One evolution pass, committed under the consistency protocol and the kb's bulk lease.

1. **Plan** (no writes): Architect, DimensionMerge, Critic, Arbiter (:mod:`.operators`) give the
   operators to commit; the new schema and the page moves they imply are written to a journal
   (a system record) *before* anything in the tree changes.
2. **Move** (under the lease): each moved entity page is copied to its new path, linked, unlinked
   from its old directory and replaced there by a redirect (``KnowledgeBase.move``,
   parent-after-child, so a reader never finds a listed child missing); the compile page map
   follows, and so do the marks of pages a person edited (the render merges into them at their
   new paths); the journal records progress.
3. **Render**: a compile sync under the new schema re-renders the pages whose wikilinks or
   listings changed and drops the emptied directories; the search index drops the old paths.
4. **Finish**: old directories become redirects (a merged pair → the merged directory, a split
   one → its dimension), the access statistics follow the pages, one audit entry per operator.

Every step is idempotent, so a killed pass run again resumes from the journal to the result an
uninterrupted pass gives.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from wikikv.compile import handedits, state
from wikikv.compile.buildgate import BuildQuality
from wikikv.compile.model import derive
from wikikv.compile.pipeline import CompileOptions, Compiler, CompileReport
from wikikv.compile.schema import Schema
from wikikv.errors import AlreadyExists, NotFound, SimulatedCrash
from wikikv.evolve.cost import Weights, schema_terms, total
from wikikv.evolve.layout import View, copy_schema, load_view, view_of
from wikikv.evolve.operators import MAX_OPS, TAU, LLMArchitect, Proposal, arbiter, propose
from wikikv.store.access_stats import AccessStats, load_stats, paused, rekey, save_stats
from wikikv.store.audit import audit_op
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import parent
from wikikv.store.records import DirRecord, RedirectRecord

JOURNAL = "evolve/journal"
SAVE_EVERY = 500
_enc = msgspec.msgpack.Encoder()


class Journal(msgspec.Struct):
    """A pass in flight: what it commits, and how far it got."""

    id: str
    state: str  # moving | render | finish | done
    schema: Schema
    ops: list[dict[str, Any]]
    moves: list[tuple[str, str]]
    dir_redirects: list[tuple[str, str]]
    moved: int = 0
    j_before: float = 0.0
    j_after: float = 0.0
    started_at: float = 0.0


_dec = msgspec.msgpack.Decoder(Journal)


def load_journal(kb: KnowledgeBase) -> Journal | None:
    item = kb.backend.get(kb.keys.system(JOURNAL))
    return None if item is None else _dec.decode(item.value)


def _save_journal(kb: KnowledgeBase, journal: Journal) -> None:
    kb.backend.batch([state_put(kb, JOURNAL, _enc.encode(journal))])


def state_put(kb: KnowledgeBase, name: str, value: bytes) -> Any:
    from wikikv.store.backends.base import Put

    return Put(kb.keys.system(name), value)


@dataclass
class PassReport:
    dry_run: bool
    resumed: bool = False
    proposals: list[Proposal] = field(default_factory=list)
    committed: list[dict[str, Any]] = field(default_factory=list)
    moved: int = 0
    j_before: float = 0.0
    j_after: float = 0.0
    terms_before: dict[str, float] = field(default_factory=dict)
    terms_after: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "resumed": self.resumed,
            "proposals": [p.to_dict() for p in self.proposals],
            "committed": self.committed,
            "moved": self.moved,
            "j_before": round(self.j_before, 3),
            "j_after": round(self.j_after, 3),
            "terms_before": self.terms_before,
            "terms_after": self.terms_after,
            "seconds": round(self.seconds, 3),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


def evolve_pass(
    kb: KnowledgeBase,
    *,
    dry_run: bool = False,
    max_ops: int = MAX_OPS,
    weights: Weights | None = None,
    tau: float = TAU,
    llm: LLMArchitect | None = None,
    fail_after: int | None = None,
    index: bool = True,
    quality: BuildQuality | None = None,
) -> PassReport:
    """Run (or, with ``dry_run``, only propose) one evolution pass; resumes a killed one. The
    pass's own reads are not access statistics. ``quality`` is the build's quality gate for the
    pages the pass re-renders (``wikikv.quality.hooks.ErrorBookGate``; handed in by the caller,
    as to a build)."""
    with paused(kb):
        return _evolve_pass(kb, dry_run, max_ops, weights, tau, llm, fail_after, index, quality)


def _evolve_pass(
    kb: KnowledgeBase,
    dry_run: bool,
    max_ops: int,
    weights: Weights | None,
    tau: float,
    llm: LLMArchitect | None,
    fail_after: int | None,
    index: bool,
    quality: BuildQuality | None,
) -> PassReport:
    w = weights or Weights()
    t0 = time.perf_counter()
    journal = load_journal(kb)
    report = PassReport(dry_run=dry_run)
    if journal is not None and journal.state != "done":
        if dry_run:
            report.committed = journal.ops
            return report
        report.resumed = True
    else:
        t = time.perf_counter()
        view = load_view(kb)
        stats = load_stats(kb)
        report.timings["load"] = time.perf_counter() - t
        t = time.perf_counter()
        schema = view.schema
        proposals = propose(view, stats, w, schema.fanout, schema.max_depth, tau, llm)
        chosen = arbiter(proposals, max_ops)
        report.timings["propose"] = time.perf_counter() - t
        report.proposals = proposals
        before = total(schema_terms(view, stats, w), w)
        report.j_before = report.j_after = before["J"]
        report.terms_before = report.terms_after = before
        if dry_run or not chosen:
            report.committed = [p.to_dict() for p in chosen]
            report.seconds = time.perf_counter() - t0
            return report
        journal = _plan(kb, view, stats, chosen, w)
        journal.j_before = before["J"]
        _save_journal(kb, journal)
    report.committed = journal.ops
    _run(kb, journal, fail_after, index, report, quality)
    report.j_before, report.j_after = journal.j_before, journal.j_after
    report.moved = len(journal.moves)
    report.seconds = time.perf_counter() - t0
    return report


def _plan(
    kb: KnowledgeBase, view: View, stats: AccessStats, chosen: list[Proposal], w: Weights
) -> Journal:
    """The new schema, the page moves and directory redirects the chosen operators imply."""
    schema = copy_schema(view.schema)
    for p in chosen:
        if p.plan is None:
            schema.routing.pop(p.dim, None)
        else:
            schema.routing[p.dim] = p.plan
    work = copy_schema(schema)
    new_model = derive(view.docs, work)
    new_view = view_of(new_model, view.docs, work)
    old_paths = {k: e.path for k, e in view.model.entities.items()}
    moves = sorted(
        (old_paths[k], e.path)
        for k, e in new_model.entities.items()
        if k in old_paths and old_paths[k] != e.path
    )
    old_dirs = {parent(p) for p in old_paths.values()}
    new_dirs = {parent(e.path) for e in new_model.entities.values()}
    merged_into: dict[str, str] = {}
    for p in chosen:
        merged_into.update(p.renames)
    dir_redirects = sorted(
        (d, merged_into.get(d, parent(d))) for d in old_dirs - new_dirs if d.count("/") >= 2
    )
    renames = dict(moves) | dict(dir_redirects)
    after = total(schema_terms(new_view, rekey(stats, renames), w), w)
    ops = [
        p.to_dict() | {"moved": sum(1 for m in moves if _in_dim(m[0], p.dim, view))} for p in chosen
    ]
    return Journal(
        id=f"evolve-{time.time_ns()}",
        state="moving",
        schema=schema,
        ops=ops,
        moves=moves,
        dir_redirects=dir_redirects,
        j_after=after["J"],
        started_at=time.time(),
    )


def _in_dim(path: str, dim: str, view: View) -> bool:
    top = view.dims[dim].top if dim in view.dims else "/" + dim
    return path.startswith(top + "/")


def _run(
    kb: KnowledgeBase,
    journal: Journal,
    fail_after: int | None,
    index: bool,
    report: PassReport,
    quality: BuildQuality | None = None,
) -> None:
    count = 0

    def tick() -> None:
        nonlocal count
        count += 1
        if fail_after is not None and count > fail_after:
            raise SimulatedCrash(f"simulated crash after {fail_after} evolution steps")

    t = time.perf_counter()
    if journal.state == "moving":
        with kb.lease("evolve"):
            pages = state.load_pages(kb)
            made: set[str] = set()  # directories made by this run (one mkdir each)
            for i in range(journal.moved, len(journal.moves)):
                old, new = journal.moves[i]
                tick()
                _move(kb, old, new, made)
                sig = pages.sigs.pop(old, None)
                if sig is not None:
                    pages.sigs[new] = sig
                if (i + 1) % SAVE_EVERY == 0:
                    journal.moved = i + 1
                    state.write(kb, state.pages_ops(kb, pages))
                    _save_journal(kb, journal)
            journal.moved = len(journal.moves)
            # a page a person edited is still theirs at its new path: the render merges into it
            handedits.follow_moves(kb, journal.moves)
            journal.state = "render"
            state.write(kb, [*state.pages_ops(kb, pages), state.schema_op(kb, journal.schema)])
            _save_journal(kb, journal)
    report.timings["move"] = time.perf_counter() - t
    t = time.perf_counter()
    if journal.state == "render":
        tick()
        options = CompileOptions(
            full_render=True,
            index=index,
            quality=quality,
            moved_from={new: old for old, new in journal.moves},
        )
        Compiler(kb, options=options).sync([], set(), CompileReport(job="evolve"))
        if index:
            # The old paths of pages the sync did not re-render (most went with their new
            # path's flush, above).
            _unindex(kb, [old for old, _ in journal.moves])
        journal.state = "finish"
        _save_journal(kb, journal)
    report.timings["render"] = time.perf_counter() - t
    t = time.perf_counter()
    if journal.state == "finish":
        with kb.lease("evolve"):
            for old_dir, target in journal.dir_redirects:
                tick()
                rec = kb.get(old_dir, follow_redirects=False)
                if isinstance(rec, RedirectRecord):
                    continue
                if isinstance(rec, DirRecord) and len(kb.ls_all(old_dir)) > 0:
                    continue  # something else lives there now
                kb.redirect(old_dir, target)
            renames = dict(journal.moves) | dict(journal.dir_redirects)
            stats = load_stats(kb)
            save_stats(kb, rekey(stats, renames))
            ops = [
                audit_op(
                    kb.keys,
                    kb.actor,
                    f"evolve:{op['op']}",
                    "/" + str(op["dim"]),
                    0,
                    0,
                    f"{op['target']}: {op['detail']}; ΔJ {op['delta_j']}; {op['moved']} pages moved",
                )
                for op in journal.ops
            ]
            kb.backend.batch(ops)
            journal.state = "done"
            _save_journal(kb, journal)
    report.timings["finish"] = time.perf_counter() - t


def _move(kb: KnowledgeBase, old: str, new: str, made: set[str]) -> None:
    """Move one page, tolerating a move a killed pass left half done."""
    cur = kb.get(old, follow_redirects=False)
    if isinstance(cur, RedirectRecord):
        return  # done before the kill
    there = kb.get(new, follow_redirects=False)
    if cur is None:
        return
    if there is not None and not isinstance(there, RedirectRecord):
        kb.redirect(old, new)  # copied and linked, but the old page was not replaced yet
        return
    if parent(new) not in made:
        kb.mkdir(parent(new))
        made.add(parent(new))
    try:
        kb.move(old, new, redirect=True)
    except (AlreadyExists, NotFound):
        kb.redirect(old, new)


def _unindex(kb: KnowledgeBase, paths: list[str]) -> None:
    try:
        from wikikv.search.index import IndexWriter
    except ImportError:  # pragma: no cover - the index ships with the package
        return
    with IndexWriter(kb) as writer:
        for p in paths:
            writer.remove(p)


ProgressFn = Callable[[str, int, int], None]
