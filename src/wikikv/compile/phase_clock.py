"""The wall and CPU time of a sync's phases (CompileReport.timings)."""

from __future__ import annotations

import time
from typing import Any

from wikikv.compile.analyze_workers import cpu_with_children
from wikikv.forked import process_cpu


class PhaseClock:
    """Wall and CPU seconds of a sync's phases, into ``timings`` as ``name`` and ``name_cpu``:
    this process's CPU with that of the workers that ended meanwhile (phase A's analysis
    workers), and ``name_index_cpu`` the CPU of the build's index worker (a live process, so
    not in the first) when there is one."""

    def __init__(self, timings: dict[str, float], stager: Any) -> None:
        self.timings = timings
        self.worker = None if stager is None else stager.pid
        self._mark()

    def _mark(self) -> None:
        self.t, self.cpu = time.perf_counter(), cpu_with_children()
        self.worker_cpu = 0.0 if self.worker is None else process_cpu(self.worker)

    def lap(self, name: str | None) -> None:
        """Record the time since the last lap as phase ``name`` (None: not recorded)."""
        if name is not None:
            self.timings[name] = time.perf_counter() - self.t
            self.timings[name + "_cpu"] = cpu_with_children() - self.cpu
            if self.worker is not None:
                self.timings[name + "_index_cpu"] = process_cpu(self.worker) - self.worker_cpu
        self._mark()
