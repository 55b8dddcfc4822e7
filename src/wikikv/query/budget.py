"""Budgets for the anytime operators: wall-clock milliseconds and/or a count of reads + LLM calls.

The count form makes results independent of the machine's speed, so tests and the retrieval
benchmark use it. ``first_reads``: up to that many reads run whatever the clock says, until the
operator sets it back to 0 — so an anytime operator's first answer (nav: the root and its first
evidence) arrives even when a loaded machine spends the whole millisecond budget on it; the count
limits still apply. Every expensive step asks :meth:`Budget.allows` first and records itself with
:meth:`Budget.charge`; a step is only started while budget remains, so a count budget is never
overrun by more than the one step in flight.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Budget:
    ms: float | None = None
    max_reads: int | None = None
    max_llm_calls: int | None = None
    reads: int = 0
    llm_calls: int = 0
    first_reads: int = 0
    started: float = field(default_factory=time.perf_counter)

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0

    def allows(self, reads: int = 1, llm_calls: int = 0) -> bool:
        """Whether a step costing ``reads`` reads and ``llm_calls`` calls may start now."""
        first = reads > 0 and llm_calls == 0 and self.reads < self.first_reads
        if self.ms is not None and not first and self.elapsed_ms() >= self.ms:
            return False
        if self.max_reads is not None and reads and self.reads >= self.max_reads:
            return False
        return not (
            self.max_llm_calls is not None and llm_calls and self.llm_calls >= self.max_llm_calls
        )

    def charge(self, reads: int = 0, llm_calls: int = 0) -> None:
        self.reads += reads
        self.llm_calls += llm_calls

    def restart(self) -> None:
        self.started = time.perf_counter()
