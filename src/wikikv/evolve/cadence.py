"""The evolution cadence of builds (WikiKV paper §III-E): after every ``every`` ingested
documents, one evolution pass. The count since the last pass is a system record, so it carries
across build, add and update runs of the same kb."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from wikikv.compile.buildgate import BuildQuality
from wikikv.evolve.commit import PassReport, evolve_pass
from wikikv.store.backends.base import Put
from wikikv.store.kb import KnowledgeBase

INGESTED = "evolve/ingested"


def after_ingest(
    kb: KnowledgeBase, analysed: int, every: int, quality: BuildQuality | None = None
) -> PassReport | None:
    """Count ``analysed`` documents; when ``every`` have arrived since the last pass, run one
    (re-rendered pages go through ``quality``, the build's quality gate, when given)."""
    if every <= 0 or analysed <= 0:
        return None
    key = kb.keys.system(INGESTED)
    item = kb.backend.get(key)
    count = (msgspec.msgpack.decode(item.value, type=int) if item is not None else 0) + analysed
    if count < every:
        kb.backend.batch([Put(key, msgspec.msgpack.encode(count))])
        return None
    report = evolve_pass(kb, quality=quality)
    kb.backend.batch([Put(key, msgspec.msgpack.encode(0))])
    return report


def every(n: int, quality: BuildQuality | None = None) -> Callable[[KnowledgeBase, int], int]:
    """A build hook (``CompileOptions(after_ingest=every(n))``): one evolution pass after every
    ``n`` ingested documents; returns the operators the pass committed (0 without a pass). Pass
    the build's quality gate as ``quality`` so re-rendered pages are checked as built ones are."""

    def hook(kb: KnowledgeBase, analysed: int) -> int:
        report = after_ingest(kb, analysed, n, quality)
        return len(report.committed) if report is not None else 0

    return hook
