"""Per-kb parallel construction (WikiKV paper §IV-C): a pool of worker processes, each building
one kb at a time from its own corpus. Distinct kbs share no keys, so the workers need no
coordination; within a kb the build is serial (it holds the kb's lease).
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wikikv.compile.pipeline import CompileOptions


@dataclass(frozen=True)
class BuildJob:
    kb: str
    corpus: str


@dataclass
class BuildOutcome:
    kb: str
    corpus: str
    ok: bool
    report: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0


def _build_one(store_url: str, job: BuildJob, options: CompileOptions | None) -> BuildOutcome:
    """Runs in a worker process: open the store there (handles must not cross processes)."""
    from wikikv.compile.pipeline import Compiler
    from wikikv.errors import WikiKVError
    from wikikv.store.store import open_store

    started = time.perf_counter()
    try:
        with open_store(store_url) as store:
            kb = store.create_kb(job.kb, exist_ok=True)
            report = Compiler(kb, options=options).build(job.corpus)
            store.backend.sync()
        return BuildOutcome(
            job.kb, job.corpus, True, report.to_dict(), seconds=time.perf_counter() - started
        )
    except (WikiKVError, OSError) as exc:
        return BuildOutcome(
            job.kb, job.corpus, False, error=str(exc), seconds=time.perf_counter() - started
        )


def jobs_from_folder(folder: str | Path, prefix: str = "") -> list[BuildJob]:
    """One job per entry of ``folder``: each sub-folder or corpus file is one kb, named after it
    (lowercased, other characters replaced by '-')."""
    import re

    out = []
    for entry in sorted(Path(folder).iterdir()):
        if entry.name.startswith("."):
            continue
        stem = entry.stem if entry.is_file() else entry.name
        name = prefix + (re.sub(r"[^a-z0-9_.-]+", "-", stem.lower()).strip("-.") or "kb")
        out.append(BuildJob(name, str(entry)))
    return out


def build_many(
    store_url: str,
    jobs: Sequence[BuildJob],
    workers: int = 2,
    on_done: Callable[[BuildOutcome], None] | None = None,
    options: CompileOptions | None = None,
) -> list[BuildOutcome]:
    """Build every job's kb with a pool of ``workers`` processes, one kb per worker at a time,
    each with ``options`` (which cross into the workers: their hooks must pickle)."""
    from wikikv.store.keys import check_kb_name

    for job in jobs:
        check_kb_name(job.kb)  # refuse a bad name before any worker starts
    outcomes: list[BuildOutcome] = []
    if workers <= 1:
        for job in jobs:
            outcomes.append(_build_one(store_url, job, options))
            if on_done:
                on_done(outcomes[-1])
        return outcomes
    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(_build_one, store_url, job, options) for job in jobs]
        for fut in as_completed(futures):
            outcomes.append(fut.result())
            if on_done:
                on_done(outcomes[-1])
    order = {job.kb: i for i, job in enumerate(jobs)}
    return sorted(outcomes, key=lambda o: order[o.kb])
